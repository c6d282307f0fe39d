/**
 * The session library against Pi's own session listing, in one run, as ratios.
 *
 *   npx tsx bench/library.ts [--reps N] [--force]
 *
 * Generates (once; regenerated when bench/generate.ts or the layout here
 * changes) 1,000 sessions, about 1 GB, in Pi's default layout under
 * bench/data/library/agent/sessions/--<cwd>--/<time>_<id>.jsonl: 12 projects,
 * sizes from 20 KB to 8 MB (log-normal), the "normal" and "heavy" profiles of
 * bench/generate.ts, one in ten a fork of an earlier session.
 *
 * Then measures, each run in its own process (module loading excluded, the
 * files in the page cache for everyone):
 *
 *   Pi 1.6       SessionManager.listAll() with PI_CODING_AGENT_DIR pointing at
 *                the generated agent folder: Pi's "all sessions" listing
 *   Arbor cold   createSessionLibrary() + scan() with an empty cache folder:
 *                summaries and the search index of every file, cache written
 *   Arbor warm   the same with the cache the cold run wrote, nothing changed
 *                (the search index stays on disk until the first search)
 *
 * Pi's listAll() reads the project folders of Pi's own session root, which
 * is what listAll(dir) does for one folder; Pi only ever reads here. After
 * each Arbor scan, untimed: the time of a first search ("parser buffer"),
 * which after a warm start includes loading the index from the cache.
 *
 * Runs are interleaved (rep 1 of each, then rep 2 in a rotated order, ...)
 * and medians reported. Targets: warm <= 1/10 of Pi, cold <= Pi. Results:
 * stdout and bench/results/library-latest.json.
 */

import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const ROOT = join(BENCH_DIR, "..");
const LIBRARY_DIR = join(BENCH_DIR, "data", "library");
const AGENT_DIR = join(LIBRARY_DIR, "agent");
const SESSIONS_DIR = join(AGENT_DIR, "sessions");
const MANIFEST = join(LIBRARY_DIR, "manifest.json");
const RESULTS_DIR = join(BENCH_DIR, "results");
const PI16 = join(ROOT, "node_modules/@earendil-works/pi-coding-agent/dist/core/session-manager.js");

/** Bump when the layout below changes (the generator's own source is hashed too). */
const LAYOUT_VERSION = 1;
const SESSION_COUNT = 1000;
const TOTAL_BYTES = 1e9;
const PROJECTS = 12;
const MIN_BYTES = 20e3;
const MAX_BYTES = 8e6;

const args = process.argv.slice(2);
function argValue(name: string): string | undefined {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
}

// ---------------------------------------------------------------------------
// Data

interface Manifest {
  version: string;
  sessions: number;
  bytes: number;
  forks: number;
}

function layoutVersion(): string {
  return createHash("sha256")
    .update(readFileSync(join(BENCH_DIR, "generate.ts")))
    .update(`layout ${LAYOUT_VERSION} ${SESSION_COUNT} ${TOTAL_BYTES} ${PROJECTS} ${MIN_BYTES} ${MAX_BYTES}`)
    .digest("hex")
    .slice(0, 16);
}

/** mulberry32: sizes, profiles, projects and forks, all from one seed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function ensureLibrary(force: boolean): Promise<Manifest> {
  const version = layoutVersion();
  if (!force && existsSync(MANIFEST)) {
    const manifest = JSON.parse(readFileSync(MANIFEST, "utf8")) as Manifest;
    if (manifest.version === version && countFiles() === manifest.sessions) return manifest;
  }
  const { generateFile } = await import("./generate.ts");
  rmSync(LIBRARY_DIR, { recursive: true, force: true });
  const scratch = join(LIBRARY_DIR, "scratch");
  mkdirSync(scratch, { recursive: true });
  const rng = random(20_261_101);
  const raw = Array.from({ length: SESSION_COUNT }, () => {
    const u = Math.max(rng(), 1e-12);
    const normal = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng());
    return Math.exp(1.1 * normal);
  });
  const scale = TOTAL_BYTES / raw.reduce((sum, value) => sum + value, 0);
  const started = performance.now();
  const paths: string[][] = Array.from({ length: PROJECTS }, () => []);
  let bytes = 0;
  let forks = 0;
  console.log(`generating ${SESSION_COUNT} sessions, ~${TOTAL_BYTES / 1e9} GB, in ${SESSIONS_DIR} ...`);
  for (let n = 0; n < SESSION_COUNT; n++) {
    const size = Math.round(Math.min(MAX_BYTES, Math.max(MIN_BYTES, raw[n]! * scale)));
    const project = Math.floor(rng() * PROJECTS);
    const profile = rng() < 0.4 ? "heavy" : "normal";
    const seed = 50_000 + n;
    const generated = generateFile({ name: join("library", "scratch", `s${n}`), profile, seed, bytes: size });
    const cwd = `/home/user/projects/project-${String(project).padStart(2, "0")}`;
    const folder = join(SESSIONS_DIR, `--${cwd.slice(1).replaceAll("/", "-")}--`);
    mkdirSync(folder, { recursive: true });
    const parents = paths[project]!;
    const parent =
      parents.length > 0 && rng() < 0.1 ? parents[Math.floor(rng() * parents.length)] : undefined;
    if (parent) forks++;
    const target = rewriteHeader(generated.path, folder, cwd, parent);
    parents.push(target);
    bytes += statSync(target).size;
    if ((n + 1) % 100 === 0) {
      const seconds = ((performance.now() - started) / 1000).toFixed(0);
      console.log(`  ${n + 1} sessions, ${(bytes / 1e6).toFixed(0)} MB, ${seconds} s`);
    }
  }
  rmSync(scratch, { recursive: true, force: true });
  const manifest: Manifest = { version, sessions: SESSION_COUNT, bytes, forks };
  writeFileSync(MANIFEST, `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/**
 * Copies a generated file into its project folder under Pi's file name
 * (`<header time>_<id>.jsonl`), with the header's cwd (and parentSession) set.
 */
function rewriteHeader(
  source: string,
  folder: string,
  cwd: string,
  parentSession: string | undefined,
): string {
  const input = openSync(source, "r");
  const buffer = Buffer.allocUnsafe(4 << 20);
  let read = readSync(input, buffer, 0, buffer.length, 0);
  const newline = buffer.indexOf(10);
  if (newline < 0 || newline >= read) throw new Error(`${source}: no header line in the first chunk`);
  const header = JSON.parse(buffer.toString("utf8", 0, newline)) as Record<string, unknown>;
  header.cwd = cwd;
  if (parentSession) header.parentSession = parentSession;
  const name = `${String(header.timestamp).replace(/[:.]/g, "-")}_${String(header.id)}.jsonl`;
  const target = join(folder, name);
  const temporary = `${target}.tmp`;
  const output = openSync(temporary, "w");
  writeSync(output, `${JSON.stringify(header)}\n`);
  let position = newline + 1;
  let offset = read;
  while (read > 0) {
    writeSync(output, buffer, position, read - position);
    read = readSync(input, buffer, 0, buffer.length, offset);
    offset += read;
    position = 0;
  }
  closeSync(output);
  closeSync(input);
  renameSync(temporary, target);
  rmSync(source);
  return target;
}

function sessionFiles(): string[] {
  if (!existsSync(SESSIONS_DIR)) return [];
  return readdirSync(SESSIONS_DIR).flatMap((folder) =>
    readdirSync(join(SESSIONS_DIR, folder))
      .filter((name) => name.endsWith(".jsonl"))
      .map((name) => join(SESSIONS_DIR, folder, name)),
  );
}

function countFiles(): number {
  return sessionFiles().length;
}

/** Reads every file once so that every run below starts from the page cache. */
function warmPageCache(files: string[]): number {
  const buffer = Buffer.allocUnsafe(4 << 20);
  let bytes = 0;
  for (const file of files) {
    const fd = openSync(file, "r");
    for (;;) {
      const n = readSync(fd, buffer, 0, buffer.length, null);
      if (n === 0) break;
      bytes += n;
    }
    closeSync(fd);
  }
  return bytes;
}

/** Size and mtime of every file: Pi must leave them as they are. */
function fingerprint(files: string[]): string {
  const hash = createHash("sha256");
  for (const file of files.sort()) {
    const stats = statSync(file);
    hash.update(`${file} ${stats.size} ${stats.mtimeMs}\n`);
  }
  return hash.digest("hex");
}

// ---------------------------------------------------------------------------
// Worker: one measurement per process

const OPS = ["pi16", "arbor-cold", "arbor-warm"] as const;
type Op = (typeof OPS)[number];
const LABEL: Record<Op, string> = {
  pi16: "Pi 1.6 listAll",
  "arbor-cold": "Arbor cold",
  "arbor-warm": "Arbor warm",
};

/** Searched for after the scan (not part of its time): the warm run's first search loads the index from disk. */
const QUERY = "parser buffer";

interface WorkerResult {
  op: Op;
  ms: number;
  /** The first search after the scan, and its hits (Arbor only). */
  searchMs?: number;
  hits?: number;
  cpuMs: number;
  maxRssMiB: number;
  sessions: number;
  read?: number;
  fromCache?: number;
  messages: number;
}

async function runWorker(op: Op, cacheDir: string): Promise<void> {
  if (relative(join(BENCH_DIR, "data"), AGENT_DIR).startsWith(".."))
    throw new Error("Pi only reads bench/data");
  let result: Omit<WorkerResult, "cpuMs" | "maxRssMiB" | "ms">;
  let ms: number;
  let cpu: NodeJS.CpuUsage;
  if (op === "pi16") {
    process.env.PI_CODING_AGENT_DIR = AGENT_DIR;
    const { SessionManager } = (await import(PI16)) as {
      SessionManager: { listAll(): Promise<{ messageCount: number }[]> };
    };
    const cpuStart = process.cpuUsage();
    const start = performance.now();
    const sessions = await SessionManager.listAll();
    ms = performance.now() - start;
    cpu = process.cpuUsage(cpuStart);
    result = {
      op,
      sessions: sessions.length,
      messages: sessions.reduce((sum, s) => sum + s.messageCount, 0),
    };
  } else {
    const { createSessionLibrary } = await import("../app/library/session-library.ts");
    const cpuStart = process.cpuUsage();
    const start = performance.now();
    const library = createSessionLibrary({ cacheDir, env: { PI_CODING_AGENT_DIR: AGENT_DIR } });
    const report = await library.scan();
    ms = performance.now() - start;
    cpu = process.cpuUsage(cpuStart);
    const { sessions } = library.list();
    const searchStart = performance.now();
    const hits = await library.search(QUERY, { limit: 50 });
    result = {
      op,
      sessions: sessions.length,
      read: report.read,
      fromCache: report.fromCache,
      messages: sessions.reduce((sum, s) => sum + s.messageCount, 0),
      searchMs: performance.now() - searchStart,
      hits: hits.length,
    };
    await library.dispose();
  }
  const full: WorkerResult = {
    ...result,
    ms,
    cpuMs: (cpu.user + cpu.system) / 1000,
    maxRssMiB: process.resourceUsage().maxRSS / 1024,
  };
  process.stdout.write(`${JSON.stringify(full)}\n`);
}

function measure(op: Op, cacheDir: string): Promise<WorkerResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", fileURLToPath(import.meta.url), "--worker", op, "--cache", cacheDir],
      { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on("close", (code) => {
      const line = stdout.trim().split("\n").at(-1);
      if (code !== 0 || !line)
        reject(new Error(`${op} failed (exit ${code}): ${stderr.trim().slice(-2000)}`));
      else resolve(JSON.parse(line) as WorkerResult);
    });
  });
}

// ---------------------------------------------------------------------------
// Orchestration

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

async function main(): Promise<void> {
  const reps = Number(argValue("--reps") ?? 3);
  const manifest = await ensureLibrary(args.includes("--force"));
  const files = sessionFiles();
  const warmed = warmPageCache(files);
  const before = fingerprint(files);
  console.log(
    `${manifest.sessions} sessions in ${PROJECTS} projects (${manifest.forks} forks), ${(warmed / 1e6).toFixed(0)} MB; ` +
      `${cpus().length} cpus, load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}; ${reps} runs each, median\n`,
  );
  const caches = join(LIBRARY_DIR, "caches");
  rmSync(caches, { recursive: true, force: true });
  const warmCache = join(caches, "warm");
  // The warm runs' cache, written by one cold run that is not counted.
  const primed = await measure("arbor-cold", warmCache);
  console.log(`cache primed: ${primed.read} files read, ${primed.ms.toFixed(0)} ms (not counted)`);

  const runs: Record<Op, WorkerResult[]> = { pi16: [], "arbor-cold": [], "arbor-warm": [] };
  for (let rep = 0; rep < reps; rep++) {
    const order = [...OPS.slice(rep % OPS.length), ...OPS.slice(0, rep % OPS.length)];
    for (const op of order) {
      let cacheDir = warmCache;
      if (op === "arbor-cold") {
        cacheDir = join(caches, `cold-${rep}`);
        rmSync(cacheDir, { recursive: true, force: true });
      }
      const result = await measure(op, cacheDir);
      runs[op].push(result);
      console.log(
        `  rep ${rep + 1} ${LABEL[op].padEnd(15)} ${result.ms.toFixed(0).padStart(7)} ms  cpu ${result.cpuMs.toFixed(0).padStart(7)} ms` +
          `  ${result.maxRssMiB.toFixed(0).padStart(5)} MiB  ${result.sessions} sessions` +
          (result.read === undefined
            ? ""
            : `, ${result.read} read, ${result.fromCache} from cache; then search ${result.searchMs?.toFixed(0)} ms`),
      );
    }
  }
  const after = fingerprint(files);
  rmSync(caches, { recursive: true, force: true });

  const summary = Object.fromEntries(
    OPS.map((op) => [
      op,
      {
        ms: median(runs[op].map((r) => r.ms)),
        cpuMs: median(runs[op].map((r) => r.cpuMs)),
        maxRssMiB: median(runs[op].map((r) => r.maxRssMiB)),
      },
    ]),
  ) as Record<Op, { ms: number; cpuMs: number; maxRssMiB: number }>;
  const problems: string[] = [];
  const counts = new Set(OPS.flatMap((op) => runs[op].map((r) => `${r.sessions}/${r.messages}`)));
  if (counts.size !== 1) problems.push(`sessions/messages differ between runs: ${[...counts].join(", ")}`);
  if (runs["arbor-warm"].some((r) => r.read !== 0)) problems.push("a warm run read files");
  if (runs["arbor-cold"].some((r) => r.read !== manifest.sessions))
    problems.push("a cold run did not read every file");
  if (before !== after) problems.push("a session file changed during the run");

  const pi = summary.pi16.ms;
  const warmRatio = summary["arbor-warm"].ms / pi;
  const coldRatio = summary["arbor-cold"].ms / pi;
  console.log(
    `\n${"".padEnd(16)}${"median ms".padStart(11)}${"cpu ms".padStart(10)}${"peak MiB".padStart(10)}${"/ Pi".padStart(8)}`,
  );
  for (const op of OPS) {
    const s = summary[op];
    console.log(
      `${LABEL[op].padEnd(16)}${s.ms.toFixed(0).padStart(11)}${s.cpuMs.toFixed(0).padStart(10)}` +
        `${s.maxRssMiB.toFixed(0).padStart(10)}${(s.ms / pi).toFixed(3).padStart(8)}`,
    );
  }
  const searchAfter = (op: Op) => median(runs[op].map((r) => r.searchMs ?? Number.NaN)).toFixed(0);
  console.log(
    `\nfirst search "${QUERY}" (50 hits) after the scan: ${searchAfter("arbor-cold")} ms with the index in memory, ` +
      `${searchAfter("arbor-warm")} ms after a warm start (loads the index from the cache first)`,
  );
  const verdict = (ok: boolean) => (ok ? "ok" : "MISSED");
  console.log(`\nwarm / Pi = ${warmRatio.toFixed(3)} (target <= 0.1: ${verdict(warmRatio <= 0.1)})`);
  console.log(`cold / Pi = ${coldRatio.toFixed(3)} (target <= 1.0: ${verdict(coldRatio <= 1)})`);
  for (const problem of problems) console.log(`PROBLEM: ${problem}`);

  mkdirSync(RESULTS_DIR, { recursive: true });
  // bench/results/ is gitignored but biome.json does not read .gitignore: keep `biome format .` off it (as run.ts does).
  const nestedBiome = join(RESULTS_DIR, "biome.json");
  if (!existsSync(nestedBiome)) {
    const config = {
      root: false,
      formatter: { enabled: false },
      linter: { enabled: false },
      assist: { enabled: false },
    };
    writeFileSync(nestedBiome, `${JSON.stringify(config, null, 2)}\n`);
  }
  writeFileSync(
    join(RESULTS_DIR, "library-latest.json"),
    `${JSON.stringify({ date: new Date().toISOString(), manifest, summary, warmRatio, coldRatio, problems, runs }, null, 2)}\n`,
  );
  if (problems.length > 0) process.exitCode = 1;
}

if (args[0] === "--worker") {
  const op = args[1] as Op;
  if (!OPS.includes(op)) throw new Error(`unknown op ${op}`);
  await runWorker(op, argValue("--cache") ?? join(LIBRARY_DIR, "caches", "default"));
} else {
  await main();
}
