/**
 * From segments to the map: which segments end a branch (hold a tip), which
 * file leaves belong to which branch, and what each branch adds up to from
 * its root (summed top-down over the segment tree, each segment once).
 */

import type { EntryFacts } from "../session/facts.ts";
import type { TreeNode } from "../session/tree-index.ts";
import type { BranchLeaf, BranchMap, SegmentInfo, SegmentSummary } from "./branch-map.ts";
import { ANSWER, type EntryLabel, PROMPT, previewOf, runSummary, WORK } from "./run-facts.ts";
import type { Segment } from "./segments.ts";

/** What the map adds to the segments' own facts. */
export interface SegmentNotes {
  labelsOf(segment: Segment): EntryLabel[];
  summariesOf(segment: Segment): string[];
  factsOf(node: TreeNode): EntryFacts;
  /** Whether `tip` (the tip of a branch ending in `segment`) is in a branch Arbor archived. */
  isArchivedTip(segment: Segment, tip: TreeNode): boolean;
}

/**
 * `order`: every segment, depth first (parents before children). A window
 * asks for the map of a large session once, cold: the code runs mostly
 * before it is optimized, so it makes few objects per segment and sums in
 * typed arrays.
 */
export function mapOf(order: readonly Segment[], notes: SegmentNotes): BranchMap {
  const segments: SegmentInfo[] = [];
  for (const segment of order) segments.push(segmentInfo(segment, notes));
  return { leaves: branchLeaves(order, notes), segments };
}

function segmentInfo(segment: Segment, notes: SegmentNotes): SegmentInfo {
  const children: string[] = [];
  for (const child of segment.children) children.push(child.id);
  const summary = runSummary(segment.tally, segment.marks, notes.summariesOf(segment), notes.factsOf);
  const facts: SegmentSummary = Object.assign(summary, { labels: notes.labelsOf(segment) });
  return {
    id: segment.id,
    firstId: segment.first.id,
    lastId: segment.last.id,
    parentId: segment.parent === null ? null : segment.parent.id,
    children,
    depth: segment.first.depth,
    facts,
  };
}

/** Each segment's sums from its root down to its end, by segment number. */
class RunningSums {
  readonly entries: Float64Array;
  readonly turns: Float64Array;
  readonly input: Float64Array;
  readonly output: Float64Array;
  readonly cacheRead: Float64Array;
  readonly cacheWrite: Float64Array;
  readonly costNanos: Float64Array;
  readonly errors: Float64Array;
  /** Model names and how often each answered: tiny lists, shared with the parent unless a segment adds. */
  readonly modelNames: string[][];
  readonly modelCounts: number[][];
  readonly firstPrompt: (TreeNode | null)[];
  readonly lastPrompt: (TreeNode | null)[];
  readonly lastAnswer: (TreeNode | null)[];
  readonly firstWork: (TreeNode | null)[];
  readonly summaries: string[][];

  constructor(slots: number) {
    this.entries = new Float64Array(slots);
    this.turns = new Float64Array(slots);
    this.input = new Float64Array(slots);
    this.output = new Float64Array(slots);
    this.cacheRead = new Float64Array(slots);
    this.cacheWrite = new Float64Array(slots);
    this.costNanos = new Float64Array(slots);
    this.errors = new Float64Array(slots);
    // Filled first: written by segment number in depth-first order, an empty array would turn sparse.
    this.modelNames = new Array<string[]>(slots).fill([]);
    this.modelCounts = new Array<number[]>(slots).fill([]);
    this.firstPrompt = new Array<TreeNode | null>(slots).fill(null);
    this.lastPrompt = new Array<TreeNode | null>(slots).fill(null);
    this.lastAnswer = new Array<TreeNode | null>(slots).fill(null);
    this.firstWork = new Array<TreeNode | null>(slots).fill(null);
    this.summaries = new Array<string[]>(slots).fill([]);
  }

  /** Adds `segment` to its parent's sums (`above`: the parent's number, -1 at a root). */
  add(segment: Segment, above: number, notes: SegmentNotes): void {
    const at = segment.number;
    const { tally, marks } = segment;
    const from = (column: Float64Array) => (above < 0 ? 0 : column[above]!);
    this.entries[at] = from(this.entries) + tally.entries;
    this.turns[at] = from(this.turns) + tally.turns;
    this.input[at] = from(this.input) + tally.input;
    this.output[at] = from(this.output) + tally.output;
    this.cacheRead[at] = from(this.cacheRead) + tally.cacheRead;
    this.cacheWrite[at] = from(this.cacheWrite) + tally.cacheWrite;
    this.costNanos[at] = from(this.costNanos) + tally.costNanos;
    this.errors[at] = from(this.errors) + tally.errors;
    const parent = above < 0 ? null : above;
    this.firstPrompt[at] = (parent === null ? null : this.firstPrompt[parent]!) ?? marks.first(PROMPT);
    this.lastPrompt[at] = marks.last(PROMPT) ?? (parent === null ? null : this.lastPrompt[parent]!);
    this.lastAnswer[at] = marks.last(ANSWER) ?? (parent === null ? null : this.lastAnswer[parent]!);
    this.firstWork[at] = (parent === null ? null : this.firstWork[parent]!) ?? marks.first(WORK);
    const summaries = notes.summariesOf(segment);
    const aboveSummaries = parent === null ? [] : this.summaries[parent]!;
    this.summaries[at] = summaries.length === 0 ? aboveSummaries : [...aboveSummaries, ...summaries];
    this.addModels(at, parent, tally.modelCounts);
  }

  private addModels(at: number, parent: number | null, own: ReadonlyMap<string, number> | null): void {
    let names = parent === null ? [] : this.modelNames[parent]!;
    let counts = parent === null ? [] : this.modelCounts[parent]!;
    if (own !== null && own.size > 0) {
      names = names.slice();
      counts = counts.slice();
      own.forEach((times, model) => {
        const found = names.indexOf(model);
        if (found === -1) {
          names.push(model);
          counts.push(times);
        } else counts[found]! += times;
      });
    }
    this.modelNames[at] = names;
    this.modelCounts[at] = counts;
  }

  /** A branch's models, most used first (ties by name), as `rankedKeys` orders a tally's. */
  models(at: number): string[] {
    const names = this.modelNames[at]!.slice();
    const counts = this.modelCounts[at]!;
    const countOf = (name: string) => counts[this.modelNames[at]!.indexOf(name)]!;
    // A handful of names: an insertion sort.
    for (let i = 1; i < names.length; i++) {
      const name = names[i]!;
      let j = i - 1;
      while (
        j >= 0 &&
        (countOf(names[j]!) < countOf(name) || (countOf(names[j]!) === countOf(name) && names[j]! > name))
      ) {
        names[j + 1] = names[j]!;
        j--;
      }
      names[j + 1] = name;
    }
    return names;
  }
}

/** One more than the largest segment number in `order`: the length of arrays indexed by segment number. */
function slotsFor(order: readonly Segment[]): number {
  let most = -1;
  for (const segment of order) if (segment.number > most) most = segment.number;
  return most + 1;
}

/** Where each branch ends, in depth-first order, and which file leaves end it (by tip segment number). */
function tipSegments(order: readonly Segment[]): { tips: Segment[]; leavesOf: TreeNode[][] } {
  const slots = slotsFor(order);
  const position = new Int32Array(slots);
  order.forEach((segment, i) => {
    position[segment.number] = i;
  });
  // Bottom-up: whether a subtree holds work (an entry that is not a marker), and its first tip.
  const hasWork = new Uint8Array(slots);
  const firstTip: (Segment | null)[] = new Array<Segment | null>(slots).fill(null);
  for (let i = order.length - 1; i >= 0; i--) {
    const segment = order[i]!;
    const own = segment.marks.last(WORK) !== null;
    let below = false;
    let tipBelow: Segment | null = null;
    for (const child of segment.children) {
      if (hasWork[child.number]) below = true;
      tipBelow ??= firstTip[child.number]!;
    }
    hasWork[segment.number] = own || below ? 1 : 0;
    firstTip[segment.number] = own && !below ? segment : tipBelow;
  }
  const tips: Segment[] = [];
  const ends: (Segment[] | null)[] = new Array<Segment[] | null>(slots).fill(null);
  const give = (tip: Segment, from: Segment) => {
    const list = ends[tip.number]! ?? [];
    for (const leaf of leafSegments(from)) list.push(leaf);
    ends[tip.number] = list;
  };
  for (const segment of order) {
    if (firstTip[segment.number] === segment) {
      tips.push(segment);
      give(segment, segment);
    } else if (hasWork[segment.number]) {
      // Markers hanging off a segment with work below it: the first branch through it takes them.
      const tip = firstTip[segment.number]!;
      for (const child of segment.children) if (!hasWork[child.number]) give(tip, child);
    }
  }
  // Each branch's file leaves in depth-first order.
  const leavesOf: TreeNode[][] = new Array<TreeNode[]>(slots).fill([]);
  for (const tip of tips) {
    const segments = ends[tip.number] ?? [];
    if (segments.length > 1) segments.sort((a, b) => position[a.number]! - position[b.number]!);
    leavesOf[tip.number] = segments.map((segment) => segment.last);
  }
  return { tips, leavesOf };
}

/** The segments without children under `top` (itself included). */
function leafSegments(top: Segment): Segment[] {
  const leaves: Segment[] = [];
  const stack = [top];
  while (stack.length > 0) {
    const segment = stack.pop()!;
    if (segment.children.length === 0) leaves.push(segment);
    for (let i = segment.children.length - 1; i >= 0; i--) stack.push(segment.children[i]!);
  }
  return leaves;
}

function branchLeaves(order: readonly Segment[], notes: SegmentNotes): BranchLeaf[] {
  const sums = new RunningSums(slotsFor(order));
  for (const segment of order) sums.add(segment, segment.parent === null ? -1 : segment.parent.number, notes);
  const { tips, leavesOf } = tipSegments(order);
  const leaves: BranchLeaf[] = [];
  for (const segment of tips) {
    const at = segment.number;
    const tip = segment.marks.last(WORK)!;
    const labels = notes.labelsOf(segment);
    const fileLeafIds: string[] = [];
    for (const node of leavesOf[at] ?? []) fileLeafIds.push(node.id);
    const firstWork = sums.firstWork[at]!;
    leaves.push({
      leafId: tip.id,
      fileLeafIds,
      archived: notes.isArchivedTip(segment, tip),
      label: labels.length > 0 ? labels[labels.length - 1]!.label : null,
      segmentId: segment.id,
      entries: sums.entries[at]!,
      turns: sums.turns[at]!,
      tokens: {
        input: sums.input[at]!,
        output: sums.output[at]!,
        cacheRead: sums.cacheRead[at]!,
        cacheWrite: sums.cacheWrite[at]!,
      },
      cost: sums.costNanos[at]! / 1e9,
      errors: sums.errors[at]!,
      models: sums.models(at),
      firstPrompt: previewOf(sums.firstPrompt[at]!, notes.factsOf),
      lastPrompt: previewOf(sums.lastPrompt[at]!, notes.factsOf),
      lastAnswer: previewOf(sums.lastAnswer[at]!, notes.factsOf),
      firstTimestamp: firstWork === null ? null : firstWork.entry.timestamp,
      lastTimestamp: tip.entry.timestamp,
      endsInError: notes.factsOf(tip).isError,
      branchSummaryIds: sums.summaries[at]!,
    });
  }
  return leaves;
}
