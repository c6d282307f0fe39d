/**
 * One measurement per process: `node worker.mjs OP FILE [REPS] [ARGS...]`.
 *
 * Loads only the code OP needs (before the clock starts), runs the operation,
 * and prints one JSON line: the operation's wall time (performance.now()
 * around the call only, module loading excluded), peak RSS of the whole
 * process (process.resourceUsage().maxRSS, KB) and a few facts about the
 * result so every implementation is seen to have done the same work.
 *
 * Open operations (one timed run per process, so RSS is that run's alone):
 *   floor      readFileSync(utf8) + split("\n") + JSON.parse of every line
 *   pi073-open Pi 0.73 SessionManager.open(file) + getTree()
 *   pi16-open  Pi 1.6  SessionManager.open(file) + getTree()
 *   arbor-open Arbor openIndexedFile(file) (open + full tree index)
 *   noop       nothing: the RSS of a bare worker
 * Compare operations (issue 18):
 *   arbor-stats     runCli(["stats", FILE, "--json"]): the reference
 *   arbor-diff      runCli(["diff", FILE, LEFT, RIGHT, "--json"]) (LEFT RIGHT after REPS)
 *   arbor-branches  the file opened as the window opens it (untimed), then REPS timed runs of
 *                   BranchModel.build + branchMap; the first run is the cold one a window waits for
 * Context operations (file loaded first, untimed; then REPS timed runs of the
 * context call alone for the file's leaf):
 *   pi073-context  buildSessionContext(entries, leafId, byId) of Pi 0.73
 *   pi16-context   buildSessionContext(entries, leafId, byId) of Pi 1.6
 *   arbor-context  buildSessionContext(contextGraphOf(index, reader), leafId)
 *
 * Pi's SessionManager may write to the file it opens (migration; 1.x adds a
 * newline to an unterminated last line), so Pi operations refuse files
 * outside bench/data/ and report whether the file changed.
 */

import { linkSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

interface PiEntry {
  type: string;
  id: string;
  parentId?: string | null;
}
interface PiTreeNode {
  children: PiTreeNode[];
}
interface PiSessionManager {
  getTree(): PiTreeNode[];
  getEntries(): PiEntry[];
  getLeafId(): string | null;
}
interface PiContext {
  messages: unknown[];
}
interface PiModule {
  SessionManager: { open(path: string): PiSessionManager };
  buildSessionContext(entries: PiEntry[], leafId: string | null, byId?: Map<string, PiEntry>): PiContext;
}

export interface WorkerResult {
  op: string;
  file: string;
  ok: boolean;
  /** Wall time of the operation (open ops), or of each context call (context ops). */
  ms?: number;
  /** CPU time (user + system, all threads, so GC helpers too) of the same span as `ms`, open ops only. */
  cpuMs?: number;
  runsMs?: number[];
  maxRssKB: number;
  heapUsedMB: number;
  entries?: number;
  roots?: number;
  nodes?: number;
  messages?: number;
  /** arbor-branches: how many branches (tips) the map has. */
  tips?: number;
  error?: string;
  fileChanged?: boolean;
}

/** Worker file location → repository root (works for bench/worker.ts and for the bundle in bench/data/.build/). */
function findRepoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: string };
      if (pkg.name === "arbor") return dir;
    } catch {
      // not here
    }
    dir = dirname(dir);
  }
  throw new Error("worker: repository root not found");
}

const ROOT = findRepoRoot();
const PI073 = join(ROOT, "node_modules/@mariozechner/pi-coding-agent/dist/core/session-manager.js");
const PI16 = join(ROOT, "node_modules/@earendil-works/pi-coding-agent/dist/core/session-manager.js");

async function loadPi(which: "pi073" | "pi16"): Promise<PiModule> {
  return (await import(pathToFileURL(which === "pi073" ? PI073 : PI16).href)) as PiModule;
}

function assertInBenchData(file: string): void {
  const dataDir = realpathSync(join(ROOT, "bench", "data"));
  const rel = relative(dataDir, realpathSync(file));
  if (rel.startsWith("..") || rel.startsWith(sep) || resolve(dataDir, rel) !== realpathSync(file)) {
    throw new Error(`refusing to point Pi at a file outside bench/data: ${file}`);
  }
}

function countTree(roots: PiTreeNode[]): number {
  let count = 0;
  const stack = [...roots];
  while (stack.length > 0) {
    const node = stack.pop()!;
    count++;
    for (const child of node.children) stack.push(child);
  }
  return count;
}

/** The structure-first reader keeps a descriptor open for bodies; older readers have no `close`. */
function closeOpened(opened: object): void {
  const close = (opened as { close?: () => void }).close;
  if (typeof close === "function") close.call(opened);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

async function run(op: string, file: string, reps: number, extra: string[]): Promise<WorkerResult> {
  const result: WorkerResult = { op, file, ok: true, maxRssKB: 0, heapUsedMB: 0 };
  const before = statSync(file);
  const isPi = op.startsWith("pi");
  if (isPi) assertInBenchData(file);
  const cpuStart = process.cpuUsage();
  const cpuSince = () => {
    const used = process.cpuUsage(cpuStart);
    return (used.user + used.system) / 1000;
  };
  try {
    switch (op) {
      case "noop":
        result.ms = 0;
        break;
      case "floor": {
        const cpu = cpuSince();
        const start = performance.now();
        const text = readFileSync(file, "utf8");
        const lines = text.split("\n");
        const parsed: unknown[] = [];
        for (const line of lines) if (line) parsed.push(JSON.parse(line));
        result.ms = performance.now() - start;
        result.cpuMs = cpuSince() - cpu;
        result.entries = parsed.length - 1;
        break;
      }
      case "pi073-open":
      case "pi16-open": {
        const pi = await loadPi(op === "pi073-open" ? "pi073" : "pi16");
        const cpu = cpuSince();
        const start = performance.now();
        const manager = pi.SessionManager.open(file);
        const roots = manager.getTree();
        result.ms = performance.now() - start;
        result.cpuMs = cpuSince() - cpu;
        result.roots = roots.length;
        result.nodes = countTree(roots);
        break;
      }
      case "arbor-open": {
        const { openIndexedFile } = await import("../app/store/open-indexed-file.ts");
        const cpu = cpuSince();
        const start = performance.now();
        const opened = openIndexedFile(file);
        result.ms = performance.now() - start;
        result.cpuMs = cpuSince() - cpu;
        result.entries = opened.index.entries.length;
        result.roots = opened.index.roots.length;
        result.nodes = opened.index.nodes.size;
        closeOpened(opened);
        break;
      }
      case "arbor-stats":
      case "arbor-diff": {
        const { runCli } = await import("../app/cli/main.ts");
        const argv = op === "arbor-stats" ? ["stats", file, "--json"] : ["diff", file, ...extra, "--json"];
        let errors = "";
        const io = { stdout: () => {}, stderr: (text: string) => (errors += text) };
        const cpu = cpuSince();
        const start = performance.now();
        const code = runCli(argv, io);
        result.ms = performance.now() - start;
        result.cpuMs = cpuSince() - cpu;
        if (code !== 0) throw new Error(`arbor ${argv[0]} exited ${code}: ${errors.trim()}`);
        break;
      }
      case "arbor-library-scan": {
        // The server's scan (`arbor serve`, the desktop app): a library with its cache and saved parses.
        const { createSessionLibrary } = await import("../app/library/index.ts");
        const { createParseCache } = await import("../app/store/parse-cache.ts");
        const dir = mkdtempSync(join(tmpdir(), "arbor-bench-scan-"));
        try {
          const root = join(dir, "sessions");
          mkdirSync(root);
          // A hard link: the scan does not follow a symbolic link out of its root.
          linkSync(file, join(root, basename(file)));
          const library = createSessionLibrary({
            roots: [root],
            cacheDir: join(dir, "library-cache"),
            parseCache: createParseCache(join(dir, "open-cache")),
          });
          const cpu = cpuSince();
          const start = performance.now();
          await library.scan();
          result.ms = performance.now() - start;
          result.cpuMs = cpuSince() - cpu;
          const sessions = library.list().projects.flatMap((project) => project.sessions);
          result.entries = sessions.reduce((sum, session) => sum + session.entryCount, 0);
          await library.dispose();
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
        break;
      }
      case "arbor-branches": {
        const { openIndexedFile } = await import("../app/store/open-indexed-file.ts");
        const { BranchModel } = await import("../shared/branches/index.ts");
        const opened = openIndexedFile(file, { withFacts: true });
        const { index, reader } = opened;
        result.runsMs = [];
        for (let i = 0; i < reps; i++) {
          const start = performance.now();
          const map = BranchModel.build(index, reader).branchMap();
          result.runsMs.push(performance.now() - start);
          result.tips = map.leaves.length;
        }
        result.ms = result.runsMs[0] ?? 0;
        result.entries = index.entries.length;
        closeOpened(opened);
        break;
      }
      case "pi073-context":
      case "pi16-context": {
        const pi = await loadPi(op === "pi073-context" ? "pi073" : "pi16");
        const manager = pi.SessionManager.open(file);
        const entries = manager.getEntries();
        const byId = new Map(entries.map((entry) => [entry.id, entry]));
        const leafId = manager.getLeafId();
        result.runsMs = [];
        for (let i = 0; i < reps; i++) {
          const start = performance.now();
          const context = pi.buildSessionContext(entries, leafId, byId);
          result.runsMs.push(performance.now() - start);
          result.messages = context.messages.length;
        }
        result.ms = median(result.runsMs);
        result.entries = entries.length;
        break;
      }
      case "arbor-context": {
        const { openIndexedFile } = await import("../app/store/open-indexed-file.ts");
        const { buildSessionContext, contextGraphOf } = await import("../shared/session/index.ts");
        const opened = openIndexedFile(file);
        const { index, reader } = opened;
        result.runsMs = [];
        for (let i = 0; i < reps; i++) {
          const start = performance.now();
          const context = buildSessionContext(contextGraphOf(index, reader), index.leafId);
          result.runsMs.push(performance.now() - start);
          result.messages = context.messages.length;
        }
        result.ms = median(result.runsMs);
        result.entries = index.entries.length;
        closeOpened(opened);
        break;
      }
      default:
        throw new Error(`unknown op ${op}`);
    }
  } catch (error) {
    result.ok = false;
    result.error = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  }
  const after = statSync(file);
  if (isPi) result.fileChanged = after.size !== before.size || after.mtimeMs !== before.mtimeMs;
  result.maxRssKB = process.resourceUsage().maxRSS;
  result.heapUsedMB = process.memoryUsage().heapUsed / 2 ** 20;
  return result;
}

const [op, file, repsArg, ...extra] = process.argv.slice(2);
if (!op || !file) {
  console.error("usage: worker OP FILE [REPS] [ARGS...]");
  process.exit(2);
}
const result = await run(op, resolve(file), Number(repsArg ?? 1) || 1, extra);
process.stdout.write(`${JSON.stringify(result)}\n`);
