/**
 * The folded graph as data: what `foldChains` found by walking the visible
 * tree (`WalkedGraph`, lookups by position, as fast as before), and the same
 * graph keyed by entry (`FoldKeys`) for growing it by appends
 * (chains-grown.ts, `GrownGraph`). A graph node is keyed by its first entry
 * (a chain's name); graph nodes whose key is on the active path come first in
 * the order and keep their places from the start, the others from the end,
 * as the visible tree's entries do (visible-tree.ts).
 */

import type { FoldedGraph, FoldOptions, GraphNode } from "./chains.ts";
import type { IdLookup } from "./indexed-nodes.ts";
import { PersistentInts, PersistentList } from "./persistent-arrays.ts";
import type { VisibleTreeState } from "./visible-tree.ts";

/** What the whole fold found, by position in the visible order. */
export interface FoldWalk {
  /** Graph nodes in the visible order. */
  nodes: GraphNode[];
  /** The position of each graph node's first entry. */
  firstOf: number[];
  /** The graph node (its index in `nodes`) showing each position. */
  graphOf: Int32Array;
  /** The position where the run holding each position starts, -1 for a position in no run. */
  runOf: Int32Array;
  roots: string[];
}

/** The options a graph was folded with, defaults filled in. */
export type FoldSettings = Required<FoldOptions>;

/** A folded graph by entry: what growing it reads and writes. */
export interface FoldKeys {
  tree: VisibleTreeState;
  options: FoldSettings;
  /** By entry: the key (first entry) of the graph node showing it, -1 when hidden. */
  keyOf: PersistentInts;
  /** By key: the graph node. */
  nodeAt: PersistentList<GraphNode>;
  /** By entry: the first entry of the run holding it, -1 for an entry in no run. */
  runStart: PersistentInts;
  /** Keys of the graph nodes whose key is on the active path, in order. */
  pathKeys: PersistentInts;
  /** Keys of the others, last first. */
  restKeys: PersistentInts;
  roots: string[];
}

/** A folded graph that can be grown: it knows itself by entry. */
export interface GrowableGraph extends FoldedGraph {
  keys(): FoldKeys;
}

/** The graph `foldChains` built: lookups by position; keyed by entry only if it is grown. */
export class WalkedGraph implements GrowableGraph {
  readonly nodes: GraphNode[];
  readonly byId: IdLookup<GraphNode>;
  readonly nodeOfEntry: IdLookup<string>;
  readonly roots: string[];
  private keyed: FoldKeys | null = null;

  constructor(
    private readonly tree: VisibleTreeState,
    private readonly options: FoldSettings,
    private readonly walk: FoldWalk,
    byId: Map<string, GraphNode>,
  ) {
    const { nodes, graphOf } = walk;
    this.nodes = nodes;
    this.byId = byId;
    this.roots = walk.roots;
    this.nodeOfEntry = {
      get: (entryId) => {
        const p = tree.position.get(entryId);
        return p === undefined ? undefined : nodes[graphOf[p]!]!.id;
      },
      has: (entryId) => tree.position.has(entryId),
    };
  }

  /** Made on the first append after the fold: a pass over the visible entries. */
  keys(): FoldKeys {
    if (this.keyed !== null) return this.keyed;
    const { tree, walk } = this;
    const n = tree.indexed.count;
    const entry = (p: number) => tree.entryAt(p);
    const keyOf = new Int32Array(n).fill(-1);
    const runStart = new Int32Array(n).fill(-1);
    for (let p = 0; p < tree.count; p++) {
      const e = entry(p);
      keyOf[e] = entry(walk.firstOf[walk.graphOf[p]!]!);
      if (walk.runOf[p] !== -1) runStart[e] = entry(walk.runOf[p]!);
    }
    const keys = walk.firstOf.map(entry);
    let pathCount = 0;
    while (pathCount < keys.length && walk.firstOf[pathCount]! < tree.pathCount) pathCount++;
    this.keyed = {
      tree,
      options: this.options,
      keyOf: PersistentInts.of(keyOf),
      nodeAt: PersistentList.sparse(
        n,
        walk.nodes.map((node, k) => [keys[k]!, node] as const),
      ),
      runStart: PersistentInts.of(runStart),
      pathKeys: PersistentInts.of(Int32Array.from(keys.slice(0, pathCount))),
      restKeys: PersistentInts.of(Int32Array.from(keys.slice(pathCount).reverse())),
      roots: walk.roots,
    };
    return this.keyed;
  }
}

/** A graph grown by appends: every lookup by entry. */
export class GrownGraph implements GrowableGraph {
  readonly byId: IdLookup<GraphNode>;
  readonly nodeOfEntry: IdLookup<string>;
  private list: GraphNode[] | null = null;

  constructor(
    private readonly keyed: FoldKeys,
    /** What the growth changed, for the layout to place (layout-grown.ts). */
    readonly change: GraphChange,
  ) {
    const { tree, keyOf, nodeAt } = keyed;
    const { indexOf } = tree.indexed;
    const atKey = (entryId: string, id: string) => {
      const e = indexOf.get(entryId);
      const node = e === undefined ? undefined : nodeAt.get(e);
      return node?.id === id ? node : undefined;
    };
    const byId = (id: string) =>
      atKey(id, id) ?? (id.startsWith(CHAIN_PREFIX) ? atKey(id.slice(CHAIN_PREFIX.length), id) : undefined);
    this.byId = { get: byId, has: (id) => byId(id) !== undefined };
    const nodeOf = (entryId: string) => {
      const e = indexOf.get(entryId);
      const key = e === undefined ? -1 : keyOf.get(e);
      return key === -1 ? undefined : nodeAt.get(key)?.id;
    };
    this.nodeOfEntry = { get: nodeOf, has: (entryId) => nodeOf(entryId) !== undefined };
  }

  get roots(): string[] {
    return this.keyed.roots;
  }

  /** In the visible order: made when first read. */
  get nodes(): GraphNode[] {
    if (this.list === null) {
      const { pathKeys, restKeys, nodeAt } = this.keyed;
      const list: GraphNode[] = [];
      for (let k = 0; k < pathKeys.length; k++) list.push(nodeAt.get(pathKeys.get(k))!);
      for (let k = restKeys.length - 1; k >= 0; k--) list.push(nodeAt.get(restKeys.get(k))!);
      this.list = list;
    }
    return this.list;
  }

  keys(): FoldKeys {
    return this.keyed;
  }
}

const CHAIN_PREFIX = "chain:";

/** What growing a graph changed: the nodes of the region folded again, those gone, those given new children. */
export interface GraphChange {
  from: GrowableGraph;
  /** The nodes removed (their ids no longer shown, or shown by another node now). */
  removed: readonly GraphNode[];
  /** The new nodes of the region folded again, in the visible order: the first is its top. */
  added: readonly GraphNode[];
  /** Nodes outside the region that only got new children (the region's parent). */
  renewed: readonly GraphNode[];
}
