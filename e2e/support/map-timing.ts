/**
 * Times the branch map's first paint in the page itself, for a driver that
 * runs without Playwright (`devtools-free.ts`): each round opens a small
 * session (so the next open is a switch, as a user's is), then the large
 * one, and reads the page's own performance marks (renderer/src/branch-map/
 * marks.ts): when its view arrived, when the map's data did, and the first
 * frame that shows the map's rows. The first round is the page's warm-up,
 * not counted.
 */

import { type DriverKit, driverSource } from "./page-driver.ts";
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
  return driverSource(run, config);
}

/** Runs in the page (serialised: it uses nothing from outside but the kit). */
async function run(config: MapTimingConfig, kit: DriverKit): Promise<MapTiming[]> {
  const { document, performance } = globalThis as unknown as PageGlobals;
  const { waitFor, rowOf, serverIdle } = kit;
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
  return timings;
}
