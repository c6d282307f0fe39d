import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import {
  type AppLocation,
  appPageUrl,
  isAllowedRequestUrl,
  isAppPageUrl,
  resolveAppLocation,
} from "./app-location.ts";

const indexFile = join("/opt/Arbor/resources/app.asar/out/renderer", "index.html");
const built: AppLocation = { kind: "file", indexFile };
const dev: AppLocation = { kind: "dev-server", origin: "http://localhost:5173" };
const fileUrl = (path: string) => pathToFileURL(path).href;

describe("resolveAppLocation", () => {
  it("uses the dev server only in an unpackaged app, on a loopback http address", () => {
    expect(
      resolveAppLocation({ isPackaged: false, rendererUrl: "http://localhost:5173/", indexFile }),
    ).toEqual(dev);
    expect(
      resolveAppLocation({ isPackaged: false, rendererUrl: "http://127.0.0.1:5173", indexFile }),
    ).toEqual({
      kind: "dev-server",
      origin: "http://127.0.0.1:5173",
    });
  });

  it("ignores the environment in a packaged app", () => {
    expect(resolveAppLocation({ isPackaged: true, rendererUrl: "http://localhost:5173", indexFile })).toEqual(
      built,
    );
  });

  it("refuses a dev server that is not on this machine or not plain http", () => {
    for (const rendererUrl of [
      "http://example.com:5173",
      "https://localhost:5173",
      "file:///tmp/x.html",
      "nonsense",
    ]) {
      expect(resolveAppLocation({ isPackaged: false, rendererUrl, indexFile })).toEqual(built);
    }
  });

  it("loads the built page from its file URL", () => {
    expect(appPageUrl(built)).toBe(fileUrl(indexFile));
    expect(appPageUrl(dev)).toBe("http://localhost:5173/");
  });
});

describe("isAppPageUrl", () => {
  it("accepts the built index.html, with any query or fragment (deep links)", () => {
    expect(isAppPageUrl(fileUrl(indexFile), built)).toBe(true);
    expect(isAppPageUrl(`${fileUrl(indexFile)}?session=abc&leaf=1#x`, built)).toBe(true);
  });

  it("refuses any other file, including one beside it, and a file URL with a host", () => {
    expect(
      isAppPageUrl(fileUrl(join("/opt/Arbor/resources/app.asar/out/renderer", "other.html")), built),
    ).toBe(false);
    expect(isAppPageUrl(fileUrl("/tmp/index.html"), built)).toBe(false);
    expect(isAppPageUrl(`file://evil.example${indexFile}`, built)).toBe(false);
    expect(isAppPageUrl("https://example.com/", built)).toBe(false);
    expect(isAppPageUrl("not a url", built)).toBe(false);
  });

  it("accepts the dev server's origin and nothing else under development", () => {
    expect(isAppPageUrl("http://localhost:5173/", dev)).toBe(true);
    expect(isAppPageUrl("http://localhost:5173/index.html?session=a", dev)).toBe(true);
    expect(isAppPageUrl("http://localhost:5174/", dev)).toBe(false);
    expect(isAppPageUrl("http://127.0.0.1:5173/", dev)).toBe(false);
    expect(isAppPageUrl(fileUrl(indexFile), dev)).toBe(false);
  });
});

describe("isAllowedRequestUrl", () => {
  it("lets the built page load its own files and data: images", () => {
    expect(isAllowedRequestUrl(fileUrl(indexFile), built)).toBe(true);
    expect(
      isAllowedRequestUrl(fileUrl("/opt/Arbor/resources/app.asar/out/renderer/assets/index-1.js"), built),
    ).toBe(true);
    expect(isAllowedRequestUrl("data:image/png;base64,AAAA", built)).toBe(true);
    expect(isAllowedRequestUrl("devtools://devtools/bundled/inspector.html", built)).toBe(true);
  });

  it("cancels every other file, however the path is spelled", () => {
    expect(isAllowedRequestUrl(fileUrl("/etc/passwd"), built)).toBe(false);
    expect(
      isAllowedRequestUrl("file:///opt/Arbor/resources/app.asar/out/renderer/../main/index.js", built),
    ).toBe(false);
    expect(
      isAllowedRequestUrl("file:///opt/Arbor/resources/app.asar/out/renderer/%2e%2e/main/index.js", built),
    ).toBe(false);
    expect(isAllowedRequestUrl("file:///opt/Arbor/resources/app.asar/out/renderer-evil/x.js", built)).toBe(
      false,
    );
    expect(isAllowedRequestUrl("file:///opt/Arbor/resources/app.asar/out/renderer%2Fx.js", built)).toBe(
      false,
    );
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
    expect(isAllowedRequestUrl(fileUrl("/etc/passwd"), dev)).toBe(false);
  });
});
