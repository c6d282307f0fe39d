/**
 * Following a growing session: the cost of taking in one appended entry must
 * not depend on the size of the file.
 *
 *   npx tsx bench/follow.ts [--appends N] [--only s1k,s100k]
 *
 * For each of the generated files s1k, s10k, s100k (about 1, 13 and 126 MB;
 * see bench/generate.ts), on a copy in the temp dir:
 *
 *   sync      a small entry appended by another writer (`appendFileSync`, as
 *             Pi does), then `SessionStore.sync()` timed: inspect the file,
 *             read the new bytes from the resume point, extend the index
 *   append    Arbor's own label append through `append.ts`
 *             (`store.append(appendLabel, ...)`: checks, one write, and the
 *             read-back of its own line)
 *   delivery  a small entry appended while the store follows (directory
 *             watch), timed until `onDidAppend` fires
 *
 * each 100 times (`--appends`), in the store's default mode for the file's
 * size and in structure-first mode for all, reporting medians and the ratio
 * of the largest file to the smallest. Flat means a ratio near 1. Results:
 * stdout and bench/results/follow-latest.json.
 */

import {
  appendFileSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { appendLabel } from "../app/store/append.ts";
import { SessionStore } from "../app/store/session-store.ts";
import type { ParseMode } from "../shared/session/parse.ts";
import { BENCH_DIR, dataPath, ensureFiles } from "./generate.ts";

const args = process.argv.slice(2);
const APPENDS = Number(argValue("--appends") ?? 100);
const ONLY = argValue("--only")?.split(",") ?? ["s1k", "s10k", "s100k"];

function argValue(name: string): string | undefined {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

let counter = 0;
function entryLine(parentId: string | null): { id: string; line: string } {
  const id = `b${(counter++).toString(16).padStart(7, "0")}`;
  const line = JSON.stringify({
    type: "message",
    id,
    parentId,
    timestamp: new Date().toISOString(),
    message: { role: "user", content: `appended while following, number ${counter}`, timestamp: Date.now() },
  });
  return { id, line: `${line}\n` };
}

interface Figures {
  file: string;
  mb: number;
  entries: number;
  mode: ParseMode;
  openMs: number;
  syncUs: { median: number; p95: number; mean: number };
  appendUs: { median: number; p95: number };
  deliveryMs: { median: number; p95: number; max: number };
  rebuilds: number;
}

async function measure(source: string, name: string, mode: ParseMode | undefined): Promise<Figures> {
  const dir = mkdtempSync(join(tmpdir(), "arbor-bench-follow-"));
  try {
    const path = join(dir, `${name}.jsonl`);
    copyFileSync(source, path);
    const openStart = performance.now();
    const store = SessionStore.open(path, mode ? { mode } : {});
    const openMs = performance.now() - openStart;
    let rebuilds = 0;
    store.onDidAppend((event) => {
      if (event.rebuilt) rebuilds++;
    });
    try {
      // Warm up the code paths on this store (not counted).
      for (let i = 0; i < 5; i++) {
        appendFileSync(path, entryLine(store.index.leafId).line);
        store.sync();
      }

      const sync: number[] = [];
      for (let i = 0; i < APPENDS; i++) {
        const { id, line } = entryLine(store.index.leafId);
        appendFileSync(path, line);
        const start = performance.now();
        store.sync();
        sync.push((performance.now() - start) * 1000);
        if (store.index.leafId !== id) throw new Error(`sync did not take in ${id}`);
      }

      const append: number[] = [];
      for (let i = 0; i < APPENDS; i++) {
        const targetId = store.index.entries[(i * 7919) % store.index.entries.length]!.id;
        const start = performance.now();
        store.append(appendLabel, { leafId: store.index.leafId, targetId, label: `bench ${i}` });
        append.push((performance.now() - start) * 1000);
      }

      store.follow();
      const delivery: number[] = [];
      for (let i = 0; i < APPENDS; i++) {
        const { id, line } = entryLine(store.index.leafId);
        const delivered = new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`no append event for ${id}`)), 5000);
          const subscription = store.onDidAppend((event) => {
            if (event.added.some((node) => node.id === id)) {
              clearTimeout(timer);
              subscription.dispose();
              resolve();
            }
          });
        });
        const start = performance.now();
        appendFileSync(path, line);
        await delivered;
        delivery.push(performance.now() - start);
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      return {
        file: name,
        mb: store.index.byteLength / 1e6,
        entries: store.index.entries.length,
        mode: store.mode,
        openMs,
        syncUs: {
          median: median(sync),
          p95: percentile(sync, 0.95),
          mean: sync.reduce((a, b) => a + b, 0) / sync.length,
        },
        appendUs: { median: median(append), p95: percentile(append, 0.95) },
        deliveryMs: { median: median(delivery), p95: percentile(delivery, 0.95), max: Math.max(...delivery) },
        rebuilds,
      };
    } finally {
      store.dispose();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// Generate the benchmark files only when one of those needed is missing (ensureFiles makes them all).
const files = ONLY.every((name) => existsSync(dataPath(name)))
  ? ONLY.map((name) => ({ name, path: dataPath(name) }))
  : ensureFiles({ log: (line) => console.log(line) }).filter((file) => ONLY.includes(file.name));
const results: Figures[] = [];
for (const mode of [undefined, "structure"] as const) {
  for (const file of files) {
    const figures = await measure(file.path, file.name, mode);
    results.push(figures);
    console.log(
      `${(mode ? "structure" : "default").padEnd(9)} ${file.name.padEnd(6)} ${figures.mb.toFixed(1).padStart(6)} MB ` +
        `${String(figures.entries).padStart(7)} entries  ${figures.mode.padEnd(9)} open ${figures.openMs.toFixed(0).padStart(5)} ms  ` +
        `sync ${figures.syncUs.median.toFixed(0).padStart(5)} µs (p95 ${figures.syncUs.p95.toFixed(0)})  ` +
        `append ${figures.appendUs.median.toFixed(0).padStart(5)} µs (p95 ${figures.appendUs.p95.toFixed(0)})  ` +
        `delivery ${figures.deliveryMs.median.toFixed(1)} ms (p95 ${figures.deliveryMs.p95.toFixed(1)}, max ${figures.deliveryMs.max.toFixed(1)})` +
        (figures.rebuilds ? `  rebuilds ${figures.rebuilds}` : ""),
    );
  }
}

const ratios: Record<string, Record<string, number>> = {};
for (const mode of ["default", "structure"]) {
  const rows = results.slice(
    mode === "default" ? 0 : files.length,
    mode === "default" ? files.length : undefined,
  );
  const small = rows[0];
  const large = rows.at(-1);
  if (!small || !large || small === large) continue;
  ratios[mode] = {
    sync: large.syncUs.median / small.syncUs.median,
    append: large.appendUs.median / small.appendUs.median,
    delivery: large.deliveryMs.median / small.deliveryMs.median,
  };
  console.log(
    `${mode}: ${large.file}/${small.file} (${(large.mb / small.mb).toFixed(0)}x the bytes): ` +
      `sync ${ratios[mode].sync!.toFixed(2)}x, append ${ratios[mode].append!.toFixed(2)}x, delivery ${ratios[mode].delivery!.toFixed(2)}x`,
  );
}

const resultsDir = join(BENCH_DIR, "results");
mkdirSync(resultsDir, { recursive: true });
writeFileSync(
  join(resultsDir, "follow-latest.json"),
  `${JSON.stringify({ date: new Date().toISOString(), appends: APPENDS, results, ratios }, null, 2)}\n`,
);
