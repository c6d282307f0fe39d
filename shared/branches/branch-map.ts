/**
 * The branch map in plain data: what `BranchModel.branchMap` gives the CLI
 * (`arbor branches --json`) and the window (`session.branches`). It holds
 * what a map of thousands of segments can show at once (sums and previews);
 * a segment's or branch's tool calls and files come with its full facts
 * (`BranchModel.segmentFacts`, `branchFacts`; `session.branchFacts`).
 */

import type { EntryLabel, RunSummary } from "./run-facts.ts";

/** A segment as the map shows it: its place in the segment tree and its own facts. */
export interface SegmentInfo {
  /** The segment's id: the id of its first entry. */
  id: string;
  firstId: string;
  lastId: string;
  /** The segment it continues; null for one that starts at a root. */
  parentId: string | null;
  /** The segments that continue it, in Pi's order of its last entry's children. */
  children: string[];
  /** Tree depth of its first entry (a root is 0). */
  depth: number;
  /** What its own entries add up to, and the labels on them. */
  facts: SegmentSummary;
}

export interface SegmentSummary extends RunSummary {
  /** Labels on its entries as they are now, in path order. */
  labels: EntryLabel[];
}

/** What a branch adds up to from its root to its tip (a prefix shared with other branches counted in each). */
export type BranchTotals = RunSummary;

/** One branch, named by its tip. */
export interface BranchLeaf extends BranchTotals {
  /** The branch's tip: its last entry that is not a marker. */
  leafId: string;
  /** The file's leaves (entries without children) that end this branch: the tip, or markers after it. */
  fileLeafIds: string[];
  /** An archive marker of Arbor's hides the branch (its tip or an entry above it; see arbor-entries.ts). */
  archived: boolean;
  /** The last label on the branch's own last segment, if any. */
  label: string | null;
  /** The segment holding the tip (its path to the root: follow `parentId`). */
  segmentId: string;
}

export interface BranchMap {
  /** One per branch, in Pi's order (depth first, children in `/tree` order). */
  leaves: BranchLeaf[];
  /** Every segment, depth first. */
  segments: SegmentInfo[];
}
