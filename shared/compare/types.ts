/**
 * What the compare engine answers, in plain data: `arbor diff --json` prints
 * a `BranchComparison`; `session.compare` sends it with `CompareDetail`
 * (the aligned messages of some turns, with their text diffs).
 */

import type { RunFacts } from "../branches/run-facts.ts";

/** How an aligned item of one side relates to the other's. */
export type Change = "same" | "changed" | "added" | "removed";

export interface CompareSideResult {
  /** The file the side was read from, as the caller named it (null when not given). */
  file: string | null;
  /** The tip compared. */
  leafId: string;
  /** The side's path after the common ancestor, root to tip. */
  entryIds: string[];
  /** What those entries add up to (the branch model's facts). */
  facts: RunFacts;
}

/**
 * Turns aligned by content: a turn starts at a user message or a
 * custom_message (entries before a side's first turn form a turn of their
 * own). Together the turns list each side's `entryIds` once, in order.
 */
export interface TurnAlignment {
  change: Change;
  left: string[];
  right: string[];
}

/**
 * One step of walking both "what the model sees" sequences (Pi's
 * `convertToLlm` of each tip's context) in order: `left`/`right` are indices
 * into them; `left` is absent for added, `right` for removed.
 */
export interface ContextOp {
  op: Change;
  left?: number;
  right?: number;
}

/** The first aligned place where the two sides' outcomes part; one id is null when only one side has it. */
export interface Divergence {
  leftEntryId: string | null;
  rightEntryId: string | null;
  reason: string;
}

export interface BranchComparison {
  /** The deepest entry on both root paths (by id, across files), or null when they share none. */
  ancestorId: string | null;
  left: CompareSideResult;
  right: CompareSideResult;
  turns: TurnAlignment[];
  context: ContextOp[];
  divergence: Divergence | null;
  /** What was simplified to stay within bounds (a coarser text diff, turns paired by position...). */
  notes: string[];
}

/** A text as shown: cut at a bound, with `more` saying the entry holds more (`session.entry` has it whole). */
export interface ShownText {
  text: string;
  more: boolean;
}

export interface DiffPart {
  op: "same" | "added" | "removed";
  text: string;
}

export type DiffGranularity = "words" | "lines" | "whole";

/** Two aligned messages (or one side's alone) with what a view needs to show them. */
export interface MessagePair {
  change: Change;
  leftEntryId: string | null;
  rightEntryId: string | null;
  /** The message role, or the entry type for other entries. */
  kind: string;
  left: ShownText | null;
  right: ShownText | null;
  /** A changed pair's diff of the two texts (as shown); null otherwise. */
  parts: DiffPart[] | null;
  /** How `parts` was cut: by words (prose), lines (code, tool output), or the texts whole. */
  granularity: DiffGranularity | null;
}

export interface TurnDetail {
  /** Position in `BranchComparison.turns`. */
  turn: number;
  messages: MessagePair[];
}

/** The messages of `turns.length` turns from `from`, aligned, with their diffs. */
export interface CompareDetail {
  from: number;
  turns: TurnDetail[];
}
