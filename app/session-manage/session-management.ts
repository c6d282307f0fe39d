/**
 * What a window does to whole sessions of the library, named by the ids
 * Arbor issued: move one to the trash (closing it first if this window has
 * it open) and back, export a branch, open it in Pi, import a file into a
 * project's folder. Paths never come from the window: they are the
 * library's (a session id), or chosen in the main process's own dialog.
 */

import { basename } from "node:path";
import { manageErrors, sessionErrors } from "../../shared/error-texts.ts";
import {
  ArborError,
  type ExportFormat,
  type ExportResult,
  type ImportResult,
  MAX_IMPORT_BYTES,
  type OpenInPiResult,
  type RestoreResult,
  type TrashResult,
} from "../../shared/ipc/contract.ts";
import type { EventSink } from "../ipc/event-sink.ts";
import type { IssuedIds } from "../ipc/issued-ids.ts";
import type { LibraryView } from "../library-view/library-view.ts";
import type { PreferencesFile } from "../preferences/preferences-file.ts";
import type { SessionRuntime } from "../runtime/session-runtime.ts";
import { requireConfirmedIfLive } from "../store/live-file.ts";
import { openIndexedFile } from "../store/open-indexed-file.ts";
import { exportBranch } from "./export-session.ts";
import { type ImportedSession, importSessionBytes, importSessionFile } from "./import-session.ts";
import { type Launcher, openInPi } from "./open-in-pi.ts";
import { TRASH_LIVE_MESSAGE, type TrashBin } from "./trash-bin.ts";

export interface SessionManagementOptions {
  runtime: SessionRuntime;
  library: LibraryView;
  ids: IssuedIds;
  events: EventSink;
  trashBin: TrashBin;
  preferences: PreferencesFile;
  /** Starts the terminal for "Open in Pi" (default: a detached child process). */
  launcher?: Launcher | undefined;
  /** The desktop app's open dialog for an import; null when the user chose nothing. */
  chooseImportFile?: (() => Promise<string | null>) | undefined;
}

export class SessionManagement {
  constructor(private readonly options: SessionManagementOptions) {}

  async trash(sessionId: string, confirmLive: boolean | undefined): Promise<TrashResult> {
    const { runtime, library, events, trashBin } = this.options;
    const path = await this.pathOf(sessionId);
    const open = runtime.session?.path === path ? runtime.session : undefined;
    const foreignChangeMs = open?.foreignChangeMs;
    requireConfirmedIfLive(path, confirmLive, { foreignChangeMs }, TRASH_LIVE_MESSAGE);
    if (open) {
      await runtime.closeSession();
      events.emit("session.closed", { sessionId, reason: "trashed" });
    }
    let record: Awaited<ReturnType<TrashBin["trash"]>>;
    try {
      record = await trashBin.trash(path);
    } catch (error) {
      // Still there: the window gets its session back.
      if (open) await runtime.switchSession(path).catch(() => {});
      throw error;
    }
    library.scanAfterChange();
    return {
      trashId: record.trashId,
      sessionId,
      path,
      closed: open !== undefined,
      restorable: record.location !== undefined || process.platform === "linux",
    };
  }

  async restore(trashId: string): Promise<RestoreResult> {
    const record = this.options.trashBin.restore(trashId);
    this.options.library.scanAfterChange();
    return { sessionId: this.options.ids.sessionId(record.originalPath), path: record.originalPath };
  }

  async export(
    sessionId: string | undefined,
    leafId: string | null | undefined,
    format: ExportFormat,
  ): Promise<ExportResult> {
    const path = sessionId === undefined ? this.openPath() : await this.pathOf(sessionId);
    const session = this.options.runtime.session;
    if (session?.path === path) {
      session.refresh();
      return exportBranch(session.index, session.reader, path, { leafId, format });
    }
    const opened = openIndexedFile(path, { mode: "structure" });
    try {
      return exportBranch(opened.index, opened.reader, path, { leafId, format });
    } finally {
      opened.close();
    }
  }

  async openInPi(sessionId: string | undefined): Promise<OpenInPiResult> {
    const path = sessionId === undefined ? this.openPath() : await this.pathOf(sessionId);
    const { preferences, launcher } = this.options;
    return openInPi(path, { terminalCommand: preferences.current.terminalCommand, launcher });
  }

  async import(
    projectId: string,
    content: string | undefined,
    fileName: string | undefined,
  ): Promise<ImportResult | null> {
    const { ids, library } = this.options;
    const cwd = ids.cwdOf(projectId);
    const folder = cwd === undefined ? undefined : library.folderOfProject(cwd);
    if (folder === undefined) {
      throw new ArborError("not-found", manageErrors.projectGone);
    }
    let imported: ImportedSession;
    if (content !== undefined) {
      const bytes = new TextEncoder().encode(content);
      if (bytes.length > MAX_IMPORT_BYTES) {
        throw new ArborError(
          "refused",
          manageErrors.importTooBig(Math.ceil(bytes.length / 1048576), MAX_IMPORT_BYTES / 1048576),
        );
      }
      imported = importSessionBytes(bytes, folder, { sourceName: basename(fileName ?? "the file") });
    } else {
      const chosen = await this.chooseImportFile();
      if (chosen === null) return null;
      imported = importSessionFile(chosen, folder);
    }
    library.scanAfterChange();
    const { entries, lines, counts, problems } = imported.report;
    return {
      sessionId: ids.sessionId(imported.path),
      path: imported.path,
      report: {
        entries,
        lines,
        counts,
        problems: problems.map(({ line, severity, code, message }) => ({ line, severity, code, message })),
      },
    };
  }

  private chooseImportFile(): Promise<string | null> {
    const choose = this.options.chooseImportFile;
    if (!choose) {
      throw new ArborError("invalid-request", manageErrors.importNeedsContent);
    }
    return choose();
  }

  private async pathOf(sessionId: string): Promise<string> {
    const path = await this.options.library.sessionPath(sessionId);
    if (path === undefined) {
      throw new ArborError("not-found", manageErrors.sessionIdNotIssued);
    }
    return path;
  }

  private openPath(): string {
    const session = this.options.runtime.session;
    if (!session) throw new ArborError("refused", sessionErrors.noneOpen);
    return session.path;
  }
}
