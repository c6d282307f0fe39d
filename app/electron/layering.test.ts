/**
 * Keeps the shell thin: only the Electron-facing files may import Electron
 * at run time; every other module here imports it as types at most, so the
 * unit tests run in plain Node. (Importing "electron" in Node would try to
 * find, or download, the Electron binary.)
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const SHELL_FILES = new Set([
  "main.ts",
  "window.ts",
  "menu.ts",
  "ipc-main.ts",
  "preload.ts",
  "app-protocol.ts",
]);
const folder = import.meta.dirname;
const sources = readdirSync(folder).filter((name) => name.endsWith(".ts") && name !== "layering.test.ts");

/** The file's code without its comments (good enough for our own sources: no comment markers in strings). */
function code(name: string): string {
  return readFileSync(join(folder, name), "utf8")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/^\s*\/\/.*$/gm, "");
}

/** `import ... from "electron"` that is not `import type`, and `require("electron")`. */
const RUNTIME_ELECTRON_IMPORT =
  /^\s*import\s+(?!type\b)[^;]*?from\s*["']electron(\/[^"']*)?["']|require\(\s*["']electron/m;

describe("app/electron layering", () => {
  it("has the shell files it is expected to have", () => {
    for (const name of SHELL_FILES) expect(sources).toContain(name);
  });

  it.each(sources.filter((name) => !SHELL_FILES.has(name)))(
    "%s does not import Electron at run time",
    (name) => {
      expect(RUNTIME_ELECTRON_IMPORT.test(code(name))).toBe(false);
    },
  );

  it("the preload reaches only Electron and modules that are themselves Electron-free", () => {
    const imports = [...code("preload.ts").matchAll(/from\s*["']([^"']+)["']/g)].map((match) => match[1]);
    expect(imports).toEqual(["electron", "./bridge.ts", "./ipc-channels.ts"]);
  });

  it("ipcRenderer is used by the preload only, and ipcMain by ipc-main.ts only", () => {
    for (const name of sources.filter((source) => !source.endsWith(".test.ts"))) {
      const text = code(name);
      if (name !== "preload.ts") expect(text, name).not.toMatch(/\bipcRenderer\b/);
      if (name !== "ipc-main.ts") expect(text, name).not.toMatch(/\bipcMain\b/);
    }
  });
});
