/**
 * Readable sizes, pure: which view a session opens in (the branch map when
 * the entry graph fitted whole would have text too small to read), and how
 * far Fit may zoom the entry graph out before its text gets too small.
 */

import type { BranchMap } from "../../../shared/branches/index.ts";
import {
  DEFAULT_LAYOUT,
  type FilterMode,
  fitZoom,
  type LayoutDirection,
} from "../../../shared/graph/index.ts";

export type GraphView = "map" | "entries";

/** The smallest text of an entry node (its title line, styles.css `.node-title`), in CSS pixels at zoom 1. */
export const NODE_TEXT_PX = 11;
/** Text smaller than this on screen is not read, only seen. */
export const READABLE_TEXT_PX = 9;
/** The least zoom at which an entry node's text is readable. */
export const READABLE_MIN_ZOOM = READABLE_TEXT_PX / NODE_TEXT_PX;
/** Fit's padding around the graph (as the toolbar's Fit asks React Flow for). */
export const FIT_PADDING = 0.1;

export interface Extent {
  width: number;
  height: number;
}

/** What Fit shows of a layout: its drawn extent (the last gap after the nodes is not drawn). */
export function fitExtent(layout: Extent): Extent {
  return {
    width: Math.max(DEFAULT_LAYOUT.nodeWidth, layout.width - DEFAULT_LAYOUT.gapX),
    height: Math.max(DEFAULT_LAYOUT.nodeHeight, layout.height - DEFAULT_LAYOUT.gapY),
  };
}

/** The entry nodes' smallest text on screen, in pixels, when the whole layout is fitted into `viewport`. */
export function fitTextPx(layout: Extent, viewport: Extent): number {
  return fitZoom(fitExtent(layout), viewport, FIT_PADDING) * NODE_TEXT_PX;
}

/**
 * The map when the entry graph fitted whole would be unreadable; the entry graph otherwise, and when the
 * viewport has no size yet (nothing is laid out: the graph is the safe choice).
 */
export function chooseDefaultView(layout: Extent, viewport: Extent): GraphView {
  if (viewport.width <= 0 || viewport.height <= 0 || layout.width <= 0 || layout.height <= 0)
    return "entries";
  return fitTextPx(layout, viewport) < READABLE_TEXT_PX ? "map" : "entries";
}

/** Filters that hide entries inside branches but no whole branch: each tip still ends a lane. */
const LANE_KEEPING_FILTERS: ReadonlySet<FilterMode> = new Set(["default", "no-tools", "all"]);

/**
 * The tips that each end a lane of the entry graph as the window would draw it (`state`'s filter and
 * archive toggle), or null when the filter or the search can hide whole branches (then only the layout
 * says how wide the graph is).
 */
export function laneTips(
  map: BranchMap,
  state: { filterMode: FilterMode; showArchived: boolean; searchFilter: boolean },
): number | null {
  if (!LANE_KEEPING_FILTERS.has(state.filterMode) || state.searchFilter) return null;
  return state.showArchived ? map.leaves.length : map.leaves.filter((leaf) => !leaf.archived).length;
}

/**
 * The least extent the entry graph of a session with `tips` branch tips can have: the layout gives each
 * leaf a lane of its own (shared/graph/layout.ts), and at least half the tips stay leaves whatever the
 * filter hides. When even that is unreadable at Fit, the map is the default without laying the graph out
 * (a second of work at 100k entries, while the map is ready).
 */
export function leastExtentOfTips(tips: number, direction: LayoutDirection): Extent {
  const lanes = Math.ceil(tips / 2);
  const { nodeWidth, nodeHeight, gapX, gapY } = DEFAULT_LAYOUT;
  return direction === "TB"
    ? { width: lanes * (nodeWidth + gapX), height: nodeHeight + gapY }
    : { width: nodeWidth + gapX, height: lanes * (nodeHeight + gapY) };
}

/** Fit's zoom kept where text stays readable (and no larger than the view allows at most). */
export function clampFitZoom(target: number, maxZoom: number): { zoom: number; clamped: boolean } {
  if (target >= READABLE_MIN_ZOOM) return { zoom: Math.min(target, maxZoom), clamped: false };
  return { zoom: READABLE_MIN_ZOOM, clamped: true };
}

/** Height the graph panel's toolbar and status line take from it (about; they may not be drawn yet). */
const PANEL_CHROME_PX = 64;

/** The size the entry graph has in the window: the graph panel's, less its toolbar and status line. */
export function graphPanelSize(): Extent {
  if (typeof document === "undefined") return { width: 0, height: 0 };
  const panel = document.getElementById("session-graph");
  if (!panel) return { width: 0, height: 0 };
  return { width: panel.clientWidth, height: Math.max(0, panel.clientHeight - PANEL_CHROME_PX) };
}
