/**
 * The branch map: one row per segment (or folded run of them), top-down like
 * a commit graph, each in its lane. Only the rows in view are in the DOM, so
 * a map of thousands of rows draws as fast as one of ten. Click a row to
 * open it in the entry graph; Shift-click another tip to compare it with the
 * selected entry; the "+N retries" mark shows the retries it folds.
 */

import { useEffect, useLayoutEffect, useRef, useState } from "react";
import { compareOnShiftClick } from "../compare/start-compare.ts";
import { useController, usePathSet, useSession } from "../state/hooks.tsx";
import { UserText } from "../text/user-text.tsx";
import { MAP_PAINTED_MARK } from "./marks.ts";
import { count, formatCost, shortTime } from "./figures.ts";
import { MAP_ROW_HEIGHT, type MapRow } from "./map-layout.ts";
import { currentShownMap, rowEntry, type ShownMap } from "./map-selection.ts";
import { useBranches } from "./use-branches.ts";

/** The width of a lane, in CSS pixels. */
export const MAP_LANE_WIDTH = 16;
/** The map's text size (CSS pixels: the map is never zoomed, so this is its size on screen). */
export const MAP_TEXT_PX = 12;
/** Lanes drawn at most; wider maps squeeze theirs (a thousand parallel lanes would not read anyway). */
const MAX_LANES_DRAWN = 24;
/** Rows drawn above and below the ones in view. */
const OVERSCAN = 8;

export const BRANCH_MAP_ID = "branch-map";

function laneX(lane: number, laneWidth: number): number {
  return laneWidth / 2 + 4 + lane * laneWidth;
}

function rowTitle(row: MapRow): string {
  const last = row.segments[row.segments.length - 1]!;
  if (row.leaf?.label) return row.leaf.label;
  const prompt = row.leaf?.lastPrompt ?? last.facts.lastPrompt ?? row.segments[0]!.facts.firstPrompt;
  return prompt?.text ?? last.facts.lastAnswer?.text ?? "(no prompt)";
}

/** "+12 retries", "+3 side branches", or "fold" for a row the user opened. */
export function foldMark(row: MapRow): string {
  if (row.folded.length === 0) return "fold";
  return `+${row.retriesOnly ? count(row.foldedTips, "retry", "retries") : count(row.foldedTips, "side branch", "side branches")}`;
}

function rowFacts(row: MapRow): string {
  const entries = row.segments.reduce((sum, segment) => sum + segment.facts.entries, 0);
  const cost = row.segments.reduce((sum, segment) => sum + segment.facts.cost, 0);
  const last = row.segments[row.segments.length - 1]!;
  const parts = [
    row.segments.length > 1 ? count(row.segments.length, "segment") : "",
    count(entries, "entry", "entries"),
    formatCost(row.leaf ? row.leaf.cost : cost),
    shortTime(last.facts.lastTimestamp),
  ];
  if (row.leaf) parts[1] = `${count(row.leaf.entries, "entry", "entries")} on the branch`;
  return parts.filter((part) => part !== "").join(" · ");
}

function MapRowView({
  row,
  shown,
  cursor,
  unfolded,
  textLeft,
}: {
  row: MapRow;
  shown: ShownMap;
  cursor: boolean;
  /** The user showed this row's retries: its mark folds them again. */
  unfolded: boolean;
  textLeft: number;
}) {
  const controller = useController();
  const { branches } = controller;
  const onPath = shown.onPath.has(row.row);
  const selected = shown.selectedRow === row.row;
  const classes = ["map-row", row.leaf ? "tip" : "inner"];
  if (onPath) classes.push("on-path");
  if (selected) classes.push("selected");
  if (cursor) classes.push("cursor");
  if (row.leaf?.endsInError) classes.push("error");
  if (row.segments.every((segment) => shown.archived.has(segment.id))) classes.push("archived");
  const entryId = rowEntry(row);
  return (
    <div
      className={classes.join(" ")}
      data-row-key={row.key}
      data-entry-id={entryId}
      style={{ top: row.row * MAP_ROW_HEIGHT, left: textLeft, height: MAP_ROW_HEIGHT }}
    >
      {/* Not a tab stop: the map's keys are the window's (arrows, Enter), as the graph's are. */}
      <button
        type="button"
        className="map-row-open"
        tabIndex={-1}
        aria-current={selected ? "true" : undefined}
        onClick={(event) => {
          branches.setMapCursor(row.key);
          if (!compareOnShiftClick(controller, event, entryId)) branches.openInGraph(entryId);
        }}
        title={
          row.leaf
            ? "Click: open in the entry graph · Shift-click: compare with the selected entry"
            : "Click: open in the entry graph"
        }
      >
        <span className="map-row-title">
          {row.leaf?.label ? <span className="badge label">{row.leaf.label}</span> : null}
          <UserText
            className="map-row-text"
            text={row.leaf?.label ? (row.leaf.lastPrompt?.text ?? "") : rowTitle(row)}
          />
        </span>
        <span className="map-row-facts">
          <span>{rowFacts(row)}</span>
          {row.leaf?.endsInError ? <span className="badge warning">ends in an error</span> : null}
        </span>
      </button>
      {row.folded.length > 0 || unfolded ? (
        <button
          type="button"
          className="retries-mark"
          tabIndex={-1}
          title={
            row.folded.length === 0
              ? "Fold the side branches of this row again (Space)"
              : row.retriesOnly
                ? "Side branches that end within a few turns (retries): show them (Space)"
                : "Side branches folded to keep the map on one screen: show them (Space)"
          }
          onClick={() => branches.toggleRow(row.segments.map((segment) => segment.id))}
        >
          {foldMark(row)}
        </button>
      ) : null}
    </div>
  );
}

/** The lanes and dots of the rows from `first` to `last`, as one SVG. */
function MapLanes({
  shown,
  first,
  last,
  laneWidth,
  width,
}: {
  shown: ShownMap;
  first: number;
  last: number;
  laneWidth: number;
  width: number;
}) {
  const { rows } = shown.layout;
  const dotY = MAP_ROW_HEIGHT / 2;
  const paths: React.ReactNode[] = [];
  for (const row of rows) {
    if (row.parentRow === null || row.row < first || row.parentRow > last) continue;
    const parent = rows[row.parentRow]!;
    const x0 = laneX(parent.lane, laneWidth);
    const x1 = laneX(row.lane, laneWidth);
    const y0 = parent.row * MAP_ROW_HEIGHT + dotY;
    const y1 = row.row * MAP_ROW_HEIGHT + dotY;
    const bend = y0 + MAP_ROW_HEIGHT / 2;
    const d = x0 === x1 ? `M${x0},${y0}V${y1}` : `M${x0},${y0}Q${x1},${y0} ${x1},${bend}V${y1}`;
    const onPath = shown.onPath.has(row.row);
    paths.push(<path key={`e${row.row}`} d={d} className={onPath ? "map-edge on-path" : "map-edge"} />);
  }
  for (let i = first; i <= last && i < rows.length; i++) {
    const row = rows[i]!;
    const classes = ["map-dot"];
    if (shown.onPath.has(row.row)) classes.push("on-path");
    if (row.leaf) classes.push("tip");
    if (row.folded.length > 0) classes.push("folded");
    paths.push(
      <circle
        key={`d${row.row}`}
        cx={laneX(row.lane, laneWidth)}
        cy={row.row * MAP_ROW_HEIGHT + dotY}
        r={row.folded.length > 0 ? 6 : 4.5}
        className={classes.join(" ")}
      />,
    );
  }
  return (
    <svg
      className="map-lanes"
      width={width}
      height={rows.length * MAP_ROW_HEIGHT}
      aria-hidden="true"
      style={{ position: "absolute", left: 0, top: 0 }}
    >
      {paths}
    </svg>
  );
}

/** Marks the first paint of each map the view receives, for the perf test (and the curious, in devtools). */
function usePaintMark(map: unknown) {
  const marked = useRef<unknown>(null);
  useEffect(() => {
    if (map === null || marked.current === map) return;
    marked.current = map;
    const frame = requestAnimationFrame(() => performance.mark(MAP_PAINTED_MARK));
    return () => cancelAnimationFrame(frame);
  }, [map]);
}

/** The map's height, measured as it changes; the folds open up to as many rows as it holds. */
function useMapHeight(scroller: HTMLElement | null): number {
  const controller = useController();
  const [height, setHeight] = useState(0);
  useLayoutEffect(() => {
    if (!scroller) return;
    const measure = () => {
      setHeight(scroller.clientHeight);
      if (scroller.clientHeight > 0)
        controller.branches.setMapBudget(Math.max(6, Math.floor(scroller.clientHeight / MAP_ROW_HEIGHT)));
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(scroller);
    return () => observer.disconnect();
  }, [scroller, controller]);
  return height;
}

/** The cursor's row kept in view as the arrows move it. */
function useCursorInView(scroller: HTMLElement | null, shown: ShownMap | null, cursor: string | null) {
  useEffect(() => {
    if (!scroller || !shown || cursor === null) return;
    const row = shown.layout.rows.find((r) => r.key === cursor);
    if (!row) return;
    const top = row.row * MAP_ROW_HEIGHT;
    if (top < scroller.scrollTop) scroller.scrollTop = top;
    else if (top + MAP_ROW_HEIGHT > scroller.scrollTop + scroller.clientHeight)
      scroller.scrollTop = top + MAP_ROW_HEIGHT - scroller.clientHeight;
  }, [cursor, shown, scroller]);
}

export function BranchMapView() {
  const map = useBranches((s) => s.map);
  const status = useBranches((s) => s.mapStatus);
  const error = useBranches((s) => s.mapError);
  const expanded = useBranches((s) => s.expanded);
  const cursor = useBranches((s) => s.mapCursor);
  const budget = useBranches((s) => s.mapBudget);
  const path = usePathSet();
  const fileLeafId = useSession((s) => s.view?.leafId ?? null);
  const showArchived = useSession((s) => s.showArchived);
  const [scroller, setScroller] = useState<HTMLElement | null>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const height = useMapHeight(scroller);
  usePaintMark(map);
  const shown = map ? currentShownMap(map, path, fileLeafId, expanded, budget, showArchived) : null;
  useCursorInView(scroller, shown, cursor);
  if (!map || !shown) {
    return (
      // Measured while the map is on its way too: its first layout opens folds for this height.
      <div className="branch-map empty" id={BRANCH_MAP_ID} ref={setScroller} aria-busy={status === "loading"}>
        {status === "error" ? (
          <p role="alert">{error}</p>
        ) : (
          <p className="loading">Building the branch map…</p>
        )}
      </div>
    );
  }
  const { rows, lanes } = shown.layout;
  const drawnLanes = Math.min(lanes, MAX_LANES_DRAWN);
  const laneWidth = lanes <= MAX_LANES_DRAWN ? MAP_LANE_WIDTH : (MAP_LANE_WIDTH * MAX_LANES_DRAWN) / lanes;
  const lanesWidth = drawnLanes * MAP_LANE_WIDTH + 8;
  // Without a measured height (a test's DOM, the first frame), the first screenfuls.
  const viewRows = height > 0 ? Math.ceil(height / MAP_ROW_HEIGHT) : 60;
  const first = Math.max(0, Math.floor(scrollTop / MAP_ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(rows.length - 1, first + viewRows + 2 * OVERSCAN);
  const cursorKey = cursor ?? (shown.selectedRow !== null ? rows[shown.selectedRow]!.key : null);
  return (
    <section
      className="branch-map"
      id={BRANCH_MAP_ID}
      ref={setScroller}
      aria-label="Branch map"
      data-rows={rows.length}
      data-folded={shown.layout.folded}
      style={{ fontSize: MAP_TEXT_PX }}
      onScroll={(event) => setScrollTop(event.currentTarget.scrollTop)}
    >
      <div className="map-sheet" style={{ height: rows.length * MAP_ROW_HEIGHT }}>
        <MapLanes shown={shown} first={first} last={last} laneWidth={laneWidth} width={lanesWidth} />
        {rows.slice(first, last + 1).map((row) => (
          <MapRowView
            key={row.key}
            row={row}
            shown={shown}
            cursor={row.key === cursorKey}
            unfolded={expanded.has(row.key)}
            textLeft={lanesWidth}
          />
        ))}
      </div>
    </section>
  );
}
