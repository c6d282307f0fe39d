/**
 * Installs the application menu built by `menuTemplate`; main.ts calls it
 * again whenever what the menu shows (recent files, theme) changes.
 */

import { Menu } from "electron";
import { type MenuActions, type MenuInput, menuTemplate } from "./menu-template.ts";

export function installApplicationMenu(input: MenuInput, actions: MenuActions): void {
  Menu.setApplicationMenu(Menu.buildFromTemplate(menuTemplate(input, actions)));
}
