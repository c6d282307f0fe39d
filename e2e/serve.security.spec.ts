/**
 * Security smoke test of `arbor serve` in a browser: the page runs no
 * inline script and gets no Node globals, every response carries the CSP,
 * no session data moves without this launch's token (or from another origin
 * or host name), and the token stays this server's own: no cookie carries it
 * to other services on 127.0.0.1, and two servers in one browser keep theirs.
 */

import { createServer, request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, request, test } from "@playwright/test";
import { WebSocket } from "ws";
import { openApp, sessionRow } from "./support/app.ts";
import { LOGIN, writeDemo } from "./support/demo.ts";
import type { PageGlobals } from "./support/page-globals.ts";
import { type RunningServe, startServe } from "./support/serve.ts";

let serve: RunningServe;

test.beforeAll(async () => {
  serve = await startServe({ dirs: [writeDemo().root], removeDirsOnStop: true });
});

test.afterAll(async () => {
  const code = await serve?.stop();
  expect(code, serve?.output()).toBe(0);
});

test("the page has a CSP, no inline script and no Node globals", async ({ page }) => {
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(error.message));
  const response = await page.goto(serve.url);
  expect(response?.status()).toBe(200);
  const csp = response?.headers()["content-security-policy"] ?? "";
  expect(csp).toContain("default-src 'self'");
  expect(csp).toContain("script-src 'self'");
  expect(csp).not.toContain("unsafe-inline");
  expect(csp).not.toContain("unsafe-eval");
  expect(response?.headers()["x-frame-options"]).toBe("DENY");
  expect(response?.headers()["x-content-type-options"]).toBe("nosniff");
  await openApp(page, serve.url);

  const facts = await page.evaluate(() => {
    const { document } = globalThis as unknown as PageGlobals;
    const global = globalThis as Record<string, unknown>;
    const handlerAttributes = [...document.querySelectorAll("*")].flatMap((element) =>
      [...element.attributes].filter((attribute) => /^on/i.test(attribute.name)).map((a) => a.name),
    );
    return {
      inlineScripts: document.querySelectorAll("script:not([src])").length,
      scripts: [...document.querySelectorAll("script[src]")].map((script) => script.getAttribute("src")),
      handlerAttributes,
      require: typeof global.require,
      process: typeof global.process,
      module: typeof global.module,
      bridge: typeof global.arbor,
    };
  });
  expect(facts.inlineScripts).toBe(0);
  expect(facts.handlerAttributes).toEqual([]);
  for (const src of facts.scripts) expect(src).toMatch(/^\.?\/assets\//);
  expect(facts).toMatchObject({ require: "undefined", process: "undefined", module: "undefined" });
  expect(facts.bridge).toBe("undefined");

  expect(errors).toEqual([]);

  // An injected inline script is refused by the policy.
  const refused = await page.evaluate(
    () =>
      new Promise<{ directive: string; ran: boolean }>((done) => {
        const { document } = globalThis as unknown as PageGlobals;
        document.addEventListener("securitypolicyviolation", (event) =>
          done({
            directive: event.effectiveDirective ?? "",
            ran: (globalThis as Record<string, unknown>).injected === true,
          }),
        );
        const script = document.createElement("script");
        script.textContent = "globalThis.injected = true";
        document.body.append(script);
      }),
  );
  expect(refused).toEqual({ directive: "script-src-elem", ran: false });
});

test("no data without this launch's token; no page for another origin, host or site", async () => {
  const anonymous = await request.newContext();
  try {
    // The page and its scripts hold no data: served without the token, never with a wrong one.
    const page = await anonymous.get(`${serve.origin}/`);
    expect(page.status()).toBe(200);
    expect(page.headers()["content-security-policy"]).toContain("default-src 'self'");
    expect(page.headers()["set-cookie"]).toBeUndefined();
    expect((await anonymous.get(`${serve.origin}/?token=not-the-token`)).status()).toBe(403);
    expect((await anonymous.get(serve.url, { headers: { origin: "http://evil.example" } })).status()).toBe(
      403,
    );
    expect((await anonymous.get(serve.url, { headers: { "sec-fetch-site": "cross-site" } })).status()).toBe(
      403,
    );
    expect((await anonymous.get(serve.url)).status()).toBe(200);
  } finally {
    await anonymous.dispose();
  }

  // A page on another name that resolves to 127.0.0.1 (DNS rebinding) is refused by its Host header.
  const status = await new Promise<number | undefined>((done, fail) => {
    const outgoing = httpRequest(
      {
        host: "127.0.0.1",
        port: serve.port,
        path: `/?token=${serve.token}`,
        headers: { host: `evil.example:${serve.port}` },
      },
      (response) => {
        response.resume();
        done(response.statusCode);
      },
    );
    outgoing.on("error", fail);
    outgoing.end();
  });
  expect(status).toBe(403);

  // The WebSocket: no token, a wrong one, no Origin, another Origin: refused; the right ones: open.
  const ws = `ws://127.0.0.1:${serve.port}/ws`;
  expect(await upgrade(ws, serve.origin)).toBe(401);
  expect(await upgrade(ws, serve.origin, `arbor_token=${serve.token}`)).toBe(401);
  expect(await upgrade(`${ws}?token=wrong`, serve.origin)).toBe(403);
  expect(await upgrade(`${ws}?token=${serve.token}`, undefined)).toBe(403);
  expect(await upgrade(`${ws}?token=${serve.token}`, "http://evil.example")).toBe(403);
  expect(await upgrade(`${ws}?token=${serve.token}`, serve.origin)).toBe("open");
});

/** Tries a WebSocket upgrade: "open", or the HTTP status it was refused with. */
function upgrade(url: string, origin: string | undefined, cookie?: string): Promise<number | "open"> {
  return new Promise((done, fail) => {
    const socket = new WebSocket(url, {
      ...(origin === undefined ? {} : { origin }),
      ...(cookie === undefined ? {} : { headers: { cookie } }),
    });
    socket.once("open", () => {
      socket.close();
      done("open");
    });
    socket.once("unexpected-response", (_request, response) => {
      done(response.statusCode ?? 0);
      socket.terminate();
    });
    socket.once("error", (error) => {
      if (!/Unexpected server response/.test(error.message)) fail(error);
    });
  });
}

test("a page without the token tells how to get it; one opened with it keeps it for later loads", async ({
  browser,
}) => {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${serve.origin}/?session=x`);
    await expect(page.getByRole("alert")).toContainText("needs its access token");
    await expect(page.getByRole("alert")).toContainText("?token=");
    await openApp(page, serve.url);
    // The token leaves the address (not bookmarked, not shared), and a later load without it still connects.
    await expect.poll(() => new URL(page.url()).searchParams.has("token")).toBe(false);
    const later = await context.newPage();
    await openApp(later, `${serve.origin}/`);
    await expect(sessionRow(later, LOGIN)).toBeVisible();
  } finally {
    await context.close();
  }
});

test("the token stays this server's: no other service on 127.0.0.1 receives it, and two servers keep theirs", async ({
  browser,
}) => {
  // Another local service, as a browser would reach it after using Arbor (cookies ignore ports).
  const received: string[] = [];
  const other = createServer((incoming, response) => {
    received.push(JSON.stringify(incoming.headers));
    response.end("other service");
  });
  await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
  const second = await startServe({ dirs: [writeDemo().root], removeDirsOnStop: true });
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await openApp(page, serve.url);
    await openApp(page, second.url);
    await page.goto(`http://127.0.0.1:${(other.address() as AddressInfo).port}/`);
    expect(received.join("\n")).not.toContain(serve.token);
    expect(received.join("\n")).not.toContain(second.token);
    expect(await context.cookies()).toEqual([]);
    // Both servers still open for this browser without their tokens in the address.
    for (const server of [serve, second]) {
      await openApp(page, `${server.origin}/`);
      await expect(sessionRow(page, LOGIN)).toBeVisible();
    }
  } finally {
    await context.close();
    await new Promise<void>((resolve) => other.close(() => resolve()));
    expect(await second.stop(), second.output()).toBe(0);
  }
});
