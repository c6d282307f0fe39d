import type { MenuItemConstructorOptions } from "electron";
import { describe, expect, it, vi } from "vitest";
import { MENU_COMMANDS } from "../../shared/ipc/contract.ts";
import { type MenuActions, type MenuInput, menuTemplate } from "./menu-template.ts";

function actions(): MenuActions {
  return {
    chooseSessionFile: vi.fn(),
    openSessionsFolder: vi.fn(),
    newSession: vi.fn(),
    openRecent: vi.fn(),
    clearRecent: vi.fn(),
    setTheme: vi.fn(),
    showAbout: vi.fn(),
    openPiDocumentation: vi.fn(),
    sessionCommand: vi.fn(),
  };
}

const input: MenuInput = {
  platform: "linux",
  development: false,
  recentFiles: ["/home/u/a.jsonl", "/home/u/b.jsonl"],
  theme: "system",
  displayPath: (path) => path.replace("/home/u", "~"),
};

/** Every item of the template, depth first. */
function items(template: MenuItemConstructorOptions[]): MenuItemConstructorOptions[] {
  return template.flatMap((item) => [
    item,
    ...(Array.isArray(item.submenu) ? items(item.submenu as MenuItemConstructorOptions[]) : []),
  ]);
}

function find(template: MenuItemConstructorOptions[], label: string): MenuItemConstructorOptions {
  const item = items(template).find((candidate) => candidate.label === label);
  if (!item) throw new Error(`no menu item "${label}"`);
  return item;
}

function click(item: MenuItemConstructorOptions): void {
  (item.click as () => void)();
}

describe("menuTemplate", () => {
  it("offers dev tools only in development", () => {
    const roles = (development: boolean) =>
      items(menuTemplate({ ...input, development }, actions())).map((i) => i.role);
    expect(roles(false)).not.toContain("toggleDevTools");
    expect(roles(false)).not.toContain("forceReload");
    expect(roles(true)).toContain("toggleDevTools");
    expect(roles(false)).toEqual(expect.arrayContaining(["reload", "resetZoom", "zoomIn", "zoomOut"]));
  });

  it("runs the open, folder and new-session actions in the main process", () => {
    const handlers = actions();
    const template = menuTemplate(input, handlers);
    click(find(template, "Open Session File…"));
    click(find(template, "Open Sessions Folder"));
    click(find(template, "New Session"));
    expect(handlers.chooseSessionFile).toHaveBeenCalledOnce();
    expect(handlers.openSessionsFolder).toHaveBeenCalledOnce();
    expect(handlers.newSession).toHaveBeenCalledOnce();
    expect(find(template, "Open Session File…").accelerator).toBe("CmdOrCtrl+O");
  });

  it("has a Session menu whose items each send their command to the window in front", () => {
    const handlers = actions();
    const template = menuTemplate(input, handlers);
    const session = template.find((menu) => menu.label === "Session")!;
    const entries = (session.submenu as MenuItemConstructorOptions[]).filter(
      (item) => item.type !== "separator",
    );
    expect(entries.map((item) => item.label)).toEqual([
      "Rename…",
      "New Session in This Project",
      "Clone Branch",
      "Export…",
      "Open in Pi",
      "Import Session…",
      "Move to Trash…",
    ]);
    for (const entry of entries) click(entry);
    expect(vi.mocked(handlers.sessionCommand).mock.calls.map(([command]) => command)).toEqual([
      "rename",
      "newSession",
      "clone",
      "export",
      "openInPi",
      "import",
      "trash",
    ]);
    // No item takes a key another menu (or the page) uses.
    expect(entries.every((item) => item.accelerator === undefined)).toBe(true);
    // After Edit, before View: where a document's own menu goes.
    expect(template.map((menu) => menu.label ?? menu.role)).toEqual([
      "File",
      "Edit",
      "Session",
      "Entry",
      "View",
      "windowMenu",
      "help",
    ]);
  });

  it("has an Entry menu with the entry menu's actions, each sending its command; with the Session menu, every command", () => {
    const handlers = actions();
    const template = menuTemplate(input, handlers);
    const entryMenu = template.find((menu) => menu.label === "Entry")!;
    const entries = (entryMenu.submenu as MenuItemConstructorOptions[]).filter(
      (item) => item.type !== "separator",
    );
    expect(entries.map((item) => item.label)).toEqual([
      "Label…",
      "Remove Label",
      "Continue in Pi from Here…",
      "Fork Here",
      "Fork Before This Prompt",
      "Archive or Unarchive Branch",
      "Add a Note to the Context…",
      "Edit in Context… (Pi 1.x Only)",
      "Drop from Context… (Pi 1.x Only)",
      "Undo Last Change to the Session",
    ]);
    for (const entry of entries) click(entry);
    expect(vi.mocked(handlers.sessionCommand).mock.calls.map(([command]) => command)).toEqual([
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
    ]);
    expect(entries.every((item) => item.accelerator === undefined)).toBe(true);
    // The two menus offer every command the contract knows, and nothing else.
    const session = template.find((menu) => menu.label === "Session")!;
    for (const item of session.submenu as MenuItemConstructorOptions[])
      if (item.type !== "separator") click(item);
    expect(new Set(vi.mocked(handlers.sessionCommand).mock.calls.map(([command]) => command))).toEqual(
      new Set(MENU_COMMANDS),
    );
    expect(vi.mocked(handlers.sessionCommand).mock.calls).toHaveLength(MENU_COMMANDS.length);
  });

  it("lists the recent files, most recent first, each opening its own path", () => {
    const handlers = actions();
    const recent = find(menuTemplate(input, handlers), "Open Recent").submenu as MenuItemConstructorOptions[];
    expect(recent.map((item) => item.label ?? item.type)).toEqual([
      "~/a.jsonl",
      "~/b.jsonl",
      "separator",
      "Clear Recent",
    ]);
    click(recent[1]!);
    expect(handlers.openRecent).toHaveBeenCalledWith("/home/u/b.jsonl");
    click(recent[3]!);
    expect(handlers.clearRecent).toHaveBeenCalledOnce();
  });

  it("says so when there is nothing recent", () => {
    const recent = find(menuTemplate({ ...input, recentFiles: [] }, actions()), "Open Recent")
      .submenu as MenuItemConstructorOptions[];
    expect(recent[0]).toEqual({ label: "No Recent Sessions", enabled: false });
    expect(recent.at(-1)).toMatchObject({ label: "Clear Recent", enabled: false });
  });

  it("follows the OS theme unless told otherwise", () => {
    const handlers = actions();
    const template = menuTemplate({ ...input, theme: "system" }, handlers);
    expect(find(template, "Follow System").checked).toBe(true);
    expect(find(template, "Dark").checked).toBe(false);
    click(find(template, "Dark"));
    expect(handlers.setTheme).toHaveBeenCalledWith("dark");
    expect(find(menuTemplate({ ...input, theme: "light" }, handlers), "Light").checked).toBe(true);
  });

  it("puts About in the app menu on macOS and in Help elsewhere", () => {
    const mac = menuTemplate({ ...input, platform: "darwin" }, actions());
    expect(mac[0]?.label).toBe("Arbor");
    expect(items(mac).some((item) => item.role === "about")).toBe(true);
    expect(items(mac).some((item) => item.label === "About Arbor")).toBe(false);
    const handlers = actions();
    click(find(menuTemplate(input, handlers), "About Arbor"));
    expect(handlers.showAbout).toHaveBeenCalledOnce();
    click(find(menuTemplate(input, handlers), "Pi Coding Agent"));
    expect(handlers.openPiDocumentation).toHaveBeenCalledOnce();
  });
});
