/**
 * The `arbor serve` host: one HTTP server on 127.0.0.1 that serves the built
 * renderer and, at `/ws`, the WebSocket binding of the contract. Every
 * request passes `decidePageAccess` or `decideSocketAccess` first (Host,
 * Origin, where it comes from; the token for the socket); refusals carry
 * the same security headers as pages. Each connection (a browser tab) gets
 * handlers of its own from `connect`, as each Electron window has its own
 * runtime: tabs open sessions independently.
 *
 * This module starts and stops the server; the pages are answered by
 * `page-requests.ts`, the WebSocket upgrades by `socket-connections.ts`.
 */

import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { pageRequestListener, type ServerAccess } from "./page-requests.ts";
import { createAccessToken, LOOPBACK_HOST } from "./security.ts";
import { SocketConnections, type SocketConnectionsOptions } from "./socket-connections.ts";
import { StaticFiles } from "./static-files.ts";

export type { ServeConnection } from "./socket-connections.ts";

export interface ArborServerOptions extends SocketConnectionsOptions {
  /** 0: any free port. */
  port: number;
  /** The built renderer (index.html and assets). */
  staticDir: string;
  /** Default: a fresh random token. */
  token?: string | undefined;
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

export async function startArborServer(options: ArborServerOptions): Promise<ArborServer> {
  const token = options.token ?? createAccessToken();
  const files = new StaticFiles(options.staticDir);
  let port = 0;
  // The port is known once the server listens; requests come only after that.
  const access: ServerAccess = {
    token,
    get port() {
      return port;
    },
  };
  const sockets = new SocketConnections(options, access);
  const server = createServer(pageRequestListener(files, access));
  server.on("upgrade", (request: IncomingMessage, socket: Socket, head: Buffer) =>
    sockets.upgrade(request, socket, head),
  );
  await listen(server, options.port);
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
        await sockets.close();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
      })();
      return closing;
    },
  };
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, LOOPBACK_HOST, () => {
      server.off("error", reject);
      resolve();
    });
  });
}
