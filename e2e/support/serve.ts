/**
 * The real `arbor serve` in a child process, for the Chromium end-to-end
 * tests: `spawnServe` of app/serve/testing.ts on port 0 over the given
 * session folders, with its own data folder, stopped with SIGTERM.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type SpawnedServe, spawnServe } from "../../app/serve/testing.ts";

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

export async function startServe(options: ServeOptions): Promise<RunningServe> {
  const ownDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), "arbor-e2e-data-"));
  const cleanUp = () => {
    if (ownDataDir) rmSync(dataDir, { recursive: true, force: true });
    if (options.removeDirsOnStop)
      for (const dir of options.dirs) rmSync(dir, { recursive: true, force: true });
  };
  let serve: SpawnedServe;
  try {
    serve = await spawnServe(
      [...options.dirs.flatMap((dir) => ["--dir", dir]), "--port", "0", "--data-dir", dataDir, "--no-demo"],
      // Never the machine's own Pi folders: the library is what --dir names.
      { PI_CODING_AGENT_DIR: join(dataDir, "no-pi-agent") },
    );
  } catch (error) {
    cleanUp();
    throw error;
  }
  const origin = `http://127.0.0.1:${serve.port}`;
  return {
    url: serve.url,
    origin,
    port: serve.port,
    token: serve.token,
    urlWith(query) {
      const url = new URL(serve.url);
      for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
      return url.toString();
    },
    output: serve.output,
    async stop() {
      const code = await serve.stop();
      cleanUp();
      return code;
    },
  };
}
