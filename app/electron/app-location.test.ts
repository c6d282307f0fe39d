import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  type AppLocation,
  appPageUrl,
  bundleFile,
  contentTypeOf,
  isAllowedRequestUrl,
  isAppOrigin,
  isAppPageUrl,
  resolveAppLocation,
} from "./app-location.ts";

const bundleRoot = "/opt/Arbor/resources/app.asar/out/renderer";
const built: AppLocation = { kind: "bundle", root: bundleRoot };
const dev: AppLocation = { kind: "dev-server", origin: "http://localhost:5173" };
const page = "arbor://app/index.html";

describe("resolveAppLocation", () => {
  it("uses the dev server only in an unpackaged app, on a loopback http address", () => {
    expect(
      resolveAppLocation({ isPackaged: false, rendererUrl: "http://localhost:5173/", bundleRoot }),
    ).toEqual(dev);
    expect(
      resolveAppLocation({ isPackaged: false, rendererUrl: "http://127.0.0.1:5173", bundleRoot }),
    ).toEqual({
      kind: "dev-server",
      origin: "http://127.0.0.1:5173",
    });
  });

  it("ignores the environment in a packaged app", () => {
    expect(
      resolveAppLocation({ isPackaged: true, rendererUrl: "http://localhost:5173", bundleRoot }),
    ).toEqual(built);
  });

  it("refuses a dev server that is not on this machine or not plain http", () => {
    for (const rendererUrl of [
      "http://example.com:5173",
      "https://localhost:5173",
      "file:///tmp/x.html",
      "nonsense",
    ]) {
      expect(resolveAppLocation({ isPackaged: false, rendererUrl, bundleRoot })).toEqual(built);
    }
  });

  it("loads the built page from the app's own scheme, never from file://", () => {
    expect(appPageUrl(built)).toBe(page);
    expect(appPageUrl(dev)).toBe("http://localhost:5173/");
  });
});

describe("isAppPageUrl", () => {
  it("accepts the built index.html on the app's scheme, with any query or fragment (deep links)", () => {
    expect(isAppPageUrl(page, built)).toBe(true);
    expect(isAppPageUrl(`${page}?session=abc&leaf=1#x`, built)).toBe(true);
  });

  it("refuses any other page: beside it, on file://, on another host of the scheme, with credentials", () => {
    expect(isAppPageUrl("arbor://app/other.html", built)).toBe(false);
    expect(isAppPageUrl(`file://${join(bundleRoot, "index.html")}`, built)).toBe(false);
    expect(isAppPageUrl("arbor://evil/index.html", built)).toBe(false);
    expect(isAppPageUrl("arbor://user:pw@app/index.html", built)).toBe(false);
    expect(isAppPageUrl("https://example.com/", built)).toBe(false);
    expect(isAppPageUrl("not a url", built)).toBe(false);
  });

  it("accepts the dev server's origin and nothing else under development", () => {
    expect(isAppPageUrl("http://localhost:5173/", dev)).toBe(true);
    expect(isAppPageUrl("http://localhost:5173/index.html?session=a", dev)).toBe(true);
    expect(isAppPageUrl("http://localhost:5174/", dev)).toBe(false);
    expect(isAppPageUrl("http://127.0.0.1:5173/", dev)).toBe(false);
    expect(isAppPageUrl(page, dev)).toBe(false);
  });

  it("knows the page's origin for permission checks", () => {
    expect(isAppOrigin("arbor://app", built)).toBe(true);
    expect(isAppOrigin("file://", built)).toBe(false);
    expect(isAppOrigin("http://localhost:5173", dev)).toBe(true);
    expect(isAppOrigin("arbor://app", dev)).toBe(false);
  });
});

describe("bundleFile", () => {
  it("maps the scheme's paths to files inside the bundle", () => {
    expect(bundleFile(page, built)).toBe(join(bundleRoot, "index.html"));
    expect(bundleFile("arbor://app/assets/index-1.js?v=2", built)).toBe(
      join(bundleRoot, "assets/index-1.js"),
    );
    expect(bundleFile("arbor://app/assets/a%20b.css", built)).toBe(join(bundleRoot, "assets/a b.css"));
  });

  it("names nothing outside it, however the path is spelled", () => {
    for (const url of [
      "arbor://app/../main/index.js",
      "arbor://app/%2e%2e/main/index.js",
      "arbor://app/assets/..%2f..%2fmain/index.js",
      "arbor://app/assets%2F..%2F..%2Fmain%2Findex.js",
      "arbor://app/..%5c..%5cmain%5cindex.js",
      "arbor://app/index.html%00.png",
      "arbor://app/C:%5cWindows%5cwin.ini",
      "arbor://app/",
      "arbor://app//etc/passwd",
      "arbor://other/index.html",
      "arbor://app/%E0%A4%A",
      "file:///etc/passwd",
    ]) {
      const file = bundleFile(url, built);
      expect(file === null || file.startsWith(`${bundleRoot}/`), url).toBe(true);
      if (file !== null) expect(file).not.toMatch(/\.\.|\\|\0/);
    }
    expect(bundleFile("arbor://app/%2e%2e/main/index.js", built)).toBe(join(bundleRoot, "main/index.js"));
    expect(bundleFile("arbor://app/assets%2F..%2F..%2Fmain%2Findex.js", built)).toBeNull();
    expect(bundleFile("arbor://app/index.html%00.png", built)).toBeNull();
    expect(bundleFile("arbor://app/index.html", dev)).toBeNull();
  });

  it("serves each kind of bundle file with its content type", () => {
    expect(contentTypeOf("/x/index.html")).toBe("text/html; charset=utf-8");
    expect(contentTypeOf("/x/assets/index-1.js")).toBe("text/javascript; charset=utf-8");
    expect(contentTypeOf("/x/assets/index-1.CSS")).toBe("text/css; charset=utf-8");
    expect(contentTypeOf("/x/unknown.bin")).toBe("application/octet-stream");
  });
});

describe("isAllowedRequestUrl", () => {
  it("lets the built page load its own files and data: images", () => {
    expect(isAllowedRequestUrl(page, built)).toBe(true);
    expect(isAllowedRequestUrl("arbor://app/assets/index-1.js", built)).toBe(true);
    expect(isAllowedRequestUrl("data:image/png;base64,AAAA", built)).toBe(true);
    expect(isAllowedRequestUrl("devtools://devtools/bundled/inspector.html", built)).toBe(true);
  });

  it("cancels every file:// URL, and anything outside the bundle, however the path is spelled", () => {
    expect(isAllowedRequestUrl("file:///etc/passwd", built)).toBe(false);
    expect(isAllowedRequestUrl(`file://${join(bundleRoot, "index.html")}`, built)).toBe(false);
    expect(isAllowedRequestUrl("arbor://app/assets%2F..%2F..%2Fmain%2Findex.js", built)).toBe(false);
    expect(isAllowedRequestUrl("arbor://other/x.js", built)).toBe(false);
  });

  it("cancels the network: other sites, other schemes", () => {
    for (const url of [
      "https://example.com/x.js",
      "http://localhost:5173/",
      "ws://localhost:5173/",
      "ftp://example.com/",
      "chrome://settings",
      "javascript:alert(1)",
    ]) {
      expect(isAllowedRequestUrl(url, built)).toBe(false);
    }
  });

  it("lets the dev page reach its dev server and hot-reload socket only", () => {
    expect(isAllowedRequestUrl("http://localhost:5173/src/main.tsx", dev)).toBe(true);
    expect(isAllowedRequestUrl("ws://localhost:5173/?token=x", dev)).toBe(true);
    expect(isAllowedRequestUrl("http://localhost:8080/", dev)).toBe(false);
    expect(isAllowedRequestUrl("ws://localhost:8080/", dev)).toBe(false);
    expect(isAllowedRequestUrl("file:///etc/passwd", dev)).toBe(false);
    expect(isAllowedRequestUrl(page, dev)).toBe(false);
  });
});
