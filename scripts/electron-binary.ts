/**
 * Where the Electron binary is, found without loading the `electron`
 * package: its index.js downloads the binary when it is missing, which here
 * (no access to Electron's release host) would fail slowly. The package's
 * install step writes `path.txt` and unpacks `dist/`; `ELECTRON_OVERRIDE_DIST_PATH`
 * points at a binary installed some other way.
 */

import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

export type ElectronBinary = { found: true; executablePath: string } | { found: false; reason: string };

const PLATFORM_EXECUTABLE: Partial<Record<NodeJS.Platform, string>> = {
  darwin: "Electron.app/Contents/MacOS/Electron",
  win32: "electron.exe",
};

export function findElectronBinary(env: NodeJS.ProcessEnv = process.env): ElectronBinary {
  const require = createRequire(import.meta.url);
  let packageDir: string;
  try {
    packageDir = dirname(require.resolve("electron/package.json"));
  } catch {
    return { found: false, reason: "the electron package is not installed (npm ci)" };
  }
  const pathFile = join(packageDir, "path.txt");
  const relative = existsSync(pathFile) ? readFileSync(pathFile, "utf8").trim() : null;
  const override = env.ELECTRON_OVERRIDE_DIST_PATH;
  if (override) {
    const executablePath = join(override, relative ?? PLATFORM_EXECUTABLE[process.platform] ?? "electron");
    return existsSync(executablePath)
      ? { found: true, executablePath }
      : { found: false, reason: `ELECTRON_OVERRIDE_DIST_PATH is set, but ${executablePath} does not exist` };
  }
  if (relative === null || !existsSync(join(packageDir, "dist"))) {
    return {
      found: false,
      reason:
        "the Electron binary is not installed: node_modules/electron has no dist/ (its download from " +
        "Electron's release host did not happen); install it, or set ELECTRON_OVERRIDE_DIST_PATH to an " +
        "unpacked Electron 45",
    };
  }
  const executablePath = join(packageDir, "dist", relative);
  return existsSync(executablePath)
    ? { found: true, executablePath }
    : { found: false, reason: `the Electron binary ${executablePath} named by path.txt does not exist` };
}
