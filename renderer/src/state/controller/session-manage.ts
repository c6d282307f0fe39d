/**
 * The session-management part of the controller (issue 19): the context
 * menus, the dialogs that ask before a change and tell after it, the undo
 * toast, and the desktop app's Session menu. The writes are
 * entry-writes.ts's, the actions on whole files session-files.ts's; every
 * refusal reaches the user as the main process's own sentence, and a write
 * into a session a Pi is probably writing waits for the user to confirm.
 */

import { screenErrors } from "../../../../shared/error-texts.ts";
import { readWholeContext } from "../../../../shared/ipc/context-reading.ts";
import {
  type ExportFormat,
  MENU_COMMANDS,
  type MenuCommand,
  type SessionListItem,
  type TreeNodeView,
} from "../../../../shared/ipc/contract.ts";
import type { EditedContext, MenuAnchor } from "../manage-state.ts";
import { createEntryWrites } from "./entry-writes.ts";
import { type ControllerKit, messageOf } from "./kit.ts";
import { createManageKit, type ManageKit } from "./manage-kit.ts";
import { createSessionFiles, type SessionFiles, type SwitchNeeds } from "./session-files.ts";

/** Everything a person can do to sessions from the window: `controller.manage`. */
export interface ManageActions {
  openEntryMenu(entryId: string, at: MenuAnchor): void;
  openSessionMenu(sessionId: string, at: MenuAnchor): void;
  closeMenu(): void;
  closeDialog(): void;
  /** The answer to "Pi is writing this session": send the refused write again, or not. */
  answerLive(confirmed: boolean): void;
  dismissToast(): void;
  /** The toast's Undo: reverses the write, or restores the trashed session. */
  runToastAction(): Promise<void>;
  setLabel(targetId: string, label: string): Promise<void>;
  removeLabel(entryId: string): Promise<void>;
  beginContinue(entryId: string): void;
  submitContinue(summary: string): Promise<void>;
  setArchived(entryId: string, archived: boolean): Promise<void>;
  beginNote(at: string): void;
  submitNote(text: string): Promise<void>;
  beginContextEdit(targetId: string, drop: boolean): void;
  submitContextEdit(text: string | null): Promise<void>;
  undo(entryId: string): Promise<void>;
  undoLast(): Promise<void>;
  copyText(text: string, what: string): Promise<void>;
  fork(entryId: string, position: "at" | "before"): Promise<void>;
  clone(leafId: string | null): Promise<void>;
  /** Clones a library session's current branch (opening it first when it is another one). */
  cloneSession(sessionId: string): Promise<void>;
  /** A new session in the project (the open session's by default). */
  newSession(projectId?: string): Promise<void>;
  /** Asks for a new name for the session (opening it first when it is another one). */
  beginRename(sessionId?: string): Promise<void>;
  submitRename(name: string): Promise<void>;
  beginTrash(sessionId?: string): void;
  submitTrash(): Promise<void>;
  restore(trashId: string): Promise<void>;
  /** Asks for the export's format (the desktop app's Session menu). */
  beginExport(leafId: string | null): void;
  exportBranch(format: ExportFormat, target?: { sessionId?: string; leafId?: string | null }): Promise<void>;
  openInPi(sessionId?: string): Promise<void>;
  /** Chooses a file to import into the project (the open session's by default). */
  chooseImport(projectId?: string): Promise<void>;
  importFile(file: File, projectId?: string): Promise<void>;
  /** A command of the desktop app's Session menu; anything not in `MENU_COMMANDS` is ignored. */
  runMenuCommand(command: unknown): void;
}

export interface ManageNeeds extends SwitchNeeds {
  openSession(sessionId: string): Promise<void>;
  /** The explorer's label editor for an entry (Shift+L). */
  beginLabel(entryId: string): void;
}

export interface ManagePart {
  readonly actions: ManageActions;
  /** Follows the desktop app's Session menu, and forgets a session's menus and dialogs when it closes. */
  subscribe(): void;
}

export function createSessionManage(kit: ControllerKit, needs: ManageNeeds): ManagePart {
  const manage = createManageKit(kit);
  const writes = createEntryWrites(manage);
  const files = createSessionFiles(manage, needs);
  const { stores } = kit;
  const dialogs = createDialogFlows(manage, files, needs);

  /** A command for the open session's project, or the reason there is none. */
  function withProject(projectId: string | undefined, run: (projectId: string) => Promise<void>) {
    const project = projectId ?? manage.projectOf();
    if (project !== null) return run(project);
    manage.fail("Not done", new Error(manage.view() ? screenErrors.noProject : screenErrors.noSessionOpen));
    return Promise.resolve();
  }

  async function chooseImport(projectId?: string) {
    await withProject(projectId, async (project) => {
      // The desktop app's own dialog imports any size by path; a browser window reads the file it is given.
      if (kit.options.transport === "electron") await files.importByDialog(project);
      else {
        const serial = (stores.manage.getState().importRequest?.serial ?? 0) + 1;
        stores.manage.setState({ importRequest: { projectId: project, serial }, menu: null });
      }
    });
  }

  const actions: ManageActions = {
    ...layerActions(manage, writes, files),
    setLabel: writes.setLabel,
    removeLabel: writes.removeLabel,
    ...dialogs.entry(writes),
    setArchived: writes.setArchived,
    undo: writes.undo,
    undoLast: writes.undoLast,
    fork: files.fork,
    clone: files.clone,
    async cloneSession(sessionId) {
      if (manage.view()?.sessionId !== sessionId) await needs.openSession(sessionId);
      if (manage.view()?.sessionId === sessionId) await files.clone(null);
    },
    newSession: (projectId) => withProject(projectId, files.newSession),
    ...dialogs.session(writes),
    restore: files.restore,
    exportBranch: (format, target = {}) => files.exportBranch(format, target),
    openInPi: files.openInPi,
    chooseImport,
    importFile: (file, projectId) => withProject(projectId, (project) => files.importFile(file, project)),
    runMenuCommand(command) {
      if (typeof command !== "string" || !(MENU_COMMANDS as readonly string[]).includes(command)) return;
      runCommand(manage, actions, needs, command as MenuCommand);
    },
  };

  return {
    actions,
    subscribe() {
      kit.own(
        kit.client.on("app.menuCommand", ({ command }) => actions.runMenuCommand(command)),
        // Another session on view: menus and questions about the old one go with it.
        stores.session.subscribe((state, previous) => {
          if (state.view?.sessionId === previous.view?.sessionId) return;
          const { menu, dialog } = stores.manage.getState();
          if (menu?.kind === "entry") stores.manage.setState({ menu: null });
          if (dialog && ENTRY_DIALOGS.has(dialog.kind)) stores.manage.setState({ dialog: null });
        }),
      );
    },
  };
}

/** The desktop app's Session menu: the same actions as the window's menus, on the session on view. */
function runCommand(manage: ManageKit, actions: ManageActions, needs: ManageNeeds, command: MenuCommand) {
  const view = manage.view();
  if (command === "newSession") return void actions.newSession();
  if (command === "import") return void actions.chooseImport();
  if (!view) {
    manage.fail("Not done", new Error(screenErrors.noSessionOpen));
    return;
  }
  const selected = manage.kit.stores.session.getState().selectedId;
  switch (command) {
    case "rename":
      return void actions.beginRename();
    case "clone":
      return void actions.clone(selected);
    case "export":
      return actions.beginExport(selected);
    case "openInPi":
      return void actions.openInPi();
    case "trash":
      return actions.beginTrash();
    case "undo":
      return void actions.undoLast();
  }
  if (selected === null || !manage.kit.model()?.nodesById.has(selected)) {
    manage.fail("Not done", new Error(screenErrors.noEntrySelected));
    return;
  }
  runEntryCommand(manage, actions, needs, command, selected);
}

/** The desktop app's Entry menu: the entry menu's actions, on the selected entry. */
function runEntryCommand(
  manage: ManageKit,
  actions: ManageActions,
  needs: ManageNeeds,
  command: MenuCommand,
  entryId: string,
) {
  switch (command) {
    case "label":
      return needs.beginLabel(entryId);
    case "removeLabel":
      return void actions.removeLabel(entryId);
    case "continue":
      return actions.beginContinue(entryId);
    case "fork":
      return void actions.fork(entryId, "at");
    case "forkBefore":
      return void actions.fork(entryId, "before");
    case "archive": {
      const root = archiveRootOf(manage.kit.model()?.nodesById ?? new Map(), entryId);
      return void (root === null ? actions.setArchived(entryId, true) : actions.setArchived(root, false));
    }
    case "note":
      return actions.beginNote(entryId);
    case "editContext":
      return actions.beginContextEdit(entryId, false);
    case "dropContext":
      return actions.beginContextEdit(entryId, true);
  }
}

/** The entry whose archive marker hides `entryId`: the topmost archived entry above it (itself included). */
export function archiveRootOf(
  byId: { get(id: string): TreeNodeView | undefined },
  entryId: string,
): string | null {
  let root: string | null = null;
  for (
    let node = byId.get(entryId);
    node?.archived;
    node = node.parentId ? byId.get(node.parentId) : undefined
  )
    root = node.id;
  return root;
}

/** The menus, the dialog and the toast themselves: opening, closing, answering, the toast's way back. */
function layerActions(
  manage: ManageKit,
  writes: EntryWrites,
  files: SessionFiles,
): Pick<
  ManageActions,
  | "openEntryMenu"
  | "openSessionMenu"
  | "closeMenu"
  | "closeDialog"
  | "answerLive"
  | "dismissToast"
  | "runToastAction"
  | "copyText"
> {
  const { kit } = manage;
  const store = kit.stores.manage;
  return {
    openEntryMenu: (entryId, at) => store.setState({ menu: { kind: "entry", entryId, at } }),
    openSessionMenu: (sessionId, at) => store.setState({ menu: { kind: "session", sessionId, at } }),
    closeMenu: () => store.setState({ menu: null }),
    closeDialog: manage.closeDialog,
    answerLive: manage.answerLive,
    dismissToast: () => store.setState({ toast: null }),
    async runToastAction() {
      const toast = store.getState().toast;
      if (!toast?.action) return;
      store.setState({ toast: null });
      if (toast.action.kind === "undo") await writes.undo(toast.action.entryId);
      else await files.restore(toast.action.trashId);
    },
    async copyText(text, what) {
      try {
        await kit.writeClipboard(text);
        manage.toast(`${what} copied.`);
      } catch (error) {
        kit.notify("error", screenErrors.notCopied(messageOf(error)));
      }
    },
  };
}

/** Dialogs about entries of the session on view: they make no sense once another session is shown. */
const ENTRY_DIALOGS: ReadonlySet<string> = new Set(["continue", "note", "context-edit"]);

type EntryWrites = ReturnType<typeof createEntryWrites>;

/** The actions that ask before they act: each `beginX` opens its dialog, `submitX` does it. */
function createDialogFlows(manage: ManageKit, files: SessionFiles, needs: ManageNeeds) {
  const { kit } = manage;
  const { manage: store, session } = kit.stores;
  const dialog = () => store.getState().dialog;

  function entry(
    writes: EntryWrites,
  ): Pick<
    ManageActions,
    "beginContinue" | "submitContinue" | "beginNote" | "submitNote" | "beginContextEdit" | "submitContextEdit"
  > {
    return {
      beginContinue: (entryId) => manage.ask({ kind: "continue", entryId }),
      async submitContinue(summary) {
        const asked = dialog();
        if (asked?.kind !== "continue") return;
        manage.closeDialog();
        if (await writes.continueFrom(asked.entryId, summary))
          manage.ask({ kind: "continued", entryId: asked.entryId });
      },
      beginNote(at) {
        const leaf = manage.view()?.leafId ?? null;
        manage.ask({ kind: "note", at: at === leaf ? null : at });
      },
      async submitNote(text) {
        const asked = dialog();
        if (asked?.kind !== "note") return;
        manage.closeDialog();
        await writes.addNote(text, asked.at);
      },
      beginContextEdit(targetId, drop) {
        const at = editedAt(kit, targetId);
        manage.ask({ kind: "context-edit", targetId, at, drop, context: { status: "loading" } });
        void loadEditedContext(kit, at ?? manage.view()?.leafId ?? null, targetId);
      },
      async submitContextEdit(text) {
        const asked = dialog();
        if (asked?.kind !== "context-edit") return;
        manage.closeDialog();
        await writes.editContext(asked.targetId, asked.drop ? null : text, asked.at);
      },
    };
  }

  function session_(
    writes: EntryWrites,
  ): Pick<ManageActions, "beginRename" | "submitRename" | "beginTrash" | "submitTrash" | "beginExport"> {
    return {
      async beginRename(sessionId) {
        if (sessionId !== undefined && manage.view()?.sessionId !== sessionId)
          await needs.openSession(sessionId);
        const view = manage.view();
        if (!view || (sessionId !== undefined && view.sessionId !== sessionId)) return;
        manage.ask({ kind: "rename", name: view.name ?? "" });
      },
      async submitRename(name) {
        if (dialog()?.kind !== "rename") return;
        manage.closeDialog();
        await writes.rename(name);
      },
      beginTrash(sessionId) {
        const id = sessionId ?? manage.view()?.sessionId;
        if (id === undefined) return;
        const item = listedSession(kit, id);
        const name = item ? (item.name ?? item.firstMessage) || item.path : (manage.view()?.name ?? id);
        manage.ask({ kind: "trash", sessionId: id, name, open: session.getState().view?.sessionId === id });
      },
      async submitTrash() {
        const asked = dialog();
        if (asked?.kind !== "trash") return;
        manage.closeDialog();
        await files.trash(asked.sessionId);
      },
      beginExport: (leafId) => manage.ask({ kind: "export", sessionId: null, leafId, format: "markdown" }),
    };
  }

  return { entry, session: session_ };
}

function listedSession(kit: ControllerKit, sessionId: string): SessionListItem | null {
  for (const project of kit.stores.library.getState().listing?.projects ?? [])
    for (const item of project.sessions) if (item.sessionId === sessionId) return item;
  return null;
}

/**
 * Where a context edit of `targetId` is written: after the file's leaf (null)
 * when the target is on its branch, so Pi resumes as before; else after the
 * selected entry when the target is on the selection's branch; else after the
 * target itself. Walks parent positions (a dialog opening, not a hot path).
 */
function editedAt(kit: ControllerKit, targetId: string): string | null {
  const view = kit.stores.session.getState().view;
  if (!view) return null;
  const { indexOf, parent } = kit.selectors.indexed(view);
  const target = indexOf.get(targetId);
  const onBranch = (leafId: string | null) => {
    const leaf = leafId === null ? undefined : indexOf.get(leafId);
    if (leaf === undefined || target === undefined) return false;
    for (let i = leaf, steps = 0; i !== -1 && steps <= parent.length; i = parent[i]!, steps++)
      if (i === target) return true;
    return false;
  };
  if (onBranch(view.leafId)) return null;
  const selected = kit.stores.session.getState().selectedId;
  return onBranch(selected) ? selected : targetId;
}

/** The context the edit changes, as it is now, for the dialog's before and after. */
async function loadEditedContext(kit: ControllerKit, leafId: string | null, targetId: string) {
  let context: EditedContext;
  try {
    // Whole: the dialog shows the context before and after the edit, every message of it.
    context = { status: "ready", view: await readWholeContext(kit.client, leafId, false) };
  } catch (error) {
    context = { status: "error", message: messageOf(error) };
  }
  const asked = kit.stores.manage.getState().dialog;
  if (kit.isDisposed() || asked?.kind !== "context-edit" || asked.targetId !== targetId) return;
  kit.stores.manage.setState({ dialog: { ...asked, context } });
}
