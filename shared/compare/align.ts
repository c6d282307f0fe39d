/**
 * Walking two sequences together. Items with equal keys are matched along a
 * longest common subsequence (jsdiff's `diffArrays`, bounded; past the bound
 * the keys found once on each side, as patience diff does); between two
 * matches, the caller may pair what is left by likeness (an edited prompt
 * with its original). What stays unpaired is removed (left) or added (right).
 */

import { diffArrays } from "diff";

/** One step: a pair (both set), or an item of one side only. */
export interface Step {
  left: number | null;
  right: number | null;
}

/**
 * Pairs items in a gap between two matches: `[leftIndex, rightIndex]` pairs,
 * increasing in both, with `leftFrom <= i < leftTo` and `rightFrom <= j < rightTo`.
 */
export type GapPairer = (
  leftFrom: number,
  leftTo: number,
  rightFrom: number,
  rightTo: number,
) => [number, number][];

/** Edit distance past which `diffArrays` gives up (it costs about length × distance). */
const MAX_EDIT_LENGTH = 4000;
const DIFF_TIMEOUT_MS = 200;

export function alignSequences(
  leftKeys: readonly string[],
  rightKeys: readonly string[],
  pairGap?: GapPairer,
): Step[] {
  const steps: Step[] = [];
  let i = 0;
  let j = 0;
  const gapTo = (leftTo: number, rightTo: number) => {
    for (const [pairLeft, pairRight] of pairGap?.(i, leftTo, j, rightTo) ?? []) {
      while (i < pairLeft) steps.push({ left: i++, right: null });
      while (j < pairRight) steps.push({ left: null, right: j++ });
      steps.push({ left: i++, right: j++ });
    }
    while (i < leftTo) steps.push({ left: i++, right: null });
    while (j < rightTo) steps.push({ left: null, right: j++ });
  };
  for (const [matchLeft, matchRight] of commonAnchors(leftKeys, rightKeys)) {
    gapTo(matchLeft, matchRight);
    steps.push({ left: i++, right: j++ });
  }
  gapTo(leftKeys.length, rightKeys.length);
  return steps;
}

/** Index pairs of equal keys along a longest common subsequence (or, past the bound, a long one). */
export function commonAnchors(leftKeys: readonly string[], rightKeys: readonly string[]): [number, number][] {
  const anchors: [number, number][] = [];
  let start = 0;
  const shorter = Math.min(leftKeys.length, rightKeys.length);
  while (start < shorter && leftKeys[start] === rightKeys[start]) {
    anchors.push([start, start]);
    start++;
  }
  let leftEnd = leftKeys.length;
  let rightEnd = rightKeys.length;
  while (leftEnd > start && rightEnd > start && leftKeys[leftEnd - 1] === rightKeys[rightEnd - 1]) {
    leftEnd--;
    rightEnd--;
  }
  const middle = middleAnchors(leftKeys.slice(start, leftEnd), rightKeys.slice(start, rightEnd));
  for (const [left, right] of middle) anchors.push([left + start, right + start]);
  for (let k = 0; leftEnd + k < leftKeys.length; k++) anchors.push([leftEnd + k, rightEnd + k]);
  return anchors;
}

function middleAnchors(left: string[], right: string[]): [number, number][] {
  if (left.length === 0 || right.length === 0) return [];
  // Two branches past their ancestor often share no key at all: nothing for a diff to find.
  const leftKeys = new Set(left);
  if (!right.some((key) => leftKeys.has(key))) return [];
  const changes = diffArrays(left, right, { maxEditLength: MAX_EDIT_LENGTH, timeout: DIFF_TIMEOUT_MS });
  if (changes === undefined) return uniqueAnchors(left, right);
  const anchors: [number, number][] = [];
  let i = 0;
  let j = 0;
  for (const change of changes) {
    if (change.added) j += change.count;
    else if (change.removed) i += change.count;
    else for (let k = 0; k < change.count; k++) anchors.push([i++, j++]);
  }
  return anchors;
}

/** Patience diff's anchors: keys found exactly once on each side, along their longest increasing run. */
function uniqueAnchors(left: readonly string[], right: readonly string[]): [number, number][] {
  const onceLeft = positionsOnce(left);
  const onceRight = positionsOnce(right);
  const pairs: [number, number][] = [];
  for (const [key, i] of onceLeft) {
    const j = onceRight.get(key);
    if (j !== undefined) pairs.push([i, j]);
  }
  pairs.sort((a, b) => a[0] - b[0]);
  return longestIncreasing(pairs);
}

function positionsOnce(keys: readonly string[]): Map<string, number> {
  const once = new Map<string, number>();
  const repeated = new Set<string>();
  keys.forEach((key, i) => {
    if (once.has(key)) repeated.add(key);
    once.set(key, i);
  });
  for (const key of repeated) once.delete(key);
  return once;
}

/**
 * The longest run of `pairs` (sorted by their first number, each number used
 * once on each side) whose second numbers increase too: O(n log n).
 */
export function longestIncreasing(pairs: readonly [number, number][]): [number, number][] {
  const tails: number[] = [];
  const previous = new Int32Array(pairs.length).fill(-1);
  for (let k = 0; k < pairs.length; k++) {
    const value = pairs[k]![1];
    let low = 0;
    let high = tails.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (pairs[tails[mid]!]![1] < value) low = mid + 1;
      else high = mid;
    }
    if (low > 0) previous[k] = tails[low - 1]!;
    tails[low] = k;
  }
  const run: [number, number][] = [];
  for (let k = tails.length > 0 ? tails[tails.length - 1]! : -1; k !== -1; k = previous[k]!)
    run.push(pairs[k]!);
  return run.reverse();
}
