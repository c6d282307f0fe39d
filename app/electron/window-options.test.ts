import type { BrowserWindowConstructorOptions } from "electron";
import { describe, expect, it } from "vitest";
import { constructBrowserWindow } from "./window-options.ts";

/** Records what a BrowserWindow would be constructed with; nothing is launched. */
class RecordingWindow {
  constructor(readonly options: BrowserWindowConstructorOptions) {}
}

function build(development: boolean) {
  return constructBrowserWindow(RecordingWindow, {
    bounds: { x: 10, y: 20, width: 1000, height: 700 },
    preloadPath: "/app/out/preload/index.cjs",
    development,
    backgroundColor: "#ffffff",
  }).options;
}

describe("constructBrowserWindow", () => {
  it("isolates and sandboxes the page, with no Node and full web security", () => {
    expect(build(false).webPreferences).toEqual({
      preload: "/app/out/preload/index.cjs",
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      experimentalFeatures: false,
      navigateOnDragDrop: false,
      disableBlinkFeatures: "Auxclick",
      safeDialogs: true,
      spellcheck: false,
      devTools: false,
    });
  });

  it("has dev tools in development only", () => {
    expect(build(true).webPreferences?.devTools).toBe(true);
    expect(build(false).webPreferences?.devTools).toBe(false);
  });

  it("sets nothing that would weaken the page", () => {
    const preferences = build(true).webPreferences as Record<string, unknown>;
    for (const risky of ["enableBlinkFeatures", "additionalArguments", "partition", "enableRemoteModule"]) {
      expect(preferences).not.toHaveProperty(risky);
    }
  });

  it("opens hidden (shown once painted) at the given bounds", () => {
    const options = build(false);
    expect(options).toMatchObject({ x: 10, y: 20, width: 1000, height: 700, show: false, title: "Arbor" });
    expect(options.minWidth).toBeGreaterThan(0);
  });
});
