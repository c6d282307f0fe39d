/**
 * Chain folding: linear runs of the visible tree (no branching, no label, not
 * the leaf, not a search match, not folded) become one chain node, so a
 * 100k-entry session draws as a few thousand nodes. A chain is named after
 * its first entry, so its id survives entries being appended to it.
 */

import type { VisibleTree } from "./filter.ts";

export const MIN_CHAIN_LENGTH = 3;

export type GraphNode =
  | { kind: "entry"; id: string; entryId: string; parent: string | null; children: string[] }
  | { kind: "chain"; id: string; entryIds: string[]; parent: string | null; children: string[] };

export interface FoldedGraph {
  /** Graph nodes in the visible order. */
  nodes: GraphNode[];
  byId: Map<string, GraphNode>;
  /** Which graph node shows each visible entry (itself, or the chain holding it). */
  nodeOfEntry: Map<string, string>;
  roots: string[];
}

export interface FoldOptions {
  /**
   * Entries that must stay nodes of their own (labelled, the leaf, search matches, folded). Not the
   * selection: a selection would re-cut the runs, renaming (and so folding again) expanded chains.
   */
  keep: (entryId: string) => boolean;
  /** Chains the user expanded, by chain id. */
  expanded?: ReadonlySet<string>;
  minLength?: number;
}

export function chainId(firstEntryId: string): string {
  return `chain:${firstEntryId}`;
}

/** Linear in the number of visible nodes. */
export function foldChains(tree: VisibleTree, options: FoldOptions): FoldedGraph {
  const minLength = options.minLength ?? MIN_CHAIN_LENGTH;
  const expanded = options.expanded ?? new Set<string>();
  const childCount = (id: string) => tree.children.get(id)?.length ?? 0;
  const foldable = (id: string) => !options.keep(id) && childCount(id) <= 1;
  const nodes: GraphNode[] = [];
  const byId = new Map<string, GraphNode>();
  const nodeOfEntry = new Map<string, string>();
  const roots: string[] = [];
  const add = (node: GraphNode) => {
    nodes.push(node);
    byId.set(node.id, node);
    if (node.parent === null) roots.push(node.id);
    else byId.get(node.parent)!.children.push(node.id);
  };
  for (const id of tree.order) {
    if (nodeOfEntry.has(id)) continue;
    const visibleParent = tree.parent.get(id) ?? null;
    const parentNode = visibleParent === null ? null : nodeOfEntry.get(visibleParent)!;
    // A run starts where its parent cannot continue one.
    const startsRun =
      foldable(id) && (visibleParent === null || !foldable(visibleParent) || childCount(visibleParent) !== 1);
    if (startsRun) {
      const run = [id];
      let last = id;
      while (childCount(last) === 1) {
        const next = tree.children.get(last)![0]!;
        if (!foldable(next)) break;
        run.push(next);
        last = next;
      }
      const chain = chainId(id);
      if (run.length >= minLength && !expanded.has(chain)) {
        add({ kind: "chain", id: chain, entryIds: run, parent: parentNode, children: [] });
        for (const entryId of run) nodeOfEntry.set(entryId, chain);
        continue;
      }
    }
    add({ kind: "entry", id, entryId: id, parent: parentNode, children: [] });
    nodeOfEntry.set(id, id);
  }
  return { nodes, byId, nodeOfEntry, roots };
}
