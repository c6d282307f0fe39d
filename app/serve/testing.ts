/** Test support for `arbor serve`: the real command in a child process. */

import { type ChildProcess, spawn } from "node:child_process";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

export interface SpawnedServe {
  child: ChildProcess;
  port: number;
  token: string;
  url: string;
  output(): string;
  /** SIGTERM, then the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** What runs `arbor serve` by default: its entry point through tsx. */
const SERVE_ENTRY = ["--import", "tsx", join(REPO, "app", "serve", "main.ts")];

/**
 * Starts `tsx app/serve/main.ts ARGS` (or `node COMMAND... ARGS`, e.g.
 * `bin/arbor.js serve`) and waits for the URL it prints.
 */
export function spawnServe(
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
  command: readonly string[] = SERVE_ENTRY,
): Promise<SpawnedServe> {
  const child = spawn(process.execPath, [...command, ...args], {
    cwd: REPO,
    // Never Pi's real folders: a test names its own with --dir.
    env: { ...process.env, PI_CODING_AGENT_DIR: join(tmpdir(), "arbor-test-no-pi-agent"), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.setEncoding("utf8");
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (text: string) => {
    output += text;
  });
  const exited = new Promise<number | null>((resolvePromise) =>
    child.once("exit", (code) => resolvePromise(code)),
  );
  return new Promise((resolvePromise, reject) => {
    let started = false;
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`arbor serve printed no URL within 30 s:\n${output}`));
    }, 30_000);
    void exited.then((code) => {
      if (started) return;
      clearTimeout(timer);
      reject(new Error(`arbor serve exited (${code}) before printing a URL:\n${output}`));
    });
    child.stdout!.on("data", (text: string) => {
      output += text;
      const match = /http:\/\/127\.0\.0\.1:(\d+)\/\?token=([A-Za-z0-9_-]+)/.exec(output);
      if (!match || started) return;
      started = true;
      clearTimeout(timer);
      resolvePromise({
        child,
        port: Number(match[1]),
        token: match[2]!,
        url: match[0],
        output: () => output,
        async stop(signal = "SIGTERM") {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          return exited;
        },
      });
    });
  });
}
