/**
 * What every driver of `devtools-free.ts` needs in the page: waiting for a
 * condition, a library row by its session's name, a wait until the server
 * is idle, and the report in the page's title. A driver is serialised into a
 * content script, so nothing it uses can come from outside its own source:
 * `driverSource` puts this kit's source beside the driver's and hands the
 * driver the kit made in the page.
 */

import { DONE_PREFIX, FAILED_PREFIX } from "./devtools-free.ts";
import type { PageElement, PageGlobals } from "./page-globals.ts";

export interface DriverKit {
  /** Resolves once `test()` holds, polling; rejects after the step timeout. */
  waitFor(what: string, test: () => boolean): Promise<void>;
  /** The library row of the session named `name`. */
  rowOf(name: string): PageElement | undefined;
  /** Resolves once the server answers a page request (it answers between tasks: earlier work is done). */
  serverIdle(): Promise<void>;
}

/** Runs in the page (serialised: it uses nothing from outside). */
function driverKit(stepTimeoutMs: number): DriverKit {
  const { document, location, performance } = globalThis as unknown as PageGlobals;
  // At document start the address still holds the access token (the page drops it once it loads).
  const served = location.href;
  return {
    waitFor: (what, test) =>
      new Promise<void>((resolve, reject) => {
        const started = performance.now();
        const poll = () => {
          if (test()) return resolve();
          if (performance.now() - started > stepTimeoutMs) return reject(new Error(`timed out: ${what}`));
          setTimeout(poll, 20);
        };
        poll();
      }),
    rowOf: (name) =>
      [...document.querySelectorAll(".session-row")].find(
        (row) => row.querySelector(".session-name")?.textContent?.includes(name) ?? false,
      ),
    async serverIdle() {
      const response = await fetch(served, { credentials: "same-origin" });
      if (!response.ok) throw new Error(`the server answered ${response.status}`);
      await response.text();
    },
  };
}

/** Runs in the page: the driver's result, or why it failed, in the page's title (`devtools-free.ts`). */
function reportInTitle(outcome: Promise<unknown>, prefixes: { done: string; failed: string }): void {
  const { document } = globalThis as unknown as PageGlobals;
  outcome.then(
    (result) => {
      document.title = `${prefixes.done} ${encodeURIComponent(JSON.stringify(result))}`;
    },
    (error: unknown) => {
      const why = error instanceof Error ? error.message : String(error);
      document.title = `${prefixes.failed} ${encodeURIComponent(why)}`;
    },
  );
}

/** The content script's source: `run` with `config` and the kit, its result reported in the page's title. */
export function driverSource<C extends { stepTimeoutMs: number }>(
  run: (config: C, kit: DriverKit) => Promise<unknown>,
  config: C,
): string {
  const prefixes = JSON.stringify({ done: DONE_PREFIX, failed: FAILED_PREFIX });
  const kit = `(${driverKit.toString()})(${config.stepTimeoutMs})`;
  return `(${reportInTitle.toString()})((${run.toString()})(${JSON.stringify(config)}, ${kit}), ${prefixes});`;
}
