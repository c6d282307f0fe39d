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
  /** "Compare with…": the tip picker for an entry (compare/start-compare.ts). */
  compareWith(entryId: string): void;
  /** A fork compared with the session it came from, each at its tip. */
  compareWithSource(forkSessionId: string, sourceSessionId: string): void;
}

const separator = (id: string): MenuItem => ({ kind: "separator", id });

/** Its label, and where Pi goes on from it: a continue, a fork, a clone. */
function branchItems(target: EntryMenuTarget, actions: MenuActions): MenuItem[] {
  const { entryId, node } = target;
  const { manage } = actions;
  const item = (id: string, label: string, run: () => void, hint?: string): MenuItem =>
    hint === undefined ? { kind: "item", id, label, run } : { kind: "item", id, label, run, hint };
  return [
    {
      kind: "item",
      id: "label",
      label: "Label…",
      shortcut: "Shift+L",
      run: () => actions.beginLabel(entryId),
    },
    ...(node.label !== null ? [item("unlabel", "Remove label", () => void manage.removeLabel(entryId))] : []),
    item(
      "continue",
      "Continue in Pi from here…",
      () => manage.beginContinue(entryId),
      "Pi resumes from this entry the next time it opens the session",
    ),
    separator("files"),
    item(
      "fork",
      "Fork here",
      () => void manage.fork(entryId, "at"),
      "A new session whose branch ends at this entry",
    ),
    ...(node.type === "message" && node.role === "user"
      ? [
          item(
            "fork-before",
            "Fork before this prompt",
            () => void manage.fork(entryId, "before"),
            "As Pi's /fork: a new session up to this prompt, its text offered to edit",
          ),
        ]
      : []),
    item(
      "clone",
      "Clone this branch",
      () => void manage.clone(entryId),
      "As Pi's /clone: a new session with the branch ending here",
    ),
  ];
}

/** Archiving, and what the model reads: a note, a message edited or dropped (messages only). */
function contextItems(target: EntryMenuTarget, actions: MenuActions): MenuItem[] {
  const { entryId, node, archiveRoot } = target;
  const { manage } = actions;
  const items: MenuItem[] = [
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
  ];
  if (node.type !== "message") return items;
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
  return items;
}

/** The menu of an entry in the graph (right-click, or Shift+F10 on the cursor's entry). */
export function entryMenuItems(target: EntryMenuTarget, actions: MenuActions): MenuItem[] {
  const { entryId } = target;
  const { manage } = actions;
  return [
    ...branchItems(target, actions),
    ...contextItems(target, actions),
    separator("comparing"),
    { kind: "item", id: "compare", label: "Compare with…", run: () => actions.compareWith(entryId) },
    separator("export"),
    ...EXPORTS.map(
      ({ format, label }): MenuItem => ({
        kind: "item",
        id: `export-${format}`,
        label,
        run: () => void manage.exportBranch(format, { leafId: entryId }),
      }),
    ),
    {
      kind: "item",
      id: "copy-id",
      label: "Copy entry id",
      run: () => void manage.copyText(entryId, "Entry id"),
    },
    // The session's own actions the library row offers too, so the graph and the Entry tab reach them.
    separator("session"),
    { kind: "item", id: "rename", label: "Rename session…", run: () => void manage.beginRename() },
    {
      kind: "item",
      id: "open-in-pi",
      label: "Open session in Pi",
      hint: "Pi resumes from the file's last entry",
      run: () => void manage.openInPi(),
    },
  ];
}

/** What the library row menu needs to know of its session. */
export interface SessionMenuTarget {
  sessionId: string;
  projectId: string;
  /** The session cannot be read as one (its row shows why): only what needs no reading is offered. */
  broken: boolean;
  /** The library session it was forked or cloned from, when there is one. */
  sourceSessionId?: string | null;
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
  ];
  const source = target.sourceSessionId;
  if (source)
    items.push({
      kind: "item",
      id: "compare-source",
      label: "Compare with its source",
      disabled: broken,
      run: () => actions.compareWithSource(sessionId, source),
    });
  items.push(separator("export"));
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
