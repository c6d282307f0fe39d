/**
 * What the Electron shell needs from the rest of the main process, per
 * window: the handler object the window's requests go to, and the few
 * things only the shell can ask for (a session file the OS handed us, a new
 * session from the menu). main.ts supplies the factory.
 *
 * WIRING: app/ipc/bind.ts (`dispatch(handlers, name, params)`) and the
 * session runtime (app/runtime/) are being written alongside this shell.
 * Until they land, `dispatchRequest` below is a stand-in with their described
 * behaviour (validate, call, answer `{result}` or `{error: {code, message}}`)
 * and `createUnwiredWindowRuntime` answers every request that needs a
 * session runtime with an error saying so. Replace both in main.ts; nothing
 * else in app/electron changes.
 */

import {
  type AppInfo,
  ArborError,
  type ArborErrorPayload,
  type ArborEvents,
  type ArborHandlers,
  type EventName,
  type RequestName,
} from "../../shared/ipc/contract.ts";
import { validateRequest } from "../../shared/ipc/schemas.ts";
import type { RequestOutcome } from "./ipc-channels.ts";

export interface WindowRuntime {
  /** The handler object this window's requests are dispatched to. */
  readonly handlers: ArborHandlers;
  /** Opens a session file the main process chose (argv, open-file, dialog, drop, recent). */
  openSessionFile(path: string): Promise<void>;
  /** File > New Session: a new session in the project of the one on view. */
  newSession(): Promise<void>;
  /** The window closed: stop following files, dispose contexts. */
  dispose(): void;
}

export interface WindowRuntimeContext {
  /** Sends an event to this window's renderer. */
  emit<E extends EventName>(name: E, payload: ArborEvents[E]): void;
}

export type CreateWindowRuntime = (context: WindowRuntimeContext) => WindowRuntime;

export type Dispatch = (handlers: ArborHandlers, name: string, params: unknown) => Promise<RequestOutcome>;

function toErrorPayload(error: unknown): ArborErrorPayload {
  if (error instanceof ArborError) return error.toPayload();
  const message = error instanceof Error ? error.message : String(error);
  return { code: "internal", message: `Arbor failed unexpectedly: ${message}` };
}

/** Stand-in for app/ipc/bind.ts's `dispatch` (see WIRING above). Never throws. */
export const dispatchRequest: Dispatch = async (handlers, name, params) => {
  try {
    const valid = validateRequest(name, params);
    const handler = handlers[name as RequestName] as (params: unknown) => Promise<unknown>;
    return { result: await handler(valid) };
  } catch (error) {
    return { error: toErrorPayload(error) };
  }
};

const NOT_WIRED =
  "The session runtime is not connected to the Electron shell yet (see app/electron/main.ts).";

/** Stand-in runtime (see WIRING above): only `app.info` answers. */
export function createUnwiredWindowRuntime(version: string): WindowRuntime {
  const refuse = async (): Promise<never> => {
    throw new ArborError("internal", NOT_WIRED);
  };
  const handlers: ArborHandlers = {
    "app.info": async (): Promise<AppInfo> => ({ version, transport: "electron" }),
    "library.list": refuse,
    "library.rescan": refuse,
    "library.search": refuse,
    "session.open": refuse,
    "session.current": refuse,
    "session.context": refuse,
    "session.entry": refuse,
    "session.setLabel": refuse,
    "session.rename": refuse,
    "session.fork": refuse,
    "session.clone": refuse,
    "session.new": refuse,
  };
  return { handlers, openSessionFile: refuse, newSession: refuse, dispose: () => {} };
}
