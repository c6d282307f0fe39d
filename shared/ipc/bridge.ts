/**
 * The type of `window.arbor` in Arbor's Electron windows: what the preload
 * exposes (app/electron/bridge.ts builds it) and what the renderer's Electron
 * client reads (renderer/src/api/electron-client.ts). One type for both, in
 * the form things really travel in: results and event payloads in their wire
 * form (shared/ipc/wire.ts), which the renderer decodes; errors as data.
 */

import type { ArborErrorPayload, EventName, RequestName, RequestParams } from "./contract.ts";
import type { WireEvent, WireResult } from "./wire.ts";

/** A request's answer across the bridge: it resolves with one of these and never rejects. */
export type BridgeOutcome<N extends RequestName> = { result: WireResult<N> } | { error: ArborErrorPayload };

/** What opening a dropped file came to (the main process checks the file first). */
export type DroppedFileOutcome = { opened: true } | { opened: false; error: ArborErrorPayload };

export interface ArborBridge {
  /** Resolves with `{result}` (in its wire form) or `{error: {code, message}}`; it does not reject. */
  request<N extends RequestName>(name: N, params: RequestParams<N>): Promise<BridgeOutcome<N>>;
  /** Listens to one event (its payload in wire form); returns the unsubscribe. Throws for a name the contract lacks. */
  on<E extends EventName>(name: E, listener: (payload: WireEvent<E>) => void): () => void;
  /** Opens a file dropped on the window (a DOM `File`); the main process checks it first. */
  openDroppedFile(file: unknown): Promise<DroppedFileOutcome>;
}
