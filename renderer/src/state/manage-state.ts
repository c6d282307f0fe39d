/**
 * The state of managing sessions in the window (issue 19): the context menu
 * that is open, the dialog that asks or tells something, and the toast that
 * offers to undo what was just done. Data only: what each action does is the
 * controller's (controller/session-manage.ts), what each looks like the
 * components' (renderer/src/menus, renderer/src/manage).
 */

import type { ContextView, ExportFormat, ImportResult } from "../../../shared/ipc/contract.ts";

/** Where a context menu opens: at the pointer, or (null) at its target's element, for the keyboard. */
export type MenuAnchor = { x: number; y: number } | null;

export type ManageMenu =
  | { kind: "entry"; entryId: string; at: MenuAnchor }
  | { kind: "session"; sessionId: string; at: MenuAnchor };

/** The context a context-edit dialog shows the effect on (`session.context` of where it is written). */
export type EditedContext =
  | { status: "loading" }
  | { status: "ready"; view: ContextView }
  | { status: "error"; message: string };

export type ManageDialog =
  | { kind: "rename"; name: string }
  | { kind: "continue"; entryId: string }
  /** After a continue: Pi resumes there next time; offers Open in Pi. */
  | { kind: "continued"; entryId: string }
  /** After a fork before a user message: its text, to edit and copy into Pi (as Pi's /fork does). */
  | { kind: "fork-text"; text: string }
  /** `at`: the entry the note follows; null for the file's leaf. */
  | { kind: "note"; at: string | null }
  | {
      kind: "context-edit";
      targetId: string;
      /** Where the edit is written: null for the file's leaf. */
      at: string | null;
      drop: boolean;
      context: EditedContext;
    }
  | { kind: "export"; sessionId: string | null; leafId: string | null; format: ExportFormat }
  | { kind: "trash"; sessionId: string; name: string; open: boolean }
  /** A write refused because a Pi is probably writing the file: confirm to send it again. */
  | { kind: "live"; message: string }
  | { kind: "error"; title: string; message: string }
  /** Open in Pi could not start a terminal: the command to run by hand. */
  | { kind: "open-in-pi"; command: string; message: string }
  | { kind: "import-report"; fileName: string; result: ImportResult };

export type ToastAction = { kind: "undo"; entryId: string } | { kind: "restore"; trashId: string };

/** A short message about what was just done, with the way back when there is one. */
export interface ActionToast {
  serial: number;
  text: string;
  action: ToastAction | null;
}

export interface ManageState {
  menu: ManageMenu | null;
  dialog: ManageDialog | null;
  toast: ActionToast | null;
  /** A file chooser for an import into this project was asked for (the window opens it): a new serial each time. */
  importRequest: { projectId: string; serial: number } | null;
}

export const initialManageState: ManageState = {
  menu: null,
  dialog: null,
  toast: null,
  importRequest: null,
};
