/**
 * The branch map as the window shows it now: the layout for the selected
 * path (kept out of folds, highlighted), memoised on its inputs so the view
 * and the keyboard read the same object. Pure but for the memo.
 */

import type { BranchMap } from "../../../shared/branches/index.ts";
import type { PathIds } from "../state/graph-model.ts";
import { layoutBranchMap, type MapLayout, type MapRow } from "./map-layout.ts";

export interface ShownMap {
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

export function shownMap(
  map: BranchMap,
  path: PathIds,
  fileLeafId: string | null,
  expanded: ReadonlySet<string>,
  budget: number,
): ShownMap {
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
  return { layout, onPath, selectedRow };
}

let last: { args: unknown[]; result: ShownMap } | null = null;

/** `shownMap`, the same object while its inputs are the same ones. */
export function currentShownMap(
  map: BranchMap,
  path: PathIds,
  fileLeafId: string | null,
  expanded: ReadonlySet<string>,
  budget: number,
): ShownMap {
  const args = [map, path, fileLeafId, expanded, budget];
  if (last?.args.every((arg, i) => Object.is(arg, args[i]))) return last.result;
  const result = shownMap(map, path, fileLeafId, expanded, budget);
  last = { args, result };
  return result;
}

/** The entry a row opens in the entry graph: its branch's tip, else its last segment's last entry. */
export function rowEntry(row: MapRow): string {
  return row.leaf?.leafId ?? row.segments[row.segments.length - 1]!.lastId;
}
