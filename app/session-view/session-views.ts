/**
 * Gives each open session of a runtime its `OpenSessionView`: an extension
 * makes one when a session becomes the runtime's session, owned by that
 * session's context (so it is disposed with the session), and feeds it the
 * session's appends and reloads.
 */

import { sessionErrors } from "../../shared/error-texts.ts";
import { ArborError } from "../../shared/ipc/contract.ts";
import { DisposableObject, toDisposable } from "../../shared/lifecycle/disposable.ts";
import type { ExtensionContext } from "../runtime/extension.ts";
import type { OpenSession } from "../runtime/open-session.ts";
import type { SessionRuntime } from "../runtime/session-runtime.ts";
import { OpenSessionView, type SessionViewServices } from "./open-session-view.ts";

export const IPC_EVENTS_EXTENSION_ID = "arbor.ipc-events";

/** The runtime's open session; refused when there is none. */
export function requireOpenSession(runtime: SessionRuntime): OpenSession {
  const session = runtime.session;
  if (!session) throw new ArborError("refused", sessionErrors.noneOpen);
  return session;
}

export class SessionViews extends DisposableObject {
  private view: OpenSessionView | undefined;

  constructor(
    private readonly runtime: SessionRuntime,
    private readonly services: SessionViewServices,
  ) {
    super();
    this.register(
      runtime.addExtension({ id: IPC_EVENTS_EXTENSION_ID, activate: (context) => this.activate(context) }),
    );
    // A view made for a request before its session's activation (see `viewOf`) has no other owner yet.
    this.register(toDisposable(() => this.view?.dispose()));
  }

  /** The open session's view, or undefined when no session is open. */
  current(): OpenSessionView | undefined {
    const session = this.runtime.session;
    return session ? this.viewOf(session) : undefined;
  }

  /** The open session's view; refused when no session is open. */
  requireCurrent(): OpenSessionView {
    return this.viewOf(requireOpenSession(this.runtime));
  }

  /**
   * The view of `session`: the one its activation made, or, for a request
   * that comes between a switch and the activation, one made now that the
   * activation then takes over.
   */
  private viewOf(session: OpenSession): OpenSessionView {
    if (this.view?.session !== session) {
      this.view?.dispose();
      this.view = new OpenSessionView(session, this.services);
    }
    return this.view;
  }

  private activate(context: ExtensionContext): void {
    const session = this.runtime.session;
    // Activated for the session the runtime holds now: the one it switched to, or the one open when added.
    if (!session || session.path !== context.session.path) return;
    const view = context.register(this.viewOf(session));
    context.register(
      toDisposable(() => {
        if (this.view === view) this.view = undefined;
      }),
    );
    const { library } = this.services;
    context.session.onDidAppend(() => {
      if (context.isStale) return;
      library.refreshRowSoon(session.path);
      view.advance();
    });
    context.session.onDidReload((event) => {
      if (context.isStale) return;
      // Not the file the library read any more (or gone): only a scan can say what it holds.
      library.scanAfterChange();
      view.reloaded(event.reason);
    });
  }
}
