/**
 * The three Electron IPC channels Arbor uses, and what travels on them.
 * Shared by the preload and the main process; nothing else may name them.
 *
 *   arbor:request            renderer -> main, invoke: (name, params) -> RequestOutcome
 *   arbor:event              main -> renderer, send:   { name, payload }
 *   arbor:open-dropped-file  renderer -> main, invoke: (path) -> DroppedFileOutcome
 */

import type { ArborErrorPayload, EventName } from "../../shared/ipc/contract.ts";

export const REQUEST_CHANNEL = "arbor:request";
export const EVENT_CHANNEL = "arbor:event";
export const OPEN_DROPPED_FILE_CHANNEL = "arbor:open-dropped-file";

/**
 * A request's answer as it crosses the bridge. Errors travel as data, not
 * as rejections: Electron copies only the message of an Error thrown across
 * IPC or the context bridge, and the renderer needs the code too. Both
 * transports answer with this shape (it is what `dispatch` returns).
 */
export type RequestOutcome = { result: unknown } | { error: ArborErrorPayload };

export interface EventMessage {
  name: EventName;
  payload: unknown;
}

export type { DroppedFileOutcome } from "../../shared/ipc/bridge.ts";
