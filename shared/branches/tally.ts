/**
 * What a run of entries adds up to (a segment of the branch model, a path
 * the compare engine looks at): counts, tokens, cost, tools, models, files.
 * Kept as counts, not sets, so a run can be split by taking one part off
 * (`subtract`) and parts joined (`addTally`), with results equal to adding
 * the entries up afresh. Cost is kept in whole nano-dollars for the same
 * reason: sums and differences of integers are exact, of floats not.
 */

import type { EntryFacts } from "../session/facts.ts";
import { isToolError, startsTurn } from "./entry-kinds.ts";

const NANO = 1e9;

export interface TokenTotals {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/** The plain-data sums of a tally (see `RunSummary` for the fields they share). */
export interface TallyFacts {
  entries: number;
  turns: number;
  tokens: TokenTotals;
  cost: number;
  errors: number;
  models: string[];
  /** Tool calls by name, most called first. */
  toolCalls: Record<string, number>;
  /** Sorted. */
  filesRead: string[];
  /** Sorted. */
  filesModified: string[];
}

export class Tally {
  entries = 0;
  turns = 0;
  input = 0;
  output = 0;
  cacheRead = 0;
  cacheWrite = 0;
  costNanos = 0;
  errors = 0;
  /** Made when first needed: most runs of a map are short and many call no tool. */
  private toolCalls: Map<string, number> | null = null;
  private models: Map<string, number> | null = null;
  private filesRead: Map<string, number> | null = null;
  private filesModified: Map<string, number> | null = null;

  /** Adds (sign 1) or takes off (sign -1) one entry. */
  add(facts: EntryFacts, sign: 1 | -1 = 1): void {
    this.entries += sign;
    if (startsTurn(facts)) this.turns += sign;
    if (isToolError(facts)) this.errors += sign;
    const usage = facts.usage;
    if (usage !== null) {
      this.input += sign * usage.input;
      this.output += sign * usage.output;
      this.cacheRead += sign * usage.cacheRead;
      this.cacheWrite += sign * usage.cacheWrite;
      this.costNanos += sign * Math.round(usage.cost * NANO);
    }
    // Indexed loops: a for-of makes an iterator per entry until the code is optimized, and a map is built cold.
    if (facts.role === "assistant") {
      const names = facts.toolNames;
      for (let i = 0; i < names.length; i++) this.toolCalls = count(this.toolCalls, names[i]!, sign);
      if (facts.model !== null) this.models = count(this.models, facts.model, sign);
    }
    const read = facts.filesRead;
    for (let i = 0; i < read.length; i++) this.filesRead = count(this.filesRead, read[i]!, sign);
    const modified = facts.filesModified;
    for (let i = 0; i < modified.length; i++)
      this.filesModified = count(this.filesModified, modified[i]!, sign);
  }

  /** Adds (sign 1) or takes off (sign -1) a whole run. */
  addTally(other: Tally, sign: 1 | -1 = 1): void {
    this.entries += sign * other.entries;
    this.turns += sign * other.turns;
    this.errors += sign * other.errors;
    this.input += sign * other.input;
    this.output += sign * other.output;
    this.cacheRead += sign * other.cacheRead;
    this.cacheWrite += sign * other.cacheWrite;
    this.costNanos += sign * other.costNanos;
    this.toolCalls = countAll(this.toolCalls, other.toolCalls, sign);
    this.models = countAll(this.models, other.models, sign);
    this.filesRead = countAll(this.filesRead, other.filesRead, sign);
    this.filesModified = countAll(this.filesModified, other.filesModified, sign);
  }

  get cost(): number {
    return this.costNanos / NANO;
  }

  get tokens(): TokenTotals {
    return { input: this.input, output: this.output, cacheRead: this.cacheRead, cacheWrite: this.cacheWrite };
  }

  /** How often each model answered (null when none did); not to be changed. */
  get modelCounts(): ReadonlyMap<string, number> | null {
    return this.models;
  }

  facts(): TallyFacts {
    return {
      entries: this.entries,
      turns: this.turns,
      tokens: this.tokens,
      cost: this.cost,
      errors: this.errors,
      models: rankedKeys(this.models),
      toolCalls: countsRecord(this.toolCalls),
      filesRead: sortedKeys(this.filesRead),
      filesModified: sortedKeys(this.filesModified),
    };
  }
}

function count(counts: Map<string, number> | null, key: string, sign: 1 | -1): Map<string, number> {
  const map = counts ?? new Map<string, number>();
  const next = (map.get(key) ?? 0) + sign;
  if (next === 0) map.delete(key);
  else map.set(key, next);
  return map;
}

function countAll(
  counts: Map<string, number> | null,
  other: ReadonlyMap<string, number> | null,
  sign: 1 | -1,
): Map<string, number> | null {
  if (other === null || other.size === 0) return counts;
  const map = counts ?? new Map<string, number>();
  other.forEach((times, key) => {
    const next = (map.get(key) ?? 0) + sign * times;
    if (next === 0) map.delete(key);
    else map.set(key, next);
  });
  return map;
}

/*
 * A map of thousands of segments reads these for each one: they sort the
 * few keys of a run in place (insertion sort, no allocation) and walk maps
 * with `forEach` (no [key, value] array per entry, as a for-of makes).
 */

/** Keys by count, highest first, ties by key: the same order however the counts were reached. */
export function rankedKeys(counts: ReadonlyMap<string, number> | null): string[] {
  if (counts === null || counts.size === 0) return [];
  if (counts.size === 1) return keysOf(counts);
  const keys = keysOf(counts);
  sortInPlace(keys, (a, b) => counts.get(b)! - counts.get(a)! || compareStrings(a, b));
  return keys;
}

function countsRecord(counts: ReadonlyMap<string, number> | null): Record<string, number> {
  const record: Record<string, number> = {};
  for (const key of rankedKeys(counts)) record[key] = counts!.get(key)!;
  return record;
}

function sortedKeys(counts: ReadonlyMap<string, number> | null): string[] {
  if (counts === null || counts.size === 0) return [];
  const keys = keysOf(counts);
  sortInPlace(keys, compareStrings);
  return keys;
}

function keysOf(counts: ReadonlyMap<string, number>): string[] {
  const keys: string[] = [];
  counts.forEach((_, key) => {
    keys.push(key);
  });
  return keys;
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Insertion sort for the short lists of a run; the built-in sort past a few dozen. */
function sortInPlace(items: string[], compare: (a: string, b: string) => number): void {
  if (items.length > 32) {
    items.sort(compare);
    return;
  }
  for (let i = 1; i < items.length; i++) {
    const item = items[i]!;
    let j = i - 1;
    while (j >= 0 && compare(items[j]!, item) > 0) {
      items[j + 1] = items[j]!;
      j--;
    }
    items[j + 1] = item;
  }
}
