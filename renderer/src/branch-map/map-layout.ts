/**
 * The branch map's rows, pure: the segment tree of `session.branches` laid
 * out top-down like a commit graph (one row per segment, each in a lane),
 * side branches folded so the map fits a screen. At each branch point the
 * largest subtree goes on; the others fold into a mark on the row ("+N
 * retries" when they are short dead ends, "+N side branches" otherwise), and
 * a run of segments that only shed folded branches is one row. Folds then
 * open, largest first, while the map stays within a screenful of rows
 * (`ROW_BUDGET`), so a small session shows every branch and a session of a
 * thousand tips reads at a glance. The branches that must stay visible (the
 * selected entry's, the file's leaf's) never fold; the user opens any fold
 * with a click.
 */

import type { BranchLeaf, BranchMap, SegmentInfo } from "../../../shared/branches/index.ts";

/** A folded dead end of at most this many turns is a retry. */
export const RETRY_MAX_TURNS = 10;
/** Height of a map row, in CSS pixels (the map is never zoomed). */
export const MAP_ROW_HEIGHT = 44;
/** Rows the map opens folds up to when the view's height is not known yet (about a screenful). */
export const ROW_BUDGET = 24;
/** Folds tried open at most, so a huge map is laid out in bounded time (each try lays the rows out again). */
const OPEN_ATTEMPTS = 16;

export interface MapRow {
  /** The first segment's id (a run's too). */
  key: string;
  /** The segments the row stands for: one, or a folded run of them (root to tip order). */
  segments: SegmentInfo[];
  /** First segments of the side branches folded into this row. */
  folded: SegmentInfo[];
  /** Tips in the folded side branches. */
  foldedTips: number;
  /** Every folded side branch is a short dead end (a retry). */
  retriesOnly: boolean;
  /** The branch that ends in the row's last segment, if one does. */
  leaf: BranchLeaf | null;
  /** Row index of the row it continues (null for a root). */
  parentRow: number | null;
  row: number;
  lane: number;
}

export interface MapLayout {
  rows: MapRow[];
  /** Lanes used (the widest point of the map). */
  lanes: number;
  /** Tips folded away in all. */
  folded: number;
}

export interface MapLayoutOptions {
  /** Segments whose branches must stay visible: the selected path's, the file leaf's. */
  keep: ReadonlySet<string>;
  /** Segments the user opened: all their children are drawn. */
  expanded: ReadonlySet<string>;
  /** Rows folds open up to (default `ROW_BUDGET`). */
  budget?: number;
}

interface Tree {
  byId: Map<string, SegmentInfo>;
  leafOf: Map<string, BranchLeaf>;
  /** Segments on the way to a kept segment (those included). */
  kept: Set<string>;
  /** Segments in each segment's subtree (itself included). */
  size: Map<string, number>;
  /** Tips in each segment's subtree. */
  tips: Map<string, number>;
}

function childrenOf(segment: SegmentInfo, tree: Tree): SegmentInfo[] {
  return segment.children.map((id) => tree.byId.get(id)).filter((child) => child !== undefined);
}

/** The child that goes on in its parent's lane: the largest subtree (not the kept one, or lanes would jump). */
function mainChild(children: SegmentInfo[], tree: Tree): SegmentInfo | undefined {
  let main = children[0];
  for (const child of children)
    if ((tree.size.get(child.id) ?? 1) > (tree.size.get(main!.id) ?? 1)) main = child;
  return main;
}

/** A segment's children split into the ones drawn and the side branches folded. */
function splitChildren(
  segment: SegmentInfo,
  tree: Tree,
  open: ReadonlySet<string>,
): { drawn: SegmentInfo[]; folded: SegmentInfo[] } {
  const children = childrenOf(segment, tree);
  if (open.has(segment.id)) return { drawn: children, folded: [] };
  const main = mainChild(children, tree);
  const drawn = children.filter((child) => child === main || tree.kept.has(child.id));
  return { drawn, folded: children.filter((child) => !drawn.includes(child)) };
}

function keptSegments(byId: Map<string, SegmentInfo>, keep: ReadonlySet<string>): Set<string> {
  const kept = new Set<string>();
  for (const id of keep) {
    let at = byId.get(id);
    while (at && !kept.has(at.id)) {
      kept.add(at.id);
      at = at.parentId === null ? undefined : byId.get(at.parentId);
    }
  }
  return kept;
}

/** The rows in depth-first order, runs folded, and each row's parent row (no lanes yet). */
function buildRows(map: BranchMap, tree: Tree, open: ReadonlySet<string>): MapRow[] {
  const rows: MapRow[] = [];
  const roots = map.segments.filter((segment) => segment.parentId === null);
  // An explicit stack: a session of 30,000 nested segments must not overflow the call stack.
  const stack: { segment: SegmentInfo; parentRow: number | null }[] = roots
    .reverse()
    .map((segment) => ({ segment, parentRow: null }));
  const sheds = (split: { drawn: SegmentInfo[]; folded: SegmentInfo[] }) =>
    split.drawn.length === 1 && split.folded.length > 0;
  while (stack.length > 0) {
    const { segment: first, parentRow } = stack.pop()!;
    const segments = [first];
    let split = splitChildren(first, tree, open);
    const folded = [...split.folded];
    // A run: each segment sheds folded side branches and goes on in its one drawn child, which does the same.
    while (sheds(split)) {
      const next = split.drawn[0]!;
      const nextSplit = splitChildren(next, tree, open);
      if (!sheds(nextSplit)) break;
      segments.push(next);
      folded.push(...nextSplit.folded);
      split = nextSplit;
    }
    const last = segments[segments.length - 1]!;
    const row: MapRow = {
      key: first.id,
      segments,
      folded,
      foldedTips: folded.reduce((sum, segment) => sum + (tree.tips.get(segment.id) ?? 1), 0),
      retriesOnly: folded.every(
        (segment) => segment.children.length === 0 && segment.facts.turns <= RETRY_MAX_TURNS,
      ),
      leaf: tree.leafOf.get(last.id) ?? null,
      parentRow,
      row: rows.length,
      lane: 0,
    };
    rows.push(row);
    const ordered = mainLast(split.drawn, tree);
    for (let i = ordered.length - 1; i >= 0; i--) stack.push({ segment: ordered[i]!, parentRow: row.row });
  }
  return rows;
}

/**
 * The child that goes on in its parent's lane comes last (the largest subtree), so the side
 * branches before it are short detours that free their lanes at once, as in a commit graph.
 */
function mainLast(children: SegmentInfo[], tree: Tree): SegmentInfo[] {
  if (children.length < 2) return children;
  const main = mainChild(children, tree)!;
  return [...children.filter((child) => child !== main), main];
}

/**
 * Lanes like a commit graph's: a row's last child goes on in its lane; another child takes the lowest
 * lane free from its parent's row to the end of its own subtree (rows are depth first, so a subtree's rows
 * are contiguous and each edge runs down its child's lane).
 */
function assignLanes(rows: MapRow[]): number {
  const end = rows.map((row) => row.row);
  for (let i = rows.length - 1; i >= 0; i--) {
    const parent = rows[i]!.parentRow;
    if (parent !== null) end[parent] = Math.max(end[parent]!, end[i]!);
  }
  const lastChild = new Map<number, number>();
  for (const row of rows) if (row.parentRow !== null) lastChild.set(row.parentRow, row.row);
  const busyUntil: number[] = [];
  for (const row of rows) {
    const parent = row.parentRow;
    let lane: number;
    if (parent !== null && lastChild.get(parent) === row.row) {
      lane = rows[parent]!.lane;
    } else {
      const from = parent ?? row.row;
      lane = busyUntil.findIndex((until) => until < from);
      if (lane < 0) lane = busyUntil.length;
    }
    row.lane = lane;
    // The parent's lane runs on down to its last child: it stays busy over the whole subtree.
    busyUntil[lane] = Math.max(busyUntil[lane] ?? -1, end[row.row]!);
  }
  return busyUntil.length;
}

/** Segments that fold side branches when closed, the most folded tips first, and how many each folds. */
function foldCandidates(map: BranchMap, tree: Tree): { order: string[]; folds: Map<string, number> } {
  const weighed: { id: string; tips: number }[] = [];
  const folds = new Map<string, number>();
  for (const segment of map.segments) {
    if (segment.children.length < 2) continue;
    const { folded } = splitChildren(segment, tree, NONE_OPEN);
    const tips = folded.reduce((sum, child) => sum + (tree.tips.get(child.id) ?? 1), 0);
    if (tips > 0) weighed.push({ id: segment.id, tips });
    folds.set(segment.id, folded.length);
  }
  weighed.sort((a, b) => b.tips - a.tips);
  return { order: weighed.map((candidate) => candidate.id), folds };
}

const NONE_OPEN: ReadonlySet<string> = new Set();

export function layoutBranchMap(map: BranchMap, options: MapLayoutOptions): MapLayout {
  const byId = new Map(map.segments.map((segment) => [segment.id, segment]));
  const leafOf = new Map(map.leaves.map((leaf) => [leaf.segmentId, leaf]));
  const size = new Map<string, number>();
  const tips = new Map<string, number>();
  // Segments are depth first: children after their parent, so backwards each subtree is summed before its root.
  for (let i = map.segments.length - 1; i >= 0; i--) {
    const segment = map.segments[i]!;
    let total = 1;
    let ends = segment.children.length === 0 ? 1 : 0;
    for (const child of segment.children) {
      total += size.get(child) ?? 0;
      ends += tips.get(child) ?? 0;
    }
    size.set(segment.id, total);
    tips.set(segment.id, ends);
  }
  const tree: Tree = { byId, leafOf, kept: keptSegments(byId, options.keep), size, tips };
  const budget = options.budget ?? ROW_BUDGET;
  const open = new Set(options.expanded);
  let rows = buildRows(map, tree, open);
  // Open folds while the map stays within the budget, the segment holding the most folded tips first: the
  // largest alternatives show, the one-turn retries stay counted.
  if (rows.length < budget) {
    let shown = new Set(rows.flatMap((row) => row.segments.map((segment) => segment.id)));
    let attempts = 0;
    const { order, folds } = foldCandidates(map, tree);
    for (const candidate of order) {
      if (rows.length >= budget || attempts >= OPEN_ATTEMPTS) break;
      if (open.has(candidate) || !shown.has(candidate)) continue;
      // Each side branch it folds becomes a row, and the run it is in splits (a row or two more): past the
      // budget, no need to lay it out to know.
      if (rows.length + (folds.get(candidate) ?? 0) + 2 > budget) continue;
      attempts++;
      const widerRows = buildRows(map, tree, new Set(open).add(candidate));
      if (widerRows.length > budget) continue;
      open.add(candidate);
      rows = widerRows;
      shown = new Set(rows.flatMap((row) => row.segments.map((segment) => segment.id)));
    }
  }
  const lanes = assignLanes(rows);
  const folded = rows.reduce((sum, row) => sum + row.foldedTips, 0);
  return { rows, lanes, folded };
}
