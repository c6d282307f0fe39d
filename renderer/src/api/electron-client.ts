/**
 * The `ArborClient` over Electron's preload bridge (`window.arbor`). The
 * bridge answers every request with `{result}` or `{error}` and never
 * rejects; here an error becomes a rejected `ArborError`, and answers and
 * events are decoded from their wire form (shared/ipc/wire.ts), so the rest
 * of the renderer sees one contract whatever the transport.
 */

import {
  type ArborClient,
  ArborError,
  type ArborErrorPayload,
  type ArborEvents,
  type EventName,
  type RequestName,
  type RequestParams,
  type RequestResult,
} from "../../../shared/ipc/contract.ts";
import { decodeEvent, decodeResult, type WireEvent, type WireResult } from "../../../shared/ipc/wire.ts";

/**
 * The shape of `window.arbor`, as the preload exposes it (typed here: the
 * renderer never imports app/). What it hands over is in the wire form.
 */
export interface ArborBridge {
  request<N extends RequestName>(
    name: N,
    params: RequestParams<N>,
  ): Promise<{ result: WireResult<N> } | { error: ArborErrorPayload }>;
  on<E extends EventName>(name: E, listener: (payload: WireEvent<E>) => void): () => void;
  openDroppedFile(file: File): Promise<{ opened: true } | { opened: false; error: ArborErrorPayload }>;
}

declare global {
  interface Window {
    arbor?: ArborBridge;
  }
}

export interface DesktopClient extends ArborClient {
  openDroppedFile(file: File): Promise<void>;
}

export function createElectronClient(bridge: ArborBridge): DesktopClient {
  return {
    async request<N extends RequestName>(name: N, params: RequestParams<N>): Promise<RequestResult<N>> {
      const outcome = await bridge.request(name, params);
      if ("error" in outcome) throw ArborError.from(outcome.error);
      return decodeResult(name, outcome.result);
    },
    on<E extends EventName>(name: E, listener: (payload: ArborEvents[E]) => void) {
      return bridge.on(name, (payload) => listener(decodeEvent(name, payload)));
    },
    async openDroppedFile(file) {
      const outcome = await bridge.openDroppedFile(file);
      if (!outcome.opened) throw ArborError.from(outcome.error);
    },
  };
}
