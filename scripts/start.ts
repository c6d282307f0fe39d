/**
 * `npm start`: Arbor's desktop window where Electron can start here; where it
 * cannot (no display, the binary missing and not downloadable, Node.js too
 * old to fetch it), one paragraph says why, and the same app starts in the
 * browser under `arbor serve` instead, building the window's code first if
 * it is missing or older than its sources.
 *
 * Run as `node --import tsx scripts/start.ts` (one process, so a signal to
 * npm reaches it, and it passes it on to Electron).
 */

import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { runServeAsProcess } from "../app/serve/main.ts";
import { watchParent } from "../app/serve/parent-watch.ts";
import { type ElectronBinary, findElectronBinary } from "./electron-binary.ts";

const ROOT = resolve(import.meta.dirname, "..");
/** Electron 45's installer declares this; older Node.js cannot download its binary. */
const ELECTRON_MIN_NODE: readonly [number, number] = [22, 12];

export interface DesktopCheck {
  platform: NodeJS.Platform;
  env: Readonly<Record<string, string | undefined>>;
  nodeVersion: string;
  binary: () => ElectronBinary;
  /** Tries to download the binary; returns why it failed, or null. */
  download: () => string | null;
}

/** Why the desktop app cannot start here, or null when it can (the binary is there, or was just fetched). */
export function whyNoDesktop(check: DesktopCheck): string | null {
  if (check.platform === "linux" && !check.env.DISPLAY && !check.env.WAYLAND_DISPLAY) {
    return "there is no display to open a window on (DISPLAY and WAYLAND_DISPLAY are unset)";
  }
  if (check.binary().found) return null;
  if (!atLeast(check.nodeVersion, ELECTRON_MIN_NODE)) {
    return (
      `Electron's binary is not installed, and Node.js ${check.nodeVersion} cannot download it ` +
      `(Electron 45 needs Node.js ${ELECTRON_MIN_NODE.join(".")} or newer for that)`
    );
  }
  const failed = check.download();
  if (failed !== null) return `Electron's binary is not installed and could not be downloaded (${failed})`;
  const after = check.binary();
  return after.found ? null : after.reason;
}

function atLeast(version: string, [major, minor]: readonly [number, number]): boolean {
  const [have, haveMinor] = version.replace(/^v/, "").split(".").map(Number);
  return have! > major || (have === major && haveMinor! >= minor);
}

/** Runs Electron's own installer (a download from its release host); the first line of its error if it fails. */
function downloadElectron(): string | null {
  const require = createRequire(import.meta.url);
  const installer = join(dirname(require.resolve("electron/package.json")), "install.js");
  console.log("Downloading Electron's binary (the first start does this once)...");
  const result = spawnSync(process.execPath, [installer], {
    stdio: ["ignore", "inherit", "pipe"],
    encoding: "utf8",
    timeout: 10 * 60_000,
  });
  if (result.status === 0) return null;
  const firstLine = `${result.stderr ?? ""}`.split("\n").find((line) => line.trim() !== "");
  return firstLine?.trim() ?? (result.error?.message || `the installer exited with ${result.status}`);
}

/** The window's code (out/renderer) is missing, or older than a source file it is built from. */
export function rendererIsStale(root: string): boolean {
  const built = join(root, "out", "renderer", "index.html");
  if (!existsSync(built)) return true;
  const builtAt = statSync(built).mtimeMs;
  const sources = [join(root, "renderer"), join(root, "shared"), join(root, "electron.vite.config.ts")];
  return sources.some((source) => newestChange(source) > builtAt);
}

function newestChange(path: string): number {
  const stats = statSync(path, { throwIfNoEntry: false });
  if (!stats) return 0;
  if (!stats.isDirectory()) return stats.mtimeMs;
  let newest = stats.mtimeMs;
  for (const name of readdirSync(path)) newest = Math.max(newest, newestChange(join(path, name)));
  return newest;
}

function build(): void {
  const result = spawnSync("npm", ["run", "-s", "build:app"], { cwd: ROOT, stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

function startDesktop(executable: string, args: readonly string[]): void {
  build();
  const child = spawn(executable, [ROOT, ...args], { stdio: "inherit" });
  const stop = (signal: NodeJS.Signals) => {
    if (child.exitCode === null) child.kill(signal);
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
  watchParent(() => stop("SIGTERM"));
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

function main(): void {
  const args = process.argv.slice(2);
  const why = whyNoDesktop({
    platform: process.platform,
    env: process.env,
    nodeVersion: process.version,
    binary: () => findElectronBinary(),
    download: downloadElectron,
  });
  const binary = findElectronBinary();
  if (why === null && binary.found) {
    startDesktop(binary.executablePath, args);
    return;
  }
  console.log(
    `\nArbor's desktop window cannot start here: ${why}.\n` +
      "The same app starts in your browser instead (arbor serve, on 127.0.0.1 with a per-launch token).\n" +
      "The desktop-only parts (the app menu with New Session and Open Session File, dropping files on the\n" +
      "window) are missing there. For the desktop app: Node.js 22.12 or newer, a display, and access to\n" +
      "Electron's release host (or ELECTRON_OVERRIDE_DIST_PATH pointing at an unpacked Electron 45).\n",
  );
  if (rendererIsStale(ROOT)) {
    console.log("Building the window's code first (npm run build:app)...");
    build();
  }
  runServeAsProcess(args);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) main();
