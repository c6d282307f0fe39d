/**
 * Times the branch map's first paint in the page itself, for a driver that
 * runs without Playwright (`devtools-free.ts`): each round opens a small
 * session (so the next open is a switch, as a user's is), then the large
 * one, and reads the page's own performance marks (renderer/src/branch-map/
 * marks.ts): when its view arrived, when the map's data did, and the first
 * frame that shows the map's rows. The first round is the page's warm-up,
 * not counted.
 */

import { DONE_PREFIX, FAILED_PREFIX } from "./devtools-free.ts";
import type { PageGlobals } from "./page-globals.ts";

export interface MapTimingConfig {
  /** The session opened between rounds (its library row's name). */
  between: string;
  /** The session whose map is timed. */
  target: string;
  rounds: number;
  marks: { view: string; data: string; painted: string };
  /** Longest wait for one step (rows listed, one open). */
  stepTimeoutMs: number;
}

/** One open of the target: milliseconds from the view's arrival and from the map's data to its first paint. */
export interface MapTiming {
  afterView: number;
  afterData: number;
  dataAfterView: number;
}

/** The content script's source: `run` with the config, reporting in the page's title. */
export function mapTimingDriver(config: MapTimingConfig): string {
  return `(${run.toString()})(${JSON.stringify(config)}, ${JSON.stringify({ DONE_PREFIX, FAILED_PREFIX })});`;
}

/** Runs in the page (serialised: it uses nothing from outside). */
async function run(config: MapTimingConfig, prefixes: { DONE_PREFIX: string; FAILED_PREFIX: string }) {
  const { document, location, performance } = globalThis as unknown as PageGlobals;
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
    ) as { click(): void } | undefined;
  // The server answers a page request between tasks: once it does, the work of the open before is done.
  const serverIdle = async () => {
    const response = await fetch(served, { credentials: "same-origin" });
    if (!response.ok) throw new Error(`the server answered ${response.status}`);
    await response.text();
  };
  const at = (name: string) => performance.getEntriesByName(name).at(-1)?.startTime ?? null;
  const open = async (name: string) => {
    await serverIdle();
    const row = rowOf(name);
    if (!row) throw new Error(`no library row for ${name}`);
    row.click();
    await waitFor(`${name} on view`, () =>
      Boolean(document.querySelector(".session-title")?.textContent?.includes(name)),
    );
  };
  try {
    await waitFor(
      "the library",
      () => rowOf(config.target) !== undefined && rowOf(config.between) !== undefined,
    );
    const timings: MapTiming[] = [];
    // One round more than asked, the first not counted: the page's code for the map is still cold.
    for (let round = 0; round <= config.rounds; round++) {
      await open(config.between);
      await serverIdle();
      performance.clearMarks();
      await open(config.target);
      await waitFor("the map's first paint", () => at(config.marks.painted) !== null);
      const view = at(config.marks.view);
      const data = at(config.marks.data);
      const painted = at(config.marks.painted)!;
      if (view === null || data === null) throw new Error("a mark is missing");
      if (round > 0)
        timings.push({
          afterView: Math.round(painted - view),
          afterData: Math.round(painted - data),
          dataAfterView: Math.round(data - view),
        });
    }
    document.title = `${prefixes.DONE_PREFIX} ${encodeURIComponent(JSON.stringify(timings))}`;
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    document.title = `${prefixes.FAILED_PREFIX} ${encodeURIComponent(why)}`;
  }
}
