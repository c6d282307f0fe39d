import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBundleHandler } from "./bundle-server.ts";
import { CONTENT_SECURITY_POLICY } from "./csp.ts";

let folder: string;
let handler: ReturnType<typeof createBundleHandler>;

beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), "arbor-bundle-"));
  mkdirSync(join(folder, "out", "renderer", "assets"), { recursive: true });
  writeFileSync(join(folder, "out", "renderer", "index.html"), "<!doctype html><title>Arbor</title>");
  writeFileSync(join(folder, "out", "renderer", "assets", "index-1.js"), "console.log(1)");
  writeFileSync(join(folder, "out", "secret.txt"), "not for the page");
  handler = createBundleHandler(
    { kind: "bundle", root: join(folder, "out", "renderer") },
    CONTENT_SECURITY_POLICY,
  );
});

afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe("the app scheme's bundle server", () => {
  it("answers the page with its content type and the CSP header", async () => {
    const response = await handler({ url: "arbor://app/index.html?session=x", method: "GET" });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("content-security-policy")).toBe(CONTENT_SECURITY_POLICY);
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await response.text()).toContain("<title>Arbor</title>");
  });

  it("answers the page's scripts, without a CSP of their own", async () => {
    const response = await handler({ url: "arbor://app/assets/index-1.js", method: "GET" });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(response.headers.get("content-security-policy")).toBeNull();
    expect(await response.text()).toBe("console.log(1)");
  });

  it("answers 404 for files outside the bundle, missing files, other hosts and other methods", async () => {
    for (const [url, method] of [
      ["arbor://app/../secret.txt", "GET"],
      ["arbor://app/assets%2F..%2F..%2Fsecret.txt", "GET"],
      ["arbor://app/missing.js", "GET"],
      ["arbor://app/assets", "GET"],
      ["arbor://other/index.html", "GET"],
      ["arbor://app/index.html", "POST"],
    ] as const) {
      const response = await handler({ url, method });
      expect(response.status, `${method} ${url}`).toBe(404);
      expect(await response.text()).toBe("");
    }
  });
});
