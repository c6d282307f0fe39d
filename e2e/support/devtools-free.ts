/**
 * A page measured in Debian's Chromium with no DevTools client attached.
 *
 * Playwright drives Chromium through the DevTools protocol, and with its
 * network domain on, Chromium copies every WebSocket frame the page receives
 * into the protocol, on the page's main thread: ~20-40 ms a megabyte here. A
 * 100k-entry session's view is a 10 MB frame, so under Playwright its open
 * costs 0.3-0.8 s that a user's browser never pays, while a 1k one's 0.1 MB
 * costs nothing. Ratios of such opens are measured here instead: Chromium
 * starts with a small extension whose content script (`driver`, run in the
 * page at document start, in its own world: the page's CSP does not apply)
 * does the clicking and timing, and reports in the page's title. The title
 * is read from Chromium's target list over HTTP (`/json/list`), which
 * attaches nothing to the page.
 */

import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CHROMIUM_ARGS, CHROMIUM_PATH, VIEWPORT } from "./chromium.ts";

/**
 * What the driver puts in the page's title when done (`<prefix> <report>`) or
 * when it failed (`<prefix> <why>`), the report URI-encoded: the target list
 * escapes the title as HTML.
 */
export const DONE_PREFIX = "ARBOR-MEASURED";
export const FAILED_PREFIX = "ARBOR-MEASUREMENT-FAILED";

export interface DevtoolsFreeRun {
  /** The page to open (the extension runs on http://127.0.0.1 pages). */
  url: string;
  /**
   * The content script's source. It must end by setting `document.title` to
   * `${DONE_PREFIX} ${encodeURIComponent(JSON.stringify(result))}` (or the
   * failure prefix and the reason, encoded the same way).
   */
  driver: string;
  timeoutMs: number;
}

/** Opens `url` with the driver and resolves with what it reported. */
export async function measureWithoutDevtools<T>(run: DevtoolsFreeRun): Promise<T> {
  const folder = mkdtempSync(join(tmpdir(), "arbor-devtools-free-"));
  const extension = join(folder, "extension");
  const profile = join(folder, "profile");
  writeExtension(extension, run.driver);
  const chromium = spawn(
    CHROMIUM_PATH,
    [
      "--headless",
      ...CHROMIUM_ARGS,
      `--window-size=${VIEWPORT.width},${VIEWPORT.height}`,
      `--user-data-dir=${profile}`,
      "--remote-debugging-port=0",
      `--load-extension=${extension}`,
      `--disable-extensions-except=${extension}`,
      run.url,
    ],
    // Its own process group, so that its helpers (renderers, the crash handler) go with it.
    { stdio: "ignore", detached: true },
  );
  const exit = new Promise<unknown>((resolve) => {
    chromium.once("exit", resolve);
    // It could not start (no binary): `exit` may never come.
    chromium.once("error", resolve);
  });
  try {
    const exitedEarly = exit.then((code) => {
      throw new Error(`Chromium ended (${String(code)}) before the driver reported`);
    });
    exitedEarly.catch(() => {});
    return await Promise.race([readReport<T>(profile, run.timeoutMs, exit), exitedEarly]);
  } finally {
    try {
      process.kill(-chromium.pid!, "SIGKILL");
    } catch {
      // Already gone.
    }
    await exit;
    // A helper may still be closing files in the profile for a moment.
    rmSync(folder, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
  }
}

function writeExtension(dir: string, driver: string): void {
  const manifest = {
    manifest_version: 3,
    name: "Arbor measurement driver",
    version: "1",
    content_scripts: [{ matches: ["http://127.0.0.1/*"], js: ["driver.js"], run_at: "document_start" }],
  };
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "manifest.json"), JSON.stringify(manifest));
  writeFileSync(join(dir, "driver.js"), driver);
}

/** Polls Chromium's target list (HTTP, no attachment) until the page's title carries the report. */
async function readReport<T>(profile: string, timeoutMs: number, exit: Promise<unknown>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let ended = false;
  void exit.then(() => {
    ended = true;
  });
  const portFile = join(profile, "DevToolsActivePort");
  let last = "";
  while (Date.now() < deadline && !ended) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    if (!existsSync(portFile)) continue;
    const port = readFileSync(portFile, "utf8").split("\n")[0];
    let targets: { type: string; title: string }[];
    try {
      targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as typeof targets;
    } catch {
      continue;
    }
    for (const target of targets) {
      if (target.type !== "page") continue;
      last = target.title;
      const report = () => decodeURIComponent(last.slice(last.indexOf(" ") + 1));
      if (last.startsWith(`${DONE_PREFIX} `)) return JSON.parse(report()) as T;
      if (last.startsWith(`${FAILED_PREFIX} `)) throw new Error(`The measurement failed: ${report()}`);
    }
  }
  throw new Error(`The measurement did not report within ${timeoutMs} ms (the page's title: "${last}")`);
}
