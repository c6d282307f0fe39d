/**
 * Keyboard navigation over the visible tree with the semantics of Pi 1.6's
 * `/tree` selector (`tree-selector.js`, `handleInput`): Up/Down step through
 * the visible order and wrap around; fold-or-up folds a foldable node, else
 * jumps to the start of the branch segment above; unfold-or-down unfolds a
 * folded node, else follows first children down to the next branch point.
 * Pure functions of the visible tree.
 */

import type { IdLookup, VisibleTree } from "../../../shared/graph/index.ts";

export function stepCursor(tree: VisibleTree, position: IdLookup<number>, id: string | null, by: -1 | 1) {
  const count = tree.order.length;
  if (count === 0) return null;
  const at = id === null ? -1 : (position.get(id) ?? -1);
  if (at < 0) return tree.order[by === 1 ? 0 : count - 1]!;
  if (by === -1) return tree.order[at === 0 ? count - 1 : at - 1]!;
  return tree.order[at === count - 1 ? 0 : at + 1]!;
}

/** Pi's page up/down: clamped, no wrap. */
export function pageCursor(
  tree: VisibleTree,
  position: IdLookup<number>,
  id: string | null,
  by: number,
): string | null {
  const count = tree.order.length;
  if (count === 0) return null;
  const at = id === null ? 0 : (position.get(id) ?? 0);
  return tree.order[Math.max(0, Math.min(count - 1, at + by))]!;
}

/** Pi's `isFoldable`: has visible children, and is a root or the first node of a branch segment. */
export function isFoldable(tree: VisibleTree, id: string): boolean {
  // Counts, not lists: every drawn node asks on every store change.
  if (tree.childCount(id) === 0) return false;
  const parent = tree.parent.get(id) ?? null;
  if (parent === null) return true;
  return tree.childCount(parent) > 1;
}

/** Pi's `findBranchSegmentStart`. */
export function branchSegmentStart(
  tree: VisibleTree,
  position: IdLookup<number>,
  id: string,
  direction: "up" | "down",
): string {
  if (!position.has(id)) return id;
  let current = id;
  if (direction === "down") {
    for (;;) {
      const children = tree.children.get(current) ?? [];
      if (children.length === 0) return current;
      if (children.length > 1) return children[0]!;
      current = children[0]!;
    }
  }
  const selectedIndex = position.get(id)!;
  for (;;) {
    const parent = tree.parent.get(current) ?? null;
    if (parent === null) return current;
    const siblings = tree.children.get(parent) ?? [];
    if (siblings.length > 1 && position.get(current)! < selectedIndex) return current;
    current = parent;
  }
}

/** Pi's `findNearestVisibleIndex`: the entry itself, else its nearest visible ancestor, else the last visible. */
export function nearestVisible(
  parents: IdLookup<{ parentId: string | null }>,
  position: IdLookup<number>,
  tree: VisibleTree,
  id: string | null,
): string | null {
  if (tree.count === 0) return null;
  const seen = new Set<string>();
  for (let current = id; current !== null && !seen.has(current); ) {
    if (position.has(current)) return current;
    seen.add(current);
    current = parents.get(current)?.parentId ?? null;
  }
  return tree.order[tree.order.length - 1]!;
}
