#!/usr/bin/env node
/**
 * `arbor serve`: the Arbor app in a browser, for machines where Electron
 * cannot run.
 *
 *   arbor serve [--dir DIR]... [--port N] [--data-dir DIR] [--static DIR] [--no-demo]
 *
 * Listens on 127.0.0.1 only and prints the URL to open, with this launch's
 * access token. `--dir` sets the session folders to list instead of Pi's own
 * (`$PI_CODING_AGENT_DIR/sessions` or `~/.pi/agent/sessions`). Stops on
 * SIGINT or SIGTERM: closes every connection, shuts the session down, exits 0.
 *
 * Runnable as `tsx app/serve/main.ts` (`npm run serve`); the `arbor` command
 * line hands `arbor serve ARGS` to `runServeAsProcess`.
 */

import { readFileSync, realpathSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { serveErrors } from "../../shared/error-texts.ts";
import { type ArborHost, createArborHost, createSharedHostParts } from "../ipc/host.ts";
import { defaultDataDir } from "../preferences/data-dir.ts";
import { watchParent } from "./parent-watch.ts";
import { type ArborServer, startArborServer } from "./server.ts";

/** The package's folder: the nearest one up from here with Arbor's package.json (sources or a build). */
const PACKAGE_ROOT = findPackageRoot(dirname(fileURLToPath(import.meta.url)));

function findPackageRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    try {
      const text = readFileSync(join(dir, "package.json"), "utf8");
      if ((JSON.parse(text) as { name?: unknown }).name === "arbor") return dir;
    } catch {
      // Not here: look further up.
    }
    if (dirname(dir) === dir) return resolve(start, "..", "..");
  }
}

export const SERVE_USAGE =
  "usage: arbor serve [--dir DIR]... [--port N] [--data-dir DIR] [--static DIR] [--no-demo]";

export class ServeUsageError extends Error {}

export interface ServeArguments {
  /** Session folders instead of Pi's; empty: Pi's. */
  dirs: string[];
  port: number;
  dataDir: string;
  staticDir: string;
  demo: boolean;
}

export interface ServeIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Readonly<Record<string, string | undefined>>;
}

export function parseServeArguments(argv: readonly string[], env: ServeIo["env"]): ServeArguments {
  let parsed: ReturnType<typeof parseArgs<typeof PARSE_OPTIONS>>;
  try {
    parsed = parseArgs({ args: [...argv], ...PARSE_OPTIONS });
  } catch (error) {
    throw new ServeUsageError((error as Error).message);
  }
  const { values } = parsed;
  let port = 0;
  if (values.port !== undefined) {
    if (!/^\d{1,5}$/.test(values.port) || Number(values.port) > 65535) {
      throw new ServeUsageError(serveErrors.badPort(values.port));
    }
    port = Number(values.port);
  }
  return {
    dirs: (values.dir ?? []).map((dir) => resolve(dir)),
    port,
    dataDir: resolve(values["data-dir"] ?? defaultDataDir(env)),
    staticDir: resolve(values.static ?? join(PACKAGE_ROOT, "out", "renderer")),
    demo: !values["no-demo"],
  };
}

const PARSE_OPTIONS = {
  options: {
    dir: { type: "string", multiple: true },
    port: { type: "string" },
    "data-dir": { type: "string" },
    static: { type: "string" },
    "no-demo": { type: "boolean" },
    help: { type: "boolean", short: "h" },
  },
  allowPositionals: false,
  strict: true,
} as const;

export interface RunningServe {
  server: ArborServer;
  /** Stops serving and shuts every tab's session down (idempotent). */
  stop(): Promise<void>;
}

export async function startServe(args: ServeArguments, io: ServeIo): Promise<RunningServe> {
  const onInternalError = (error: unknown, request: string) => {
    const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
    io.stderr(`arbor serve: internal error in ${request}: ${text}\n`);
  };
  const roots = args.dirs.length > 0 ? args.dirs : undefined;
  // One host per tab, as one per Electron window: each opens its sessions on its own; all share the library.
  const shared = createSharedHostParts({ dataDir: args.dataDir, roots, env: io.env });
  const connect = (transport: { whenSent(work: () => void): void }) => {
    const host: ArborHost = createArborHost({
      transport: "serve",
      version: packageVersion(),
      dataDir: args.dataDir,
      roots,
      env: io.env,
      demo: args.demo,
      onInternalError,
      shared,
      afterReplies: (work) => transport.whenSent(work),
    });
    return { handlers: host.handlers, events: host.events, close: () => host.close() };
  };
  let server: ArborServer;
  try {
    server = await startArborServer({ connect, port: args.port, staticDir: args.staticDir, onInternalError });
  } catch (error) {
    await shared.dispose();
    throw error;
  }
  let stopping: Promise<void> | undefined;
  return {
    server,
    stop() {
      stopping ??= (async () => {
        await server.close();
        await shared.dispose();
      })();
      return stopping;
    },
  };
}

/** Runs until SIGINT/SIGTERM; returns the exit code. */
export async function runServe(argv: readonly string[], io: ServeIo): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    io.stdout(`${SERVE_USAGE}\n`);
    return 0;
  }
  let args: ServeArguments;
  try {
    args = parseServeArguments(argv, io.env);
  } catch (error) {
    io.stderr(`arbor serve: ${(error as Error).message}\n${SERVE_USAGE}\n`);
    return 2;
  }
  let running: RunningServe;
  try {
    running = await startServe(args, io);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === "EADDRINUSE" ? serveErrors.portInUse(args.port) : (error as Error).message;
    io.stderr(`arbor serve: ${reason}\n`);
    return 2;
  }
  const { server } = running;
  io.stdout(`Arbor is serving on ${server.url}\n`);
  if (!server.rendererBuilt) {
    io.stdout(
      `(the renderer is not built: ${args.staticDir} has no index.html; \`npm run build:app\` writes it)\n`,
    );
  }
  io.stdout("Open the URL in a browser on this machine. Press Ctrl+C to stop.\n");
  const why = await new Promise<string>((resolve) => {
    process.once("SIGINT", () => resolve("SIGINT"));
    process.once("SIGTERM", () => resolve("SIGTERM"));
    // Under `npm run serve`, a SIGTERM to npm ends npm and its shell, not this process: stop with them.
    if (io.env.npm_lifecycle_event) watchParent(() => resolve("npm, which started it, ended"));
  });
  await running.stop();
  io.stdout(`arbor serve: stopped (${why})\n`);
  return 0;
}

function packageVersion(): string {
  try {
    const text = readFileSync(join(PACKAGE_ROOT, "package.json"), "utf8");
    const version = (JSON.parse(text) as { version?: unknown }).version;
    return typeof version === "string" ? version : "0.0.0";
  } catch {
    return "0.0.0";
  }
}

function isMainModule(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return pathToFileURL(realpathSync(entry)).href === import.meta.url;
  } catch {
    return false;
  }
}

/** `arbor serve ARGS` as a process: real stdout, stderr and environment; exits when it stops. */
export function runServeAsProcess(argv: readonly string[]): void {
  const io: ServeIo = {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
  };
  runServe(argv, io).then(
    (code) => process.exit(code),
    (error) => {
      process.stderr.write(
        `arbor serve: ${error instanceof Error ? (error.stack ?? error.message) : error}\n`,
      );
      process.exit(2);
    },
  );
}

if (isMainModule()) runServeAsProcess(process.argv.slice(2));
