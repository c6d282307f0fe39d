/**
 * The real desktop app, launched by Playwright with a session file on its
 * command line. Skips, saying why, where there is no Electron binary (it is
 * downloaded from Electron's release host, which not every machine reaches)
 * or no display to open a window on.
 */

import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { _electron as electron, type ElectronApplication, expect, type Page, test } from "@playwright/test";
import { findElectronBinary } from "../scripts/electron-binary.ts";

const projectDir = resolve(import.meta.dirname, "..");
const binary = findElectronBinary();
const noDisplay = process.platform === "linux" && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY;

const skipReason = binary.found ? null : `Electron end-to-end tests skipped: ${binary.reason}.`;
if (skipReason !== null) console.log(skipReason);
test.skip(skipReason !== null, skipReason ?? "");
test.skip(
  binary.found && noDisplay,
  "Electron end-to-end tests skipped: no display (DISPLAY is unset); run them under xvfb-run.",
);

const SESSION = [
  {
    type: "session",
    version: 3,
    id: "0199aa00-0000-7000-8000-000000000001",
    timestamp: "2026-01-02T10:00:00.000Z",
    cwd: "/tmp/arbor-e2e-project",
  },
  {
    type: "message",
    id: "e2e00001",
    parentId: null,
    timestamp: "2026-01-02T10:00:01.000Z",
    message: { role: "user", content: "Hello from the Electron end-to-end test", timestamp: 1767348001000 },
  },
  {
    type: "message",
    id: "e2e00002",
    parentId: "e2e00001",
    timestamp: "2026-01-02T10:00:02.000Z",
    message: { role: "user", content: "A second message", timestamp: 1767348002000 },
  },
];

let workDir: string;
let sessionFile: string;
let app: ElectronApplication;
let page: Page;

type BridgeOnPage = { arbor: { request(name: string, params: unknown): Promise<unknown> } };

/** `window.arbor.request(name, params)` in the page, resolved with its `{result}` or `{error}`. */
function requestInPage(name: string, params: unknown): Promise<unknown> {
  return page.evaluate(
    ([requestName, requestParams]) =>
      (globalThis as unknown as BridgeOnPage).arbor.request(requestName, requestParams),
    [name, params] as const,
  );
}

test.beforeAll(async () => {
  if (!binary.found) return;
  const build = spawnSync("npx", ["electron-vite", "build"], { cwd: projectDir, encoding: "utf8" });
  expect(build.status, build.stderr).toBe(0);

  workDir = mkdtempSync(join(tmpdir(), "arbor-e2e-electron-"));
  sessionFile = join(workDir, "2026-01-02T10-00-00-000Z_0199aa00-0000-7000-8000-000000000001.jsonl");
  writeFileSync(sessionFile, `${SESSION.map((entry) => JSON.stringify(entry)).join("\n")}\n`);

  const runningAsRoot = process.getuid?.() === 0;
  app = await electron.launch({
    executablePath: binary.executablePath,
    args: [
      // Chromium will not start as root with its OS sandbox (CI runs as root); Electron's own
      // renderer sandbox (sandbox: true, contextIsolation) is what the checks below look at.
      ...(runningAsRoot ? ["--no-sandbox"] : []),
      `--user-data-dir=${join(workDir, "user-data")}`,
      join(projectDir, "out/main/index.js"),
      sessionFile,
    ],
    cwd: projectDir,
    env: { ...process.env, ELECTRON_RENDERER_URL: "" },
  });
  page = await app.firstWindow();
  await page.waitForLoadState("domcontentloaded");
});

test.afterAll(async () => {
  await app?.close();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

test("the page gets window.arbor and nothing of Node or Electron", async () => {
  const globals = await page.evaluate(() => {
    const scope = globalThis as unknown as Record<string, unknown>;
    const bridge = scope.arbor as Record<string, unknown>;
    return {
      keys: Object.keys(bridge).sort(),
      frozen: Object.isFrozen(bridge),
      require: typeof scope.require,
      process: typeof scope.process,
      module: typeof scope.module,
      ipcRenderer: "ipcRenderer" in bridge,
    };
  });
  expect(globals).toEqual({
    keys: ["on", "openDroppedFile", "request"],
    frozen: true,
    require: "undefined",
    process: "undefined",
    module: "undefined",
    ipcRenderer: false,
  });
});

test("requests cross the bridge and errors come back as data", async () => {
  const info = await requestInPage("app.info", {});
  expect(info).toMatchObject({ result: { transport: "electron" } });
  const refused = await requestInPage("session.open", { sessionId: "x", path: "/etc/passwd" });
  expect(refused).toMatchObject({ error: { code: "invalid-request" } });
});

test("the session file named on the command line is open in the window", async () => {
  await expect
    .poll(() => requestInPage("session.current", {}))
    .toMatchObject({
      result: {
        path: sessionFile,
        nodes: expect.arrayContaining([
          expect.objectContaining({ id: "e2e00001" }),
          expect.objectContaining({ id: "e2e00002", parentId: "e2e00001" }),
        ]),
      },
    });
  // One window: the file opened in the window the app started with.
  expect(await app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows().length)).toBe(1);
});

test("the page has the strict CSP, and can neither navigate away nor open windows", async () => {
  const policy = await page.evaluate(
    () =>
      document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.getAttribute("content") ?? null,
  );
  expect(policy).toContain("script-src 'self'");
  const pageUrl = page.url();
  // Served from the app's own scheme, never from file:// (Electron's security checklist).
  expect(pageUrl.startsWith("arbor://app/index.html")).toBe(true);

  // Targets that are not web pages, so nothing is handed to the machine's browser.
  expect(await page.evaluate(() => window.open("file:///etc/passwd") === null)).toBe(true);

  // Wait for the main process to have seen (and refused) the navigation, rather than for a while.
  await app.evaluate(({ BrowserWindow }) => {
    const contents = BrowserWindow.getAllWindows()[0]!.webContents;
    (globalThis as { seenNavigation?: Promise<string> }).seenNavigation = new Promise((resolve) => {
      contents.once("will-navigate", (event) => resolve(event.url));
    });
  });
  await page.evaluate(() => {
    (globalThis as { stillHere?: boolean }).stillHere = true;
    window.location.href = "file:///etc/passwd";
  });
  expect(await app.evaluate(() => (globalThis as { seenNavigation?: Promise<string> }).seenNavigation)).toBe(
    "file:///etc/passwd",
  );
  expect(await page.evaluate(() => (globalThis as { stillHere?: boolean }).stillHere)).toBe(true);
  expect(page.url()).toBe(pageUrl);
  expect(await app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows().length)).toBe(1);
});
