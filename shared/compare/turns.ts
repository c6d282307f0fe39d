/**
 * Turns and the messages in them, aligned between two paths. A turn starts
 * at a prompt (a user message or a custom_message); entries before a path's
 * first prompt form a turn of their own (the rest of the ancestor's turn).
 * Turns with the same prompt are matched first; between matches, turns are
 * paired by how alike their prompts are (an edited prompt with its
 * original). Inside a pair, messages are matched by role and tool calls, and
 * what is left is paired by role, in order.
 */

import { startsTurn } from "../branches/entry-kinds.ts";
import { alignSequences, type Step } from "./align.ts";
import { type MessageItem, sameContent } from "./message-text.ts";
import type { Change } from "./types.ts";

export interface Turn {
  items: MessageItem[];
  /** The prompt's text; null for the entries before a path's first prompt. */
  prompt: string | null;
}

/** Two prompts this alike (shared words over all words) are an edit of one another. */
const ALIKE = 0.3;
/** Between two matched turns, at most this many turns of each side are compared with each other. */
const MAX_GAP_PAIRS = 40_000;
/** Past that, a turn is compared with this many turns ahead on the other side. */
const GAP_WINDOW = 16;

export function splitTurns(items: readonly MessageItem[]): Turn[] {
  const turns: Turn[] = [];
  let current: Turn | null = null;
  for (const item of items) {
    if (startsTurn(item.facts)) {
      current = { items: [item], prompt: item.text };
      turns.push(current);
    } else if (current) {
      current.items.push(item);
    } else {
      current = { items: [item], prompt: null };
      turns.push(current);
    }
  }
  return turns;
}

/** Turns aligned: equal prompts matched, then look-alike prompts paired; `notes` hears of a coarse pairing. */
export function alignTurns(left: readonly Turn[], right: readonly Turn[], notes: Set<string>): Step[] {
  const keyOf = (turn: Turn) =>
    turn.prompt === null ? "\u0000before the first prompt" : normalized(turn.prompt);
  const leftWords = left.map((turn) => wordsOf(turn.prompt));
  const rightWords = right.map((turn) => wordsOf(turn.prompt));
  const pairGap = (leftFrom: number, leftTo: number, rightFrom: number, rightTo: number) => {
    const similarity = (i: number, j: number) => likeness(leftWords[i]!, rightWords[j]!);
    if ((leftTo - leftFrom) * (rightTo - rightFrom) <= MAX_GAP_PAIRS) {
      return bestPairs(leftFrom, leftTo, rightFrom, rightTo, similarity);
    }
    notes.add("Many turns differ: edited prompts were looked for only among nearby turns.");
    return nearbyPairs(leftFrom, leftTo, rightFrom, rightTo, similarity);
  };
  return alignSequences(left.map(keyOf), right.map(keyOf), pairGap);
}

/** Messages of two paired turns aligned: by role and tools, then the rest paired by role in order. */
export function alignMessages(left: readonly MessageItem[], right: readonly MessageItem[]): Step[] {
  const pairGap = (leftFrom: number, leftTo: number, rightFrom: number, rightTo: number) => {
    const pairs: [number, number][] = [];
    let j = rightFrom;
    for (let i = leftFrom; i < leftTo && j < rightTo; i++) {
      for (let k = j; k < rightTo; k++) {
        if (left[i]!.kind === right[k]!.kind) {
          pairs.push([i, k]);
          j = k + 1;
          break;
        }
      }
    }
    return pairs;
  };
  return alignSequences(
    left.map((item) => item.key),
    right.map((item) => item.key),
    pairGap,
  );
}

/** Same when every message is matched and says the same; changed otherwise. */
export function pairChange(
  left: readonly MessageItem[],
  right: readonly MessageItem[],
  steps: readonly Step[],
): Change {
  for (const step of steps) {
    if (step.left === null || step.right === null) return "changed";
    if (!sameContent(left[step.left]!, right[step.right]!)) return "changed";
  }
  return "same";
}

function normalized(text: string): string {
  return text.trim().replace(/\s+/g, " ");
}

function wordsOf(text: string | null): Set<string> {
  return new Set((text ?? "").toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []);
}

/** Shared words over all words (Jaccard); two empty prompts are not alike. */
function likeness(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let shared = 0;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  for (const word of small) if (large.has(word)) shared++;
  return shared / (a.size + b.size - shared);
}

/** The order-keeping pairs of alike turns with the most likeness in all (dynamic programming). */
function bestPairs(
  leftFrom: number,
  leftTo: number,
  rightFrom: number,
  rightTo: number,
  similarity: (i: number, j: number) => number,
): [number, number][] {
  const rows = leftTo - leftFrom;
  const columns = rightTo - rightFrom;
  if (rows === 0 || columns === 0) return [];
  const width = columns + 1;
  const score = new Float64Array((rows + 1) * width);
  const alike = new Float64Array(rows * columns);
  for (let r = rows - 1; r >= 0; r--) {
    for (let c = columns - 1; c >= 0; c--) {
      const value = similarity(leftFrom + r, rightFrom + c);
      alike[r * columns + c] = value;
      const skip = Math.max(score[(r + 1) * width + c]!, score[r * width + c + 1]!);
      const take = value >= ALIKE ? value + score[(r + 1) * width + c + 1]! : -1;
      score[r * width + c] = Math.max(skip, take);
    }
  }
  const pairs: [number, number][] = [];
  let r = 0;
  let c = 0;
  while (r < rows && c < columns) {
    const value = alike[r * columns + c]!;
    if (value >= ALIKE && score[r * width + c] === value + score[(r + 1) * width + c + 1]!) {
      pairs.push([leftFrom + r, rightFrom + c]);
      r++;
      c++;
    } else if (score[r * width + c] === score[(r + 1) * width + c]) r++;
    else c++;
  }
  return pairs;
}

/** Each turn paired with the most alike of the next few on the other side, in order. */
function nearbyPairs(
  leftFrom: number,
  leftTo: number,
  rightFrom: number,
  rightTo: number,
  similarity: (i: number, j: number) => number,
): [number, number][] {
  const pairs: [number, number][] = [];
  let j = rightFrom;
  for (let i = leftFrom; i < leftTo && j < rightTo; i++) {
    let best = -1;
    let bestValue = ALIKE;
    for (let k = j; k < Math.min(rightTo, j + GAP_WINDOW); k++) {
      const value = similarity(i, k);
      if (value >= bestValue) {
        best = k;
        bestValue = value;
        if (value === 1) break;
      }
    }
    if (best >= 0) {
      pairs.push([i, best]);
      j = best + 1;
    }
  }
  return pairs;
}
