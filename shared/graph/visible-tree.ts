/**
 * The visible tree as data (`VisibleTreeState`): what the whole walk of Pi's
 * filter found (filter.ts), and what appends added to it since
 * (filter-grown.ts), read through one set of lookups.
 *
 * Pi's order visits the branch holding the leaf first, so the visible
 * entries on that branch (the active path) come first, at positions
 * 0 .. pathCount, and every other visible entry (the rest) after them. An
 * append under the leaf extends the path and puts whatever else it shows at
 * the start of the rest. So positions on the path are kept from the start
 * and those of the rest from the end: an append moves neither, and no
 * position of 100k entries is rewritten. Entries are known by their position
 * in the indexed list, which appends keep too.
 */

import type { IdLookup, IndexedNodes } from "./indexed-nodes.ts";
import type { PersistentInts, PersistentList } from "./persistent-arrays.ts";
import type { FilterableNode, VisiblePositions, VisibleTree, VisibleTreeOptions } from "./filter.ts";

/** What the whole walk found, by position in its order (and by entry where it says so). */
export interface VisibleWalk {
  /** Visible entries on the active path: positions 0 .. pathCount. */
  pathCount: number;
  /** The entry at each position. */
  nodeAt: Int32Array;
  /** Position of each position's visible parent, -1 at the top. */
  parentAt: Int32Array;
  /** Visible children of each position: `childList[childStart[p] .. childStart[p + 1])`, in order. */
  childStart: Int32Array;
  childList: Int32Array;
  /** By entry: `slotOf` its position (see `VisibleTreeState.slot`). */
  slot: Int32Array;
  /** By entry: its nearest visible strict ancestor, -1 for none, whether it is visible or not. */
  visibleAbove: Int32Array;
  /** By entry: 1 inside a folded subtree. */
  foldHidden: Int32Array;
  roots: string[];
}

/** What appends added to a walk's tree (filter-grown.ts). */
export interface VisibleGrowth {
  /** How many of the walk's path entries are still on the path (the leaf's may have hidden itself). */
  pathKept: number;
  /** Path entries after those, in order. */
  path: PersistentInts;
  /** Entries of the rest added since the walk, last first: they come before the walk's rest. */
  rest: PersistentInts;
  /** By entry, over the whole indexed list: what the walk's `slot`, `visibleAbove` and `foldHidden` hold. */
  slot: PersistentInts;
  visibleAbove: PersistentInts;
  foldHidden: PersistentInts;
  /** Visible children of entries whose children changed since the walk (undefined: the walk's). */
  children: PersistentList<readonly number[]>;
  roots: string[];
  count: number;
}

/** What one growth changed (filter-grown.ts), for the chains to fold again only there (chains-grown.ts). */
export interface VisibleChange {
  from: VisibleTreeState;
  /** The old leaf, and whether it hid itself (it was shown only as the leaf). */
  leaf: number;
  removeLeaf: boolean;
  /** The visible entry the new ones hang from (the old leaf, or its nearest visible ancestor); -1 for none. */
  attach: number;
  /** The new visible entries, in the visible order. */
  added: readonly number[];
}

/** Position `p` of `count`, kept as `p` on the path and as -2 minus its place from the end in the rest. */
export function slotOf(p: number, pathCount: number, count: number): number {
  return p < pathCount ? p : -2 - (count - 1 - p);
}

const NO_CHILDREN: readonly string[] = Object.freeze([]);

/** The visible tree of a walk, possibly grown by appends since: lookups by id, by entry and by position. */
export class VisibleTreeState implements VisibleTree {
  readonly count: number;
  readonly pathCount: number;
  readonly roots: string[];
  readonly position: IdLookup<number>;
  readonly parent: IdLookup<string | null>;
  readonly children: IdLookup<readonly string[]>;
  private orderList: string[] | null = null;
  private positions: VisiblePositions | null = null;

  constructor(
    readonly indexed: IndexedNodes<FilterableNode>,
    /** The roots and options it was built with. */
    readonly viewRoots: readonly string[],
    readonly options: Required<VisibleTreeOptions>,
    readonly walk: VisibleWalk,
    readonly growth: VisibleGrowth | null,
    /** How it grew from the tree before, when it did. */
    readonly change: VisibleChange | null = null,
  ) {
    this.count = growth?.count ?? walk.nodeAt.length;
    this.pathCount = growth ? growth.pathKept + growth.path.length : walk.pathCount;
    this.roots = growth?.roots ?? walk.roots;
    const { indexOf, fields } = indexed;
    const visibleEntry = (id: string): number => {
      const e = indexOf.get(id);
      return e === undefined || this.positionOf(e) === -1 ? -1 : e;
    };
    const byEntry = <V>(read: (e: number) => V): IdLookup<V> => ({
      get: (id) => {
        const e = visibleEntry(id);
        return e === -1 ? undefined : read(e);
      },
      has: (id) => visibleEntry(id) !== -1,
    });
    this.position = byEntry((e) => this.positionOf(e));
    this.parent = byEntry((e) => {
      const above = this.visibleAbove(e);
      return above === -1 ? null : fields.id(above);
    });
    this.children = byEntry((e) => {
      const children = this.childrenOf(e);
      return children.length === 0 ? NO_CHILDREN : Array.from(children, (c) => fields.id(c));
    });
  }

  /** Visible ids in Pi's order: made when first read (a grown tree's). */
  get order(): string[] {
    if (this.orderList === null) {
      const order: string[] = [];
      for (let p = 0; p < this.count; p++) order.push(this.indexed.fields.id(this.entryAt(p)));
      this.orderList = order;
    }
    return this.orderList;
  }

  childCount(id: string): number {
    const e = this.indexed.indexOf.get(id);
    return e === undefined || this.positionOf(e) === -1 ? 0 : this.childCountOf(e);
  }

  /** Where entry `e` is in the order, -1 when it is hidden. */
  positionOf(e: number): number {
    const slot = this.growth ? this.growth.slot.get(e) : (this.walk.slot[e] ?? -1);
    if (slot >= 0) return slot;
    return slot === -1 ? -1 : this.count + 1 + slot;
  }

  /** The entry at position `p`. */
  entryAt(p: number): number {
    const { walk, growth } = this;
    if (growth === null) return walk.nodeAt[p]!;
    if (p < growth.pathKept) return walk.nodeAt[p]!;
    if (p < this.pathCount) return growth.path.get(p - growth.pathKept);
    const fromEnd = this.count - 1 - p;
    const walkRest = walk.nodeAt.length - walk.pathCount;
    return fromEnd < walkRest
      ? walk.nodeAt[walk.nodeAt.length - 1 - fromEnd]!
      : growth.rest.get(fromEnd - walkRest);
  }

  /** The nearest visible strict ancestor of entry `e`, -1 for none. */
  visibleAbove(e: number): number {
    return this.growth ? this.growth.visibleAbove.get(e) : this.walk.visibleAbove[e]!;
  }

  /** Whether entry `e` is inside a folded subtree. */
  foldHidden(e: number): boolean {
    return (this.growth ? this.growth.foldHidden.get(e) : this.walk.foldHidden[e]!) === 1;
  }

  /** The visible children of visible entry `e`, as entries, in order. */
  childrenOf(e: number): readonly number[] {
    const changed = this.growth?.children.get(e);
    if (changed !== undefined) return changed;
    const { walk } = this;
    const p = walk.slot[e];
    if (p === undefined || p === -1) return [];
    const at = p >= 0 ? p : walk.nodeAt.length + 1 + p;
    const children: number[] = [];
    for (let k = walk.childStart[at]!; k < walk.childStart[at + 1]!; k++)
      children.push(walk.nodeAt[walk.childList[k]!]!);
    return children;
  }

  childCountOf(e: number): number {
    const changed = this.growth?.children.get(e);
    if (changed !== undefined) return changed.length;
    const { walk } = this;
    const p = walk.slot[e];
    if (p === undefined || p === -1) return 0;
    const at = p >= 0 ? p : walk.nodeAt.length + 1 + p;
    return walk.childStart[at + 1]! - walk.childStart[at]!;
  }

  /** By position, for passes over the whole tree: the walk's arrays, or (grown) made when first read. */
  get at(): VisiblePositions {
    if (this.positions !== null) return this.positions;
    const { walk, indexed } = this;
    if (this.growth === null) {
      const { nodeAt, parentAt, childStart, childList } = walk;
      this.positions = {
        entry: (p) => nodeAt[p]!,
        fields: indexed.fields,
        parent: parentAt,
        childStart,
        childList,
      };
      return this.positions;
    }
    const count = this.count;
    const nodeAt = new Int32Array(count);
    const parentAt = new Int32Array(count);
    for (let p = 0; p < count; p++) nodeAt[p] = this.entryAt(p);
    for (let p = 0; p < count; p++) {
      const above = this.visibleAbove(nodeAt[p]!);
      parentAt[p] = above === -1 ? -1 : this.positionOf(above);
    }
    // Positions follow the walk's order, so each parent's children come out in order.
    const childStart = new Int32Array(count + 1);
    for (let p = 0; p < count; p++) if (parentAt[p] !== -1) childStart[parentAt[p]! + 1]! += 1;
    for (let p = 0; p < count; p++) childStart[p + 1]! += childStart[p]!;
    const childList = new Int32Array(childStart[count]!);
    const filled = new Int32Array(count);
    for (let p = 0; p < count; p++) {
      const q = parentAt[p]!;
      if (q !== -1) childList[childStart[q]! + filled[q]!++] = p;
    }
    this.positions = {
      entry: (p) => nodeAt[p]!,
      fields: indexed.fields,
      parent: parentAt,
      childStart,
      childList,
    };
    return this.positions;
  }
}
