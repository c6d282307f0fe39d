/**
 * The `ArborClient` over Electron's preload bridge (`window.arbor`). The
 * bridge answers every request with `{result}` or `{error}` and never
 * rejects; here an error becomes a rejected `ArborError`, and answers and
 * events are decoded from their wire form (shared/ipc/wire.ts), so the rest
 * of the renderer sees one contract whatever the transport.
 */

import type { ArborBridge } from "../../../shared/ipc/bridge.ts";
import {
  type ArborClient,
  ArborError,
  type ArborEvents,
  type EventName,
  type RequestName,
  type RequestParams,
  type RequestResult,
} from "../../../shared/ipc/contract.ts";
import { decodeEvent, decodeResult } from "../../../shared/ipc/wire.ts";

export type { ArborBridge };

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
