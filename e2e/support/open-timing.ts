/**
 * Times session opens in the page itself, from the click on a library row to
 * the first frame where the leaf's node is drawn and the preview holds the
 * leaf's context (the perf test's "interactive graph"), for a driver that
 * runs without Playwright (`devtools-free.ts`). Each open starts once the
 * server answers a page request (it answers between tasks, so work left from
 * the open before is done) and ends when the graph has taken the focus.
 */

import { DONE_PREFIX, FAILED_PREFIX } from "./devtools-free.ts";
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
  return `(${run.toString()})(${JSON.stringify(config)}, ${JSON.stringify({ DONE_PREFIX, FAILED_PREFIX })});`;
}

/** Runs in the page (serialised: it uses nothing from outside). */
async function run(config: OpenTimingConfig, prefixes: { DONE_PREFIX: string; FAILED_PREFIX: string }) {
  const { document, location, performance, requestAnimationFrame, MutationObserver } =
    globalThis as unknown as PageGlobals;
  // At document start the address still holds the access token (the page drops it once it loads).
  const served = location.href;
  const waitFor = (what: string, test: () => boolean) =>
    new Promise<void>((resolve, reject) => {
      const started = performance.now();
      const poll = () => {
        if (test()) return resolve();
        if (performance.now() - started > config.stepTimeoutMs)
          return reject(new Error(`timed out: ${what}`));
        setTimeout(poll, 20);
      };
      poll();
    });
  const rowOf = (name: string) =>
    [...document.querySelectorAll(".session-row")].find(
      (row) => row.querySelector(".session-name")?.textContent?.includes(name) ?? false,
    );
  const serverIdle = async () => {
    const response = await fetch(served, { credentials: "same-origin" });
    if (!response.ok) throw new Error(`the server answered ${response.status}`);
    await response.text();
  };
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
  try {
    await waitFor("the library", () =>
      [config.warmup, ...config.targets].every((target) => rowOf(target.name) !== undefined),
    );
    await open(config.warmup);
    const timings: OpenTimings = {};
    for (const target of config.targets) timings[target.name] = [];
    for (let round = 0; round < config.rounds; round++) {
      for (const target of config.targets) timings[target.name]!.push(Math.round(await open(target)));
    }
    document.title = `${prefixes.DONE_PREFIX} ${encodeURIComponent(JSON.stringify(timings))}`;
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    document.title = `${prefixes.FAILED_PREFIX} ${encodeURIComponent(why)}`;
  }
}
