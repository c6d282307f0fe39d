/**
 * What a window does to its session: open another, and replace it with a
 * fork, a clone or a new session, each answered with the view of the session
 * it leaves open (writes into the open session: session-writes.ts). Every
 * switch, whoever asked for it (a request, the menu, the command line), is
 * announced with `session.switched`.
 */

import { dirname } from "node:path";
import { fileErrors, replacements, sessionErrors } from "../../shared/error-texts.ts";
import { ArborError, type ForkFields, type SessionView } from "../../shared/ipc/contract.ts";
import type { EventSink } from "../ipc/event-sink.ts";
import type { IssuedIds } from "../ipc/issued-ids.ts";
import type { LibraryView } from "../library-view/library-view.ts";
import { DisposableObject } from "../../shared/lifecycle/disposable.ts";
import type { ReplaceResult, StartReason } from "../runtime/extension.ts";
import type { SessionRuntime } from "../runtime/session-runtime.ts";
import { requireOpenSession, type SessionViews } from "./session-views.ts";

const SWITCHED_REASON: Record<StartReason, "open" | "new" | "fork" | "clone"> = {
  startup: "open",
  resume: "open",
  new: "new",
  fork: "fork",
  clone: "clone",
};

export interface SessionActionsOptions {
  runtime: SessionRuntime;
  views: SessionViews;
  library: LibraryView;
  ids: IssuedIds;
  events: EventSink;
}

export class SessionActions extends DisposableObject {
  /** Counts opens, so that an open that waited for a scan knows whether a later one came meanwhile. */
  private openSerial = 0;

  constructor(private readonly options: SessionActionsOptions) {
    super();
    const { runtime, ids, events, library } = options;
    this.register(
      runtime.setRebindSession(({ session, reason }) => {
        // No view: the request that switched answers with it; any other client asks for it.
        events.emit("session.switched", {
          sessionId: ids.sessionId(session.path),
          path: session.path,
          reason: SWITCHED_REASON[reason],
        });
        // The library lists the new file only after it reads it.
        if (reason === "new" || reason === "fork" || reason === "clone") library.scanAfterChange();
      }),
    );
  }

  /** Opens the session a session id names (see `LibraryView.sessionPath`), or reads the open one again. */
  async open(sessionId: string): Promise<SessionView> {
    const { runtime, library, views } = this.options;
    const serial = ++this.openSerial;
    const path = await library.sessionPath(sessionId);
    // It waited for a scan, and another open came meanwhile: that one is what the window shows now.
    if (serial !== this.openSerial) {
      throw new ArborError("stale", sessionErrors.openedMeanwhile);
    }
    if (path === undefined) {
      throw new ArborError("not-found", sessionErrors.notInLibrary);
    }
    const open = runtime.session;
    if (open?.path === path) {
      // What the file holds now, not the last read: it may have been deleted (or recreated) since.
      open.refresh();
      if (!open.exists) {
        throw new ArborError("not-found", fileErrors.sessionFileGone);
      }
      return views.requireCurrent().view();
    }
    return this.replaced(await runtime.switchSession(path), replacements.open);
  }

  /** A fork at any entry, or before a user message (whose text comes back to be edited). */
  async fork(entryId: string, position: "before" | "at"): Promise<SessionView & ForkFields> {
    const { runtime } = this.options;
    requireOpenSession(runtime);
    const result = await runtime.fork(entryId, { position });
    return { ...this.replaced(result, replacements.fork, true), selectedText: result.selectedText ?? null };
  }

  /** A copy of the branch ending at `leafId` (default the file's leaf). */
  async clone(leafId?: string): Promise<SessionView> {
    const { runtime } = this.options;
    requireOpenSession(runtime);
    return this.replaced(await runtime.clone({ leafId }), replacements.clone, true);
  }

  /** A new session of the project, in the folder of its newest session (or of the open one, of that project). */
  async newSession(projectId: string): Promise<SessionView> {
    const { runtime, ids, library } = this.options;
    const cwd = ids.cwdOf(projectId);
    if (cwd === undefined) {
      throw new ArborError("not-found", sessionErrors.projectNotInLibrary);
    }
    const open = runtime.session;
    const sessionDir =
      library.folderOfProject(cwd) ??
      (open && runtime.services?.cwd === cwd ? dirname(open.path) : undefined);
    if (sessionDir === undefined) {
      throw new ArborError("not-found", sessionErrors.noFolderKnown(cwd));
    }
    return this.replaced(await runtime.newSession(cwd, { sessionDir }), replacements.new, true);
  }

  /** The view after a switch; `writtenHere`: Arbor wrote the file just now (a fork, clone, new), so it is not live. */
  private replaced(result: ReplaceResult, what: string, writtenHere = false): SessionView {
    if (result.cancelled) {
      throw new ArborError("refused", sessionErrors.cancelled(what, result.cancelledBy));
    }
    const view = this.options.views.requireCurrent();
    if (writtenHere) view.session.markWrittenHere();
    return view.view();
  }
}
