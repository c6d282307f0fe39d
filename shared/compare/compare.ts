/**
 * The compare engine: two tips (of one file, or of two files of a lineage)
 * side by side. `compareBranches` finds their common ancestor, the paths
 * after it, each path's facts, the turns and messages aligned, the walk of
 * both contexts as the model sees them, and the first place their outcomes
 * part; on request, the aligned messages of some turns with their text
 * diffs (bounded in time: see text-diff.ts). Pure: bodies are read through
 * each side's `EntryReader`.
 */

import type { Step } from "./align.ts";
import { contextOps, contextSequence } from "./context-diff.ts";
import { findDivergence } from "./divergence.ts";
import { type MessageItem, messageItem, sameContent } from "./message-text.ts";
import { type CompareSide, commonAncestor, rootPath, sideFacts, sidePath } from "./paths.ts";
import { DiffBudget, diffTexts } from "./text-diff.ts";
import { alignMessages, alignTurns, pairChange, splitTurns, type Turn } from "./turns.ts";
import type {
  BranchComparison,
  CompareDetail,
  CompareSideResult,
  MessagePair,
  ShownText,
  TurnAlignment,
} from "./types.ts";

export interface CompareOptions {
  /** Also the aligned messages of the turns `[from, from + count)`, with their diffs. */
  detail?: { from: number; count: number } | undefined;
  /** Time all text diffs of the detail may take together (default 1,500 ms); past it, texts are shown whole. */
  diffBudgetMs?: number | undefined;
  /** Texts are shown (and diffed) up to this many characters (default 8,000). */
  maxShownChars?: number | undefined;
  now?: (() => number) | undefined;
}

export interface ComparisonWithDetail extends BranchComparison {
  detail: CompareDetail | null;
}

const DEFAULT_DIFF_BUDGET_MS = 1500;
const DEFAULT_MAX_SHOWN_CHARS = 8000;

/** Throws when a tip is not in its index (callers check ids first and say so in their own words). */
export function compareBranches(
  left: CompareSide,
  right: CompareSide,
  options: CompareOptions = {},
): ComparisonWithDetail {
  const leftRoot = rootPath(left.index, left.tipId);
  const rightRoot = rootPath(right.index, right.tipId);
  if (leftRoot.length === 0 || rightRoot.length === 0) {
    throw new Error(`compareBranches: no entry "${leftRoot.length === 0 ? left.tipId : right.tipId}"`);
  }
  const { ancestorId, leftAfter, rightAfter } = commonAncestor(leftRoot, rightRoot);
  const leftPath = sidePath(left, leftRoot.slice(leftAfter));
  const rightPath = sidePath(right, rightRoot.slice(rightAfter));
  const itemsOf = (path: typeof leftPath) =>
    path.nodes.map((node, i) => messageItem(node, path.entries[i]!, path.facts[i]!));
  const leftTurns = splitTurns(itemsOf(leftPath));
  const rightTurns = splitTurns(itemsOf(rightPath));
  const notes = new Set<string>();
  const turnSteps = alignTurns(leftTurns, rightTurns, notes);
  const messageSteps = turnSteps.map((step) =>
    step.left !== null && step.right !== null
      ? alignMessages(leftTurns[step.left]!.items, rightTurns[step.right]!.items)
      : null,
  );
  const turns = turnSteps.map((step, t) => turnAlignment(step, leftTurns, rightTurns, messageSteps[t]!));
  const context = contextOps(
    contextSequence(left),
    contextSequence(right),
    left.index === right.index,
    pairedEntries(turnSteps, leftTurns, rightTurns, messageSteps),
  );
  const side = (of: CompareSide, path: typeof leftPath): CompareSideResult => ({
    file: of.file ?? null,
    leafId: of.tipId,
    entryIds: path.nodes.map((node) => node.id),
    facts: sideFacts(of.index, path),
  });
  const detail = options.detail
    ? compareDetail(options, turnSteps, leftTurns, rightTurns, messageSteps, notes)
    : null;
  return {
    ancestorId,
    left: side(left, leftPath),
    right: side(right, rightPath),
    turns,
    context,
    divergence: findDivergence(turnSteps, leftTurns, rightTurns, messageSteps),
    notes: [...notes],
    detail,
  };
}

function turnAlignment(
  step: Step,
  leftTurns: readonly Turn[],
  rightTurns: readonly Turn[],
  messages: Step[] | null,
): TurnAlignment {
  const left = step.left === null ? [] : leftTurns[step.left]!.items;
  const right = step.right === null ? [] : rightTurns[step.right]!.items;
  const change =
    messages === null ? (step.left === null ? "added" : "removed") : pairChange(left, right, messages);
  return { change, left: left.map((item) => item.node.id), right: right.map((item) => item.node.id) };
}

/** Right entry id to left entry id, for the messages aligned inside paired turns. */
function pairedEntries(
  turnSteps: readonly Step[],
  leftTurns: readonly Turn[],
  rightTurns: readonly Turn[],
  messageSteps: readonly (Step[] | null)[],
): Map<string, string> {
  const paired = new Map<string, string>();
  turnSteps.forEach((turn, t) => {
    for (const step of messageSteps[t] ?? []) {
      if (step.left === null || step.right === null) continue;
      const left = leftTurns[turn.left!]!.items[step.left]!;
      const right = rightTurns[turn.right!]!.items[step.right]!;
      paired.set(right.node.id, left.node.id);
    }
  });
  return paired;
}

function compareDetail(
  options: CompareOptions,
  turnSteps: readonly Step[],
  leftTurns: readonly Turn[],
  rightTurns: readonly Turn[],
  messageSteps: readonly (Step[] | null)[],
  notes: Set<string>,
): CompareDetail {
  const { from, count } = options.detail!;
  const budget = new DiffBudget(options.diffBudgetMs ?? DEFAULT_DIFF_BUDGET_MS, options.now);
  const maxChars = options.maxShownChars ?? DEFAULT_MAX_SHOWN_CHARS;
  const turns: CompareDetail["turns"] = [];
  for (let t = Math.max(0, from); t < Math.min(turnSteps.length, from + count); t++) {
    const step = turnSteps[t]!;
    const left = step.left === null ? [] : leftTurns[step.left]!.items;
    const right = step.right === null ? [] : rightTurns[step.right]!.items;
    const steps =
      messageSteps[t] ??
      (step.left === null
        ? right.map((_, j) => ({ left: null, right: j }))
        : left.map((_, i) => ({ left: i, right: null })));
    const messages = steps.map((message) =>
      messagePair(
        message.left === null ? null : left[message.left]!,
        message.right === null ? null : right[message.right]!,
        budget,
        maxChars,
      ),
    );
    turns.push({ turn: t, messages });
  }
  for (const note of budget.notes) notes.add(note);
  return { from, turns };
}

function messagePair(
  left: MessageItem | null,
  right: MessageItem | null,
  budget: DiffBudget,
  maxChars: number,
): MessagePair {
  const shown = (item: MessageItem | null): ShownText | null =>
    item === null
      ? null
      : {
          text: item.text.length > maxChars ? item.text.slice(0, maxChars) : item.text,
          more: item.text.length > maxChars,
        };
  const pair: MessagePair = {
    change:
      left === null ? "added" : right === null ? "removed" : sameContent(left, right) ? "same" : "changed",
    leftEntryId: left?.node.id ?? null,
    rightEntryId: right?.node.id ?? null,
    kind: (left ?? right)!.kind,
    left: shown(left),
    right: shown(right),
    parts: null,
    granularity: null,
  };
  if (pair.change === "changed" && pair.left && pair.right) {
    const textKind = left!.textKind === "code" || right!.textKind === "code" ? "code" : "prose";
    const diff = diffTexts(pair.left.text, pair.right.text, textKind, budget);
    pair.parts = diff.parts;
    pair.granularity = diff.granularity;
  }
  return pair;
}
