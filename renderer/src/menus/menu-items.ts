/**
 * The context menus' items, as data: one function per menu returns its
 * items in order, so a new action is one more element (a test can read
 * them without rendering). What each item does is the controller's.
 */

import type { ExportFormat, TreeNodeView } from "../../../shared/ipc/contract.ts";
import type { ManageActions } from "../state/controller/session-manage.ts";

export type MenuItem =
  | {
      kind: "item";
      /** Stable among its menu's items (a test's handle, React's key). */
      id: string;
      label: string;
      run: () => void;
      /** Why it is there or what it does, as the item's title. */
      hint?: string;
      /** A key that does the same, shown beside it. */
      shortcut?: string;
      disabled?: boolean;
    }
  | { kind: "separator"; id: string };

const EXPORTS: { format: ExportFormat; label: string }[] = [
  { format: "markdown", label: "Export branch as Markdown" },
  { format: "html", label: "Export branch as HTML" },
  { format: "jsonl", label: "Export branch as JSONL (a Pi session)" },
];

/** What the entry menu needs to know of its entry. */
export interface EntryMenuTarget {
  entryId: string;
  node: Pick<TreeNodeView, "kind" | "type" | "role" | "label" | "archived">;
  /** The entry whose archive marker hides this one (itself or above it); null when not archived. */
  archiveRoot: string | null;
}

/** What the menus run besides `controller.manage`: the label dialog is the explorer's (Shift+L). */
export interface MenuActions {
  manage: ManageActions;
  beginLabel(entryId: string): void;
  openSession(sessionId: string): void;
}

const separator = (id: string): MenuItem => ({ kind: "separator", id });

/** The menu of an entry in the graph (right-click, or Shift+F10 on the cursor's entry). */
export function entryMenuItems(target: EntryMenuTarget, actions: MenuActions): MenuItem[] {
  const { entryId, node, archiveRoot } = target;
  const { manage } = actions;
  const isMessage = node.type === "message";
  const items: MenuItem[] = [
    {
      kind: "item",
      id: "label",
      label: "Label…",
      shortcut: "Shift+L",
      run: () => actions.beginLabel(entryId),
    },
  ];
  if (node.label !== null)
    items.push({
      kind: "item",
      id: "unlabel",
      label: "Remove label",
      run: () => void manage.removeLabel(entryId),
    });
  items.push(
    {
      kind: "item",
      id: "continue",
      label: "Continue in Pi from here…",
      hint: "Pi resumes from this entry the next time it opens the session",
      run: () => manage.beginContinue(entryId),
    },
    separator("files"),
    {
      kind: "item",
      id: "fork",
      label: "Fork here",
      hint: "A new session whose branch ends at this entry",
      run: () => void manage.fork(entryId, "at"),
    },
  );
  if (isMessage && node.role === "user")
    items.push({
      kind: "item",
      id: "fork-before",
      label: "Fork before this prompt",
      hint: "As Pi's /fork: a new session up to this prompt, its text offered to edit",
      run: () => void manage.fork(entryId, "before"),
    });
  items.push(
    {
      kind: "item",
      id: "clone",
      label: "Clone this branch",
      hint: "As Pi's /clone: a new session with the branch ending here",
      run: () => void manage.clone(entryId),
    },
    archiveRoot !== null
      ? {
          kind: "item",
          id: "unarchive",
          label: "Unarchive branch",
          hint: `Shows the branch archived at ${archiveRoot} again`,
          run: () => void manage.setArchived(archiveRoot, false),
        }
      : {
          kind: "item",
          id: "archive",
          label: "Archive branch",
          hint: "Hides this entry and everything below it; nothing is deleted, Pi sees no change",
          run: () => void manage.setArchived(entryId, true),
        },
    separator("context"),
    {
      kind: "item",
      id: "note",
      label: "Add a note to the context…",
      hint: "A message the model reads from here on",
      run: () => manage.beginNote(entryId),
    },
  );
  if (isMessage)
    items.push(
      {
        kind: "item",
        id: "edit-context",
        label: "Edit in context… (Pi 1.x only)",
        hint: "Replaces what this message contributes to the context; Pi 0.73 ignores it",
        run: () => manage.beginContextEdit(entryId, false),
      },
      {
        kind: "item",
        id: "drop-context",
        label: "Drop from context… (Pi 1.x only)",
        hint: "Leaves this message out of the context; Pi 0.73 ignores it",
        run: () => manage.beginContextEdit(entryId, true),
      },
    );
  items.push(separator("export"));
  for (const { format, label } of EXPORTS)
    items.push({
      kind: "item",
      id: `export-${format}`,
      label,
      run: () => void manage.exportBranch(format, { leafId: entryId }),
    });
  items.push({
    kind: "item",
    id: "copy-id",
    label: "Copy entry id",
    run: () => void manage.copyText(entryId, "Entry id"),
  });
  return items;
}

/** What the library row menu needs to know of its session. */
export interface SessionMenuTarget {
  sessionId: string;
  projectId: string;
  /** The session cannot be read as one (its row shows why): only what needs no reading is offered. */
  broken: boolean;
}

/** The menu of a session in the library (right-click, or Shift+F10 on the focused row). */
export function sessionRowMenuItems(target: SessionMenuTarget, actions: MenuActions): MenuItem[] {
  const { sessionId, projectId, broken } = target;
  const { manage } = actions;
  const items: MenuItem[] = [
    { kind: "item", id: "open", label: "Open", run: () => actions.openSession(sessionId) },
    {
      kind: "item",
      id: "rename",
      label: "Rename…",
      disabled: broken,
      run: () => void manage.beginRename(sessionId),
    },
    { kind: "item", id: "open-in-pi", label: "Open in Pi", run: () => void manage.openInPi(sessionId) },
    {
      kind: "item",
      id: "clone",
      label: "Clone",
      hint: "A new session with this one's current branch",
      disabled: broken,
      run: () => void manage.cloneSession(sessionId),
    },
    separator("export"),
  ];
  for (const { format, label } of EXPORTS)
    items.push({
      kind: "item",
      id: `export-${format}`,
      label: label.replace("branch", "current branch"),
      disabled: broken,
      run: () => void manage.exportBranch(format, { sessionId }),
    });
  items.push(
    separator("project"),
    {
      kind: "item",
      id: "new",
      label: "New session in this project",
      run: () => void manage.newSession(projectId),
    },
    {
      kind: "item",
      id: "import",
      label: "Import a session into this project…",
      run: () => void manage.chooseImport(projectId),
    },
    separator("trash"),
    { kind: "item", id: "trash", label: "Move to trash…", run: () => manage.beginTrash(sessionId) },
  );
  return items;
}
