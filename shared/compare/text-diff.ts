/**
 * Text diffs with jsdiff, bounded in time: word by word for prose, line by
 * line for code and tool output. A diff that runs out of time (or is too
 * long to be worth it) falls back to a coarser one, lines, then the two
 * texts whole, and the budget notes it; a compare never freezes on two long,
 * different texts. One budget is shared by all the diffs of a compare.
 */

import { type Change as JsDiffChange, diffLines, diffWordsWithSpace } from "diff";
import type { TextKind } from "./message-text.ts";
import type { DiffGranularity, DiffPart } from "./types.ts";

/** No single diff gets more than this, whatever is left of the budget. */
const MAX_DIFF_MS = 100;
/** Edit distance past which a diff gives up (in tokens: words, or lines). */
const MAX_EDIT_LENGTH = 20_000;

export class DiffBudget {
  readonly notes = new Set<string>();
  private readonly deadline: number;

  constructor(
    totalMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.deadline = now() + totalMs;
  }

  /** Milliseconds the next diff may take (0 when the budget is spent). */
  allowance(): number {
    return Math.max(0, Math.min(MAX_DIFF_MS, this.deadline - this.now()));
  }
}

export interface TextDiff {
  parts: DiffPart[];
  granularity: DiffGranularity;
}

export function diffTexts(left: string, right: string, kind: TextKind, budget: DiffBudget): TextDiff {
  if (kind === "prose") {
    const words = bounded(budget, (timeout) =>
      diffWordsWithSpace(left, right, { timeout, maxEditLength: MAX_EDIT_LENGTH }),
    );
    if (words) return { parts: partsOf(words), granularity: "words" };
    budget.notes.add(
      "Some texts were too long or too different to compare word by word in time: compared by lines.",
    );
  }
  const lines = bounded(budget, (timeout) =>
    diffLines(left, right, { timeout, maxEditLength: MAX_EDIT_LENGTH }),
  );
  if (lines) return { parts: partsOf(lines), granularity: "lines" };
  budget.notes.add("Some texts were too long or too different to compare line by line in time: shown whole.");
  return { parts: wholeParts(left, right), granularity: "whole" };
}

/** Runs a diff with what is left of the budget; undefined when there is none or it ran out. */
function bounded(
  budget: DiffBudget,
  diff: (timeout: number) => JsDiffChange[] | undefined,
): JsDiffChange[] | undefined {
  const allowance = budget.allowance();
  return allowance > 0 ? diff(allowance) : undefined;
}

function partsOf(changes: readonly JsDiffChange[]): DiffPart[] {
  const parts: DiffPart[] = [];
  for (const change of changes) {
    if (change.value === "") continue;
    parts.push({ op: change.added ? "added" : change.removed ? "removed" : "same", text: change.value });
  }
  return parts;
}

function wholeParts(left: string, right: string): DiffPart[] {
  const parts: DiffPart[] = [];
  if (left) parts.push({ op: "removed", text: left });
  if (right) parts.push({ op: "added", text: right });
  return parts;
}
