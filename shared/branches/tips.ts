/**
 * From segments to the map: which segments end a branch (hold a tip), which
 * file leaves belong to which branch, and what each branch adds up to from
 * its root (summed top-down over the segment tree, each segment once).
 */

import type { EntryFacts } from "../session/facts.ts";
import type { TreeNode } from "../session/tree-index.ts";
import type { BranchLeaf, BranchMap, SegmentInfo } from "./branch-map.ts";
import { type EntryLabel, type EntryPreview, PROMPT, ANSWER, WORK, runFacts } from "./run-facts.ts";
import type { Segment } from "./segments.ts";
import { rankedKeys } from "./tally.ts";

/** What the map adds to the segments' own facts. */
export interface SegmentNotes {
  labelsOf(segment: Segment): EntryLabel[];
  summariesOf(segment: Segment): string[];
  factsOf(node: TreeNode): EntryFacts;
}

/** `order`: every segment, depth first (parents before children). */
export function mapOf(order: readonly Segment[], notes: SegmentNotes): BranchMap {
  const segments = order.map((segment) => segmentInfo(segment, notes));
  return { leaves: branchLeaves(order, notes), segments };
}

function segmentInfo(segment: Segment, notes: SegmentNotes): SegmentInfo {
  return {
    id: segment.id,
    firstId: segment.first.id,
    lastId: segment.last.id,
    parentId: segment.parent?.id ?? null,
    children: segment.children.map((child) => child.id),
    depth: segment.first.depth,
    facts: runFacts(segment.tally, segment.marks, {
      labels: notes.labelsOf(segment),
      branchSummaryIds: notes.summariesOf(segment),
      factsOf: notes.factsOf,
    }),
  };
}

/** A segment's sums from its root down to its end. */
interface Running {
  entries: number;
  turns: number;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  costNanos: number;
  errors: number;
  /** Model names and how often each answered (tiny lists: copied where a segment adds to them). */
  modelNames: string[];
  modelCounts: number[];
  firstPrompt: TreeNode | null;
  lastPrompt: TreeNode | null;
  lastAnswer: TreeNode | null;
  firstWork: TreeNode | null;
  summaries: string[];
}

const NOTHING: Running = {
  entries: 0,
  turns: 0,
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  costNanos: 0,
  errors: 0,
  modelNames: [],
  modelCounts: [],
  firstPrompt: null,
  lastPrompt: null,
  lastAnswer: null,
  firstWork: null,
  summaries: [],
};

function runningThrough(above: Running, segment: Segment, notes: SegmentNotes): Running {
  const { tally, marks } = segment;
  const own = tally.modelCounts;
  let modelNames = above.modelNames;
  let modelCounts = above.modelCounts;
  if (own !== null && own.size > 0) {
    modelNames = modelNames.slice();
    modelCounts = modelCounts.slice();
    for (const [model, times] of own) {
      const at = modelNames.indexOf(model);
      if (at === -1) {
        modelNames.push(model);
        modelCounts.push(times);
      } else modelCounts[at]! += times;
    }
  }
  const summaries = notes.summariesOf(segment);
  return {
    entries: above.entries + tally.entries,
    turns: above.turns + tally.turns,
    input: above.input + tally.input,
    output: above.output + tally.output,
    cacheRead: above.cacheRead + tally.cacheRead,
    cacheWrite: above.cacheWrite + tally.cacheWrite,
    costNanos: above.costNanos + tally.costNanos,
    errors: above.errors + tally.errors,
    modelNames,
    modelCounts,
    firstPrompt: above.firstPrompt ?? marks.first(PROMPT),
    lastPrompt: marks.last(PROMPT) ?? above.lastPrompt,
    lastAnswer: marks.last(ANSWER) ?? above.lastAnswer,
    firstWork: above.firstWork ?? marks.first(WORK),
    summaries: summaries.length === 0 ? above.summaries : [...above.summaries, ...summaries],
  };
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
  // Filled first: written by segment number in depth-first order, an empty array would turn sparse.
  const running: Running[] = new Array<Running>(slotsFor(order)).fill(NOTHING);
  for (const segment of order) {
    const above = segment.parent ? running[segment.parent.number]! : NOTHING;
    running[segment.number] = runningThrough(above, segment, notes);
  }
  const { tips, leavesOf } = tipSegments(order);
  const preview = (node: TreeNode | null): EntryPreview | null =>
    node === null ? null : { entryId: node.id, text: notes.factsOf(node).preview };
  return tips.map((segment) => {
    const sums = running[segment.number]!;
    const tip = segment.marks.last(WORK)!;
    const labels = notes.labelsOf(segment);
    return {
      leafId: tip.id,
      fileLeafIds: (leavesOf[segment.number] ?? []).map((node) => node.id),
      archived: false,
      label: labels.length > 0 ? labels[labels.length - 1]!.label : null,
      segmentId: segment.id,
      entries: sums.entries,
      turns: sums.turns,
      tokens: {
        input: sums.input,
        output: sums.output,
        cacheRead: sums.cacheRead,
        cacheWrite: sums.cacheWrite,
      },
      cost: sums.costNanos / 1e9,
      errors: sums.errors,
      models: rankedKeys(new Map(sums.modelNames.map((name, i) => [name, sums.modelCounts[i]!]))),
      firstPrompt: preview(sums.firstPrompt),
      lastPrompt: preview(sums.lastPrompt),
      lastAnswer: preview(sums.lastAnswer),
      firstTimestamp: sums.firstWork?.entry.timestamp ?? null,
      lastTimestamp: tip.entry.timestamp,
      endsInError: notes.factsOf(tip).isError,
      branchSummaryIds: sums.summaries,
    };
  });
}
