/**
 * Chooses the transport: the Electron preload's `window.arbor` when the page
 * runs in Arbor's window, else a WebSocket to the `arbor serve` host that
 * served the page (`ws://<host>/ws`; the access token came as `?token=` in
 * the page's URL and the server keeps it in a cookie, which the browser
 * sends with the upgrade; it is passed on in the socket's URL too).
 */

import type { ArborClient } from "../../../shared/ipc/contract.ts";
import { WebSocketClient } from "../../../shared/ipc/websocket-client.ts";
import { createElectronClient, type DesktopClient } from "./electron-client.ts";

export const WEBSOCKET_PATH = "/ws";

export function webSocketUrl(location: { protocol: string; host: string; search: string }): string {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const token = new URLSearchParams(location.search).get("token");
  const query = token ? `?token=${encodeURIComponent(token)}` : "";
  return `${scheme}//${location.host}${WEBSOCKET_PATH}${query}`;
}

export interface ConnectedClient {
  client: ArborClient;
  transport: "electron" | "serve";
  /** Electron only: open a file dropped on the window. */
  openDroppedFile: DesktopClient["openDroppedFile"] | null;
  /** Called when the connection is lost for good (serve only). */
  onClose(listener: (reason: string) => void): () => void;
}

export async function connectClient(): Promise<ConnectedClient> {
  if (window.arbor) {
    const client = createElectronClient(window.arbor);
    return {
      client,
      transport: "electron",
      openDroppedFile: client.openDroppedFile,
      onClose: () => () => {},
    };
  }
  const client = await WebSocketClient.connect(webSocketUrl(window.location));
  return {
    client,
    transport: "serve",
    openDroppedFile: null,
    onClose: (listener) => client.onClose(listener),
  };
}
