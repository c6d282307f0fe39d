/**
 * The branch map's rows, pure: the segment tree of `session.branches` laid
 * out top-down like a commit graph (one row per segment, each in a lane),
 * with short side branches folded. A side branch is "short" when it ends
 * without branching again within a few turns (a retry); a run of segments
 * that only shed retries folds into one row "+N retries", so a session of a
 * thousand tips reads at a glance. The branches that must stay visible (the
 * selected entry's, the file's leaf's, labelled ones) are never folded.
 */

import type { BranchLeaf, BranchMap, SegmentInfo } from "../../../shared/branches/index.ts";

/** A side branch ending within this many turns, without branching again, is a retry. */
export const RETRY_MAX_TURNS = 10;

export interface MapRow {
  /** The first segment's id (a run's too). */
  key: string;
  /** The segments the row stands for: one, or a folded run of them (root to tip order). */
  segments: SegmentInfo[];
  /** The retries folded into this row (none when expanded or when there are none). */
  retries: SegmentInfo[];
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
  /** The row showing each segment (a folded retry shows in its run's row). */
  rowOfSegment: ReadonlyMap<string, number>;
  /** Retries folded in all. */
  folded: number;
}

export interface MapLayoutOptions {
  /** Segments whose branches must stay visible: the selected path's, the file leaf's. */
  keep: ReadonlySet<string>;
  /** Rows (by key) the user unfolded. */
  expanded: ReadonlySet<string>;
}

interface Tree {
  byId: Map<string, SegmentInfo>;
  leafOf: Map<string, BranchLeaf>;
  /** Segments on the way to a kept segment (the kept ones included). */
  kept: Set<string>;
  /** Segments in each segment's subtree (itself included). */
  size: Map<string, number>;
}

function isRetry(segment: SegmentInfo, tree: Tree): boolean {
  if (segment.children.length > 0 || segment.parentId === null) return false;
  if (tree.kept.has(segment.id) || segment.facts.labels.length > 0) return false;
  return segment.facts.turns <= RETRY_MAX_TURNS;
}

/** A segment's children split into the ones drawn and the retries folded (at least one child stays drawn). */
function splitChildren(segment: SegmentInfo, tree: Tree): { drawn: SegmentInfo[]; retries: SegmentInfo[] } {
  const children = segment.children.map((id) => tree.byId.get(id)).filter((s) => s !== undefined);
  const drawn = children.filter((child) => !isRetry(child, tree));
  const retries = children.filter((child) => isRetry(child, tree));
  if (drawn.length === 0 && retries.length > 0) {
    // All retries: the longest one stays as the branch's continuation.
    const longest = retries.reduce((best, child) =>
      child.facts.entries > best.facts.entries ? child : best,
    );
    return { drawn: [longest], retries: retries.filter((child) => child !== longest) };
  }
  return { drawn, retries };
}

function keptSegments(
  map: BranchMap,
  byId: Map<string, SegmentInfo>,
  keep: ReadonlySet<string>,
): Set<string> {
  const kept = new Set<string>();
  for (const id of keep) {
    let at = byId.get(id);
    while (at && !kept.has(at.id)) {
      kept.add(at.id);
      at = at.parentId === null ? undefined : byId.get(at.parentId);
    }
  }
  for (const leaf of map.leaves) if (leaf.label !== null) kept.add(leaf.segmentId);
  return kept;
}

/** The rows in depth-first order, runs folded, and each row's parent row (no lanes yet). */
function buildRows(map: BranchMap, tree: Tree, expanded: ReadonlySet<string>): MapRow[] {
  const rows: MapRow[] = [];
  const roots = map.segments.filter((segment) => segment.parentId === null);
  // An explicit stack: a session of 30,000 nested segments must not overflow the call stack.
  const stack: { segment: SegmentInfo; parentRow: number | null }[] = roots
    .reverse()
    .map((segment) => ({ segment, parentRow: null }));
  const sheds = (split: { drawn: SegmentInfo[]; retries: SegmentInfo[] }) =>
    split.drawn.length === 1 && split.retries.length > 0;
  while (stack.length > 0) {
    const { segment: first, parentRow } = stack.pop()!;
    const segments = [first];
    const retries: SegmentInfo[] = [];
    let children: SegmentInfo[];
    if (expanded.has(first.id)) {
      children = first.children.map((id) => tree.byId.get(id)).filter((s) => s !== undefined);
    } else {
      let split = splitChildren(first, tree);
      retries.push(...split.retries);
      // A run: each segment sheds retries and goes on in its one drawn child, which does the same.
      while (sheds(split)) {
        const next = split.drawn[0]!;
        const nextSplit = splitChildren(next, tree);
        if (expanded.has(next.id) || !sheds(nextSplit)) break;
        segments.push(next);
        retries.push(...nextSplit.retries);
        split = nextSplit;
      }
      children = split.drawn;
    }
    const last = segments[segments.length - 1]!;
    const row: MapRow = {
      key: first.id,
      segments,
      retries,
      leaf: tree.leafOf.get(last.id) ?? null,
      parentRow,
      row: rows.length,
      lane: 0,
    };
    rows.push(row);
    const ordered = mainLast(children, tree);
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
  let main = children[0]!;
  // Not the kept one: the lanes would move each time the selection goes to another branch.
  const weight = (segment: SegmentInfo) => tree.size.get(segment.id) ?? 1;
  for (const child of children) if (weight(child) > weight(main)) main = child;
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

export function layoutBranchMap(map: BranchMap, options: MapLayoutOptions): MapLayout {
  const byId = new Map(map.segments.map((segment) => [segment.id, segment]));
  const leafOf = new Map(map.leaves.map((leaf) => [leaf.segmentId, leaf]));
  const size = new Map<string, number>();
  for (let i = map.segments.length - 1; i >= 0; i--) {
    const segment = map.segments[i]!;
    let total = 1;
    for (const child of segment.children) total += size.get(child) ?? 0;
    size.set(segment.id, total);
  }
  const tree: Tree = { byId, leafOf, kept: keptSegments(map, byId, options.keep), size };
  const rows = buildRows(map, tree, options.expanded);
  const lanes = assignLanes(rows);
  const rowOfSegment = new Map<string, number>();
  let folded = 0;
  for (const row of rows) {
    for (const segment of row.segments) rowOfSegment.set(segment.id, row.row);
    for (const retry of row.retries) rowOfSegment.set(retry.id, row.row);
    folded += row.retries.length;
  }
  return { rows, lanes, rowOfSegment, folded };
}
