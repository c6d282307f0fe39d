/**
 * Arbor against Pi's own code, in one run, reported as ratios.
 *
 *   npx tsx bench/run.ts [--huge] [--reps N] [--only NAME,...]   (npm run bench)
 *
 * Every measurement is its own child process (bench/worker.ts, bundled with
 * esbuild into bench/data/.build/ so Pi and Arbor run in the same plain
 * `node`, without a TypeScript loader), so peak RSS belongs to one run.
 * Runs are interleaved (rep 1 of every implementation, then rep 2, ...) and
 * the median is reported. Results: a table on stdout and
 * bench/results/latest.json. See bench/README.md.
 */

import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { join } from "node:path";
import { BENCH_DIR, DATA_DIR, ensureFiles, FILE_SPECS, type GeneratedFile } from "./generate.ts";
import type { WorkerResult } from "./worker.ts";

const args = process.argv.slice(2);
const HUGE = args.includes("--huge");
const REPS = Number(argValue("--reps") ?? 3);
const ONLY = argValue("--only")?.split(",");
const CONTEXT_REPS = 7;
const BRANCH_MAP_REPS = 5;
/** Files only the compare measurements use (issue 18). */
const COMPARE_FILES = new Set(FILE_SPECS.filter((spec) => spec.compare).map((spec) => spec.name));
/** Files only the memory measurements use (issue 20). */
const MEMORY_FILES = new Set(FILE_SPECS.filter((spec) => spec.memory).map((spec) => spec.name));
/** Files only the many-small-entries measurement uses (issue 20). */
const SMALL_FILES = new Set(FILE_SPECS.filter((spec) => spec.small).map((spec) => spec.name));
/** Peak RSS per entry of `arbor stats` (open and index) the memory target allows. */
const MAX_BYTES_PER_ENTRY = 400;
const CONTEXT_REPS_PI073 = 5;
const RESULTS_DIR = join(BENCH_DIR, "results");
const ROOT = join(BENCH_DIR, "..");

function argValue(name: string): string | undefined {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
}

const OPEN_OPS = ["floor", "pi073-open", "pi16-open", "arbor-open"] as const;
type OpenOp = (typeof OPEN_OPS)[number];
const OP_LABEL: Record<string, string> = {
  floor: "floor",
  "pi073-open": "Pi 0.73",
  "pi16-open": "Pi 1.6",
  "arbor-open": "Arbor",
  "pi073-context": "Pi 0.73",
  "pi16-context": "Pi 1.6",
  "arbor-context": "Arbor",
};

interface Measurement extends WorkerResult {
  /** Peak RSS seen from outside (/proc VmHWM, polled): the only figure when the worker died. */
  polledPeakKB: number;
  exit: string;
  stderrTail?: string;
}

// ---------------------------------------------------------------------------
// Worker

interface WorkerCommand {
  mode: "bundle" | "tsx";
  argv: string[];
}

async function prepareWorker(): Promise<WorkerCommand> {
  const outdir = join(DATA_DIR, ".build");
  try {
    const esbuild = await import("esbuild");
    await esbuild.build({
      entryPoints: [join(BENCH_DIR, "worker.ts")],
      outdir,
      bundle: true,
      splitting: true,
      format: "esm",
      platform: "node",
      target: "node20",
      outExtension: { ".js": ".mjs" },
      logLevel: "warning",
    });
    return { mode: "bundle", argv: [join(outdir, "worker.mjs")] };
  } catch (error) {
    console.warn(`esbuild bundle failed (${String(error)}); running the worker through tsx instead`);
    return { mode: "tsx", argv: ["--import", "tsx", join(BENCH_DIR, "worker.ts")] };
  }
}

function readPeakKB(pid: number): number {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

function measure(
  worker: WorkerCommand,
  op: string,
  file: string,
  options: { reps?: number; timeoutMs?: number; args?: readonly string[] } = {},
): Promise<Measurement> {
  return new Promise((resolvePromise) => {
    const argv = [...worker.argv, op, file, String(options.reps ?? 1), ...(options.args ?? [])];
    const child = spawn(process.execPath, argv, {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let polledPeakKB = 0;
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-4000);
    });
    const poll = setInterval(() => {
      if (child.pid) polledPeakKB = Math.max(polledPeakKB, readPeakKB(child.pid));
    }, 20);
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 300_000);
    child.on("close", (code, signal) => {
      clearInterval(poll);
      clearTimeout(timer);
      const exit = signal ? `signal ${signal}` : `exit ${code}`;
      const line = stdout.trim().split("\n").pop() ?? "";
      let parsed: WorkerResult | undefined;
      try {
        parsed = line ? (JSON.parse(line) as WorkerResult) : undefined;
      } catch {
        parsed = undefined;
      }
      const result: Measurement = parsed
        ? { ...parsed, polledPeakKB, exit }
        : {
            op,
            file,
            ok: false,
            maxRssKB: polledPeakKB,
            heapUsedMB: 0,
            polledPeakKB,
            exit,
            error: `worker died (${exit}): ${lastErrorLine(stderr)}`,
          };
      if (!result.ok) result.stderrTail = stderr.slice(-1500);
      resolvePromise(result);
    });
  });
}

function lastErrorLine(stderr: string): string {
  const lines = stderr
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);
  return lines.find((line) => /heap out of memory|Error|error/.test(line)) ?? lines.pop() ?? "no output";
}

// ---------------------------------------------------------------------------
// Statistics and formatting

function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

interface Summary {
  ok: boolean;
  runs: number;
  medianMs: number;
  minMs: number;
  maxMs: number;
  medianRssMiB: number;
  medianCpuMs: number;
  error?: string;
  fileChanged?: boolean;
}

function summarize(measurements: Measurement[]): Summary {
  const ok = measurements.filter((m) => m.ok);
  const failed = measurements.find((m) => !m.ok);
  const times = ok.map((m) => m.ms ?? Number.NaN);
  const summary: Summary = {
    ok: failed === undefined,
    runs: measurements.length,
    medianMs: median(times),
    minMs: Math.min(...times),
    maxMs: Math.max(...times),
    medianRssMiB: median(measurements.map((m) => Math.max(m.maxRssKB, m.polledPeakKB) / 1024)),
    medianCpuMs: median(ok.map((m) => m.cpuMs ?? Number.NaN)),
  };
  if (failed?.error) summary.error = failed.error;
  if (measurements.some((m) => m.fileChanged)) summary.fileChanged = true;
  return summary;
}

const fmtMs = (ms: number) => (Number.isFinite(ms) ? (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1)) : "-");
const fmtMiB = (mib: number) => (Number.isFinite(mib) ? mib.toFixed(0) : "-");
const fmtRatio = (r: number) => (Number.isFinite(r) ? r.toFixed(2) : "-");

function table(rows: string[][], align: ("l" | "r")[]): string {
  const widths = rows[0]!.map((_, col) => Math.max(...rows.map((row) => (row[col] ?? "").length)));
  return rows
    .map((row) =>
      row
        .map((cell, col) => (align[col] === "l" ? cell.padEnd(widths[col]!) : cell.padStart(widths[col]!)))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

// ---------------------------------------------------------------------------
// Main

async function main(): Promise<void> {
  const started = performance.now();
  console.log(
    `Arbor vs Pi benchmark — node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? "?"})`,
  );
  const loadBefore = loadavg()[0]!;
  if (loadBefore > cpus().length * 0.5) {
    console.log(`note: load average ${loadBefore.toFixed(1)} before starting; absolute times will be noisy`);
  }
  const files = ensureFiles({ huge: HUGE, names: ONLY, log: (line) => console.log(line) });
  const worker = await prepareWorker();
  console.log(`worker: ${worker.mode} (${worker.argv.join(" ")}), ${REPS} runs per measurement, median\n`);

  const baseline = summarize([
    await measure(worker, "noop", files[0]!.path),
    await measure(worker, "noop", files[0]!.path),
    await measure(worker, "noop", files[0]!.path),
  ]);

  const open: Record<string, Record<OpenOp, Summary>> = {};
  const raw: Measurement[] = [];
  const standard = files.filter(
    (file) =>
      file.name !== "mb700" &&
      !COMPARE_FILES.has(file.name) &&
      !MEMORY_FILES.has(file.name) &&
      !SMALL_FILES.has(file.name),
  );
  for (const file of standard) {
    const runs: Record<string, Measurement[]> = {};
    for (let rep = 0; rep < REPS; rep++) {
      // rotate the order each repetition so no implementation always runs first
      const order = OPEN_OPS.map((_, i) => OPEN_OPS[(i + rep) % OPEN_OPS.length]!);
      for (const op of order) {
        const m = await measure(worker, op, file.path);
        raw.push(m);
        const list = runs[op] ?? [];
        list.push(m);
        runs[op] = list;
        if (!m.ok) console.log(`  ${file.name} ${op}: FAILED ${m.error}`);
        if (m.fileChanged) console.log(`  ${file.name} ${op}: WARNING: Pi changed the file`);
      }
    }
    open[file.name] = Object.fromEntries(OPEN_OPS.map((op) => [op, summarize(runs[op] ?? [])])) as Record<
      OpenOp,
      Summary
    >;
    checkAgreement(file, runs);
    const s = open[file.name]!;
    console.log(
      `${file.name.padEnd(10)} floor ${fmtMs(s.floor.medianMs)} ms | Pi 0.73 ${fmtMs(s["pi073-open"].medianMs)} | ` +
        `Pi 1.6 ${fmtMs(s["pi16-open"].medianMs)} | Arbor ${fmtMs(s["arbor-open"].medianMs)} ms`,
    );
  }

  // Context at depth 100k: the chain's leaf.
  const chain = files.find((file) => file.name === "chain100k");
  const context: Record<string, Measurement & { medianMs: number }> = {};
  if (chain) {
    for (const op of ["arbor-context", "pi16-context", "pi073-context"]) {
      const reps = op === "pi073-context" ? CONTEXT_REPS_PI073 : CONTEXT_REPS;
      const m = await measure(worker, op, chain.path, { reps, timeoutMs: 900_000 });
      raw.push(m);
      if (!m.ok) console.log(`  context ${op}: FAILED ${m.error}`);
      context[op] = { ...m, medianMs: m.ms ?? Number.NaN };
      console.log(`context ${op.padEnd(14)} ${fmtMs(m.ms ?? Number.NaN)} ms (${m.messages} messages)`);
    }
    const counts = new Set(Object.values(context).map((m) => m.messages));
    if (counts.size > 1) console.log(`  WARNING: context message counts disagree: ${[...counts].join(", ")}`);
  }

  const compare = await measureCompare(worker, files, raw);
  const small = await measureSmallEntries(worker, files, raw);
  const memory = await measureMemory(worker, files, raw);

  // The huge file: one run each, RSS is the point.
  const huge: Record<string, Summary & { exit: string; polledPeakMiB: number }> = {};
  const hugeFile = files.find((file) => file.name === "mb700");
  if (hugeFile) {
    for (const op of ["arbor-open", "floor", "pi16-open", "pi073-open"]) {
      const m = await measure(worker, op, hugeFile.path, { timeoutMs: 1_200_000 });
      raw.push(m);
      huge[op] = { ...summarize([m]), exit: m.exit, polledPeakMiB: m.polledPeakKB / 1024 };
      console.log(
        `mb700 ${op.padEnd(11)} ${m.ok ? `${fmtMs(m.ms ?? Number.NaN)} ms` : `FAILED ${m.error}`}, ` +
          `peak RSS ${fmtMiB(Math.max(m.maxRssKB, m.polledPeakKB) / 1024)} MiB`,
      );
    }
  }

  // -------------------------------------------------------------------------
  // Report

  const rows: string[][] = [
    [
      "file",
      "entries",
      "MB",
      "floor ms",
      "Pi0.73 ms",
      "Pi1.6 ms",
      "Arbor ms",
      "floor MiB",
      "Pi0.73 MiB",
      "Pi1.6 MiB",
      "Arbor MiB",
      "A/Pi1.6 ms",
      "A/Pi1.6 cpu",
      "A/Pi1.6 RSS",
    ],
  ];
  const fileRow = (file: GeneratedFile, s: Record<string, Summary>) => {
    const cell = (op: string, what: "ms" | "rss") => {
      const summary = s[op];
      if (!summary) return "-";
      if (!summary.ok && what === "ms") return "FAIL";
      return what === "ms" ? fmtMs(summary.medianMs) : fmtMiB(summary.medianRssMiB);
    };
    const a = s["arbor-open"];
    const p = s["pi16-open"];
    rows.push([
      file.name,
      String(file.entries),
      (file.bytes / 1e6).toFixed(1),
      cell("floor", "ms"),
      cell("pi073-open", "ms"),
      cell("pi16-open", "ms"),
      cell("arbor-open", "ms"),
      cell("floor", "rss"),
      cell("pi073-open", "rss"),
      cell("pi16-open", "rss"),
      cell("arbor-open", "rss"),
      a?.ok && p?.ok ? fmtRatio(a.medianMs / p.medianMs) : "-",
      a?.ok && p?.ok ? fmtRatio(a.medianCpuMs / p.medianCpuMs) : "-",
      a && p ? fmtRatio(a.medianRssMiB / p.medianRssMiB) : "-",
    ]);
  };
  for (const file of standard) fileRow(file, open[file.name]!);
  if (hugeFile) fileRow(hugeFile, huge);

  if (rows.length > 1) {
    console.log(
      `\nOpen + full tree (median of ${REPS} runs${hugeFile ? ", mb700 one run" : ""}, one process each; ` +
        `bare worker RSS ${fmtMiB(baseline.medianRssMiB)} MiB)`,
    );
    console.log(table(rows, ["l", ...rows[0]!.slice(1).map(() => "r" as const)]));
  }

  if (chain) {
    const ctxRows = [
      ["context, depth 100k leaf", "first ms", "median ms", "runs ms", "messages", "peak MiB"],
    ];
    for (const op of ["pi073-context", "pi16-context", "arbor-context"]) {
      const m = context[op];
      if (!m) continue;
      ctxRows.push([
        OP_LABEL[op]!,
        m.runsMs?.[0] === undefined ? "-" : fmtMs(m.runsMs[0]),
        m.ok ? fmtMs(m.medianMs) : "FAIL",
        (m.runsMs ?? []).map(fmtMs).join(" "),
        String(m.messages ?? "-"),
        fmtMiB(m.maxRssKB / 1024),
      ]);
    }
    console.log(
      `\nContext for the deepest leaf of chain100k (context call only, in-process repeats; ` +
        `Arbor's first call reads the path's bodies from the file, the later ones find them cached)`,
    );
    console.log(table(ctxRows, ["l", "r", "r", "l", "r", "r"]));
  }

  if (small.rows.length > 1) {
    console.log(
      `\nMany small entries (issue 20): arbor stats (open and index, as a user runs it) against Pi's open ` +
        `+ getTree (median of ${REPS} runs, one process each)`,
    );
    console.log(table(small.rows, ["l", "r", "r", "r", "r", "r", "r", "r", "r", "r"]));
  }

  if (compare.rows.length > 1) {
    console.log(
      "\nCompare (issue 18): arbor diff against arbor stats on fork20k; the branch map of tips100k",
    );
    console.log(table(compare.rows, ["l", "r", "r", "r", "l"]));
  }

  // Targets
  const targets: Target[] = [];
  const mb100 = open.mb100;
  if (mb100) {
    const timeRatio = mb100["arbor-open"].medianMs / mb100["pi16-open"].medianMs;
    const rssRatio = mb100["arbor-open"].medianRssMiB / mb100["pi16-open"].medianRssMiB;
    targets.push(
      {
        name: "Arbor/Pi1.6 open time, mb100",
        value: timeRatio,
        unit: "x",
        target: "<= 0.5",
        pass: timeRatio <= 0.5,
      },
      {
        name: "Arbor/Pi1.6 peak RSS, mb100",
        value: rssRatio,
        unit: "x",
        target: "<= 1.0 (aim 0.5)",
        pass: rssRatio <= 1.0,
      },
    );
  }
  if (open.s100k) {
    const rssRatio = open.s100k["arbor-open"].medianRssMiB / open.s100k["pi16-open"].medianRssMiB;
    targets.push({
      name: "Arbor/Pi1.6 peak RSS, s100k",
      value: rssRatio,
      unit: "x",
      target: "<= 1.0 (aim 0.5)",
      pass: rssRatio <= 1.0,
    });
  }
  const ctxArbor = context["arbor-context"]?.medianMs;
  const ctxPi073 = context["pi073-context"]?.medianMs;
  const ctxPi16 = context["pi16-context"]?.medianMs;
  if (ctxArbor !== undefined && ctxPi073 !== undefined) {
    const r = ctxPi073 / ctxArbor;
    targets.push({
      name: "Pi0.73/Arbor context time, depth 100k",
      value: r,
      unit: "x",
      target: ">= 20",
      pass: r >= 20,
    });
  }
  if (ctxArbor !== undefined && ctxPi16 !== undefined) {
    const r = ctxArbor / ctxPi16;
    targets.push({
      name: "Arbor/Pi1.6 context time, depth 100k",
      value: r,
      unit: "x",
      target: "<= 1.0",
      pass: r <= 1.0,
    });
  }
  const firstArbor = context["arbor-context"]?.runsMs?.[0];
  const firstPi16 = context["pi16-context"]?.runsMs?.[0];
  if (firstArbor !== undefined && firstPi16 !== undefined) {
    // Pi holds every body from its open; Arbor's structure-first open left them in the file.
    targets.push({
      name: "  (Arbor/Pi1.6 first context call, reading the bodies)",
      value: firstArbor / firstPi16,
      unit: "x",
      target: "reference",
      pass: "info",
    });
  }
  if (open.s100k && open.s10k) {
    const r = open.s100k["arbor-open"].medianMs / open.s10k["arbor-open"].medianMs;
    targets.push({ name: "Arbor open time s100k/s10k", value: r, unit: "x", target: "<= 12", pass: r <= 12 });
    const p = open.s100k["pi16-open"].medianMs / open.s10k["pi16-open"].medianMs;
    targets.push({
      name: "  (Pi 1.6 open time s100k/s10k)",
      value: p,
      unit: "x",
      target: "reference",
      pass: "info",
    });
  }
  if (huge["arbor-open"]) {
    const h = huge["arbor-open"];
    targets.push({
      name: "Arbor peak RSS, mb700",
      value: h.medianRssMiB,
      unit: "MiB",
      target: "< 1024 MiB",
      pass: h.ok && h.medianRssMiB < 1024,
    });
  } else {
    targets.push({
      name: "Arbor peak RSS, mb700",
      value: Number.NaN,
      unit: "",
      target: "< 1024 MiB",
      pass: null,
    });
  }
  targets.push(...compare.targets, ...small.targets, ...memory.targets);
  const targetRows = [["target", "measured", "wanted", "status"]];
  for (const t of targets) {
    targetRows.push([
      t.name,
      Number.isFinite(t.value)
        ? `${t.unit === "MiB" ? fmtMiB(t.value) : t.unit === "ms" ? fmtMs(t.value) : t.unit === "B" ? t.value.toFixed(0) : fmtRatio(t.value)} ${t.unit}`
        : "-",
      t.target,
      t.pass === null ? "not run (--huge)" : t.pass === "info" ? "" : t.pass ? "PASS" : "MISS",
    ]);
  }
  console.log("\nTargets");
  console.log(table(targetRows, ["l", "r", "l", "l"]));

  if (hugeFile) {
    console.log("\nmb700: what each implementation does");
    for (const [op, h] of Object.entries(huge)) {
      console.log(
        `  ${(OP_LABEL[op] ?? op).padEnd(8)} ${h.ok ? `ok, ${fmtMs(h.medianMs)} ms` : `failed: ${h.error}`}; ` +
          `peak RSS ${fmtMiB(h.medianRssMiB)} MiB (${h.exit})`,
      );
    }
  }

  const changed = raw.filter((m) => m.fileChanged);
  if (changed.length > 0) console.log(`\nWARNING: Pi modified ${changed.length} file(s) while opening them`);

  const totalSeconds = (performance.now() - started) / 1000;
  const loadAfter = loadavg()[0]!;
  console.log(
    `\ntotal ${totalSeconds.toFixed(0)} s; load average ${loadBefore.toFixed(1)} before, ${loadAfter.toFixed(1)} after`,
  );

  mkdirSync(RESULTS_DIR, { recursive: true });
  // bench/results/ is gitignored but biome.json does not read .gitignore: keep `biome format .` off it.
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
  const out = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    totalMemMiB: Math.round(totalmem() / 2 ** 20),
    worker: worker.mode,
    reps: REPS,
    totalSeconds,
    loadAverage: { before: loadBefore, after: loadAfter },
    files,
    baselineRssMiB: baseline.medianRssMiB,
    open,
    context: Object.fromEntries(
      Object.entries(context).map(([op, m]) => [
        op,
        {
          medianMs: m.medianMs,
          runsMs: m.runsMs,
          messages: m.messages,
          peakRssMiB: m.maxRssKB / 1024,
          ok: m.ok,
        },
      ]),
    ),
    huge,
    compare: compare.json,
    small: small.json,
    memory: memory.json,
    targets,
    raw,
  };
  const json = `${JSON.stringify(out, null, 2)}\n`;
  writeFileSync(join(RESULTS_DIR, "latest.json"), json);
  writeFileSync(join(RESULTS_DIR, `run-${out.date.replace(/[:.]/g, "-")}.json`), json);
  console.log(`results: ${join(RESULTS_DIR, "latest.json")}`);
}

/**
 * Many small entries (issue 20): `arbor stats` (open and index, as a user
 * runs it) against Pi 1.6's and 0.73's `SessionManager.open` + `getTree` on a
 * file of short messages, where the per-entry cost outweighs the bytes.
 * Interleaved runs, one process each, medians, ratios to Pi 1.6.
 */
async function measureSmallEntries(
  worker: WorkerCommand,
  files: readonly GeneratedFile[],
  raw: Measurement[],
): Promise<{ rows: string[][]; targets: Target[]; json: Record<string, unknown> }> {
  const rows = [
    [
      "file",
      "entries",
      "MB",
      "Pi0.73 ms",
      "Pi1.6 ms",
      "Arbor ms",
      "Pi0.73 MiB",
      "Pi1.6 MiB",
      "Arbor MiB",
      "A/Pi1.6 ms",
      "A/Pi1.6 RSS",
    ],
  ];
  const targets: Target[] = [];
  const json: Record<string, unknown> = {};
  const ops = ["arbor-stats", "pi16-open", "pi073-open"];
  for (const file of files.filter((candidate) => SMALL_FILES.has(candidate.name))) {
    const runs: Record<string, Measurement[]> = Object.fromEntries(ops.map((op) => [op, []]));
    for (let rep = 0; rep < REPS; rep++) {
      for (const op of ops.map((_, i) => ops[(i + rep) % ops.length]!)) {
        const m = await measure(worker, op, file.path);
        raw.push(m);
        runs[op]!.push(m);
        if (!m.ok) console.log(`  ${file.name} ${op}: FAILED ${m.error}`);
        if (m.fileChanged) console.log(`  ${file.name} ${op}: WARNING: Pi changed the file`);
      }
    }
    const [arbor, pi16, pi073] = ops.map((op) => summarize(runs[op] ?? [])) as [Summary, Summary, Summary];
    const timeRatio = arbor.medianMs / pi16.medianMs;
    const rssRatio = arbor.medianRssMiB / pi16.medianRssMiB;
    const ok = arbor.ok && pi16.ok;
    rows.push([
      file.name,
      String(file.entries),
      (file.bytes / 1e6).toFixed(1),
      fmtMs(pi073.medianMs),
      fmtMs(pi16.medianMs),
      fmtMs(arbor.medianMs),
      fmtMiB(pi073.medianRssMiB),
      fmtMiB(pi16.medianRssMiB),
      fmtMiB(arbor.medianRssMiB),
      ok ? fmtRatio(timeRatio) : "-",
      ok ? fmtRatio(rssRatio) : "-",
    ]);
    console.log(
      `${file.name.padEnd(10)} Pi 0.73 ${fmtMs(pi073.medianMs)} ms | Pi 1.6 ${fmtMs(pi16.medianMs)} ms | ` +
        `arbor stats ${fmtMs(arbor.medianMs)} ms`,
    );
    targets.push(
      {
        name: `Arbor stats/Pi1.6 open time, ${file.name}`,
        value: timeRatio,
        unit: "x",
        target: "<= 0.5",
        pass: ok && timeRatio <= 0.5,
      },
      {
        name: `Arbor stats/Pi1.6 peak RSS, ${file.name}`,
        value: rssRatio,
        unit: "x",
        target: "<= 1.0",
        pass: ok && rssRatio <= 1.0,
      },
    );
    json[file.name] = { "arbor-stats": arbor, "pi16-open": pi16, "pi073-open": pi073, timeRatio, rssRatio };
  }
  return { rows, targets, json };
}

/**
 * Memory at the top end (issue 20): the peak RSS of `arbor stats` (open and
 * index, as a user runs it) per entry on s100k and s1m, one run each, and the
 * peak RSS of the server's library scan (cache and saved parses on) of s1m.
 */
async function measureMemory(
  worker: WorkerCommand,
  files: readonly GeneratedFile[],
  raw: Measurement[],
): Promise<{ targets: Target[]; json: Record<string, unknown> }> {
  const targets: Target[] = [];
  const json: Record<string, unknown> = {};
  const peakMiB = (m: Measurement) => Math.max(m.maxRssKB, m.polledPeakKB) / 1024;
  for (const name of ["s100k", "s1m"]) {
    const file = files.find((candidate) => candidate.name === name);
    if (!file) continue;
    const m = await measure(worker, "arbor-stats", file.path, { timeoutMs: 1_200_000 });
    raw.push(m);
    const perEntry = (peakMiB(m) * 2 ** 20) / file.entries;
    json[`stats-${name}`] = { ok: m.ok, ms: m.ms, peakRssMiB: peakMiB(m), bytesPerEntry: perEntry };
    console.log(
      `memory ${name.padEnd(6)} arbor stats ${m.ok ? `${fmtMs(m.ms ?? Number.NaN)} ms` : `FAILED ${m.error}`}, ` +
        `peak RSS ${fmtMiB(peakMiB(m))} MiB, ${perEntry.toFixed(0)} B/entry`,
    );
    // At 100k entries a bare worker alone (~42 MiB) is ~440 B an entry: the target is the 1M file's.
    const isTarget = name === "s1m";
    targets.push({
      name: `${isTarget ? "" : "  ("}Arbor stats peak RSS per entry, ${name}${isTarget ? "" : ")"}`,
      value: perEntry,
      unit: "B",
      target: isTarget ? `<= ${MAX_BYTES_PER_ENTRY} B` : "reference",
      pass: isTarget ? m.ok && perEntry <= MAX_BYTES_PER_ENTRY : "info",
    });
  }
  const big = files.find((candidate) => candidate.name === "s1m");
  if (big) {
    const m = await measure(worker, "arbor-library-scan", big.path, { timeoutMs: 1_200_000 });
    raw.push(m);
    json["library-scan-s1m"] = { ok: m.ok, ms: m.ms, peakRssMiB: peakMiB(m), entries: m.entries };
    console.log(
      `memory s1m    library scan ${m.ok ? `${fmtMs(m.ms ?? Number.NaN)} ms` : `FAILED ${m.error}`}, ` +
        `peak RSS ${fmtMiB(peakMiB(m))} MiB (${m.entries ?? "?"} entries listed)`,
    );
    targets.push({
      name: "Library scan peak RSS, s1m",
      value: peakMiB(m),
      unit: "MiB",
      target: "< 1024 MiB",
      pass: m.ok && peakMiB(m) < 1024,
    });
  }
  return { targets, json };
}

interface Target {
  name: string;
  value: number;
  unit: string;
  target: string;
  /** null: not measured in this run; "info": a reference figure without a target. */
  pass: boolean | null | "info";
}

/**
 * The compare measurements (issue 18): `arbor diff` of the two tips of
 * fork20k against `arbor stats` of the same file (interleaved runs, one
 * process each, medians), and the branch map of tips100k built as a window
 * builds it (first run cold, then repeats in the same process).
 */
async function measureCompare(
  worker: WorkerCommand,
  files: readonly GeneratedFile[],
  raw: Measurement[],
): Promise<{ rows: string[][]; targets: Target[]; json: Record<string, unknown> }> {
  const rows = [["compare", "first ms", "median ms", "ratio", "runs ms"]];
  const targets: Target[] = [];
  const json: Record<string, unknown> = {};
  const fork = files.find((file) => file.name === "fork20k");
  if (fork?.tips) {
    const runs: Record<string, Measurement[]> = { "arbor-stats": [], "arbor-diff": [] };
    for (let rep = 0; rep < REPS; rep++) {
      const order = rep % 2 === 0 ? ["arbor-stats", "arbor-diff"] : ["arbor-diff", "arbor-stats"];
      for (const op of order) {
        const m = await measure(worker, op, fork.path, { args: op === "arbor-diff" ? fork.tips : [] });
        raw.push(m);
        runs[op]!.push(m);
        if (!m.ok) console.log(`  fork20k ${op}: FAILED ${m.error}`);
      }
    }
    const stats = summarize(runs["arbor-stats"]!);
    const diff = summarize(runs["arbor-diff"]!);
    const ratio = diff.medianMs / stats.medianMs;
    const msOf = (op: string) => runs[op]!.map((m) => fmtMs(m.ms ?? Number.NaN)).join(" ");
    rows.push(
      ["arbor stats fork20k", "", fmtMs(stats.medianMs), "", msOf("arbor-stats")],
      [
        "arbor diff fork20k (5k vs 5k entries)",
        "",
        fmtMs(diff.medianMs),
        fmtRatio(ratio),
        msOf("arbor-diff"),
      ],
    );
    console.log(`fork20k    stats ${fmtMs(stats.medianMs)} ms | diff ${fmtMs(diff.medianMs)} ms`);
    targets.push({
      name: "Arbor diff/stats time, fork20k",
      value: ratio,
      unit: "x",
      target: "<= 5",
      pass: stats.ok && diff.ok && ratio <= 5,
    });
    json.fork20k = { stats, diff, ratio };
  }
  const tips = files.find((file) => file.name === "tips100k");
  if (tips) {
    const m = await measure(worker, "arbor-branches", tips.path, { reps: BRANCH_MAP_REPS });
    raw.push(m);
    const runsMs = m.runsMs ?? [];
    const first = runsMs[0] ?? Number.NaN;
    rows.push([
      `branch map tips100k (${m.tips ?? "?"} tips)`,
      fmtMs(first),
      fmtMs(median(runsMs)),
      "",
      runsMs.map(fmtMs).join(" "),
    ]);
    console.log(
      `tips100k   branch map ${m.ok ? `${fmtMs(first)} ms first, ${m.tips} tips` : `FAILED ${m.error}`}`,
    );
    targets.push({
      name: "Branch map of 100k entries, ~1,000 tips (first build)",
      value: first,
      unit: "ms",
      target: "< 200 ms",
      pass: m.ok && first < 200,
    });
    json.tips100k = { firstMs: first, runsMs, tips: m.tips, ok: m.ok };
  }
  return { rows, targets, json };
}

/** All implementations must see the same tree: same node count (Pi's tree holds every entry). */
function checkAgreement(file: GeneratedFile, runs: Record<string, Measurement[]>): void {
  const counts = new Set<string>();
  for (const op of OPEN_OPS) {
    for (const m of runs[op] ?? []) {
      if (!m.ok) continue;
      counts.add(`${op === "floor" ? m.entries : (m.nodes ?? m.entries)}`);
    }
  }
  if (counts.size > 1 || !counts.has(String(file.entries))) {
    console.log(
      `  WARNING ${file.name}: implementations disagree on the entry count: ${[...counts].join(", ")}`,
    );
  }
}

if (!existsSync(DATA_DIR)) mkdirSync(DATA_DIR, { recursive: true });
await main();
