/**
 * The branch map as the window shows it now: archived branches left out
 * unless Show archived is on (then dimmed), the layout for the selected path
 * (kept out of folds, highlighted), memoised on its inputs so the view and
 * the keyboard read the same object. Pure but for the memo.
 */

import type { BranchMap } from "../../../shared/branches/index.ts";
import type { PathIds } from "../state/graph-model.ts";
import { layoutBranchMap, type MapLayout, type MapRow } from "./map-layout.ts";

export interface ShownMap {
  /** The map laid out: without archived branches unless they are shown. */
  map: BranchMap;
  /** Segments whose every branch is archived (drawn dimmed when shown, else left out). */
  archived: ReadonlySet<string>;
  layout: MapLayout;
  /** Rows holding a segment of the selected entry's path. */
  onPath: ReadonlySet<number>;
  /** The row holding the selected entry (the deepest on the path), if any. */
  selectedRow: number | null;
}

/** Segments of the selected path (by their first entry being on it) and the file leaf's segment. */
export function keptSegments(map: BranchMap, path: PathIds, fileLeafId: string | null): Set<string> {
  const keep = new Set<string>();
  for (const segment of map.segments) if (path.has(segment.firstId)) keep.add(segment.id);
  if (fileLeafId !== null) {
    for (const leaf of map.leaves) {
      if (leaf.leafId === fileLeafId || leaf.fileLeafIds.includes(fileLeafId)) keep.add(leaf.segmentId);
    }
  }
  return keep;
}

/** Segments below which every branch is archived (Arbor's archive markers; a branch's tip decides). */
export function archivedSegments(map: BranchMap): Set<string> {
  const archived = new Set<string>();
  if (!map.leaves.some((leaf) => leaf.archived)) return archived;
  const leafOf = new Map(map.leaves.map((leaf) => [leaf.segmentId, leaf]));
  // Segments are depth first: backwards, each segment's children come before it.
  for (let i = map.segments.length - 1; i >= 0; i--) {
    const segment = map.segments[i]!;
    const leaf = leafOf.get(segment.id);
    const ownLive = leaf !== undefined ? !leaf.archived : segment.children.length === 0;
    if (!ownLive && segment.children.every((child) => archived.has(child))) archived.add(segment.id);
  }
  return archived;
}

/** `map` without the segments and branches in `archived`. */
export function withoutArchived(map: BranchMap, archived: ReadonlySet<string>): BranchMap {
  if (archived.size === 0) return map;
  return {
    leaves: map.leaves.filter((leaf) => !leaf.archived && !archived.has(leaf.segmentId)),
    segments: map.segments
      .filter((segment) => !archived.has(segment.id))
      .map((segment) =>
        segment.children.some((child) => archived.has(child))
          ? { ...segment, children: segment.children.filter((child) => !archived.has(child)) }
          : segment,
      ),
  };
}

export function shownMap(
  whole: BranchMap,
  path: PathIds,
  fileLeafId: string | null,
  expanded: ReadonlySet<string>,
  budget: number,
  showArchived = false,
): ShownMap {
  const archived = archivedSegments(whole);
  const map = showArchived ? whole : withoutArchived(whole, archived);
  const keep = keptSegments(map, path, fileLeafId);
  const layout = layoutBranchMap(map, { keep, expanded, budget });
  const onPath = new Set<number>();
  let selectedRow: number | null = null;
  for (const row of layout.rows) {
    if (row.segments.some((segment) => path.has(segment.firstId))) {
      onPath.add(row.row);
      selectedRow = row.row;
    }
  }
  return { map, archived, layout, onPath, selectedRow };
}

let last: { args: unknown[]; result: ShownMap } | null = null;

/** `shownMap`, the same object while its inputs are the same ones. */
export function currentShownMap(
  map: BranchMap,
  path: PathIds,
  fileLeafId: string | null,
  expanded: ReadonlySet<string>,
  budget: number,
  showArchived: boolean,
): ShownMap {
  const args = [map, path, fileLeafId, expanded, budget, showArchived];
  if (last?.args.every((arg, i) => Object.is(arg, args[i]))) return last.result;
  const result = shownMap(map, path, fileLeafId, expanded, budget, showArchived);
  last = { args, result };
  return result;
}

/** The entry a row opens in the entry graph: its branch's tip, else its last segment's last entry. */
export function rowEntry(row: MapRow): string {
  return row.leaf?.leafId ?? row.segments[row.segments.length - 1]!.lastId;
}
