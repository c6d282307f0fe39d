/**
 * The one place a BrowserWindow is constructed, with its security settings
 * written out as literals at the construction site, where a reviewer (and
 * electronegativity, which reads `new BrowserWindow({...})`) can see them.
 * The class is passed in, so this module needs no Electron import and the
 * unit test hands it a recording stand-in.
 */

import type { BrowserWindowConstructorOptions } from "electron";
import { MINIMUM_SIZE, type Rectangle } from "./window-state.ts";

export interface WindowOptionsInput {
  bounds: Rectangle;
  /** Absolute path of the built preload (a single CommonJS file: sandboxed preloads cannot load modules). */
  preloadPath: string;
  /** Dev tools exist only in development builds. */
  development: boolean;
  backgroundColor: string;
}

export type BrowserWindowClass<W> = new (options: BrowserWindowConstructorOptions) => W;

export function constructBrowserWindow<W>(
  BrowserWindow: BrowserWindowClass<W>,
  input: WindowOptionsInput,
): W {
  return new BrowserWindow({
    ...input.bounds,
    minWidth: MINIMUM_SIZE.width,
    minHeight: MINIMUM_SIZE.height,
    title: "Arbor",
    // Shown once the page has painted, so no white flash.
    show: false,
    backgroundColor: input.backgroundColor,
    webPreferences: {
      preload: input.preloadPath,
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
      // Middle-click would open links in new windows; the window-open handler denies those anyway.
      disableBlinkFeatures: "Auxclick",
      safeDialogs: true,
      spellcheck: false,
      devTools: input.development,
    },
  });
}
