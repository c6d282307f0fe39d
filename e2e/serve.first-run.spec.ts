/**
 * The README's first command, as a new user runs it: a fresh clone of this
 * repository (its committed HEAD), `npm ci`, then `npm start` on a machine
 * with no display and no way to fetch Electron's binary. `npm ci` must print
 * nothing that looks like a failure; `npm start` must say why the desktop
 * window cannot start and serve the same app in the browser (token enforced)
 * within a minute; a SIGTERM to npm must stop everything it started.
 *
 * Slow (an install of every dependency, from npm's local cache when it has
 * them): one test, run once.
 */

import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, request, test } from "@playwright/test";
import { openApp } from "./support/app.ts";
import { REPO } from "./support/serve.ts";

const INSTALL_TIMEOUT_MS = 5 * 60_000;
const START_TIMEOUT_MS = 60_000;

let scratch: string;

test.beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), "arbor-first-run-"));
});

test.afterAll(() => {
  // Whatever a failed run left behind (an npm start still running) goes with its folder.
  spawnSync("pkill", ["-TERM", "-f", scratch]);
  rmSync(scratch, { recursive: true, force: true });
});

/** The environment of a machine with no display and Electron's release host out of reach. */
function newUserEnvironment(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) {
    if (/^(npm_|ELECTRON_|DISPLAY$|WAYLAND_DISPLAY$|PI_CODING_AGENT|ARBOR_)/.test(name)) delete env[name];
  }
  return {
    ...env,
    // Unreachable on purpose: no download can succeed even where Node.js could run the installer.
    ELECTRON_MIRROR: "http://127.0.0.1:9/",
    ARBOR_DATA_DIR: join(home, "arbor-data"),
    PI_CODING_AGENT_DIR: join(home, "pi-agent"),
  };
}

/** Resolves with the first `http://127.0.0.1:PORT/?token=…` the process prints. */
function printedUrl(child: ChildProcess, output: () => string): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`npm start printed no URL within ${START_TIMEOUT_MS} ms:\n${output()}`)),
      START_TIMEOUT_MS,
    );
    const look = () => {
      const found = /http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+/.exec(output());
      if (!found) return;
      clearTimeout(timer);
      resolve(found[0]);
    };
    child.stdout?.on("data", look);
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited (${code}) before printing a URL:\n${output()}`));
    });
  });
}

function running(pattern: string): string[] {
  const found = spawnSync("pgrep", ["-af", pattern], { encoding: "utf8" }).stdout;
  return found.split("\n").filter((line) => line.trim() !== "" && !line.includes("pgrep"));
}

test("a fresh clone: npm ci is quiet, npm start serves the app when Electron cannot start, SIGTERM stops it all", async ({
  page,
}) => {
  test.setTimeout(INSTALL_TIMEOUT_MS + START_TIMEOUT_MS + 60_000);
  const clone = join(scratch, "arbor");
  const home = join(scratch, "home");
  mkdirSync(join(home, "pi-agent"), { recursive: true });
  const cloned = spawnSync("git", ["clone", "--quiet", REPO, clone], { encoding: "utf8" });
  expect(cloned.status, cloned.stderr).toBe(0);
  const env = newUserEnvironment(home);

  const install = spawnSync("npm", ["ci", "--prefer-offline"], {
    cwd: clone,
    env,
    encoding: "utf8",
    timeout: INSTALL_TIMEOUT_MS,
  });
  const installOutput = `${install.stdout}${install.stderr}`;
  expect(install.status, installOutput).toBe(0);
  expect(installOutput, "npm ci printed something that looks like a failure").not.toMatch(
    /warn|err|fail|deprecat/i,
  );

  let output = "";
  const started = Date.now();
  const start = spawn("npm", ["start"], { cwd: clone, env, stdio: ["ignore", "pipe", "pipe"] });
  start.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  start.stderr.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const url = await printedUrl(start, () => output);
  console.log(
    `first run: npm start served ${url.replace(/token=.*/, "token=…")} after ${Date.now() - started} ms`,
  );
  expect(output).toContain("Arbor's desktop window cannot start here: there is no display");
  expect(output).not.toMatch(/\n\s+at .+:\d+:\d+/); // no stack trace

  // The demo library (no Pi sessions on this "machine"), listed in the window.
  await openApp(page, url);
  // The token is enforced: a wrong one gets no page, and no token gets no session data (the socket).
  const anonymous = await request.newContext();
  try {
    expect((await anonymous.get(new URL("/?token=not-this-launch", url).toString())).status()).toBe(403);
  } finally {
    await anonymous.dispose();
  }
  const fresh = await page.context().browser()!.newContext();
  const stranger = await fresh.newPage();
  await stranger.goto(new URL("/", url).toString());
  await expect(stranger.getByRole("alert")).toContainText("needs its access token");
  await fresh.close();
  await page.close();

  const exited = new Promise<void>((resolve) => start.on("exit", () => resolve()));
  start.kill("SIGTERM");
  await exited;
  await expect.poll(() => running(clone), { timeout: 10_000 }).toEqual([]);
});
