/**
 * Performance of the whole product in Chromium, against a real `arbor
 * serve`: opening a 1k- and a 100k-entry session (click in the library to
 * the leaf's node drawn and its context shown), selecting another entry
 * in the 100k session (no main-thread long task over 200 ms), and panning
 * a graph of about 10k nodes (median frame time under 50 ms). The figures
 * are printed, so they show in the test report.
 */

import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, type Page, test } from "@playwright/test";
import {
  expectPreviewOf,
  graphPanel,
  graphStatus,
  idsInPane,
  node,
  openApp,
  openSession,
  preview,
  canvasPixels,
  screenshot,
  sessionRow,
  statusLine,
} from "./support/app.ts";
import { ensureFiles } from "../bench/generate.ts";
import { MAP_DATA_MARK, MAP_PAINTED_MARK, VIEW_ARRIVED_MARK } from "../renderer/src/branch-map/marks.ts";
import { type GeneratedSession, writeGridSession, writeWorkSession } from "./support/generate.ts";
import { readIndex } from "./support/oracle.ts";
import type { PageGlobals, PagePerformanceObserver } from "./support/page-globals.ts";
import { measureWithoutDevtools } from "./support/devtools-free.ts";
import { type MapTiming, mapTimingDriver } from "./support/map-timing.ts";
import { type OpenTimings, openTimingDriver } from "./support/open-timing.ts";
import { type RunningServe, startServe } from "./support/serve.ts";

let serve: RunningServe;
/** These measure the entry graph: the address asks for it, whatever view a session would open in by default. */
const ENTRY_GRAPH = { view: "entries" };
let dataDir: string;
let small: GeneratedSession;
let large: GeneratedSession;
let grid: GeneratedSession;
/** The bench's `tips100k` (bench/generate.ts): 100k entries, about 1,000 branch tips. */
let tips: { name: string; entries: number };

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  const root = mkdtempSync(join(tmpdir(), "arbor-e2e-perf-"));
  small = writeWorkSession(root, "perf-1k", 1_000, "Perf 1k");
  large = writeWorkSession(root, "perf-100k", 100_000, "Perf 100k");
  grid = writeGridSession(root, "perf-grid", 200, 50, "Perf grid 10k");
  tips = copyTips100k(root);
  dataDir = mkdtempSync(join(tmpdir(), "arbor-e2e-perf-data-"));
  serve = await startServe({ dirs: [root], removeDirsOnStop: true, dataDir });
});

/** The bench generator's tips100k (made once into bench/data, then reused), copied into the library in Pi's layout. */
function copyTips100k(root: string): { name: string; entries: number } {
  const [file] = ensureFiles({ names: ["tips100k"] });
  const dir = join(root, "--home-user-projects-arbor--");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "2026-09-25T19-00-00-000Z_019a0000-0000-7000-8000-0000000e1000.jsonl");
  copyFileSync(file!.path, path);
  return { name: readIndex(path).sessionName ?? "", entries: file!.entries };
}

test.afterAll(async () => {
  const code = await serve?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  expect(code, serve?.output()).toBe(0);
});

const figures: string[] = [];
function report(line: string) {
  figures.push(line);
  console.log(`perf: ${line}`);
}

test.afterAll(() => {
  if (figures.length > 0) console.log(`perf figures:\n  ${figures.join("\n  ")}`);
});

/**
 * Clicks the session's library row and measures, in the page, from the
 * click to the first frame where the leaf's node is drawn and the preview
 * holds the leaf's context.
 */
async function timeToInteractive(page: Page, session: GeneratedSession): Promise<number> {
  await serverIdle();
  const row = sessionRow(page, session.name);
  const sessionId = await row.getAttribute("data-session-id");
  await page.evaluate(
    ({ sessionId, leafId }) => {
      const { document, requestAnimationFrame, performance, MutationObserver } =
        globalThis as unknown as PageGlobals;
      const global = globalThis as unknown as { opened: Promise<number> };
      global.opened = new Promise<number>((done) => {
        const row = document.querySelector(`.session-row[data-session-id="${sessionId}"]`)!;
        let start = 0;
        let finished = false;
        const ready = () => {
          const context = document.querySelector('[aria-label="Context preview"]');
          return (
            context?.getAttribute("data-leaf-id") === leafId &&
            context.getAttribute("aria-busy") === "false" &&
            context.hasAttribute("data-message-count") &&
            document.querySelector(`.react-flow__node[data-id="${leafId}"]`) !== null
          );
        };
        const check = () => {
          if (finished || start === 0 || !ready()) return;
          finished = true;
          observer.disconnect();
          // The first frame that shows it.
          requestAnimationFrame(() => done(performance.now() - start));
        };
        const observer = new MutationObserver(check);
        observer.observe(document.body, { subtree: true, childList: true, attributes: true });
        row.addEventListener(
          "click",
          () => {
            start = performance.now();
          },
          { capture: true, once: true },
        );
      });
    },
    { sessionId, leafId: session.leafId },
  );
  await row.click();
  const ms = await page.evaluate(() => (globalThis as unknown as { opened: Promise<number> }).opened);
  // The open has finished when the graph takes the focus.
  await expect(graphPanel(page)).toBeFocused();
  await expectPreviewOf(page, session.leafId);
  await expect(node(page, session.leafId)).toBeVisible();
  return ms;
}

/**
 * Resolves once the server has answered a page request: it answers between
 * tasks, so any work left from the last open (the index of a session opened
 * from its saved view is built just after the open) is done. Each timed open
 * then starts from an idle server, whatever was opened before it.
 */
async function serverIdle(): Promise<void> {
  const response = await fetch(serve.url);
  expect(response.ok).toBe(true);
  await response.text();
}

let openRatio: number | null = null;

/** Rounds of opening the 1k and then the 100k session; the medians are compared (one run is noisy here). */
const OPEN_ROUNDS = 3;

test("a 1k- and a 100k-entry session open to an interactive graph", async ({ page }) => {
  await openApp(page, serve.urlWith(ENTRY_GRAPH));
  // Once, untimed: the first open also pays for the page's own warm-up (code, fonts, layout).
  await timeToInteractive(page, grid);

  const smallTimes: number[] = [];
  const largeTimes: number[] = [];
  for (let round = 0; round < OPEN_ROUNDS; round++) {
    smallTimes.push(await timeToInteractive(page, small));
    largeTimes.push(await timeToInteractive(page, large));
  }
  const status = await graphStatus(page);
  expect(status.entries).toBe(large.entries);
  // What was measured: opens of a session whose parse and view the library scan saved (the 100k file is 40 MB).
  const saved = readdirSync(join(dataDir, "open-cache"));
  const parses = saved.filter((name) => name.endsWith(".json")).length;
  const views = saved.filter((name) => name.endsWith(".view")).length;
  expect(parses).toBeGreaterThanOrEqual(1);
  expect(views).toBeGreaterThanOrEqual(1);
  report(`saved parses and views written by the library scan: ${parses} and ${views}`);
  const smallMs = median(smallTimes);
  const largeMs = median(largeTimes);
  openRatio = largeMs / smallMs;
  const all = (times: number[]) => times.map((ms) => ms.toFixed(0)).join(", ");
  report(
    `open 1k session (${small.entries} entries): median ${smallMs.toFixed(0)} ms click to interactive graph (${all(smallTimes)})`,
  );
  report(
    `open 100k session (${large.entries} entries, ${status.nodes} graph nodes): median ${largeMs.toFixed(0)} ms (${all(largeTimes)}); ratio ${openRatio.toFixed(2)}`,
  );
  await screenshot(page, "perf-100k-open");
});

/**
 * Under Playwright the ratio is only reported, and guarded at 20x: Playwright drives Chromium through the
 * DevTools protocol, which copies every WebSocket frame into the protocol on the page's main thread
 * (see e2e/support/devtools-free.ts). The 100k view is a 10 MB frame, so its opens here cost 0.3-0.8 s a
 * user's browser does not pay (measured: 1.2-1.8 s here, 0.55-0.8 s without DevTools), the 1k ones
 * nothing. The issue's bar (8x) is checked by the next test, which times the same opens without it.
 */
const OPEN_RATIO_TARGET = 8;
const OPEN_RATIO_GUARD = 20;

test("under Playwright, opening the 100k-entry session takes at most 20x the 1k one (reported)", () => {
  expect(openRatio, "the measuring test ran").not.toBeNull();
  if (openRatio! > OPEN_RATIO_TARGET) {
    test.info().annotations.push({
      type: "perf",
      description: `under Playwright, opening 100k entries took ${openRatio!.toFixed(2)}x the 1k time`,
    });
  }
  expect(openRatio!).toBeLessThanOrEqual(OPEN_RATIO_GUARD);
});

/**
 * More rounds than under Playwright: they are cheap here, and a fresh page's first one or two opens of
 * the 100k session are its slowest (1.7-2.4 s against 0.6-0.9 s after, as its code warms up).
 */
const DEVTOOLS_FREE_ROUNDS = 7;

test("opening the 100k-entry session takes at most 8x the 1k one, timed with no DevTools attached", async () => {
  // Where the time goes at 100k (measured): the library scan saved the 40 MB file's parse and the view
  // the window is sent (app/store/saved-view.ts). The open hashes the file (SHA-256) and sends the saved
  // view as it is, ~0.1 s; the leaf's context and entry come from it too, and the server builds the
  // index from the saved parse once those answers have left (~0.5-1 s, while the page works). The page
  // receives and parses ~10 MB of columnar node lists (shared/ipc/wire-nodes.ts), keeps them as columns, and
  // filters, folds and lays out 100k entries over them (shared/graph), making node objects only for the
  // ~4k graph nodes it draws; then it draws the graph, the canvas minimap and the leaf's context.
  test.setTimeout(180_000);
  const timings = await measureWithoutDevtools<OpenTimings>({
    url: serve.urlWith(ENTRY_GRAPH),
    driver: openTimingDriver({
      warmup: { name: grid.name, leafId: grid.leafId },
      targets: [small, large].map((session) => ({ name: session.name, leafId: session.leafId })),
      rounds: DEVTOOLS_FREE_ROUNDS,
      stepTimeoutMs: 30_000,
    }),
    timeoutMs: 150_000,
  });
  const smallTimes = timings[small.name]!;
  const largeTimes = timings[large.name]!;
  expect(smallTimes).toHaveLength(DEVTOOLS_FREE_ROUNDS);
  expect(largeTimes).toHaveLength(DEVTOOLS_FREE_ROUNDS);
  const smallMs = median(smallTimes);
  const largeMs = median(largeTimes);
  const ratio = largeMs / smallMs;
  report(
    `without DevTools: open 1k median ${smallMs.toFixed(0)} ms (${smallTimes.join(", ")}), open 100k median ${largeMs.toFixed(0)} ms (${largeTimes.join(", ")}); ratio ${ratio.toFixed(2)}`,
  );
  expect(ratio).toBeLessThanOrEqual(OPEN_RATIO_TARGET);
});

/**
 * Opens the session, then clicks an entry other than the leaf (expanding the
 * chain before the leaf first, when there is one) and records the main
 * thread's long tasks until the preview shows the new entry's context.
 */
async function selectAnother(page: Page, session: GeneratedSession) {
  await openSession(page, session.name, session.leafId);
  await expect(node(page, session.leafId)).toBeVisible();
  const [chainId] = await idsInPane(page, ".react-flow__node-chain");
  if (chainId !== undefined) {
    await node(page, chainId).click();
    await expect(node(page, chainId)).toHaveCount(0);
  }
  const other =
    (await idsInPane(page, ".react-flow__node-entry")).find((id) => id !== session.leafId) ?? null;
  expect(other).not.toBeNull();
  await page.evaluate(() => {
    const { PerformanceObserver } = globalThis as unknown as PageGlobals;
    const global = globalThis as unknown as {
      longTasks: number[];
      longTaskObserver: PagePerformanceObserver;
    };
    global.longTasks = [];
    global.longTaskObserver = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) global.longTasks.push(entry.duration);
    });
    global.longTaskObserver.observe({ type: "longtask" });
  });
  const started = Date.now();
  await node(page, other!).click();
  await expectPreviewOf(page, other!);
  const ms = Date.now() - started;
  const longTasks = await page.evaluate(
    () =>
      new Promise<number[]>((done) => {
        const { requestAnimationFrame } = globalThis as unknown as PageGlobals;
        // Two frames later every task of the update has ended and been reported.
        requestAnimationFrame(() =>
          requestAnimationFrame(() => {
            const global = globalThis as unknown as {
              longTasks: number[];
              longTaskObserver: PagePerformanceObserver;
            };
            for (const entry of global.longTaskObserver.takeRecords()) global.longTasks.push(entry.duration);
            global.longTaskObserver.disconnect();
            done(global.longTasks);
          }),
        );
      }),
  );
  const messages = await preview(page).getAttribute("data-message-count");
  report(
    `select another entry in ${session.name} (${session.entries} entries): preview updated in ${ms} ms (${messages} messages); long tasks: ${
      longTasks.length === 0 ? "none" : longTasks.map((task) => `${task.toFixed(0)} ms`).join(", ")
    }`,
  );
  return { ms, longest: Math.max(0, ...longTasks) };
}

test("selecting another entry updates the preview with no long task over 200 ms", async ({ page }) => {
  await openApp(page, serve.urlWith(ENTRY_GRAPH));
  const longest = new Map<GeneratedSession, number>();
  for (const session of [small, grid, large])
    longest.set(session, (await selectAnother(page, session)).longest);
  // A selection refolds and lays out nothing: the graph's nodes stay the same objects, and only
  // the edges whose path state changed are new (renderer/src/graph/flow-elements.ts).
  for (const session of [small, grid, large]) {
    expect(longest.get(session)!, session.name).toBeLessThanOrEqual(200);
  }
});

/** Drags the graph's pane with the mouse and returns the requestAnimationFrame deltas meanwhile. */
async function panAndMeasure(page: Page, steps: number): Promise<{ frames: number[]; moved: boolean }> {
  const canvas = (await page.getByTestId("graph").boundingBox())!;
  const transform = () => page.locator(".react-flow__viewport").getAttribute("style");
  const before = await transform();
  await page.evaluate(() => {
    const { requestAnimationFrame, performance } = globalThis as unknown as PageGlobals;
    const global = globalThis as unknown as { frames: number[]; measuring: boolean };
    global.frames = [];
    global.measuring = true;
    let last = performance.now();
    const tick = (now: number) => {
      global.frames.push(now - last);
      last = now;
      if (global.measuring) requestAnimationFrame(tick);
    };
    requestAnimationFrame((now) => {
      last = now;
      requestAnimationFrame(tick);
    });
  });
  const x = canvas.x + canvas.width / 2;
  const y = canvas.y + canvas.height / 2;
  await page.mouse.move(x, y);
  await page.mouse.down();
  // A figure of eight around the middle, one mouse move per step.
  for (let step = 1; step <= steps; step++) {
    const angle = (step / steps) * 2 * Math.PI;
    await page.mouse.move(x + 200 * Math.sin(angle), y + 120 * Math.sin(2 * angle));
  }
  await page.mouse.move(x - 150, y - 90);
  await page.mouse.up();
  const frames = await page.evaluate(() => {
    const global = globalThis as unknown as { frames: number[]; measuring: boolean };
    global.measuring = false;
    return global.frames;
  });
  return { frames, moved: (await transform()) !== before };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

test("panning a graph of 10k nodes keeps the median frame under 50 ms", async ({ page }) => {
  await openApp(page, serve.urlWith(ENTRY_GRAPH));
  await openSession(page, grid.name, grid.leafId);
  await expect(node(page, grid.leafId)).toBeVisible();
  const status = await graphStatus(page);
  expect(status.nodes).toBeGreaterThanOrEqual(10_000);
  const pan = await panAndMeasure(page, 80);
  expect(pan.moved, "the drag panned the graph").toBe(true);
  const inView = await page.locator(".react-flow__node").count();
  report(
    `pan ${status.nodes} graph nodes at the opening zoom (${inView} in view): median frame ${median(pan.frames).toFixed(1)} ms over ${pan.frames.length} frames, worst ${Math.max(...pan.frames).toFixed(0)} ms`,
  );
  await screenshot(page, "perf-grid");
  expect(median(pan.frames)).toBeLessThan(50);
});

/** How much of the overview canvas is painted, and in how many colours. */
function overviewPixels(page: Page): ReturnType<typeof canvasPixels> {
  return canvasPixels(page.getByTestId("graph-overview"));
}

/**
 * Clicks Fit and measures, in the page, from the click to the first frame of the overview with at
 * least `nodes` nodes drawn; then waits until the fit's animation has ended (no new frames drawn).
 */
async function fitToOverview(page: Page, nodes: number): Promise<{ ms: number; longTasks: number[] }> {
  await page.evaluate((nodes) => {
    const { document, performance, MutationObserver, PerformanceObserver } =
      globalThis as unknown as PageGlobals;
    const global = globalThis as unknown as { fitted: Promise<{ ms: number; longTasks: number[] }> };
    const longTasks: number[] = [];
    const tasks = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) longTasks.push(entry.duration);
    });
    tasks.observe({ type: "longtask" });
    global.fitted = new Promise((done) => {
      let start = 0;
      const observer = new MutationObserver(() => {
        const drawn = document
          .querySelector('[data-testid="graph-overview"]')
          ?.getAttribute("data-drawn-nodes");
        if (start === 0 || Number(drawn ?? 0) < nodes) return;
        observer.disconnect();
        // Set after the frame was drawn, in the same animation frame callback.
        const ms = performance.now() - start;
        for (const entry of tasks.takeRecords()) longTasks.push(entry.duration);
        tasks.disconnect();
        done({ ms, longTasks });
      });
      observer.observe(document.body, { subtree: true, childList: true, attributes: true });
      for (const button of document.querySelectorAll(".graph-toolbar button")) {
        if (button.textContent === "Fit")
          button.addEventListener(
            "click",
            () => {
              start = performance.now();
            },
            { capture: true, once: true },
          );
      }
    });
  }, nodes);
  await page.getByRole("button", { name: "Fit", exact: true }).click();
  const fitted = await page.evaluate(
    () => (globalThis as unknown as { fitted: Promise<{ ms: number; longTasks: number[] }> }).fitted,
  );
  const overview = page.getByTestId("graph-overview");
  let frames = -1;
  await expect
    .poll(async () => {
      const now = await overview.getAttribute("data-frames");
      const settled = now === String(frames);
      frames = Number(now);
      return settled;
    })
    .toBe(true);
  return fitted;
}

test("panning the 10k-node graph zoomed out to fit keeps the median frame under 50 ms", async ({ page }) => {
  // Zoomed out, every node is in view: React Flow would mount all 10k (~14 s) and take ~1 s a pan frame.
  // Below OVERVIEW_ZOOM the graph is drawn on one canvas instead (renderer/src/graph/overview-canvas.tsx).
  await openApp(page, serve.urlWith(ENTRY_GRAPH));
  await openSession(page, grid.name, grid.leafId);
  await expect(node(page, grid.leafId)).toBeVisible();
  const status = await graphStatus(page);
  expect(status.nodes).toBeGreaterThanOrEqual(10_000);
  const fit = await fitToOverview(page, 9_000);
  const overview = page.getByTestId("graph-overview");
  const fitted = Number(await overview.getAttribute("data-drawn-nodes"));
  expect(fitted).toBeGreaterThanOrEqual(9_000);
  await expect(page.locator(".react-flow__node")).toHaveCount(0);
  await expect(overview).toHaveAttribute("role", "img");
  await expect(overview).toHaveAttribute("aria-label", /Overview of the session graph, zoomed out/);
  await expect(statusLine(page)).toContainText("overview (zoomed out)");
  const pixels = await overviewPixels(page);
  // The grid, fitted, reaches across the view (top-down it is a wide band: a few percent of a tall pane
  // painted); nodes of several kinds, edges and the path in their colours.
  expect(pixels.spread).toBeGreaterThan(0.8);
  expect(pixels.painted).toBeGreaterThan(0.02);
  expect(pixels.colours).toBeGreaterThanOrEqual(3);
  await screenshot(page, "perf-grid-overview-light");

  const pan = await panAndMeasure(page, 80);
  expect(pan.moved, "the drag panned the graph").toBe(true);
  const drawn = Number(await overview.getAttribute("data-drawn-nodes"));
  report(
    `fit the ${status.nodes}-node graph: ${fit.ms.toFixed(0)} ms from the click to an overview frame of 9,000 nodes or more (long tasks: ${fit.longTasks.map((task) => `${task.toFixed(0)} ms`).join(", ") || "none"}; ${fitted} drawn when fitted); pan the overview (${drawn} nodes in its last frame): median frame ${median(pan.frames).toFixed(1)} ms over ${pan.frames.length} frames, worst ${Math.max(...pan.frames).toFixed(0)} ms`,
  );
  // Panned, most of the graph is still in view, and still drawn on the canvas, not as DOM.
  expect(drawn).toBeGreaterThan(fitted / 2);
  // The overview takes over before the zoom gets there: no frame mounts thousands of DOM nodes on the way.
  expect(Math.max(0, ...fit.longTasks), "the longest task of the fit").toBeLessThanOrEqual(200);
  await expect(page.locator(".react-flow__node")).toHaveCount(0);
  expect(median(pan.frames)).toBeLessThan(50);

  // The dark theme: the canvas reads its colours from the CSS custom properties again.
  const frames = Number(await overview.getAttribute("data-frames"));
  await page.emulateMedia({ colorScheme: "dark" });
  await expect.poll(async () => Number(await overview.getAttribute("data-frames"))).toBeGreaterThan(frames);
  const dark = await overviewPixels(page);
  // Panned: part of the band has left the view.
  expect(dark.spread).toBeGreaterThan(0.5);
  expect(dark.painted).toBeGreaterThan(0.02);
  await screenshot(page, "perf-grid-overview-dark");
  await page.emulateMedia({ colorScheme: "light" });
});

test("in the overview a click selects the entry under the pointer; zooming in shows DOM nodes again", async ({
  page,
}) => {
  await openApp(page, serve.urlWith(ENTRY_GRAPH));
  await openSession(page, grid.name, grid.leafId);
  await expect(node(page, grid.leafId)).toBeVisible();
  await fitToOverview(page, 9_000);
  const box = (await page.getByTestId("graph").boundingBox())!;
  // Near the middle of the grid: nodes a few pixels apart, so the point is within a node's hit slop.
  const x = box.x + box.width / 2;
  const y = box.y + box.height / 2;
  await page.mouse.move(x, y);
  const tooltip = page.getByRole("tooltip");
  await expect(tooltip).toBeVisible();
  const id = /\n(\w+) · line \d+$/.exec((await tooltip.textContent()) ?? "")?.[1];
  expect(id, "the hover title names the entry").toBeDefined();
  expect(id).not.toBe(grid.leafId);
  await expect(page.locator(".react-flow__pane")).toHaveCSS("cursor", "pointer");
  await page.mouse.click(x, y);
  await expectPreviewOf(page, id!);
  await expect(page.locator(".react-flow__node")).toHaveCount(0);
  await screenshot(page, "perf-grid-overview-selected");

  // The wheel zooms in about the pointer, a step each try, until past the threshold: the DOM nodes are back.
  // Timed in the page from the wheel step that crossed it to the first DOM node, with the longest task
  // meanwhile. The minimap stays mounted across the threshold (a canvas, renderer/src/graph/minimap-canvas.tsx).
  await page.evaluate(() => {
    const { document, performance, MutationObserver, PerformanceObserver } =
      globalThis as unknown as PageGlobals;
    const global = globalThis as unknown as {
      zoomedIn: Promise<{ ms: number; longest: number }>;
    };
    let lastWheel = 0;
    let longest = 0;
    const tasks = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) longest = Math.max(longest, entry.duration);
    });
    tasks.observe({ type: "longtask" });
    document.querySelector('[data-testid="graph"]')!.addEventListener(
      "wheel",
      () => {
        lastWheel = performance.now();
      },
      { capture: true },
    );
    global.zoomedIn = new Promise((done) => {
      const observer = new MutationObserver(() => {
        if (document.querySelector(".react-flow__node") === null) return;
        const ms = performance.now() - lastWheel;
        observer.disconnect();
        const { requestAnimationFrame } = globalThis as unknown as PageGlobals;
        // Two frames later the switch's tasks have ended and been reported.
        requestAnimationFrame(() =>
          requestAnimationFrame(() => {
            for (const entry of tasks.takeRecords()) longest = Math.max(longest, entry.duration);
            tasks.disconnect();
            done({ ms, longest });
          }),
        );
      });
      observer.observe(document.body, { subtree: true, childList: true });
    });
  });
  await expect(async () => {
    await page.mouse.wheel(0, -300);
    await expect(page.locator(".react-flow__node").first()).toBeVisible({ timeout: 1_000 });
  }).toPass({ timeout: 30_000 });
  await expect(page.getByTestId("graph-overview")).toHaveCount(0);
  await expect(statusLine(page)).not.toContainText("overview");
  await expect(page.getByTestId("graph-minimap")).toBeVisible();
  const zoomIn = await page.evaluate(
    () => (globalThis as unknown as { zoomedIn: Promise<{ ms: number; longest: number }> }).zoomedIn,
  );
  report(
    `zoom back in past the threshold: DOM nodes ${zoomIn.ms.toFixed(0)} ms after the wheel step (the minimap stays mounted); longest task ${zoomIn.longest.toFixed(0)} ms`,
  );
  await expect(node(page, id!).locator(".entry-node")).toHaveAttribute("data-selected", "true");
  await expect(node(page, id!)).toBeVisible();
  await screenshot(page, "perf-grid-zoomed-back-in");
});

/**
 * The issue's bar: the branch map drawn within this long of the session view arriving. The map comes with
 * the view (saved with it by the library's scan, app/store/saved-view.ts), so this is the page's own work:
 * laying the map out and its first frame. Checked without DevTools (the next test but one): under
 * Playwright the page's frames wait on the DevTools protocol's copy of the 11 MB view frame (see
 * e2e/support/devtools-free.ts), so this test only reports its figure and fails past the guard.
 */
const MAP_PAINT_MS = 200;
const MAP_PAINT_GUARD_MS = 2_000;

test("the branch map of a 100k-entry session with ~1,000 tips comes with its view, readable at Fit (timed under Playwright)", async ({
  page,
}) => {
  test.setTimeout(120_000);
  // Its default view: the entry graph at Fit would be specks. (Run alone, the library's first scan of two
  // 100k files is still going: its row may take a while.)
  await page.goto(serve.url);
  await expect(sessionRow(page, tips.name)).toBeVisible({ timeout: 90_000 });
  await serverIdle();
  await page.evaluate(() =>
    (globalThis as unknown as { performance: { clearMarks(): void } }).performance.clearMarks(),
  );
  await sessionRow(page, tips.name).click();
  const map = page.getByRole("region", { name: "Branch map" });
  await expect(map.locator(".map-row").first()).toBeVisible({ timeout: 60_000 });
  const marks = await page.evaluate(
    async ({ view, data, painted }) => {
      const { performance, requestAnimationFrame } = globalThis as unknown as {
        performance: { getEntriesByName(name: string): { startTime: number }[] };
        requestAnimationFrame(run: () => void): number;
      };
      const at = (name: string) => performance.getEntriesByName(name).at(-1)?.startTime ?? null;
      // The paint mark is set in the frame after the rows are in the DOM.
      while (at(painted) === null) await new Promise<void>((done) => requestAnimationFrame(() => done()));
      return { view: at(view), data: at(data), painted: at(painted) };
    },
    { view: VIEW_ARRIVED_MARK, data: MAP_DATA_MARK, painted: MAP_PAINTED_MARK },
  );
  expect(marks.view).not.toBeNull();
  expect(marks.data).not.toBeNull();
  const afterView = marks.painted! - marks.view!;
  const afterData = marks.painted! - marks.data!;
  const status = statusLine(page);
  const branches = Number(await status.getAttribute("data-branches"));
  const rows = Number(await status.getAttribute("data-rows"));
  const textPx = Number.parseFloat(
    await map
      .locator(".map-row-title")
      .first()
      .evaluate((element) => {
        const { getComputedStyle } = globalThis as unknown as {
          getComputedStyle(e: unknown): { fontSize: string };
        };
        return getComputedStyle(element).fontSize;
      }),
  );
  report(
    `branch map of tips100k (${tips.entries} entries, ${branches} tips, ${rows} rows): drawn ${afterView.toFixed(0)} ms after the view arrived; ${afterData.toFixed(0)} ms after its data (session.branches) arrived, ${(marks.data! - marks.view!).toFixed(0)} ms after the view; text ${textPx} px`,
  );
  await screenshot(page, "perf-tips100k-map");
  expect(branches).toBeGreaterThan(900);
  expect(textPx).toBeGreaterThanOrEqual(9);
  // It came with the view: no request between the two.
  expect(marks.data! - marks.view!).toBeLessThan(50);
  expect(afterView).toBeLessThan(MAP_PAINT_GUARD_MS);
});

test("the branch map of the 100k-entry session draws within 200 ms of its view, timed with no DevTools attached", async () => {
  test.setTimeout(180_000);
  const rounds = 5;
  const timings = await measureWithoutDevtools<MapTiming[]>({
    url: serve.url,
    driver: mapTimingDriver({
      between: small.name,
      target: tips.name,
      rounds,
      marks: { view: VIEW_ARRIVED_MARK, data: MAP_DATA_MARK, painted: MAP_PAINTED_MARK },
      stepTimeoutMs: 60_000,
    }),
    timeoutMs: 170_000,
  });
  expect(timings).toHaveLength(rounds);
  const afterView = median(timings.map((timing) => timing.afterView));
  report(
    `without DevTools: branch map of tips100k drawn ${afterView.toFixed(0)} ms (median) after its view arrived (${timings.map((timing) => `${timing.afterView} ms, data +${timing.dataAfterView} ms`).join("; ")})`,
  );
  expect(afterView).toBeLessThanOrEqual(MAP_PAINT_MS);
});
