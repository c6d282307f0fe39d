/**
 * What the desktop app's Session and Entry menus ask a window to do: the
 * window runs the same action as its own menus (a closed set: anything else
 * is ignored). The Entry menu's commands act on the selected entry.
 */
export type MenuCommand =
  | "rename"
  | "newSession"
  | "clone"
  | "export"
  | "openInPi"
  | "trash"
  | "import"
  | "label"
  | "removeLabel"
  | "continue"
  | "fork"
  | "forkBefore"
  | "archive"
  | "note"
  | "editContext"
  | "dropContext"
  | "undo";

export const MENU_COMMANDS: readonly MenuCommand[] = [
  "rename",
  "newSession",
  "clone",
  "export",
  "openInPi",
  "trash",
  "import",
  "label",
  "removeLabel",
  "continue",
  "fork",
  "forkBefore",
  "archive",
  "note",
  "editContext",
  "dropContext",
  "undo",
];
