/**
 * Arbor's windows and the session they live in, hardened: every window is
 * built by `constructBrowserWindow` (sandboxed, isolated, no Node); the
 * session denies every permission but writing to the clipboard
 * (`isPermissionGranted`), cancels every request that is not for
 * the app's own files, and sends the CSP with every document; no
 * webContents may navigate, open windows or attach webviews, and http(s)
 * links go to the user's browser after `externalLinkTarget` checks them.
 * Window geometry is remembered in `window-state.json` in userData.
 */

import { BrowserWindow, nativeTheme, type Session, screen, shell, type WebContents } from "electron";
import { type AppLocation, appPageUrl, isAllowedRequestUrl, isAppPageUrl } from "./app-location.ts";
import { isDocumentResource, withContentSecurityPolicy } from "./csp.ts";
import { externalLinkTarget } from "./external-links.ts";
import { isPermissionGranted } from "./permissions.ts";
import { readFileOrNull, writeFileAtomically } from "../preferences/atomic-write.ts";
import { constructBrowserWindow } from "./window-options.ts";
import {
  cascade,
  fitToScreens,
  parseWindowState,
  serializeWindowState,
  type WindowState,
} from "./window-state.ts";

export function hardenSession(session: Session, location: AppLocation, policy: string): void {
  session.setPermissionRequestHandler((_webContents, permission, callback, details) => {
    callback(isPermissionGranted(permission, details.requestingUrl, location));
  });
  session.setPermissionCheckHandler((_webContents, permission, requestingOrigin, details) =>
    isPermissionGranted(permission, details.requestingUrl ?? requestingOrigin, location),
  );
  session.setDevicePermissionHandler(() => false);
  session.webRequest.onBeforeRequest((details, callback) => {
    callback({ cancel: !isAllowedRequestUrl(details.url, location) });
  });
  session.webRequest.onHeadersReceived((details, callback) => {
    if (!isDocumentResource(details.resourceType)) {
      callback({});
      return;
    }
    callback({ responseHeaders: withContentSecurityPolicy(details.responseHeaders, policy) });
  });
}

function openExternally(url: string): void {
  const target = externalLinkTarget(url);
  if (target !== null) void shell.openExternal(target);
}

/** Applied to every webContents the app creates (app.on("web-contents-created")). */
export function guardWebContents(contents: WebContents, location: AppLocation): void {
  contents.on("will-navigate", (event) => {
    if (isAppPageUrl(event.url, location)) return;
    event.preventDefault();
    openExternally(event.url);
  });
  contents.on("will-redirect", (event) => {
    if (!isAppPageUrl(event.url, location)) event.preventDefault();
  });
  contents.on("will-attach-webview", (event) => event.preventDefault());
  contents.setWindowOpenHandler((details) => {
    openExternally(details.url);
    return { action: "deny" };
  });
}

export interface WindowStateFile {
  read(): WindowState | null;
  write(state: WindowState): void;
}

export function windowStateFile(path: string): WindowStateFile {
  return {
    read: () => parseWindowState(readFileOrNull(path)),
    write(state) {
      try {
        writeFileAtomically(path, serializeWindowState(state));
      } catch (error) {
        console.error(`Arbor could not save the window position to ${path}:`, error);
      }
    },
  };
}

export interface AppWindowOptions {
  location: AppLocation;
  preloadPath: string;
  development: boolean;
  stateFile: WindowStateFile;
}

export function createAppWindow(options: AppWindowOptions): BrowserWindow {
  const saved = options.stateFile.read();
  const primary = screen.getPrimaryDisplay();
  const workAreas = [
    primary.workArea,
    ...screen
      .getAllDisplays()
      .filter((display) => display.id !== primary.id)
      .map((display) => display.workArea),
  ];
  const fitted = fitToScreens(saved?.bounds ?? null, workAreas);
  const bounds = cascade(
    fitted,
    BrowserWindow.getAllWindows().map((window) => window.getBounds()),
    screen.getDisplayMatching(fitted).workArea,
  );

  const window = constructBrowserWindow(BrowserWindow, {
    bounds,
    preloadPath: options.preloadPath,
    development: options.development,
    backgroundColor: nativeTheme.shouldUseDarkColors ? "#1b1d21" : "#ffffff",
  });
  // Only the first window takes over a maximised or full-screen state; more windows cascade.
  if (saved && BrowserWindow.getAllWindows().length === 1) {
    if (saved.maximized) window.maximize();
    if (saved.fullScreen) window.setFullScreen(true);
  }
  window.once("ready-to-show", () => window.show());
  // A page that fails to load never paints: show the window anyway, so the user sees something.
  window.webContents.once("did-fail-load", () => window.show());
  // The main process owns the title (the session on view), not the page's <title>.
  window.on("page-title-updated", (event) => event.preventDefault());
  window.on("close", () => {
    options.stateFile.write({
      bounds: window.getNormalBounds(),
      maximized: window.isMaximized(),
      fullScreen: window.isFullScreen(),
    });
  });
  void window.loadURL(appPageUrl(options.location));
  return window;
}
