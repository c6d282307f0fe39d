/**
 * Security smoke test of `arbor serve` in a browser: the page runs no
 * inline script and gets no Node globals, every response carries the CSP,
 * and nothing is served or upgraded without this launch's token (or from
 * another origin or host name).
 */

import { request as httpRequest } from "node:http";
import { expect, request, test } from "@playwright/test";
import { WebSocket } from "ws";
import { openApp } from "./support/app.ts";
import { writeDemo } from "./support/demo.ts";
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

test("nothing is served without this launch's token, nor to another origin or host", async () => {
  const anonymous = await request.newContext();
  try {
    const page = await anonymous.get(`${serve.origin}/`);
    expect(page.status()).toBe(401);
    expect(page.headers()["content-security-policy"]).toContain("default-src 'self'");
    expect((await anonymous.get(`${serve.origin}/assets/`)).status()).toBe(401);
    expect((await anonymous.get(`${serve.origin}/?token=not-the-token`)).status()).toBe(403);
    expect(
      (await anonymous.get(`${serve.origin}/`, { headers: { cookie: "arbor_token=old" } })).status(),
    ).toBe(403);
    expect((await anonymous.get(serve.url, { headers: { origin: "http://evil.example" } })).status()).toBe(
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
  expect(await upgrade(`${ws}?token=wrong`, serve.origin)).toBe(403);
  expect(await upgrade(`${ws}?token=${serve.token}`, undefined)).toBe(403);
  expect(await upgrade(`${ws}?token=${serve.token}`, "http://evil.example")).toBe(403);
  expect(await upgrade(`${ws}?token=${serve.token}`, serve.origin)).toBe("open");
});

/** Tries a WebSocket upgrade: "open", or the HTTP status it was refused with. */
function upgrade(url: string, origin: string | undefined): Promise<number | "open"> {
  return new Promise((done, fail) => {
    const socket = new WebSocket(url, origin === undefined ? {} : { origin });
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
