/**
 * The branch model of a session: what a user means by "my branches".
 *
 * - A *segment* is a maximal run of entries between branch points (see
 *   segments.ts); segments form a tree.
 * - A *branch* is a path from a root to a leaf; its *tip* is its last entry
 *   that is not a marker (a label, a session name, an Arbor `custom` entry:
 *   entry-kinds.ts), so appending a label makes no new branch. A leaf that is
 *   a marker belongs to the branch of its nearest ancestor that is not: the
 *   branch whose tip that ancestor is, or, when the ancestor has work below
 *   it, the first branch (in Pi's order) through it.
 * - Facts per segment and per branch: entries, turns, first and last prompt,
 *   last answer, time span, models, usage, cost, tool calls, tool errors,
 *   files read and changed, labels, how it ended (run-facts.ts, tally.ts).
 *
 * `BranchModel.build` makes it in one pass over the index (no body reads: the
 * facts an entry adds come from `EntryFacts`); `update` adds what was
 * appended to the index in place. `branchMap` is the plain-data form the CLI
 * and the window are given.
 */

import { archivedTargets } from "../session/arbor-entries.ts";
import type { EntryReader } from "../session/entry-reader.ts";
import type { SessionIndex, TreeNode } from "../session/tree-index.ts";
import type { BranchMap } from "./branch-map.ts";
import { type EntryLabel, MARK_KINDS, type RunFacts, RunMarks, runFacts } from "./run-facts.ts";
import { type Segment, SegmentTree } from "./segments.ts";
import { Tally } from "./tally.ts";
import { mapOf, type SegmentNotes } from "./tips.ts";

export class BranchModel {
  private readonly tree: SegmentTree;
  private map: BranchMap | null = null;

  private constructor(
    readonly index: SessionIndex,
    private readonly reader: EntryReader,
  ) {
    this.tree = new SegmentTree(index, reader);
  }

  /** The model of an index; its entries' facts are read through `reader` (kept from the parse for large files). */
  static build(index: SessionIndex, reader: EntryReader): BranchModel {
    return new BranchModel(index, reader);
  }

  /**
   * Catches up with entries appended to the index in place (an index that
   * `extendSessionIndex` rebuilt is a new object and needs a new model).
   * Returns whether anything was appended.
   */
  update(): boolean {
    if (!this.tree.update()) return false;
    this.map = null;
    return true;
  }

  /** The map: every branch and every segment with their facts (built once per state of the index). */
  branchMap(): BranchMap {
    this.map ??= mapOf(this.tree.preorder(), this.notes());
    return this.map;
  }

  /** The id of the segment holding an entry. */
  segmentIdOf(entryId: string): string | undefined {
    const node = this.index.nodes.get(entryId);
    return node ? this.tree.segmentOf(node)?.id : undefined;
  }

  /** The full facts of the segment `segmentId` (tool calls and files too); undefined when there is none. */
  segmentFacts(segmentId: string): RunFacts | undefined {
    const first = this.index.nodes.get(segmentId);
    const segment = first && this.tree.segmentOf(first);
    if (!segment || segment.first !== first) return undefined;
    const notes = this.notes();
    return runFacts(segment.tally, segment.marks, {
      labels: notes.labelsOf(segment),
      branchSummaryIds: notes.summariesOf(segment),
      factsOf: (node) => this.reader.factsOfNode(node),
    });
  }

  /**
   * The full facts of the branch whose tip is `tipId` (tool calls and files
   * too, which the map gives per segment only), from its root to the end of
   * its last segment; undefined when `tipId` is no branch's tip.
   */
  branchFacts(tipId: string): RunFacts | undefined {
    const leaf = this.branchMap().leaves.find((candidate) => candidate.leafId === tipId);
    const tip = this.index.nodes.get(tipId);
    const last = tip && this.tree.segmentOf(tip);
    if (!leaf || !last) return undefined;
    const path: Segment[] = [];
    for (let segment: Segment | null = last; segment; segment = segment.parent) path.push(segment);
    path.reverse();
    const tally = new Tally();
    const marks = new RunMarks();
    for (const segment of path) {
      tally.addTally(segment.tally);
      for (const kind of MARK_KINDS) {
        const first = marks.first(kind) ?? segment.marks.first(kind);
        marks.set(kind, first, segment.marks.last(kind) ?? marks.last(kind));
      }
    }
    const notes = this.notes();
    return runFacts(tally, marks, {
      labels: path.flatMap((segment) => notes.labelsOf(segment)),
      branchSummaryIds: path.flatMap((segment) => notes.summariesOf(segment)),
      factsOf: (node) => this.reader.factsOfNode(node),
    });
  }

  /**
   * Whether a tip is archived: an archive target at or above it. The targets
   * are placed in their segments once; a tip then walks its segments up to
   * the root (no entry walk). Nothing at all for a session without markers.
   */
  private archivedTips(): (segment: Segment, tip: TreeNode) => boolean {
    const targets = archivedTargets(this.index, this.reader);
    if (targets.size === 0) return () => false;
    // Per segment, the shallowest target in it: everything from it down is archived.
    const shallowest = new Map<Segment, number>();
    for (const id of targets) {
      const node = this.index.nodes.get(id);
      const segment = node && this.tree.segmentOf(node);
      if (!node || !segment) continue;
      shallowest.set(segment, Math.min(shallowest.get(segment) ?? Infinity, node.depth));
    }
    return (segment, tip) => {
      const own = shallowest.get(segment);
      if (own !== undefined && own <= tip.depth) return true;
      for (let above = segment.parent; above; above = above.parent) if (shallowest.has(above)) return true;
      return false;
    };
  }

  /** Labels and branch summaries by segment, and facts by node: what the map adds to the segments' own. */
  private notes(): SegmentNotes {
    const { index, tree, reader } = this;
    const labeled = new Map<Segment, TreeNode[]>();
    for (const targetId of index.labels.keys()) {
      const node = index.nodes.get(targetId);
      const segment = node && tree.segmentOf(node);
      if (segment) labeled.set(segment, [...(labeled.get(segment) ?? []), node]);
    }
    const summarized = new Map<Segment, TreeNode[]>();
    for (const summary of tree.branchSummaries) {
      const fromId = summary.entry.fromId;
      const from = typeof fromId === "string" ? index.nodes.get(fromId) : undefined;
      const segment = from && tree.segmentOf(from);
      if (segment) summarized.set(segment, [...(summarized.get(segment) ?? []), summary]);
    }
    // In path order: by depth inside a segment; summaries in file order.
    const labels = new Map<Segment, EntryLabel[]>();
    for (const [segment, nodes] of labeled) {
      nodes.sort((a, b) => a.depth - b.depth);
      labels.set(
        segment,
        nodes.map((node) => ({ entryId: node.id, label: index.labels.get(node.id)!.label })),
      );
    }
    const summaries = new Map<Segment, string[]>();
    for (const [segment, nodes] of summarized) {
      summaries.set(
        segment,
        nodes.sort((a, b) => a.line - b.line).map((node) => node.id),
      );
    }
    return {
      labelsOf: (segment) => labels.get(segment) ?? [],
      summariesOf: (segment) => summaries.get(segment) ?? [],
      factsOf: (node) => reader.factsOfNode(node),
      isArchivedTip: this.archivedTips(),
    };
  }
}
