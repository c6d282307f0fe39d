/**
 * The `arbor serve` host: one HTTP server on 127.0.0.1 that serves the built
 * renderer and, at `/ws`, the WebSocket binding of the contract. Every
 * request passes `decidePageAccess` or `decideSocketAccess` first (Host,
 * Origin, where it comes from; the token for the socket); refusals carry
 * the same security headers as pages. Each connection (a browser tab) gets
 * handlers of its own from `connect`, as each Electron window has its own
 * runtime: tabs open sessions independently.
 */

import { createReadStream } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { WebSocketServer } from "ws";
import type { ArborHandlers } from "../../shared/ipc/contract.ts";
import type { EventHub } from "../ipc/event-sink.ts";
import { MAX_MESSAGE_BYTES, WebSocketAdapter } from "../ipc/websocket-adapter.ts";
import {
  createAccessToken,
  decidePageAccess,
  decideSocketAccess,
  LOOPBACK_HOST,
  securityHeaders,
  WEBSOCKET_PATH,
} from "./security.ts";
import { StaticFiles } from "./static-files.ts";

/** What one connection talks to: its own handlers and events, released when it closes. */
export interface ServeConnection {
  handlers: ArborHandlers;
  events: EventHub;
  close(): Promise<void>;
}

export interface ArborServerOptions {
  /** Called for each WebSocket connection that passed the access checks. */
  /** `whenSent`: runs work once this connection's frames sent so far have left (see `WebSocketAdapter.whenSent`). */
  connect: (transport: { whenSent(work: () => void): void }) => ServeConnection;
  /** 0: any free port. */
  port: number;
  /** The built renderer (index.html and assets). */
  staticDir: string;
  /** Default: a fresh random token. */
  token?: string | undefined;
  onInternalError?: ((error: unknown, request: string) => void) | undefined;
}

export interface ArborServer {
  readonly port: number;
  readonly token: string;
  /** `http://127.0.0.1:PORT/?token=TOKEN`: what the user opens. */
  readonly url: string;
  readonly address: AddressInfo;
  readonly rendererBuilt: boolean;
  /** Closes every socket and stops listening. */
  close(): Promise<void>;
}

const STATUS_TEXT: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
};

export async function startArborServer(options: ArborServerOptions): Promise<ArborServer> {
  const token = options.token ?? createAccessToken();
  const files = new StaticFiles(options.staticDir);
  /** The open connections' adapters, and what each connection holds. */
  const connections = new Map<WebSocketAdapter, ServeConnection>();
  const release = (adapter: WebSocketAdapter) => {
    const connection = connections.get(adapter);
    if (!connection) return Promise.resolve();
    connections.delete(adapter);
    adapter.dispose();
    return connection.close().catch((error: unknown) => options.onInternalError?.(error, "serve.close"));
  };
  const sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  let port = 0;

  const refuse = (response: ServerResponse, status: number, reason: string) => {
    response.writeHead(status, { ...securityHeaders(port), "Content-Type": "text/plain; charset=utf-8" });
    response.end(`${reason}\n`);
  };

  const server = createServer((request, response) => {
    serveHttp(request, response).catch(() => {
      if (!response.headersSent) refuse(response, 500, "Arbor could not answer this request.");
      else response.destroy();
    });
  });

  const serveHttp = async (request: IncomingMessage, response: ServerResponse) => {
    const decision = decidePageAccess(request, { token, port });
    if (!decision.allowed) return refuse(response, decision.status, decision.reason);
    if (request.method !== "GET" && request.method !== "HEAD") {
      response.setHeader("Allow", "GET, HEAD");
      return refuse(response, 405, "Only GET and HEAD are served here.");
    }
    const headers: Record<string, string> = { ...securityHeaders(port) };
    const pathname = (request.url ?? "/").split("?")[0]!;
    const found = files.lookup(pathname);
    switch (found.kind) {
      case "bad-request":
        return refuse(response, 400, "The path is not valid.");
      case "not-found":
        return refuse(response, 404, "Not found.");
      case "placeholder": {
        const body = Buffer.from(found.html, "utf8");
        response.writeHead(200, {
          ...headers,
          "Content-Type": "text/html; charset=utf-8",
          "Content-Length": String(body.length),
        });
        response.end(request.method === "HEAD" ? undefined : body);
        return;
      }
      case "file":
        response.writeHead(200, {
          ...headers,
          "Content-Type": found.contentType,
          "Content-Length": String(found.size),
        });
        if (request.method === "HEAD") {
          response.end();
          return;
        }
        await new Promise<void>((resolve, reject) => {
          const stream = createReadStream(found.path);
          stream.on("error", reject);
          response.on("close", () => {
            stream.destroy();
            resolve();
          });
          stream.pipe(response);
        });
        return;
    }
  };

  server.on("upgrade", (request: IncomingMessage, socket: Socket, head: Buffer) => {
    socket.on("error", () => socket.destroy());
    const reject = (status: number) => {
      socket.end(
        `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? "Error"}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`,
      );
      socket.destroy();
    };
    const decision = decideSocketAccess(request, { token, port });
    if (!decision.allowed) return reject(decision.status);
    if ((request.url ?? "/").split("?")[0] !== WEBSOCKET_PATH) return reject(404);
    sockets.handleUpgrade(request, socket, head, (webSocket) => {
      const connection = options.connect({ whenSent: (work) => adapter.whenSent(work) });
      const adapter = new WebSocketAdapter({
        handlers: connection.handlers,
        events: connection.events,
        onInternalError: options.onInternalError,
      });
      connections.set(adapter, connection);
      adapter.accept(webSocket);
      webSocket.once("close", () => void release(adapter));
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, LOOPBACK_HOST, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  port = address.port;

  let closing: Promise<void> | undefined;
  return {
    port,
    token,
    url: `http://${LOOPBACK_HOST}:${port}/?token=${token}`,
    address,
    rendererBuilt: files.built,
    close() {
      closing ??= (async () => {
        // Close frames first (1001, going away); whatever has not closed shortly after is cut off.
        const closed = [...sockets.clients].map(
          (client) => new Promise<void>((resolve) => client.once("close", () => resolve())),
        );
        const released = Promise.all([...connections.keys()].map(release));
        await Promise.race([Promise.all(closed), new Promise((resolve) => setTimeout(resolve, 500))]);
        await released;
        for (const client of sockets.clients) client.terminate();
        await new Promise<void>((resolve) => sockets.close(() => resolve()));
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
      })();
      return closing;
    },
  };
}
