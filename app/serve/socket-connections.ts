/**
 * The WebSocket side of `arbor serve`: upgrades at `/ws` that pass
 * `decideSocketAccess`, each connection (a browser tab) with handlers of its
 * own from `connect`, as each Electron window has its own runtime; and
 * closing them all when the server stops.
 */

import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import { WebSocketServer } from "ws";
import type { ArborHandlers } from "../../shared/ipc/contract.ts";
import type { EventHub } from "../ipc/event-sink.ts";
import { MAX_MESSAGE_BYTES, WebSocketAdapter } from "../ipc/websocket-adapter.ts";
import type { ServerAccess } from "./page-requests.ts";
import { decideSocketAccess, WEBSOCKET_PATH } from "./security.ts";

/** What one connection talks to: its own handlers and events, released when it closes. */
export interface ServeConnection {
  handlers: ArborHandlers;
  events: EventHub;
  close(): Promise<void>;
}

export interface SocketConnectionsOptions {
  /** Called for each WebSocket connection that passed the access checks. */
  /** `whenSent`: runs work once this connection's frames sent so far have left (see `WebSocketAdapter.whenSent`). */
  connect: (transport: { whenSent(work: () => void): void }) => ServeConnection;
  onInternalError?: ((error: unknown, request: string) => void) | undefined;
}

const STATUS_TEXT: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
};

/** How long closing waits for the clients' close frames before cutting them off. */
const CLOSE_GRACE_MS = 500;

export class SocketConnections {
  private readonly sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  /** The open connections' adapters, and what each connection holds. */
  private readonly connections = new Map<WebSocketAdapter, ServeConnection>();

  constructor(
    private readonly options: SocketConnectionsOptions,
    private readonly access: ServerAccess,
  ) {}

  /** The server's `upgrade` listener. */
  upgrade(request: IncomingMessage, socket: Socket, head: Buffer): void {
    socket.on("error", () => socket.destroy());
    const refusal = this.refusal(request);
    if (refusal !== undefined) {
      socket.end(
        `HTTP/1.1 ${refusal} ${STATUS_TEXT[refusal] ?? "Error"}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`,
      );
      socket.destroy();
      return;
    }
    this.sockets.handleUpgrade(request, socket, head, (webSocket) => {
      const connection = this.options.connect({ whenSent: (work) => adapter.whenSent(work) });
      const adapter = new WebSocketAdapter({
        handlers: connection.handlers,
        events: connection.events,
        onInternalError: this.options.onInternalError,
      });
      this.connections.set(adapter, connection);
      adapter.accept(webSocket);
      webSocket.once("close", () => void this.release(adapter));
    });
  }

  /** Why an upgrade is refused (its HTTP status), or undefined when it may go ahead. */
  private refusal(request: IncomingMessage): number | undefined {
    const decision = decideSocketAccess(request, this.access);
    if (!decision.allowed) return decision.status;
    if ((request.url ?? "/").split("?")[0] !== WEBSOCKET_PATH) return 404;
    return undefined;
  }

  /** Closes every connection and releases what each holds. */
  async close(): Promise<void> {
    // Close frames first (1001, going away); whatever has not closed shortly after is cut off.
    const closed = [...this.sockets.clients].map(
      (client) => new Promise<void>((resolve) => client.once("close", () => resolve())),
    );
    const released = Promise.all([...this.connections.keys()].map((adapter) => this.release(adapter)));
    await Promise.race([Promise.all(closed), new Promise((resolve) => setTimeout(resolve, CLOSE_GRACE_MS))]);
    await released;
    for (const client of this.sockets.clients) client.terminate();
    await new Promise<void>((resolve) => this.sockets.close(() => resolve()));
  }

  private release(adapter: WebSocketAdapter): Promise<void> {
    const connection = this.connections.get(adapter);
    if (!connection) return Promise.resolve();
    this.connections.delete(adapter);
    adapter.dispose();
    return connection.close().catch((error: unknown) => this.options.onInternalError?.(error, "serve.close"));
  }
}
