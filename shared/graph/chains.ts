/**
 * Chain folding: linear runs of the visible tree (no branching, no label, not
 * the leaf, not a search match, not folded) become one chain node, so a
 * 100k-entry session draws as a few thousand nodes. A chain is named after
 * its first entry, so its id survives entries being appended to it.
 */

import type { VisibleTree } from "./filter.ts";
import type { IdLookup } from "./indexed-nodes.ts";
import { type FoldWalk, WalkedGraph } from "./folded-graph.ts";
import { VisibleTreeState } from "./visible-tree.ts";

export const MIN_CHAIN_LENGTH = 3;

export type GraphNode =
  | { kind: "entry"; id: string; entryId: string; parent: string | null; children: string[] }
  | { kind: "chain"; id: string; entryIds: string[]; parent: string | null; children: string[] };

export interface FoldedGraph {
  /** Graph nodes in the visible order. */
  readonly nodes: GraphNode[];
  readonly byId: IdLookup<GraphNode>;
  /** Which graph node shows each visible entry (itself, or the chain holding it). */
  readonly nodeOfEntry: IdLookup<string>;
  readonly roots: string[];
}

export interface FoldOptions {
  /**
   * Entries that must stay nodes of their own (labelled, the leaf, search matches, folded). Not the
   * selection: a selection would re-cut the runs, renaming (and so folding again) expanded chains.
   */
  keep: (entryId: string, label: string | null) => boolean;
  /** Chains the user expanded, by chain id. */
  expanded?: ReadonlySet<string>;
  minLength?: number;
}

export function chainId(firstEntryId: string): string {
  return `chain:${firstEntryId}`;
}

/** Linear in the number of visible nodes; walks positions in the visible order (no id lookups). */
export function foldChains(tree: VisibleTree, options: FoldOptions): FoldedGraph {
  const minLength = options.minLength ?? MIN_CHAIN_LENGTH;
  const expanded = options.expanded ?? new Set<string>();
  const { order } = tree;
  const { parent, childStart, childList, fields } = tree.at;
  const count = order.length;
  const childCount = (p: number) => childStart[p + 1]! - childStart[p]!;
  const foldable = new Uint8Array(count);
  for (let p = 0; p < count; p++) {
    if (childCount(p) <= 1 && !options.keep(order[p]!, fields.label(tree.at.entry(p)))) foldable[p] = 1;
  }
  const nodes: GraphNode[] = [];
  const byId = new Map<string, GraphNode>();
  /** The index in `nodes` of the graph node showing each position, and the start of the run holding it. */
  const graphOf = new Int32Array(count).fill(-1);
  const runOf = new Int32Array(count).fill(-1);
  const firstOf: number[] = [];
  const roots: string[] = [];
  const add = (node: GraphNode, first: number) => {
    nodes.push(node);
    firstOf.push(first);
    byId.set(node.id, node);
    if (node.parent === null) roots.push(node.id);
    else byId.get(node.parent)!.children.push(node.id);
  };
  for (let p = 0; p < count; p++) {
    if (graphOf[p] !== -1) continue;
    const q = parent[p]!;
    // The visible parent comes first in the order, so it has its graph node.
    const parentNode = q === -1 ? null : nodes[graphOf[q]!]!.id;
    // A run starts where its parent cannot continue one.
    if (foldable[p] === 1 && (q === -1 || foldable[q] === 0 || childCount(q) !== 1)) {
      const run = [p];
      let last = p;
      while (childCount(last) === 1) {
        const next = childList[childStart[last]!]!;
        if (foldable[next] === 0) break;
        run.push(next);
        last = next;
      }
      for (const r of run) runOf[r] = p;
      const chain = chainId(order[p]!);
      if (run.length >= minLength && !expanded.has(chain)) {
        const at = nodes.length;
        add(
          { kind: "chain", id: chain, entryIds: run.map((r) => order[r]!), parent: parentNode, children: [] },
          p,
        );
        for (const r of run) graphOf[r] = at;
        continue;
      }
    }
    graphOf[p] = nodes.length;
    add({ kind: "entry", id: order[p]!, entryId: order[p]!, parent: parentNode, children: [] }, p);
  }
  if (!(tree instanceof VisibleTreeState)) return plainGraph(tree, nodes, byId, graphOf, roots);
  const walk: FoldWalk = { nodes, firstOf, graphOf, runOf, roots };
  return new WalkedGraph(tree, { keep: options.keep, expanded, minLength }, walk, byId);
}

/** A folded graph of a tree known only by its lookups (a test's): by position, not to be grown. */
function plainGraph(
  tree: VisibleTree,
  nodes: GraphNode[],
  byId: Map<string, GraphNode>,
  graphOf: Int32Array,
  roots: string[],
): FoldedGraph {
  const nodeOfEntry: IdLookup<string> = {
    get: (entryId) => {
      const p = tree.position.get(entryId);
      return p === undefined ? undefined : nodes[graphOf[p]!]!.id;
    },
    has: (entryId) => tree.position.has(entryId),
  };
  return { nodes, byId, nodeOfEntry, roots };
}
