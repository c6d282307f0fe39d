/**
 * What the Electron shell needs from the rest of the main process, per
 * window: the handler object the window's requests go to, and the few
 * things only the shell can ask for (a session file the OS handed us, a new
 * session from the menu). host-runtime.ts supplies it from app/ipc's host.
 */

import type { ArborEvents, ArborHandlers, EventName } from "../../shared/ipc/contract.ts";
import type { RequestOutcome } from "./ipc-channels.ts";

export interface WindowRuntime {
  /** The handler object this window's requests are dispatched to. */
  readonly handlers: ArborHandlers;
  /** Opens a session file the main process chose (argv, open-file, dialog, drop, recent). */
  switchToFile(path: string): Promise<void>;
  /** File > New Session: a new session in the project of the one on view. */
  newSession(): Promise<void>;
  /** The window closed: stop following files, dispose contexts; resolves once all is released. */
  close(): Promise<void>;
}

export interface WindowRuntimeContext {
  /** Sends an event to this window's renderer. */
  emit<E extends EventName>(name: E, payload: ArborEvents[E]): void;
  /** Sets this window's title. */
  setTitle(title: string): void;
}

export type CreateWindowRuntime = (context: WindowRuntimeContext) => WindowRuntime;

/** app/ipc/bind.ts's `dispatch`: validates, calls the handler, answers `{result}` or `{error}`; never throws. */
export type Dispatch = (handlers: ArborHandlers, name: string, params: unknown) => Promise<RequestOutcome>;
