import { describe, expect, it } from "vitest";
import type { AppLocation } from "./app-location.ts";
import { checkSender } from "./trusted-sender.ts";

const location: AppLocation = { kind: "bundle", root: "/opt/Arbor/resources/app.asar/out/renderer" };
const pageUrl = "arbor://app/index.html";
const ours = new Set([3, 7]);

describe("checkSender", () => {
  it("trusts the top frame of our window showing our page", () => {
    expect(checkSender({ webContentsId: 7, frameUrl: pageUrl, isMainFrame: true }, ours, location)).toEqual({
      trusted: true,
    });
    expect(
      checkSender(
        { webContentsId: 3, frameUrl: `${pageUrl}?session=a#b`, isMainFrame: true },
        ours,
        location,
      ),
    ).toEqual({ trusted: true });
  });

  it("refuses a webContents that is not one of our windows (dev tools, a stray view)", () => {
    expect(checkSender({ webContentsId: 9, frameUrl: pageUrl, isMainFrame: true }, ours, location)).toEqual({
      trusted: false,
      reason: "the message did not come from an Arbor window",
    });
  });

  it("refuses a frame that is gone", () => {
    expect(
      checkSender({ webContentsId: 7, frameUrl: null, isMainFrame: false }, ours, location).trusted,
    ).toBe(false);
  });

  it("refuses a sub-frame, even one showing our page", () => {
    expect(checkSender({ webContentsId: 7, frameUrl: pageUrl, isMainFrame: false }, ours, location)).toEqual({
      trusted: false,
      reason: "the message came from a sub-frame",
    });
  });

  it("refuses our window once it shows another page", () => {
    for (const frameUrl of [
      "https://example.com/",
      "file:///tmp/evil.html",
      "about:blank",
      "data:text/html,x",
    ]) {
      expect(checkSender({ webContentsId: 7, frameUrl, isMainFrame: true }, ours, location)).toEqual({
        trusted: false,
        reason: "the sending page is not Arbor's own page",
      });
    }
  });

  it("under development, trusts the dev server's origin only", () => {
    const dev: AppLocation = { kind: "dev-server", origin: "http://localhost:5173" };
    const facts = (frameUrl: string) => ({ webContentsId: 3, frameUrl, isMainFrame: true });
    expect(checkSender(facts("http://localhost:5173/"), ours, dev).trusted).toBe(true);
    expect(checkSender(facts("http://localhost:5174/"), ours, dev).trusted).toBe(false);
    expect(checkSender(facts(pageUrl), ours, dev).trusted).toBe(false);
  });
});
