/**
 * The Electron main process: one instance, one window per session view.
 * A session file reaches us on the command line, from a second instance,
 * from macOS's open-file, from the Open dialog, the recent list, or a drop
 * on a window; every one is checked by `checkSessionFile` and opened the
 * same way (`openFileInWindow` below). Everything that is not Electron
 * plumbing lives in the small pure modules beside this file.
 */

import { homedir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  app,
  type BrowserWindow,
  dialog,
  nativeTheme,
  type OpenDialogOptions,
  session,
  shell,
} from "electron";
import { desktopErrors } from "../../shared/error-texts.ts";
import type { ArborEvents } from "../../shared/ipc/contract.ts";
import { dispatch, errorPayload } from "../ipc/bind.ts";
import { piSessionRoot } from "../library/roots.ts";
import { resolveAppLocation } from "./app-location.ts";
import { registerAppScheme, serveAppBundle } from "./app-protocol.ts";
import { CONTENT_SECURITY_POLICY, developmentContentSecurityPolicy } from "./csp.ts";
import type { DroppedFileOutcome } from "./ipc-channels.ts";
import { bindIpcMain, sendEvent } from "./ipc-main.ts";
import { installApplicationMenu } from "./menu.ts";
import { type ThemeSource, withoutRecentFile, withRecentFile } from "../preferences/preferences.ts";
import { preferencesIn } from "../ipc/host.ts";
import { defaultDataDir } from "../preferences/data-dir.ts";
import { createHostWindowRuntimes } from "./host-runtime.ts";
import { checkSessionFile, sessionFileFromArgv } from "./session-file.ts";
import { createAppWindow, guardWebContents, hardenSession, windowStateFile } from "./window.ts";
import type { CreateWindowRuntime, Dispatch, WindowRuntime } from "./window-runtime.ts";

const dispatchRequest: Dispatch = (handlers, name, params) =>
  dispatch(handlers, name, params, {
    onInternalError: (error, request) => console.error(`Arbor failed while handling ${request}:`, error),
  });
// One data folder for the desktop app and `arbor serve` (ARBOR_DATA_DIR, else ~/.config/arbor...), not
// Electron's default, which follows the product name and would differ between a build and a checkout.
app.setPath("userData", defaultDataDir(process.env));
// Arbor's preferences (theme, recent files), in userData: the menu and every window's renderer share them.
const preferences = preferencesIn(app.getPath("userData"));
const createWindowRuntime: CreateWindowRuntime = createHostWindowRuntimes({
  version: app.getVersion(),
  dataDir: app.getPath("userData"),
  preferences,
  // The desktop's own trash; it does not say where the file went (restore finds it by its .trashinfo on Linux).
  trashFile: async (path) => {
    await shell.trashItem(path);
    return undefined;
  },
  chooseImportFile: async () => {
    const chosen = await dialog.showOpenDialog({
      title: "Import a Pi session",
      properties: ["openFile"],
      filters: [{ name: "Pi sessions", extensions: ["jsonl"] }],
    });
    return chosen.canceled ? null : (chosen.filePaths[0] ?? null);
  },
});

interface ShellWindow {
  window: BrowserWindow;
  runtime: WindowRuntime;
  /** The session file on view, as the runtime last reported it. */
  sessionPath: string | null;
}

const development = !app.isPackaged;
const location = resolveAppLocation({
  isPackaged: app.isPackaged,
  rendererUrl: process.env.ELECTRON_RENDERER_URL,
  bundleRoot: fileURLToPath(new URL("../renderer/", import.meta.url)),
});
const preloadPath = fileURLToPath(new URL("../preload/index.cjs", import.meta.url));
const windows = new Map<number, ShellWindow>();
/** Files asked for (macOS open-file, a second instance) before the app was ready. */
const pendingFiles: string[] = [];

// Every renderer is sandboxed, whatever a window's options say.
app.enableSandbox();
// The page is served from the app's own scheme, not file:// (before ready, as Electron requires).
registerAppScheme();

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on("second-instance", (_event, argv, workingDirectory) => {
    const path = sessionFileFromArgv(argv, { defaultApp: process.defaultApp === true, workingDirectory });
    if (!app.isReady()) {
      if (path !== null) pendingFiles.push(path);
    } else if (path !== null) void openFileInWindow(path);
    else focusSomeWindow();
  });
  app.on("open-file", (event, path) => {
    event.preventDefault();
    if (app.isReady()) void openFileInWindow(path);
    else pendingFiles.push(path);
  });
  app.on("web-contents-created", (_event, contents) => guardWebContents(contents, location));
  app.on("window-all-closed", () => {
    if (process.platform !== "darwin") app.quit();
  });
  app.on("activate", () => {
    if (windows.size === 0) openWindow();
  });
  void app.whenReady().then(start);
}

function start(): void {
  const policy =
    location.kind === "dev-server"
      ? developmentContentSecurityPolicy(location.origin)
      : CONTENT_SECURITY_POLICY;
  hardenSession(session.defaultSession, location, policy);
  serveAppBundle(session.defaultSession, location, policy);
  nativeTheme.themeSource = preferences.current.theme;
  // A theme chosen in a window (or the menu) colours the window's frame and dialogs too, and checks the menu.
  preferences.onDidChange((next) => {
    nativeTheme.themeSource = next.theme;
    rebuildMenu();
  });
  rebuildMenu();
  bindIpcMain({
    location,
    dispatch: dispatchRequest,
    runtimeFor: (id) => windows.get(id)?.runtime,
    ourWebContentsIds: () => new Set(windows.keys()),
    openDroppedFile,
  });

  const fromArgv = sessionFileFromArgv(process.argv, {
    defaultApp: process.defaultApp === true,
    workingDirectory: process.cwd(),
  });
  const initial = [...pendingFiles.splice(0), ...(fromArgv === null ? [] : [fromArgv])];
  // A window either way: a file that cannot be opened leaves the library view, not nothing.
  void Promise.all(initial.map((path) => openFileInWindow(path))).then(() => {
    if (windows.size === 0) openWindow();
  });
}

function openWindow(): ShellWindow {
  const window = createAppWindow({
    location,
    preloadPath,
    development,
    stateFile: windowStateFile(join(app.getPath("userData"), "window-state.json")),
  });
  const id = window.webContents.id;
  const shellWindow: ShellWindow = {
    window,
    sessionPath: null,
    runtime: createWindowRuntime({
      emit(name, payload) {
        if (name === "session.switched") {
          showSession(shellWindow, (payload as ArborEvents["session.switched"]).path);
        } else if (name === "session.reloaded") {
          const view = (payload as ArborEvents["session.reloaded"]).view;
          showSession(shellWindow, view ? view.path : null);
        }
        sendEvent(window.webContents, name, payload);
      },
      setTitle(title) {
        if (!window.isDestroyed()) window.setTitle(title);
      },
    }),
  };
  windows.set(id, shellWindow);
  window.on("closed", () => {
    windows.delete(id);
    void shellWindow.runtime.close();
  });
  return shellWindow;
}

/** The runtime's window-title extension sets the title; the shell only tracks which file is on view. */
function showSession(shellWindow: ShellWindow, path: string | null): void {
  shellWindow.sessionPath = path;
}

function focusedShellWindow(): ShellWindow | undefined {
  for (const shellWindow of windows.values()) {
    if (shellWindow.window.isFocused()) return shellWindow;
  }
  return windows.values().next().value;
}

function focusSomeWindow(): void {
  const shellWindow = focusedShellWindow();
  if (!shellWindow) {
    openWindow();
    return;
  }
  if (shellWindow.window.isMinimized()) shellWindow.window.restore();
  shellWindow.window.focus();
}

/**
 * Opens a session file: focuses the window already showing it, else uses
 * `target` (the window it was dropped on), else the focused window if it
 * shows no session yet, else a new window.
 */
async function openFileInWindow(path: unknown, target?: ShellWindow): Promise<DroppedFileOutcome> {
  const check = await checkSessionFile(path);
  if (!check.ok) {
    await showProblem(target, desktopErrors.cannotOpenThatFile, check.reason);
    return { opened: false, error: { code: "refused", message: check.reason } };
  }
  const already = [...windows.values()].find((shellWindow) => shellWindow.sessionPath === check.path);
  if (already && (target === undefined || target === already)) {
    already.window.focus();
    return { opened: true };
  }
  const focused = focusedShellWindow();
  const into = target ?? (focused && focused.sessionPath === null ? focused : openWindow());
  const previous = into.sessionPath;
  // Claimed now, so a second file opened meanwhile goes to another window.
  into.sessionPath = check.path;
  try {
    await into.runtime.switchToFile(check.path);
  } catch (error) {
    into.sessionPath = previous;
    const payload = errorPayload(error, "opening the file", (internal) =>
      console.error("Arbor failed while opening a file:", internal),
    );
    await showProblem(into, desktopErrors.couldNotOpen(basename(check.path)), payload.message);
    return { opened: false, error: payload };
  }
  showSession(into, check.path);
  into.window.focus();
  rememberRecent(check.path);
  return { opened: true };
}

function openDroppedFile(webContentsId: number, path: unknown): Promise<DroppedFileOutcome> {
  return openFileInWindow(path, windows.get(webContentsId));
}

async function showProblem(
  shellWindow: ShellWindow | undefined,
  message: string,
  detail: string,
): Promise<void> {
  const options = { type: "warning" as const, message, detail, buttons: ["OK"] };
  if (shellWindow && !shellWindow.window.isDestroyed()) {
    await dialog.showMessageBox(shellWindow.window, options);
  } else {
    await dialog.showMessageBox(options);
  }
}

function rememberRecent(path: string): void {
  app.addRecentDocument(path);
  preferences.update((current) => withRecentFile(current, path));
}

function rebuildMenu(): void {
  installApplicationMenu(
    {
      platform: process.platform,
      development,
      recentFiles: preferences.current.recentFiles,
      theme: preferences.current.theme,
      displayPath: (path) => (path.startsWith(homedir()) ? `~${path.slice(homedir().length)}` : path),
    },
    {
      chooseSessionFile: () => void chooseSessionFile(),
      openSessionsFolder: () => void openSessionsFolder(),
      newSession: () => void newSession(),
      openRecent: (path) => {
        void openFileInWindow(path).then((outcome) => {
          if (!outcome.opened) preferences.update((current) => withoutRecentFile(current, path));
        });
      },
      clearRecent: () => {
        app.clearRecentDocuments();
        preferences.update((current) => ({ ...current, recentFiles: [] }));
      },
      setTheme: (theme: ThemeSource) => {
        preferences.update((current) => ({ ...current, theme }));
      },
      showAbout: () => app.showAboutPanel(),
      openPiDocumentation: () =>
        void shell.openExternal("https://www.npmjs.com/package/@earendil-works/pi-coding-agent"),
      // The window in front asks what it needs (a name, a format, a confirmation) and runs it.
      sessionCommand: (command) => {
        const shellWindow = focusedShellWindow();
        if (shellWindow) sendEvent(shellWindow.window.webContents, "app.menuCommand", { command });
      },
    },
  );
}

async function chooseSessionFile(): Promise<void> {
  const shellWindow = focusedShellWindow();
  const options: OpenDialogOptions = {
    title: "Open Session File",
    defaultPath: piSessionRoot().path,
    properties: ["openFile"],
    filters: [{ name: "Pi sessions", extensions: ["jsonl"] }],
  };
  const choice = shellWindow
    ? await dialog.showOpenDialog(shellWindow.window, options)
    : await dialog.showOpenDialog(options);
  const path = choice.filePaths[0];
  if (!choice.canceled && path !== undefined) await openFileInWindow(path);
}

async function openSessionsFolder(): Promise<void> {
  const folder = piSessionRoot().path;
  const failure = await shell.openPath(folder);
  if (failure !== "")
    await showProblem(focusedShellWindow(), desktopErrors.cannotOpenFolder(folder), failure);
}

async function newSession(): Promise<void> {
  const shellWindow = focusedShellWindow();
  if (!shellWindow) return;
  try {
    await shellWindow.runtime.newSession();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    await showProblem(shellWindow, desktopErrors.couldNotStartSession, message);
  }
}
