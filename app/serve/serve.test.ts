/**
 * `arbor serve` as a user (or an attacker) meets it: the real command in a
 * child process, raw HTTP requests and WebSocket upgrades on 127.0.0.1.
 * Token, Host, Origin and Sec-Fetch-Site checks, the exact CSP, no cookie, static files without
 * path traversal, loopback-only binding, and a clean stop on SIGTERM/SIGINT.
 */

import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { connect } from "node:net";
import { networkInterfaces } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { type WebSocketConstructor, WebSocketClient } from "../../shared/ipc/websocket-client.ts";
import { encodedCwd, tempFolder, writeLinearSession, writeSampleSession } from "../runtime/testing.ts";
import { createEventHub } from "../ipc/event-sink.ts";
import { contentSecurityPolicy, decidePageAccess, decideSocketAccess, tokenMatches } from "./security.ts";
import { startArborServer } from "./server.ts";
import { PLACEHOLDER_HTML } from "./static-files.ts";
import { type SpawnedServe, spawnServe } from "./testing.ts";
import { ensureNoLeaks } from "../../shared/lifecycle/testing.ts";

ensureNoLeaks();

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

function get(
  port: number,
  path: string,
  headers: Record<string, string> = {},
  method = "GET",
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { host: "127.0.0.1", port, path, method, headers: { host: `127.0.0.1:${port}`, ...headers } },
      (response) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          body += chunk;
        });
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
        );
      },
    );
    request.on("error", reject);
    request.end();
  });
}

/** Tries a WebSocket upgrade: "open", or the HTTP status it was refused with. */
function upgrade(
  url: string,
  headers: Record<string, string> = {},
  origin?: string,
): Promise<"open" | number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers, ...(origin === undefined ? {} : { origin }) });
    socket.once("open", () => {
      socket.close();
      resolve("open");
    });
    socket.once("unexpected-response", (_request, response) => {
      resolve(response.statusCode ?? 0);
      socket.terminate();
    });
    socket.once("error", (error) => {
      if (socket.readyState === WebSocket.CLOSED) return;
      reject(error);
    });
  });
}

function canConnect(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.setTimeout(2000);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("timeout", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", () => resolve(false));
  });
}

let folder: ReturnType<typeof tempFolder>;
let serve: SpawnedServe;
let port: number;
let token: string;
let staticDir: string;

beforeAll(async () => {
  folder = tempFolder("arbor-serve-");
  const root = join(folder.path, "sessions");
  writeSampleSession(join(root, encodedCwd("/work/project"), "sample.jsonl"));
  staticDir = join(folder.path, "renderer");
  mkdirSync(join(staticDir, "assets"), { recursive: true });
  writeFileSync(
    join(staticDir, "index.html"),
    "<!doctype html><title>Arbor</title><script src=/assets/app.js></script>",
  );
  writeFileSync(join(staticDir, "assets", "app.js"), "console.log('arbor')\n");
  writeFileSync(join(folder.path, "secret.txt"), "top secret\n");
  symlinkSync(join(folder.path, "secret.txt"), join(staticDir, "assets", "link.txt"));
  serve = await spawnServe([
    "--dir",
    root,
    "--data-dir",
    join(folder.path, "data"),
    "--static",
    staticDir,
    "--no-demo",
  ]);
  port = serve.port;
  token = serve.token;
});

afterAll(async () => {
  await serve?.stop();
  folder?.cleanup();
});

describe("arbor serve: the token", () => {
  it("prints a loopback URL with a 256-bit base64url token", () => {
    expect(serve.url).toBe(`http://127.0.0.1:${port}/?token=${token}`);
    expect(Buffer.from(token, "base64url")).toHaveLength(32);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("serves the page and its files without the token (they hold no data), never with a wrong one", async () => {
    const page = await get(port, "/");
    expect(page.status).toBe(200);
    expect(page.body).toContain("<title>Arbor</title>");
    expect((await get(port, `/?token=${token}`)).status).toBe(200);
    expect((await get(port, `/?token=${"A".repeat(43)}`)).status).toBe(403);
    expect((await get(port, "/?token=")).status).toBe(403);
    expect((await get(port, `/assets/app.js?token=${"B".repeat(43)}`)).status).toBe(403);
    const asset = await get(port, "/assets/app.js");
    expect(asset.status).toBe(200);
    expect(asset.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(asset.body).toBe("console.log('arbor')\n");
    const head = await get(port, "/assets/app.js", {}, "HEAD");
    expect(head.status).toBe(200);
    expect(head.headers["content-length"]).toBe(String("console.log('arbor')\n".length));
  });

  it("sets no cookie: cookies ignore ports, so every service on 127.0.0.1 would receive the token", async () => {
    for (const answer of [
      await get(port, `/?token=${token}`),
      await get(port, "/"),
      await get(port, "/assets/app.js"),
    ]) {
      expect(answer.headers["set-cookie"]).toBeUndefined();
    }
  });

  it("refuses a navigation from another site, or another port of this machine (Sec-Fetch-Site)", async () => {
    for (const site of ["cross-site", "same-site"]) {
      const answer = await get(port, `/?session=x`, { "sec-fetch-site": site });
      expect(answer.status, site).toBe(403);
      expect(answer.body).not.toContain("<title>");
    }
    expect((await get(port, "/", { "sec-fetch-site": "none" })).status).toBe(200);
    expect((await get(port, "/assets/app.js", { "sec-fetch-site": "same-origin" })).status).toBe(200);
  });

  it("sends the Electron window's strict CSP, exactly, and nosniff on every answer", async () => {
    const expected =
      `default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; ` +
      `connect-src 'self' ws://127.0.0.1:${port}; object-src 'none'; base-uri 'none'; ` +
      `frame-ancestors 'none'; form-action 'none'`;
    expect(contentSecurityPolicy(port)).toBe(expected);
    for (const answer of [
      await get(port, `/?token=${token}`),
      await get(port, "/assets/app.js"),
      await get(port, "/?token=wrong"),
      await get(port, "/nothing-here"),
    ]) {
      expect(answer.headers["content-security-policy"]).toBe(expected);
      expect(answer.headers["x-content-type-options"]).toBe("nosniff");
    }
  });

  it("answers only GET and HEAD", async () => {
    expect((await get(port, "/", {}, "POST")).status).toBe(405);
    expect((await get(port, "/", {}, "DELETE")).status).toBe(405);
  });
});

describe("arbor serve: Origin and Host", () => {
  it("refuses HTTP requests from another origin, and to another host name", async () => {
    expect((await get(port, "/", { origin: "http://evil.example" })).status).toBe(403);
    expect((await get(port, `/?token=${token}`, { origin: `http://127.0.0.1:${port + 1}` })).status).toBe(
      403,
    );
    expect((await get(port, "/", { origin: "null" })).status).toBe(403);
    expect((await get(port, "/", { origin: `http://127.0.0.1:${port}` })).status).toBe(200);
    expect((await get(port, "/", { origin: `http://localhost:${port}` })).status).toBe(200);
    // DNS rebinding: a foreign name that resolves to 127.0.0.1.
    expect((await get(port, `/?token=${token}`, { host: `evil.example:${port}` })).status).toBe(403);
    expect((await get(port, "/", { host: `evil.example:${port}` })).status).toBe(403);
    expect((await get(port, "/", { host: `localhost:${port}` })).status).toBe(200);
  });

  it("accepts a WebSocket only with the token and the server's own Origin", async () => {
    const ws = `ws://127.0.0.1:${port}/ws`;
    const own = `http://127.0.0.1:${port}`;
    expect(await upgrade(`${ws}?token=${token}`, {}, own)).toBe("open");
    expect(await upgrade(`${ws}?token=${token}`, {}, `http://localhost:${port}`)).toBe("open");
    expect(await upgrade(ws, {}, own)).toBe(401);
    // A cookie is no credential (another local service could have been sent one).
    expect(await upgrade(ws, { cookie: `arbor_token=${token}` }, own)).toBe(401);
    expect(await upgrade(`${ws}?token=wrong`, {}, own)).toBe(403);
    expect(await upgrade(`${ws}?token=${token}`, {}, "http://evil.example")).toBe(403);
    expect(await upgrade(`${ws}?token=${token}`, {}, `http://127.0.0.1:${port + 1}`)).toBe(403);
    // No Origin at all: not a browser page of this server.
    expect(await upgrade(`${ws}?token=${token}`)).toBe(403);
    expect(await upgrade(`ws://127.0.0.1:${port}/other?token=${token}`, {}, own)).toBe(404);
  });

  it("speaks the contract over the socket it accepted", async () => {
    const origin = `http://127.0.0.1:${port}`;
    class PageSocket extends WebSocket {
      constructor(url: string) {
        super(url, { origin });
      }
    }
    const client = await WebSocketClient.connect(`ws://127.0.0.1:${port}/ws?token=${token}`, {
      WebSocket: PageSocket as unknown as WebSocketConstructor,
    });
    expect(await client.request("app.info", {})).toMatchObject({ transport: "serve" });
    client.close();
  });

  it("gives each connection (a browser tab) its own open session", async () => {
    writeLinearSession(join(folder.path, "sessions", encodedCwd("/work/project"), "second.jsonl"), {
      turns: 2,
    });
    const origin = `http://127.0.0.1:${port}`;
    class PageSocket extends WebSocket {
      constructor(url: string) {
        super(url, { origin });
      }
    }
    const tab = () =>
      WebSocketClient.connect(`ws://127.0.0.1:${port}/ws?token=${token}`, {
        WebSocket: PageSocket as unknown as WebSocketConstructor,
      });
    const [first, second] = await Promise.all([tab(), tab()]);
    const listed = (await first.request("library.rescan", {})).projects.flatMap(
      (project) => project.sessions,
    );
    expect(listed).toHaveLength(2);
    // One library for all tabs (one writer of its cache): the second tab lists what the first one's scan read.
    const secondList = await second.request("library.list", {});
    expect(secondList.projects.flatMap((project) => project.sessions)).toHaveLength(2);
    const switched: string[] = [];
    first.on("session.switched", ({ sessionId }) => switched.push(sessionId));
    const a = await first.request("session.open", { sessionId: listed[0]!.sessionId });
    const b = await second.request("session.open", { sessionId: listed[1]!.sessionId });
    expect(b.sessionId).not.toBe(a.sessionId);
    // The second tab's open left the first tab's session as it was.
    expect((await first.request("session.current", {}))?.sessionId).toBe(a.sessionId);
    expect((await second.request("session.current", {}))?.sessionId).toBe(b.sessionId);
    expect(switched).toEqual([a.sessionId]);
    first.close();
    second.close();
  });
});

describe("arbor serve: static files", () => {
  it("never serves a file outside the renderer folder, however the path is spelled", async () => {
    const attempts = [
      "/../secret.txt",
      "/..%2fsecret.txt",
      "/%2e%2e/secret.txt",
      "/%2e%2e%2fsecret.txt",
      "/assets/../../secret.txt",
      "/assets/%2e%2e/%2e%2e/secret.txt",
      "/..%5csecret.txt",
      "/assets/..%5c..%5csecret.txt",
      `/${"..%2f".repeat(12)}etc%2fpasswd`,
      "//etc/passwd",
      "/%00index.html",
      "/assets/link.txt",
    ];
    for (const path of attempts) {
      const answer = await get(port, path);
      expect(answer.status, path).toBe(404);
      expect(answer.body, path).not.toContain("top secret");
      expect(answer.body, path).not.toContain("root:");
    }
    expect((await get(port, "/%E0%A4%A")).status).toBe(400);
    expect((await get(port, "/assets/")).status).toBe(404);
  });

  it("serves a placeholder page, under the same CSP, when the renderer is not built", async () => {
    const server = await startArborServer({
      connect: () => {
        const events = createEventHub();
        return { handlers: {} as never, events, close: async () => events.dispose() };
      },
      port: 0,
      staticDir: join(folder.path, "not-built"),
    });
    try {
      expect(server.rendererBuilt).toBe(false);
      const page = await get(server.port, `/?token=${server.token}`);
      expect(page.status).toBe(200);
      expect(page.body).toBe(PLACEHOLDER_HTML);
      expect(page.body).toContain("renderer is not built");
      expect(page.headers["content-security-policy"]).toBe(contentSecurityPolicy(server.port));
      expect((await get(server.port, "/app.js")).status).toBe(404);
      expect((await get(server.port, "/?token=wrong")).status).toBe(403);
      // Built while serving: the next load gets the real page.
      mkdirSync(join(folder.path, "not-built"), { recursive: true });
      writeFileSync(join(folder.path, "not-built", "index.html"), "<!doctype html><title>Built</title>");
      const built = await get(server.port, "/");
      expect(built.body).toContain("<title>Built</title>");
    } finally {
      await server.close();
    }
  });
});

describe("arbor serve: the network", () => {
  it("listens on 127.0.0.1 only", async () => {
    expect(await canConnect("127.0.0.1", port)).toBe(true);
    // Another loopback address, IPv6 loopback, and every other interface of this machine: nothing there.
    expect(await canConnect("127.0.0.2", port)).toBe(false);
    expect(await canConnect("::1", port)).toBe(false);
    const others = Object.values(networkInterfaces())
      .flat()
      .filter((address) => address && !address.internal)
      .map((address) => address!.address);
    for (const address of others) expect(await canConnect(address, port), address).toBe(false);
  });
});

describe("arbor serve: stopping", () => {
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    it(`stops cleanly on ${signal}: connections closed, the port released, exit code 0`, async () => {
      const root = join(folder.path, `stop-${signal}`);
      writeSampleSession(join(root, encodedCwd("/work/project"), "sample.jsonl"));
      const child = await spawnServe(["--dir", root, "--data-dir", join(folder.path, `data-${signal}`)]);
      const origin = `http://127.0.0.1:${child.port}`;
      class PageSocket extends WebSocket {
        constructor(url: string) {
          super(url, { origin });
        }
      }
      const client = await WebSocketClient.connect(`ws://127.0.0.1:${child.port}/ws?token=${child.token}`, {
        WebSocket: PageSocket as unknown as WebSocketConstructor,
      });
      const listing = await client.request("library.rescan", {});
      const sessionId = listing.projects[0]!.sessions[0]!.sessionId;
      await client.request("session.open", { sessionId });
      const closed = new Promise<string>((resolve) => client.onClose(resolve));
      const code = await child.stop(signal);
      expect(code).toBe(0);
      expect(await closed).toContain("closed");
      expect(child.output()).toContain(`stopped (${signal})`);
      expect(await canConnect("127.0.0.1", child.port)).toBe(false);
    });
  }

  it("exits 2 with a reason on bad arguments", async () => {
    await expect(spawnServe(["--port", "nope"])).rejects.toThrow(
      /exited \(2\)[\s\S]*--port must be a port number/,
    );
    await expect(spawnServe(["--bogus"])).rejects.toThrow(/exited \(2\)[\s\S]*usage: arbor serve/);
  });
});

describe("access decisions", () => {
  const base = { token: "t0ken", port: 4000 };
  const request = (url: string, headers: Record<string, string>) => ({
    url,
    headers: { host: "127.0.0.1:4000", ...headers },
  });

  it("the page: a token in the query must be this launch's; none is fine; other sites are refused", () => {
    expect(decidePageAccess(request("/?token=t0ken", {}), base)).toEqual({ allowed: true });
    expect(decidePageAccess(request("/?session=a", {}), base)).toEqual({ allowed: true });
    expect(decidePageAccess(request("/?token=nope", {}), base)).toMatchObject({
      allowed: false,
      status: 403,
    });
    expect(decidePageAccess(request("/", { "sec-fetch-site": "cross-site" }), base)).toMatchObject({
      allowed: false,
      status: 403,
    });
  });

  it("the socket: the token in the query, never a cookie; compared in constant time", () => {
    const own = { origin: "http://127.0.0.1:4000" };
    expect(decideSocketAccess(request("/ws?token=t0ken", own), base)).toEqual({ allowed: true });
    expect(decideSocketAccess(request("/ws", { ...own, cookie: "arbor_token=t0ken" }), base)).toMatchObject({
      allowed: false,
      status: 401,
    });
    expect(decideSocketAccess(request("/ws?token=t0ken", {}), base)).toMatchObject({
      allowed: false,
      status: 403,
    });
    expect(tokenMatches("t0ken", "t0ken")).toBe(true);
    expect(tokenMatches("t0ke", "t0ken")).toBe(false);
  });
});
