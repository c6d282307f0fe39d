/**
 * Pi's filter grown by an append instead of walked again: new entries under
 * the old leaf extend the active path (and, when they branch, start the rest
 * of the order), the old leaf may hide itself (an assistant turn with no text
 * is shown only while it is the leaf), and nothing else moves (see
 * visible-tree.ts). The result equals `visibleTree` of the grown list; any
 * other change returns null, for the caller to walk the whole tree.
 */

import { type FilterableNode, passesFilterAt, type VisibleTree, type VisibleTreeOptions } from "./filter.ts";
import type { IndexedNodes } from "./indexed-nodes.ts";
import { PersistentInts, PersistentList } from "./persistent-arrays.ts";
import { type VisibleGrowth, VisibleTreeState } from "./visible-tree.ts";

const NO_ENTRIES: readonly number[] = Object.freeze([]);

/** What the walk of the new entries found: each one's nearest visible ancestor and fold, the visible ones in order. */
interface NewEntries {
  visibleAbove: number[];
  foldHidden: number[];
  /** Visible new entries on the new active path, in order, then the others, in order. */
  path: number[];
  rest: number[];
}

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a === b) return true;
  if (a.size !== b.size) return false;
  for (const item of a) if (!b.has(item)) return false;
  return true;
}

/**
 * The tree of `indexed` (a list grown from the one `previous` was built
 * over: its positions kept, nodes from `previous.indexed.count` on added,
 * those at `changed` changed) with `options`, grown from `previous`; null
 * when the change is not an append under the old leaf that leaves every
 * other entry as it was (the same mode, folds and roots; matches only gained
 * new entries; changed entries read the same to the filter). Costs what was
 * added, and the children of the entry they hang from.
 */
export function growVisibleTree(
  previous: VisibleTree,
  indexed: IndexedNodes<FilterableNode>,
  roots: readonly string[],
  options: VisibleTreeOptions,
  changed: readonly number[],
): VisibleTreeState | null {
  if (!(previous instanceof VisibleTreeState)) return null;
  const before = previous.options;
  const folded = options.folded ?? new Set<string>();
  const matches = options.matches ?? null;
  if (options.mode !== before.mode || !sameSet(folded, before.folded)) return null;
  if ((matches === null) !== (before.matches === null) || !sameStrings(roots, previous.viewRoots))
    return null;
  const hiddenBranch = options.hiddenBranch ?? null;
  if ((hiddenBranch === null) !== (before.hiddenBranch === null)) return null;
  const oldCount = previous.indexed.count;
  const leaf = before.leafId === null ? undefined : indexed.indexOf.get(before.leafId);
  const newLeaf = options.leafId === null ? undefined : indexed.indexOf.get(options.leafId);
  if (leaf === undefined || leaf >= oldCount || newLeaf === undefined) return null;
  if (!unchangedToFilter(previous, indexed, changed, matches, hiddenBranch)) return null;
  // Every new entry hangs from the old leaf or from another new one; the new leaf is one of them (or the old).
  for (let e = oldCount; e < indexed.count; e++) {
    const parent = indexed.parent[e]!;
    if (parent !== leaf && parent < oldCount) return null;
  }
  if (newLeaf !== leaf && newLeaf < oldCount) return null;
  const all: Required<VisibleTreeOptions> = {
    mode: options.mode,
    leafId: options.leafId,
    folded,
    matches,
    hiddenBranch,
  };
  const wasVisible = previous.positionOf(leaf) !== -1;
  const removeLeaf = wasVisible && !passesFilterAt(indexed.fields, leaf, all.mode, all.leafId);
  // The old leaf hides itself only at the end of the path, with nothing under it yet.
  if (
    removeLeaf &&
    (previous.positionOf(leaf) !== previous.pathCount - 1 || previous.childCountOf(leaf) > 0)
  ) {
    return null;
  }
  const attach = wasVisible && !removeLeaf ? leaf : previous.visibleAbove(leaf);
  const found = walkNew(indexed, all, leaf, newLeaf, attach, oldCount, previous);
  const growth = grow(previous, indexed, found, { leaf, removeLeaf, attach });
  if (growth === null) return null;
  const change = { from: previous, leaf, removeLeaf, attach, added: [...found.path, ...found.rest] };
  return new VisibleTreeState(indexed, roots, all, previous.walk, growth, change);
}

/** Whether the changed entries read as before to the filter and the search. */
function unchangedToFilter(
  previous: VisibleTreeState,
  indexed: IndexedNodes<FilterableNode>,
  changed: readonly number[],
  matches: ReadonlySet<string> | null,
  hiddenBranch: ((i: number) => boolean) | null,
): boolean {
  const a = previous.indexed.fields;
  const b = indexed.fields;
  const before = previous.options.matches;
  const hiddenBefore = previous.options.hiddenBranch;
  for (const e of changed) {
    // An archive marker flips a whole branch: walked again.
    if (hiddenBranch !== null && hiddenBranch(e) !== (hiddenBefore?.(e) ?? false)) return false;
    if (a.type(e) !== b.type(e) || a.role(e) !== b.role(e) || a.label(e) !== b.label(e)) return false;
    if (a.hasText(e) !== b.hasText(e) || a.stopReason(e) !== b.stopReason(e)) return false;
    if (matches !== null && before !== null && matches.has(b.id(e)) !== before.has(a.id(e))) return false;
  }
  return true;
}

/** Pi's walk over the new entries only, from the old leaf, with the new active path first. */
function walkNew(
  indexed: IndexedNodes<FilterableNode>,
  options: Required<VisibleTreeOptions>,
  leaf: number,
  newLeaf: number,
  attach: number,
  oldCount: number,
  previous: VisibleTreeState,
): NewEntries {
  const { fields, parent } = indexed;
  const added = indexed.count - oldCount;
  const children = new Map<number, number[]>();
  for (let e = oldCount; e < indexed.count; e++) {
    const list = children.get(parent[e]!);
    if (list) list.push(e);
    else children.set(parent[e]!, [e]);
  }
  const onPath = new Set<number>();
  for (let e = newLeaf; e >= oldCount; e = parent[e]!) onPath.add(e);
  const found: NewEntries = {
    visibleAbove: new Array<number>(added),
    foldHidden: new Array<number>(added),
    path: [],
    rest: [],
  };
  const stack: [entry: number, above: number, hidden: boolean][] = [];
  const pushChildren = (of: number, above: number, hidden: boolean) => {
    const list = children.get(of) ?? [];
    for (let k = list.length - 1; k >= 0; k--)
      if (!onPath.has(list[k]!)) stack.push([list[k]!, above, hidden]);
    for (let k = list.length - 1; k >= 0; k--)
      if (onPath.has(list[k]!)) stack.push([list[k]!, above, hidden]);
  };
  const { folded, matches, mode, leafId } = options;
  pushChildren(leaf, attach, previous.foldHidden(leaf) || folded.has(fields.id(leaf)));
  while (stack.length > 0) {
    const [e, above, hiddenAbove] = stack.pop()!;
    const hidden = hiddenAbove || options.hiddenBranch?.(e) === true;
    const id = fields.id(e);
    found.visibleAbove[e - oldCount] = above;
    found.foldHidden[e - oldCount] = hidden ? 1 : 0;
    const visible =
      !hidden && passesFilterAt(fields, e, mode, leafId) && (matches === null || matches.has(id));
    if (visible) (onPath.has(e) ? found.path : found.rest).push(e);
    pushChildren(e, visible ? e : above, hidden || folded.has(id));
  }
  return found;
}

/** The previous tree's growth with what the walk found added to it. */
function grow(
  previous: VisibleTreeState,
  indexed: IndexedNodes<FilterableNode>,
  found: NewEntries,
  at: { leaf: number; removeLeaf: boolean; attach: number },
): VisibleGrowth | null {
  const { walk } = previous;
  const start = previous.growth ?? {
    pathKept: walk.pathCount,
    path: PersistentInts.filled(0),
    rest: PersistentInts.filled(0),
    slot: PersistentInts.of(walk.slot),
    visibleAbove: PersistentInts.of(walk.visibleAbove),
    foldHidden: PersistentInts.of(walk.foldHidden),
    children: PersistentList.sparse<readonly number[]>(walk.slot.length, []),
    roots: walk.roots,
    count: walk.nodeAt.length,
  };
  let { pathKept, path, roots } = start;
  const slots: [number, number][] = [];
  if (at.removeLeaf) {
    if (path.length > 0) path = path.truncate(path.length - 1);
    else pathKept--;
    slots.push([at.leaf, -1]);
  }
  const count = start.count - (at.removeLeaf ? 1 : 0) + found.path.length + found.rest.length;
  const walkRest = walk.nodeAt.length - walk.pathCount;
  for (const [k, e] of found.path.entries()) slots.push([e, pathKept + path.length + k]);
  path = path.push(found.path);
  const restAdded = [...found.rest].reverse();
  for (const [k, e] of restAdded.entries()) slots.push([e, -2 - (walkRest + start.rest.length + k)]);
  const slot = start.slot.push(new Array<number>(indexed.count - start.slot.length).fill(-1)).setAll(slots);
  // Children: each new visible entry's, and the new first children of the entry they hang from.
  const visible = [...found.path, ...found.rest];
  const lists = new Map<number, number[]>();
  const top: number[] = [];
  for (const e of visible) {
    const above = found.visibleAbove[e - previous.indexed.count]!;
    if (above === at.attach) top.push(e);
    else {
      const list = lists.get(above);
      if (list) list.push(e);
      else lists.set(above, [e]);
    }
  }
  const childLists: [number, readonly number[]][] = visible.map((e) => [e, lists.get(e) ?? NO_ENTRIES]);
  const id = (e: number) => indexed.fields.id(e);
  if (top.length > 0 || at.removeLeaf) {
    const old =
      at.attach === -1 ? roots.map((root) => indexed.indexOf.get(root)!) : previous.childrenOf(at.attach);
    if (at.removeLeaf && old[0] !== at.leaf) return null;
    const kept = at.removeLeaf ? old.slice(1) : old;
    if (at.attach === -1) roots = [...top, ...kept].map(id);
    else childLists.push([at.attach, [...top, ...kept]]);
  }
  return {
    pathKept,
    path,
    rest: start.rest.push(restAdded),
    slot,
    visibleAbove: start.visibleAbove.push(found.visibleAbove),
    foldHidden: start.foldHidden.push(found.foldHidden),
    children: start.children.resize(indexed.count).setAll(childLists),
    roots,
    count,
  };
}
