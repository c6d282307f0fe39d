/**
 * Chooses the transport: the Electron preload's `window.arbor` when the page
 * runs in Arbor's window, else a WebSocket to the `arbor serve` host that
 * served the page (`ws://<host>/ws?token=…`). The access token comes as
 * `?token=` in the URL `arbor serve` printed; the page keeps it in its own
 * origin's storage (private to this server's port, unlike a cookie) and takes
 * it out of the address, so a reload, a deep link or a bookmark without it
 * still connects while this server runs.
 */

import { screenErrors } from "../../../shared/error-texts.ts";
import type { ArborClient } from "../../../shared/ipc/contract.ts";
import { WebSocketClient } from "../../../shared/ipc/websocket-client.ts";
import { createElectronClient, type DesktopClient } from "./electron-client.ts";

export const WEBSOCKET_PATH = "/ws";

const TOKEN_KEY = "arbor.serve-token";

/** Where the page keeps its token: `localStorage` in a browser (per origin, so per server port). */
export interface TokenStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

/** The token in the page's query (kept for later loads), else the one kept from an earlier load. */
export function serveToken(search: string, storage: TokenStorage | null): string | null {
  const fromAddress = new URLSearchParams(search).get("token");
  try {
    if (fromAddress) storage?.setItem(TOKEN_KEY, fromAddress);
    return fromAddress || (storage?.getItem(TOKEN_KEY) ?? null);
  } catch {
    // Storage refused (a private window's quota, a policy): the address's token still works this time.
    return fromAddress;
  }
}

/** The page's query without the token, so it is not bookmarked, shared or shown. */
export function withoutToken(search: string): string {
  const params = new URLSearchParams(search);
  params.delete("token");
  const rest = params.toString();
  return rest === "" ? "" : `?${rest}`;
}

export function webSocketUrl(location: { protocol: string; host: string }, token: string | null): string {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const query = token ? `?token=${encodeURIComponent(token)}` : "";
  return `${scheme}//${location.host}${WEBSOCKET_PATH}${query}`;
}

/** Thrown when the page knows no token: it was opened without the printed URL in this browser. */
export class MissingTokenError extends Error {
  constructor() {
    super(screenErrors.tokenMissing);
    this.name = "MissingTokenError";
  }
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
  const token = serveToken(window.location.search, storageOrNull());
  if (new URLSearchParams(window.location.search).has("token")) {
    window.history.replaceState(
      window.history.state,
      "",
      `${window.location.pathname}${withoutToken(window.location.search)}`,
    );
  }
  if (token === null) throw new MissingTokenError();
  const client = await WebSocketClient.connect(webSocketUrl(window.location, token));
  return {
    client,
    transport: "serve",
    openDroppedFile: null,
    onClose: (listener) => client.onClose(listener),
  };
}

function storageOrNull(): TokenStorage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}
