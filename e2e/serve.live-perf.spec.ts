/**
 * Following a live session keeps up on big sessions: a separate process
 * appends Pi-style lines (a turn: the question, a tool call, its result, the
 * answer) at 20 lines a second for 30 s to the session the window has open,
 * and the page records when each entry reached its graph model (the status
 * line's entry count, drawn by the same render as the graph) against the
 * line's own timestamp. Reported for a 2k- and a 50k-entry session: median
 * and p95 lag, the first tenth of the burst against the last (no growth), and
 * the page's long tasks meanwhile (Long Tasks API).
 */

import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, type Page, test } from "@playwright/test";
import { graphStatus, node, openApp, openSession, statusLine } from "./support/app.ts";
import { type GeneratedSession, writeWorkSession } from "./support/generate.ts";
import type { PageGlobals, PagePerformanceObserver } from "./support/page-globals.ts";
import { type RunningServe, startServe } from "./support/serve.ts";

let serve: RunningServe;
let dataDir: string;
let small: GeneratedSession;
let large: GeneratedSession;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  const root = mkdtempSync(join(tmpdir(), "arbor-e2e-live-perf-"));
  small = writeWorkSession(root, "live-2k", 2_000, "Live 2k");
  large = writeWorkSession(root, "live-50k", 50_000, "Live 50k");
  dataDir = mkdtempSync(join(tmpdir(), "arbor-e2e-live-perf-data-"));
  serve = await startServe({ dirs: [root], removeDirsOnStop: true, dataDir });
});

test.afterAll(async () => {
  const code = await serve?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  expect(code, serve?.output()).toBe(0);
});

const figures: string[] = [];
test.afterAll(() => {
  if (figures.length > 0) console.log(`live perf figures:\n  ${figures.join("\n  ")}`);
});

const LINES_PER_SECOND = 20;
const BURST_SECONDS = 30;
/** The targets: p95 lag, the last tenth's median over the first tenth's, the longest task while following. */
const P95_LAG_TARGET_MS = 250;
const GROWTH_ALLOWANCE_MS = 50;
const LONGEST_TASK_TARGET_MS = 50;
/**
 * What the test fails on. The lag targets are met with room on a 2-core machine (p95 ~115 ms with
 * appends applied at most once per 100 ms). The longest task is measured by the wall clock: on two
 * cores shared with the server, the appender and V8's compiler threads, a task is stretched to two or
 * three times its CPU. An application of appends or a context answer is 10-15 ms of the page's CPU (the
 * graph's React Flow part and the preview's rows drawn in renders of their own; a context grown at its
 * end is the preview's list grown, the virtualiser following its end, not a list opened anew). The 50 ms target held
 * in every quiet run on both sessions (issue 20's notes have the figures). A miss of a target is reported
 * as an annotation, since the gate runs this among other tests; the bounds leave room for a noisy
 * machine and catch a return of the old behaviour (a backlog growing to seconds, tasks of a whole
 * re-layout: 400 ms).
 */
const P95_LAG_BOUND_MS = 2_500;
const GROWTH_BOUND_MS = 1_000;
const LONGEST_TASK_BOUND_MS = 150;

/**
 * Appends a turn's lines to `file` from a separate Node process, one every
 * 1000 / `perSecond` ms (on a schedule from its start, not from the last
 * write), each stamped with the time it is written, its parent the line
 * before (the first's: `parentId`). Resolves with the ids written.
 */
async function appendLive(file: string, parentId: string, perSecond: number, seconds: number) {
  const script = `
    const { appendFileSync } = require("node:fs");
    const [file, firstParent, perSecond, seconds] = process.argv.slice(1);
    const count = Number(perSecond) * Number(seconds);
    const step = 1000 / Number(perSecond);
    const usage = { input: 1200, output: 80, cacheRead: 600, cacheWrite: 0, totalTokens: 1880 };
    const model = { api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5", usage };
    const ids = [];
    let parentId = firstParent;
    const start = Date.now();
    let k = 0;
    const lineOf = (k, now) => {
      const turn = Math.floor(k / 4);
      const callId = "toolu_live_" + turn;
      const text = (words) => ({ type: "text", text: "Live turn " + turn + ": " + words });
      const message = [
        { role: "user", content: [text("what does the failing test wait for?")], timestamp: now },
        { role: "assistant", content: [text("reading it."), { type: "toolCall", id: callId, name: "read",
          arguments: { path: "src/live-" + turn + ".ts" } }], ...model, stopReason: "toolUse", timestamp: now },
        { role: "toolResult", toolCallId: callId, toolName: "read", isError: false, timestamp: now,
          content: [text("export const live = " + turn + ";")] },
        { role: "assistant", content: [text("it waits for the token, then clicks.")], ...model,
          stopReason: "stop", timestamp: now },
      ][k % 4];
      const id = "live" + k.toString(16).padStart(4, "0");
      return { id, line: JSON.stringify({ type: "message", id, parentId, timestamp: new Date(now).toISOString(), message }) };
    };
    const tick = () => {
      while (k < count && Date.now() >= start + k * step) {
        const { id, line } = lineOf(k, Date.now());
        appendFileSync(file, line + "\\n");
        ids.push(id);
        parentId = id;
        k++;
      }
      if (k < count) setTimeout(tick, Math.max(0, start + k * step - Date.now()));
      else process.stdout.write(JSON.stringify(ids));
    };
    tick();
  `;
  const child = spawn(process.execPath, ["-e", script, file, parentId, String(perSecond), String(seconds)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  const code = await new Promise<number | null>((done) => child.once("exit", done));
  expect(code).toBe(0);
  return JSON.parse(out) as string[];
}

/** The write time of each line with one of `ids`, from its own timestamp. */
function writeTimes(file: string, ids: readonly string[]): number[] {
  const wanted = new Set(ids);
  const times = new Map<string, number>();
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (line === "") continue;
    const entry = JSON.parse(line) as { id?: string; timestamp?: string };
    if (entry.id !== undefined && wanted.has(entry.id)) times.set(entry.id, Date.parse(entry.timestamp!));
  }
  return ids.map((id) => times.get(id)!);
}

/**
 * Starts recording in the page: each change of the status line's entry count
 * with its wall-clock time, and every long task.
 */
async function startRecording(page: Page): Promise<void> {
  await page.evaluate(() => {
    const { document, performance, MutationObserver, PerformanceObserver } =
      globalThis as unknown as PageGlobals;
    const origin = (performance as unknown as { timeOrigin: number }).timeOrigin;
    const global = globalThis as unknown as {
      counts: [number, number][];
      longTasks: [number, number][];
      recorders: { status: { disconnect(): void }; tasks: PagePerformanceObserver };
    };
    global.counts = [];
    global.longTasks = [];
    const status = document.querySelector(".graph-status")!;
    let last = -1;
    const read = () => {
      const match = /([\d,]+) entries/.exec(status.textContent ?? "");
      const count = match ? Number(match[1]!.replace(/,/g, "")) : -1;
      if (count !== last) global.counts.push([origin + performance.now(), count]);
      last = count;
    };
    const observer = new MutationObserver(read);
    observer.observe(status, { subtree: true, childList: true, characterData: true } as never);
    read();
    const tasks = new PerformanceObserver((list) => {
      for (const entry of list.getEntries())
        global.longTasks.push([origin + entry.startTime, entry.duration]);
    });
    tasks.observe({ type: "longtask" });
    global.recorders = { status: observer, tasks };
  });
}

/** Each change of the entry count and each long task (start, duration), in wall-clock ms. */
async function stopRecording(
  page: Page,
): Promise<{ counts: [number, number][]; longTasks: [number, number][] }> {
  return page.evaluate(() => {
    const { performance } = globalThis as unknown as PageGlobals;
    const origin = (performance as unknown as { timeOrigin: number }).timeOrigin;
    const global = globalThis as unknown as {
      counts: [number, number][];
      longTasks: [number, number][];
      recorders: { status: { disconnect(): void }; tasks: PagePerformanceObserver };
    };
    global.recorders.status.disconnect();
    for (const entry of global.recorders.tasks.takeRecords())
      global.longTasks.push([origin + entry.startTime, entry.duration]);
    global.recorders.tasks.disconnect();
    return { counts: global.counts, longTasks: global.longTasks };
  });
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

const median = (values: readonly number[]) => percentile(values, 0.5);

interface LiveFigures {
  median: number;
  p95: number;
  firstTenth: number;
  lastTenth: number;
  longest: number;
  longTasks: number;
  /** When each long task started, in seconds after the first line was written. */
  longTasksAt: number[];
}

/** Opens the session, follows a 30 s burst of appends and measures each entry's lag. */
async function followBurst(page: Page, session: GeneratedSession): Promise<LiveFigures> {
  // The entry graph is what is measured (a session this size would open in the branch map).
  await openApp(page, serve.urlWith({ view: "entries" }));
  await openSession(page, session.name, session.leafId);
  await expect(node(page, session.leafId)).toBeVisible();
  const before = (await graphStatus(page)).entries;
  await startRecording(page);
  const ids = await appendLive(session.path, session.leafId, LINES_PER_SECOND, BURST_SECONDS);
  // Every entry arrives, the last one drawn as the leaf (follow mode).
  await expect(statusLine(page)).toContainText(`${(before + ids.length).toLocaleString("en-US")} entries`, {
    timeout: 60_000,
  });
  await expect(node(page, ids.at(-1)!)).toBeVisible();
  const { counts, longTasks } = await stopRecording(page);
  const written = writeTimes(session.path, ids);
  const lags = written.map((time, k) => {
    const arrived = counts.find(([, count]) => count >= before + k + 1);
    if (!arrived) throw new Error(`entry ${ids[k]} never reached the page`);
    return arrived[0] - time;
  });
  const tenth = Math.floor(lags.length / 10);
  const result: LiveFigures = {
    median: median(lags),
    p95: percentile(lags, 0.95),
    firstTenth: median(lags.slice(0, tenth)),
    lastTenth: median(lags.slice(-tenth)),
    longest: Math.max(0, ...longTasks.map(([, duration]) => duration)),
    longTasks: longTasks.length,
    longTasksAt: longTasks.map(([start]) => (start - written[0]!) / 1000),
  };
  const at = result.longTasksAt.map((seconds) => seconds.toFixed(1)).join(", ");
  const line = `follow ${session.name} (${session.entries.toLocaleString("en-US")} entries), ${ids.length} lines at ${LINES_PER_SECOND}/s: lag median ${result.median.toFixed(0)} ms, p95 ${result.p95.toFixed(0)} ms; first tenth median ${result.firstTenth.toFixed(0)} ms, last tenth ${result.lastTenth.toFixed(0)} ms; long tasks ${result.longTasks}${at ? ` (at ${at} s)` : ""}, longest ${result.longest.toFixed(0)} ms`;
  figures.push(line);
  console.log(`live perf: ${line}`);
  return result;
}

function expectKeptUp(figures: LiveFigures) {
  const misses = [
    figures.p95 >= P95_LAG_TARGET_MS
      ? `p95 lag ${figures.p95.toFixed(0)} ms (target < ${P95_LAG_TARGET_MS})`
      : "",
    figures.lastTenth > figures.firstTenth + GROWTH_ALLOWANCE_MS
      ? `lag grew ${figures.firstTenth.toFixed(0)} -> ${figures.lastTenth.toFixed(0)} ms`
      : "",
    figures.longest > LONGEST_TASK_TARGET_MS
      ? `longest task ${figures.longest.toFixed(0)} ms (target <= ${LONGEST_TASK_TARGET_MS})`
      : "",
  ].filter(Boolean);
  if (misses.length > 0)
    test.info().annotations.push({ type: "target missed (issue 20)", description: misses.join("; ") });
  expect(figures.p95, "p95 lag").toBeLessThan(P95_LAG_BOUND_MS);
  expect(figures.lastTenth, "the last tenth's median lag").toBeLessThanOrEqual(
    figures.firstTenth + GROWTH_BOUND_MS,
  );
  expect(figures.longest, "the longest page task while following").toBeLessThanOrEqual(LONGEST_TASK_BOUND_MS);
}

test("a 2k-entry session follows 20 appended lines a second", async ({ page }) => {
  test.setTimeout(120_000);
  expectKeptUp(await followBurst(page, small));
});

test("a 50k-entry session follows 20 appended lines a second", async ({ page }) => {
  test.setTimeout(180_000);
  expectKeptUp(await followBurst(page, large));
});
