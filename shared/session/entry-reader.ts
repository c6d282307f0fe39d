/**
 * Reading the whole entries behind an index's nodes. An index built
 * structure-first holds stubs (type, ids, short fields, the message's role);
 * its bodies are read from the file by the store's reader
 * (`app/store/entry-reader.ts`). An index parsed whole holds its entries:
 * `inMemoryEntryReader` serves them. Whoever needs bodies is handed a reader
 * with the index.
 *
 * A reader is made for one index object and stays valid while that index is
 * extended in place; an index rebuilt by `extendSessionIndex` needs a new one.
 */

import { type EntryFacts, entryFacts } from "./facts.ts";
import type { SessionIndex, TreeNode } from "./tree-index.ts";
import type { SessionEntry } from "./types.ts";

export interface EntryReader {
  /** The whole entry (Pi's `getEntry`), its body read on demand if deferred. */
  entry(id: string): SessionEntry | undefined;
  /** The same for a node already at hand (no id lookup). */
  entryOfNode(node: TreeNode): SessionEntry;
  /** The same for many nodes (a path): deferred bodies are read in long sequential reads. */
  entriesOfNodes(nodes: readonly TreeNode[]): SessionEntry[];
  /**
   * Visits each node's whole entry, reading deferred bodies in long sequential
   * runs (in file order) without keeping them: for a pass over most of a
   * session (a search), which would flush a cache of bodies.
   */
  readEntries(nodes: readonly TreeNode[], visit: (node: TreeNode, entry: SessionEntry) => void): void;
  /**
   * Role, preview, tool names and token estimate of an entry, computed once
   * when first asked and kept on its node (a reader of deferred bodies fills
   * those of every entry at once: they are asked for every node together).
   */
  facts(id: string): EntryFacts | undefined;
  /** The same for a node already at hand (no id lookup). */
  factsOfNode(node: TreeNode): EntryFacts;
}

/** The reader of an index parsed whole: each node's entry is the whole entry. */
export function inMemoryEntryReader(index: SessionIndex): EntryReader {
  if (index.deferredBodies) {
    throw new Error("inMemoryEntryReader: a structure-first index needs a reader of its file's bytes");
  }
  const factsOfNode = (node: TreeNode): EntryFacts => {
    node.facts ??= entryFacts(node.entry);
    return node.facts;
  };
  return {
    entry: (id) => index.nodes.get(id)?.entry,
    entryOfNode: (node) => node.entry,
    entriesOfNodes: (nodes) => nodes.map((node) => node.entry),
    readEntries(nodes, visit) {
      for (const node of nodes) visit(node, node.entry);
    },
    facts(id) {
      const node = index.nodes.get(id);
      return node ? factsOfNode(node) : undefined;
    },
    factsOfNode,
  };
}
