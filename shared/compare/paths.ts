/**
 * The two paths a compare looks at: each tip's root path, their common
 * ancestor (the deepest entry on both, by id: a fork or clone Pi writes keeps
 * the ids of the path it copied, so this works across the files of one
 * lineage), the entries after it on each side, and what those add up to.
 */

import type { EntryLabel } from "../branches/run-facts.ts";
import { type RunFacts, RunMarks, runFacts } from "../branches/run-facts.ts";
import { Tally } from "../branches/tally.ts";
import type { EntryReader } from "../session/entry-reader.ts";
import { type EntryFacts, entryFacts } from "../session/facts.ts";
import type { SessionIndex, TreeNode } from "../session/tree-index.ts";
import type { SessionEntry } from "../session/types.ts";

/** One side of a compare: a tip in an index, whose whole entries `reader` reads. */
export interface CompareSide {
  index: SessionIndex;
  reader: EntryReader;
  tipId: string;
  /** How the caller names the side's file (the CLI: as given); null when not given. */
  file?: string | null | undefined;
}

/** A side's path after the common ancestor, with its whole entries and their facts. */
export interface SidePath {
  nodes: TreeNode[];
  entries: SessionEntry[];
  facts: EntryFacts[];
}

/** Root-to-tip nodes (the tree is cycle-free by construction). */
export function rootPath(index: SessionIndex, tipId: string): TreeNode[] {
  const path: TreeNode[] = [];
  for (let node = index.nodes.get(tipId) ?? null; node; node = node.parent) path.push(node);
  return path.reverse();
}

/** The deepest entry of `right` whose id is on `left`, and where each path goes on after it. */
export function commonAncestor(
  left: readonly TreeNode[],
  right: readonly TreeNode[],
): { ancestorId: string | null; leftAfter: number; rightAfter: number } {
  const leftAt = new Map<string, number>();
  left.forEach((node, i) => {
    leftAt.set(node.id, i);
  });
  for (let j = right.length - 1; j >= 0; j--) {
    const i = leftAt.get(right[j]!.id);
    if (i !== undefined) return { ancestorId: right[j]!.id, leftAfter: i + 1, rightAfter: j + 1 };
  }
  return { ancestorId: null, leftAfter: 0, rightAfter: 0 };
}

/** The whole entries of `nodes` (read in long runs) and their facts (kept from the parse, or made now). */
export function sidePath(side: CompareSide, nodes: TreeNode[]): SidePath {
  const entries = side.reader.entriesOfNodes(nodes);
  const facts = nodes.map((node, i) => node.facts ?? entryFacts(entries[i]!));
  return { nodes, entries, facts };
}

/** What a side's path after the ancestor adds up to, as the branch model counts it. */
export function sideFacts(index: SessionIndex, path: SidePath): RunFacts {
  const tally = new Tally();
  const marks = new RunMarks();
  const onPath = new Set<string>();
  path.nodes.forEach((node, i) => {
    tally.add(path.facts[i]!);
    marks.note(node, path.facts[i]!);
    onPath.add(node.id);
  });
  const labels: EntryLabel[] = [];
  for (const node of path.nodes) {
    const label = index.labels.get(node.id);
    if (label) labels.push({ entryId: node.id, label: label.label });
  }
  const branchSummaryIds: string[] = [];
  for (const entry of index.entries) {
    if (entry.type === "branch_summary" && typeof entry.fromId === "string" && onPath.has(entry.fromId)) {
      branchSummaryIds.push(entry.id);
    }
  }
  const factsById = new Map(path.nodes.map((node, i) => [node, path.facts[i]!]));
  return runFacts(tally, marks, {
    labels,
    branchSummaryIds,
    factsOf: (node) => factsById.get(node) ?? entryFacts(node.entry),
  });
}
