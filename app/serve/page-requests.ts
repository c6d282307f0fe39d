/**
 * The HTTP side of `arbor serve`: the built renderer's files (or the
 * placeholder page), to GET and HEAD requests that pass `decidePageAccess`.
 * Refusals carry the same security headers as pages.
 */

import { createReadStream } from "node:fs";
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { serveErrors } from "../../shared/error-texts.ts";
import { decidePageAccess, securityHeaders } from "./security.ts";
import type { StaticFiles } from "./static-files.ts";

/** The launch's token and the port the server listens on (known once it listens). */
export interface ServerAccess {
  readonly token: string;
  readonly port: number;
}

/** The server's request listener: answers every page request, with a 500 if answering fails. */
export function pageRequestListener(files: StaticFiles, access: ServerAccess): RequestListener {
  return (request, response) => {
    servePage(files, access, request, response).catch(() => {
      if (!response.headersSent) refuse(response, access, 500, serveErrors.cannotAnswer);
      else response.destroy();
    });
  };
}

function refuse(response: ServerResponse, access: ServerAccess, status: number, reason: string): void {
  response.writeHead(status, {
    ...securityHeaders(access.port),
    "Content-Type": "text/plain; charset=utf-8",
  });
  response.end(`${reason}\n`);
}

async function servePage(
  files: StaticFiles,
  access: ServerAccess,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const decision = decidePageAccess(request, access);
  if (!decision.allowed) return refuse(response, access, decision.status, decision.reason);
  if (request.method !== "GET" && request.method !== "HEAD") {
    response.setHeader("Allow", "GET, HEAD");
    return refuse(response, access, 405, serveErrors.methodNotAllowed);
  }
  const headers: Record<string, string> = { ...securityHeaders(access.port) };
  const pathname = (request.url ?? "/").split("?")[0]!;
  const found = files.lookup(pathname);
  switch (found.kind) {
    case "bad-request":
      return refuse(response, access, 400, serveErrors.invalidPath);
    case "not-found":
      return refuse(response, access, 404, serveErrors.notFound);
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
      await sendFile(found.path, response);
      return;
  }
}

/** Streams the file to the response; settles when the response closes. */
function sendFile(path: string, response: ServerResponse): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const stream = createReadStream(path);
    stream.on("error", reject);
    response.on("close", () => {
      stream.destroy();
      resolve();
    });
    stream.pipe(response);
  });
}
