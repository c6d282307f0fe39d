/**
 * The actions on whole session files: a fork, a clone or a new session (each
 * a new file the window switches to), the trash and its way back, a branch
 * exported as a download, Open in Pi, and an import into a project's folder
 * (the file's content read here under `arbor serve`; the desktop app's own
 * dialog otherwise).
 */

import { screenErrors } from "../../../../shared/error-texts.ts";
import {
  type ExportFormat,
  type ExportResult,
  MAX_IMPORT_BYTES,
  type SessionView,
} from "../../../../shared/ipc/contract.ts";
import { downloadFile } from "../../manage/download.ts";
import type { ManageKit } from "./manage-kit.ts";

export interface SessionFiles {
  fork(entryId: string, position: "at" | "before"): Promise<void>;
  /** Copies the branch ending at `leafId` (the file's leaf for null) into a new session. */
  clone(leafId: string | null): Promise<void>;
  newSession(projectId: string): Promise<void>;
  trash(sessionId: string): Promise<void>;
  restore(trashId: string): Promise<void>;
  exportBranch(format: ExportFormat, target: { sessionId?: string; leafId?: string | null }): Promise<void>;
  openInPi(sessionId?: string): Promise<void>;
  /** Imports a file the user dropped or chose, by its content. */
  importFile(file: File, projectId: string): Promise<void>;
  /** The desktop app's own open dialog chooses the file (any size, by path). */
  importByDialog(projectId: string): Promise<void>;
}

/** What the files part asks of the session part. */
export interface SwitchNeeds {
  switchBy<T extends SessionView>(request: () => Promise<T>): Promise<T | null>;
}

const EXPORT_NAMES: Record<ExportFormat, string> = { markdown: "Markdown", html: "HTML", jsonl: "JSONL" };

export function createSessionFiles(manage: ManageKit, needs: SwitchNeeds): SessionFiles {
  const { kit } = manage;
  const { client } = kit;
  const save: (file: ExportResult) => void = kit.options.saveFile ?? downloadFile;

  /** A request that switches the window to a new session; null when it failed (the user was told). */
  async function switched<T extends SessionView>(request: () => Promise<T>, title: string) {
    try {
      return await needs.switchBy(request);
    } catch (error) {
      manage.fail(title, error);
      return null;
    }
  }

  return {
    async fork(entryId, position) {
      const request = () => client.request("session.fork", { entryId, position });
      const view = await switched(request, "The session was not forked");
      if (!view) return;
      if (position === "before" && view.selectedText !== null) {
        manage.ask({ kind: "fork-text", text: view.selectedText });
      } else manage.toast("Forked into a new session: it is open now.");
    },
    async clone(leafId) {
      const request = () => client.request("session.clone", leafId === null ? {} : { leafId });
      if (await switched(request, "The branch was not cloned"))
        manage.toast("Cloned into a new session: it is open now.");
    },
    async newSession(projectId) {
      const request = () => client.request("session.new", { projectId });
      if (await switched(request, "No session was started")) manage.toast("New session started.");
    },
    async trash(sessionId) {
      const result = await manage.confirmable(
        "session.trash",
        { sessionId },
        "The session was not moved to the trash",
      );
      if (!result) return;
      manage.toast(
        "Moved to the trash.",
        result.restorable ? { kind: "restore", trashId: result.trashId } : null,
      );
    },
    async restore(trashId) {
      const result = await manage.request("session.restore", { trashId }, "The session was not restored");
      if (result) manage.toast("Restored from the trash.");
    },
    async exportBranch(format, target) {
      const result = await manage.request(
        "session.export",
        { ...target, format },
        `The ${EXPORT_NAMES[format]} export was not made`,
      );
      if (!result) return;
      save(result);
      manage.toast(`Exported ${result.fileName}.`);
    },
    async openInPi(sessionId) {
      const result = await manage.request(
        "session.openInPi",
        sessionId === undefined ? {} : { sessionId },
        "Pi was not started",
      );
      if (!result) return;
      if (result.launched) manage.toast(`Pi is starting in a terminal: ${result.command}`);
      else manage.ask({ kind: "open-in-pi", command: result.command, message: result.message ?? "" });
    },
    importFile: (file, projectId) => importByContent(manage, file, projectId),
    async importByDialog(projectId) {
      const result = await manage.request("session.import", { projectId }, "The session was not imported");
      if (result) manage.ask({ kind: "import-report", fileName: result.path, result });
    },
  };
}

/** Imports a file the user dropped or chose by its content (a browser window never sends a path). */
async function importByContent(manage: ManageKit, file: File, projectId: string) {
  const title = `${file.name} was not imported`;
  if (file.size > MAX_IMPORT_BYTES) {
    manage.fail(title, new Error(screenErrors.importTooLarge(file.size, MAX_IMPORT_BYTES)));
    return;
  }
  let content: string;
  try {
    content = await file.text();
  } catch (error) {
    manage.fail(title, error);
    return;
  }
  const result = await manage.request("session.import", { projectId, content, fileName: file.name }, title);
  if (result) manage.ask({ kind: "import-report", fileName: file.name, result });
}
