/**
 * The facts of a run of entries in path order (a segment, a branch, the part
 * of a path the compare engine looks at): the tally's sums, plus where its
 * prompts and answers are, its time span, labels, and how it ended. The map
 * shows a summary of each run (`RunSummary`: numbers and previews); the full
 * facts (`RunFacts`: tool calls, files, labels too) are made on request.
 */

import type { EntryFacts } from "../session/facts.ts";
import type { TreeNode } from "../session/tree-index.ts";
import { isAnswer, marksOnly, startsTurn } from "./entry-kinds.ts";
import { rankedKeys, type Tally, type TallyFacts, type TokenTotals } from "./tally.ts";

/** An entry and its one-line preview. */
export interface EntryPreview {
  entryId: string;
  text: string;
}

export interface EntryLabel {
  entryId: string;
  label: string;
}

/** What the map shows of a run: its sums and where it starts and ends. */
export interface RunSummary {
  entries: number;
  /** Turns started in the run: user messages and custom_messages. */
  turns: number;
  tokens: TokenTotals;
  /** Sum of `usage.cost.total` of the assistant messages (dollars). */
  cost: number;
  /** Tool results with `isError` and bash executions with a non-zero exit code. */
  errors: number;
  /** Models of the assistant messages, most used first. */
  models: string[];
  /** The first and last prompt (user message or custom_message), the last answer (assistant text). */
  firstPrompt: EntryPreview | null;
  lastPrompt: EntryPreview | null;
  lastAnswer: EntryPreview | null;
  /** Timestamps of the run's first and last entries that are not markers (null when it has none). */
  firstTimestamp: string | null;
  lastTimestamp: string | null;
  /** Its last entry that is not a marker stopped on an error, was aborted, or is a tool error. */
  endsInError: boolean;
  /** `branch_summary` entries whose `fromId` is on it: it was left with a summary. */
  branchSummaryIds: string[];
}

/** All the facts of a run. */
export interface RunFacts extends RunSummary, TallyFacts {
  /** Labels on its entries as they are now, in path order. */
  labels: EntryLabel[];
}

/** Kinds of entry a run remembers the first and last of. */
export const PROMPT = 0;
export const ANSWER = 1;
/** Any entry that is not a marker (label, name, Arbor mark). */
export const WORK = 2;
export type MarkKind = 0 | 1 | 2;
export const MARK_KINDS: readonly MarkKind[] = [PROMPT, ANSWER, WORK];

export function isOfKind(kind: MarkKind, facts: EntryFacts): boolean {
  if (kind === PROMPT) return startsTurn(facts);
  if (kind === ANSWER) return isAnswer(facts);
  return !marksOnly(facts);
}

/** The first and the last entry of each kind in a run, noted in path order. */
export class RunMarks {
  /** `[first, last]` of PROMPT, then of ANSWER, then of WORK. */
  readonly nodes: (TreeNode | null)[] = [null, null, null, null, null, null];

  /** Called per entry of a whole session: unrolled. */
  note(node: TreeNode, facts: EntryFacts): void {
    const nodes = this.nodes;
    if (startsTurn(facts)) {
      nodes[0] ??= node;
      nodes[1] = node;
    }
    if (isAnswer(facts)) {
      nodes[2] ??= node;
      nodes[3] = node;
    }
    if (!marksOnly(facts)) {
      nodes[4] ??= node;
      nodes[5] = node;
    }
  }

  first(kind: MarkKind): TreeNode | null {
    return this.nodes[2 * kind]!;
  }

  last(kind: MarkKind): TreeNode | null {
    return this.nodes[2 * kind + 1]!;
  }

  set(kind: MarkKind, first: TreeNode | null, last: TreeNode | null): void {
    this.nodes[2 * kind] = first;
    this.nodes[2 * kind + 1] = last;
  }
}

/** What a run's facts need beyond its tally and marks. */
export interface RunContext {
  labels: EntryLabel[];
  branchSummaryIds: string[];
  factsOf: (node: TreeNode) => EntryFacts;
}

/** A run's summary from its tally and marks: numbers and previews only, cheap for thousands of segments. */
export function runSummary(
  tally: Tally,
  marks: RunMarks,
  branchSummaryIds: string[],
  factsOf: (node: TreeNode) => EntryFacts,
): RunSummary {
  const firstWork = marks.first(WORK);
  const lastWork = marks.last(WORK);
  return {
    entries: tally.entries,
    turns: tally.turns,
    tokens: tally.tokens,
    cost: tally.cost,
    errors: tally.errors,
    models: rankedKeys(tally.modelCounts),
    firstPrompt: previewOf(marks.first(PROMPT), factsOf),
    lastPrompt: previewOf(marks.last(PROMPT), factsOf),
    lastAnswer: previewOf(marks.last(ANSWER), factsOf),
    firstTimestamp: firstWork === null ? null : firstWork.entry.timestamp,
    lastTimestamp: lastWork === null ? null : lastWork.entry.timestamp,
    endsInError: lastWork !== null && factsOf(lastWork).isError,
    branchSummaryIds,
  };
}

export function previewOf(
  node: TreeNode | null,
  factsOf: (node: TreeNode) => EntryFacts,
): EntryPreview | null {
  return node === null ? null : { entryId: node.id, text: factsOf(node).preview };
}

export function runFacts(tally: Tally, marks: RunMarks, context: RunContext): RunFacts {
  const preview = (node: TreeNode | null): EntryPreview | null =>
    node === null ? null : { entryId: node.id, text: context.factsOf(node).preview };
  const firstWork = marks.first(WORK);
  const lastWork = marks.last(WORK);
  const sums = tally.facts();
  // Field by field, not spread: a spread object is slower to make (cold, it may hold its fields in a
  // dictionary), and a map makes thousands.
  return {
    entries: sums.entries,
    turns: sums.turns,
    tokens: sums.tokens,
    cost: sums.cost,
    errors: sums.errors,
    models: sums.models,
    toolCalls: sums.toolCalls,
    filesRead: sums.filesRead,
    filesModified: sums.filesModified,
    firstPrompt: preview(marks.first(PROMPT)),
    lastPrompt: preview(marks.last(PROMPT)),
    lastAnswer: preview(marks.last(ANSWER)),
    firstTimestamp: firstWork?.entry.timestamp ?? null,
    lastTimestamp: lastWork?.entry.timestamp ?? null,
    labels: context.labels,
    endsInError: lastWork !== null && context.factsOf(lastWork).isError,
    branchSummaryIds: context.branchSummaryIds,
  };
}
