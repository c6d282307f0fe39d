/**
 * Times session opens in the page itself, from the click on a library row to
 * the first frame where the leaf's node is drawn and the preview holds the
 * leaf's context (the perf test's "interactive graph"), for a driver that
 * runs without Playwright (`devtools-free.ts`). Each open starts once the
 * server answers a page request (it answers between tasks, so work left from
 * the open before is done) and ends when the graph has taken the focus.
 */

import { type DriverKit, driverSource } from "./page-driver.ts";
import type { PageGlobals } from "./page-globals.ts";

export interface OpenTarget {
  /** The session's name, as its library row shows it. */
  name: string;
  leafId: string;
}

export interface OpenTimingConfig {
  /** Opened once first, untimed: the page's own warm-up (code, fonts, layout). */
  warmup: OpenTarget;
  /** Opened in this order, `rounds` times. */
  targets: OpenTarget[];
  rounds: number;
  /** Longest wait for one step (rows listed, one open). */
  stepTimeoutMs: number;
}

/** Milliseconds of each open, by session name, in the order taken. */
export type OpenTimings = Record<string, number[]>;

/** The content script's source: `run` with the config, reporting in the page's title. */
export function openTimingDriver(config: OpenTimingConfig): string {
  return driverSource(run, config);
}

/** Runs in the page (serialised: it uses nothing from outside but the kit). */
async function run(config: OpenTimingConfig, kit: DriverKit): Promise<OpenTimings> {
  const { document, performance, requestAnimationFrame, MutationObserver } =
    globalThis as unknown as PageGlobals;
  const { waitFor, rowOf, serverIdle } = kit;
  const open = async (target: OpenTarget): Promise<number> => {
    await serverIdle();
    const row = rowOf(target.name);
    if (!row) throw new Error(`no library row for ${target.name}`);
    const ready = () => {
      const context = document.querySelector('[aria-label="Context preview"]');
      return (
        context?.getAttribute("data-leaf-id") === target.leafId &&
        context.getAttribute("aria-busy") === "false" &&
        context.hasAttribute("data-message-count") &&
        document.querySelector(`.react-flow__node[data-id="${target.leafId}"]`) !== null
      );
    };
    const ms = await new Promise<number>((resolve, reject) => {
      let start = 0;
      let finished = false;
      const timer = setTimeout(() => {
        observer.disconnect();
        reject(new Error(`opening ${target.name} did not finish`));
      }, config.stepTimeoutMs);
      const check = () => {
        if (finished || start === 0 || !ready()) return;
        finished = true;
        observer.disconnect();
        clearTimeout(timer);
        // The first frame that shows it.
        requestAnimationFrame(() => resolve(performance.now() - start));
      };
      const observer = new MutationObserver(check);
      observer.observe(document.body, { subtree: true, childList: true, attributes: true });
      start = performance.now();
      row.click();
    });
    // The open has finished when the graph takes the focus.
    await waitFor(`the graph's focus after ${target.name}`, () =>
      Boolean(document.activeElement?.closest('[aria-label="Session graph"]')),
    );
    return ms;
  };
  await waitFor("the library", () =>
    [config.warmup, ...config.targets].every((target) => rowOf(target.name) !== undefined),
  );
  await open(config.warmup);
  const timings: OpenTimings = {};
  for (const target of config.targets) timings[target.name] = [];
  for (let round = 0; round < config.rounds; round++) {
    for (const target of config.targets) timings[target.name]!.push(Math.round(await open(target)));
  }
  return timings;
}
