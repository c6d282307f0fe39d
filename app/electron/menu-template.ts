/**
 * The application menu as data: a pure function from what the menu shows
 * (recent files, theme, platform, development or not) and what its items do
 * to Electron's menu template. menu.ts turns it into a Menu; the unit test
 * reads it directly (dev tools only in development, every recent file
 * listed, the theme radio checked where it should be).
 */

import type { MenuItemConstructorOptions } from "electron";
import type { MenuCommand } from "../../shared/ipc/contract.ts";
import type { ThemeSource } from "../preferences/preferences.ts";

export interface MenuActions {
  chooseSessionFile(): void;
  openSessionsFolder(): void;
  newSession(): void;
  openRecent(path: string): void;
  clearRecent(): void;
  setTheme(theme: ThemeSource): void;
  showAbout(): void;
  openPiDocumentation(): void;
  /** A Session or Entry menu item: the window in front runs it as its own menus do (`app.menuCommand`). */
  sessionCommand(command: MenuCommand): void;
}

export interface MenuInput {
  platform: NodeJS.Platform;
  development: boolean;
  recentFiles: readonly string[];
  theme: ThemeSource;
  /** How a recent path is shown: main.ts shortens the home directory to ~. */
  displayPath(path: string): string;
}

export function menuTemplate(input: MenuInput, actions: MenuActions): MenuItemConstructorOptions[] {
  const isMac = input.platform === "darwin";
  return [
    ...(isMac ? [appMenu()] : []),
    fileMenu(input, actions, isMac),
    editMenu(),
    sessionMenu(actions),
    entryMenu(actions),
    viewMenu(input, actions),
    { role: "windowMenu" },
    helpMenu(actions, isMac),
  ];
}

/** macOS's application menu, named after the app. */
function appMenu(): MenuItemConstructorOptions {
  return {
    label: "Arbor",
    submenu: [
      { role: "about" },
      { type: "separator" },
      { role: "services" },
      { type: "separator" },
      { role: "hide" },
      { role: "hideOthers" },
      { role: "unhide" },
      { type: "separator" },
      { role: "quit" },
    ],
  };
}

function fileMenu(input: MenuInput, actions: MenuActions, isMac: boolean): MenuItemConstructorOptions {
  const recent: MenuItemConstructorOptions[] =
    input.recentFiles.length === 0
      ? [{ label: "No Recent Sessions", enabled: false }]
      : input.recentFiles.map((path) => ({
          label: input.displayPath(path),
          click: () => actions.openRecent(path),
        }));
  return {
    label: "File",
    submenu: [
      { label: "Open Session File…", accelerator: "CmdOrCtrl+O", click: () => actions.chooseSessionFile() },
      {
        label: "Open Recent",
        submenu: [
          ...recent,
          { type: "separator" },
          {
            label: "Clear Recent",
            enabled: input.recentFiles.length > 0,
            click: () => actions.clearRecent(),
          },
        ],
      },
      { label: "Open Sessions Folder", click: () => actions.openSessionsFolder() },
      { type: "separator" },
      { label: "New Session", accelerator: "CmdOrCtrl+N", click: () => actions.newSession() },
      { type: "separator" },
      isMac ? { role: "close" } : { role: "quit" },
    ],
  };
}

function editMenu(): MenuItemConstructorOptions {
  return {
    label: "Edit",
    submenu: [
      { role: "undo" },
      { role: "redo" },
      { type: "separator" },
      { role: "cut" },
      { role: "copy" },
      { role: "paste" },
      { role: "selectAll" },
    ],
  };
}

/** What the window's context menus do to the session on view; the window asks what it needs (a name, a format). */
function sessionMenu(actions: MenuActions): MenuItemConstructorOptions {
  const item = (label: string, command: MenuCommand): MenuItemConstructorOptions => ({
    label,
    click: () => actions.sessionCommand(command),
  });
  return {
    label: "Session",
    submenu: [
      item("Rename…", "rename"),
      item("New Session in This Project", "newSession"),
      item("Clone Branch", "clone"),
      { type: "separator" },
      item("Export…", "export"),
      item("Open in Pi", "openInPi"),
      { type: "separator" },
      item("Import Session…", "import"),
      { type: "separator" },
      item("Move to Trash…", "trash"),
    ],
  };
}

/**
 * The entry context menu's actions, on the entry selected in the window in
 * front (the window says when none is, or when one does not apply to it).
 * No accelerators: the window's own keys (Shift+L, Ctrl+Z outside a text
 * field) do these where they do, and Ctrl+Z is the Edit menu's.
 */
function entryMenu(actions: MenuActions): MenuItemConstructorOptions {
  const item = (label: string, command: MenuCommand): MenuItemConstructorOptions => ({
    label,
    click: () => actions.sessionCommand(command),
  });
  return {
    label: "Entry",
    submenu: [
      item("Label…", "label"),
      item("Remove Label", "removeLabel"),
      { type: "separator" },
      item("Continue in Pi from Here…", "continue"),
      item("Fork Here", "fork"),
      item("Fork Before This Prompt", "forkBefore"),
      { type: "separator" },
      item("Archive or Unarchive Branch", "archive"),
      { type: "separator" },
      item("Add a Note to the Context…", "note"),
      item("Edit in Context… (Pi 1.x Only)", "editContext"),
      item("Drop from Context… (Pi 1.x Only)", "dropContext"),
      { type: "separator" },
      item("Undo Last Change to the Session", "undo"),
    ],
  };
}

function viewMenu(input: MenuInput, actions: MenuActions): MenuItemConstructorOptions {
  const themeItem = (theme: ThemeSource, label: string): MenuItemConstructorOptions => ({
    label,
    type: "radio",
    checked: input.theme === theme,
    click: () => actions.setTheme(theme),
  });
  const developmentItems: MenuItemConstructorOptions[] = input.development
    ? [{ role: "forceReload" }, { role: "toggleDevTools" }]
    : [];
  return {
    label: "View",
    submenu: [
      { role: "reload" },
      ...developmentItems,
      { type: "separator" },
      { role: "resetZoom" },
      { role: "zoomIn" },
      { role: "zoomOut" },
      { type: "separator" },
      {
        label: "Theme",
        submenu: [
          themeItem("system", "Follow System"),
          themeItem("light", "Light"),
          themeItem("dark", "Dark"),
        ],
      },
      { type: "separator" },
      { role: "togglefullscreen" },
    ],
  };
}

function helpMenu(actions: MenuActions, isMac: boolean): MenuItemConstructorOptions {
  // macOS has About in the app menu.
  const aboutItems: MenuItemConstructorOptions[] = isMac
    ? []
    : [{ label: "About Arbor", click: () => actions.showAbout() }];
  return {
    role: "help",
    submenu: [{ label: "Pi Coding Agent", click: () => actions.openPiDocumentation() }, ...aboutItems],
  };
}
