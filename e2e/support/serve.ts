/**
 * The real `arbor serve` in a child process, for the Chromium end-to-end
 * tests: started on port 0 on the given session folders, its URL read from
 * what it prints, stopped with SIGTERM.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const REPO = resolve(import.meta.dirname, "..", "..");

export interface RunningServe {
  /** `http://127.0.0.1:PORT/?token=…`, exactly as printed. */
  url: string;
  /** `http://127.0.0.1:PORT` */
  origin: string;
  port: number;
  token: string;
  /** A URL on this server with the token and `query` added. */
  urlWith(query: Record<string, string>): string;
  /** Everything the server wrote to stdout and stderr so far. */
  output(): string;
  /** SIGTERM, then the exit code (null when it ended by a signal); a temp data folder is removed. */
  stop(): Promise<number | null>;
}

export interface ServeOptions {
  /** Session folders to list (`--dir`). */
  dirs: string[];
  /** `--data-dir`; default a fresh temp folder. */
  dataDir?: string;
  /** Remove the `dirs` too once the server has stopped (temp libraries). */
  removeDirsOnStop?: boolean;
}

const URL_LINE = /http:\/\/127\.0\.0\.1:(\d+)\/\?token=([A-Za-z0-9_-]+)/;

export function startServe(options: ServeOptions): Promise<RunningServe> {
  const ownDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), "arbor-e2e-data-"));
  const args = [
    "--import",
    "tsx",
    join(REPO, "app", "serve", "main.ts"),
    ...options.dirs.flatMap((dir) => ["--dir", dir]),
    "--port",
    "0",
    "--data-dir",
    dataDir,
    "--no-demo",
  ];
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: REPO,
    // Never the machine's own Pi folders: the library is what --dir names.
    env: { ...process.env, PI_CODING_AGENT_DIR: join(dataDir, "no-pi-agent") },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.setEncoding("utf8");
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (text: string) => {
    output += text;
  });
  const exited = new Promise<number | null>((done) =>
    child.once("exit", (code) => {
      if (ownDataDir) rmSync(dataDir, { recursive: true, force: true });
      if (options.removeDirsOnStop)
        for (const dir of options.dirs) rmSync(dir, { recursive: true, force: true });
      done(code);
    }),
  );
  return new Promise((done, fail) => {
    let started = false;
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      fail(new Error(`arbor serve printed no URL within 30 s:\n${output}`));
    }, 30_000);
    void exited.then((code) => {
      if (started) return;
      clearTimeout(timer);
      fail(new Error(`arbor serve exited (${code}) before printing its URL:\n${output}`));
    });
    child.stdout!.on("data", (text: string) => {
      output += text;
      const match = URL_LINE.exec(output);
      if (!match || started) return;
      started = true;
      clearTimeout(timer);
      const port = Number(match[1]);
      const token = match[2]!;
      const origin = `http://127.0.0.1:${port}`;
      done({
        url: match[0],
        origin,
        port,
        token,
        urlWith(query) {
          const url = new URL(match[0]);
          for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
          return url.toString();
        },
        output: () => output,
        async stop() {
          if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
          return exited;
        },
      });
    });
  });
}
