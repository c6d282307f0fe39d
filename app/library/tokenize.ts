/**
 * Search terms: runs of letters, digits and combining marks, 2 to 40 UTF-16
 * code units long, lowercased. The same rule cuts the indexed text and the
 * query, so a query term always meets the terms it was cut from.
 *
 * Indexing cuts hundreds of megabytes of text on a cold scan, so the cutter
 * is a loop over char codes with table lookups (character class, lowercase)
 * and a per-session hash set that slices a term out of the text only the
 * first time that session meets it.
 */

export const MIN_TERM_LENGTH = 2;
export const MAX_TERM_LENGTH = 40;
/** A session with more distinct terms than this (a huge generated file written by a tool) keeps the first ones. */
export const MAX_TERMS_PER_SESSION = 250_000;

const UNKNOWN = 0;
const WORD = 1;
const SEPARATOR = 2;
/** Class of every UTF-16 code unit, filled in lazily outside ASCII. */
const CLASS = new Uint8Array(65536);
/** Lowercase of every code unit that lowercases to one code unit (else itself), filled in with `CLASS`. */
const LOWER = new Uint16Array(65536);
for (let c = 0; c < 128; c++) {
  const isWord = (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
  CLASS[c] = isWord ? WORD : SEPARATOR;
  LOWER[c] = c >= 0x41 && c <= 0x5a ? c + 0x20 : c;
}
const WORD_CHARACTER = /^[\p{L}\p{N}\p{M}]$/u;

function classify(code: number): number {
  const character = String.fromCharCode(code);
  // Lone surrogates (emoji, rare CJK extensions) never match: they separate terms.
  const kind = WORD_CHARACTER.test(character) ? WORD : SEPARATOR;
  const lower = character.toLowerCase();
  LOWER[code] = lower.length === 1 ? lower.charCodeAt(0) : code;
  CLASS[code] = kind;
  return kind;
}

/** Calls `found(start, end)` for every term of `text`, in order. */
function forEachTerm(text: string, found: (start: number, end: number) => void): void {
  const length = text.length;
  let start = -1;
  for (let i = 0; i <= length; i++) {
    const code = i < length ? text.charCodeAt(i) : 0x20;
    let kind = CLASS[code]!;
    if (kind === UNKNOWN) kind = classify(code);
    if (kind === WORD) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      const termLength = i - start;
      if (termLength >= MIN_TERM_LENGTH && termLength <= MAX_TERM_LENGTH) found(start, i);
      start = -1;
    }
  }
}

/** The terms of `text` in order, repeats included. */
export function termsOf(text: string): string[] {
  const terms: string[] = [];
  forEachTerm(text, (start, end) => terms.push(text.slice(start, end).toLowerCase()));
  return terms;
}

/** The distinct terms of a query, in the order typed. Shorter pieces than a term are dropped. */
export function queryTerms(query: string): string[] {
  return [...new Set(termsOf(query))];
}

/**
 * The distinct terms of one session. An open-addressing table keyed by two
 * independent 32-bit hashes and the length finds a term already seen without
 * slicing it out of the text or comparing characters (a false match needs
 * both hashes to collide: about one in 2^64 per pair of terms).
 */
export class TermSet {
  readonly terms: string[] = [];
  private slots = new Int32Array(1024);
  /** Per term: first hash, second hash, length. */
  private keys = new Int32Array(3 * 512);

  get size(): number {
    return this.terms.length;
  }

  add(text: string): void {
    if (this.terms.length >= MAX_TERMS_PER_SESSION) return;
    const length = text.length;
    let start = -1;
    let hash = 0;
    let hash2 = 0;
    for (let i = 0; i <= length; i++) {
      const raw = i < length ? text.charCodeAt(i) : 0x20;
      let kind = CLASS[raw]!;
      if (kind === UNKNOWN) kind = classify(raw);
      if (kind === WORD) {
        const code = LOWER[raw]!;
        if (start < 0) {
          start = i;
          hash = 0x811c9dc5;
          hash2 = 0x9747b28c;
        }
        hash = Math.imul(hash ^ code, 0x01000193);
        hash2 = Math.imul(hash2 + code, 0x5bd1e995) ^ (hash2 >>> 15);
      } else if (start >= 0) {
        const termLength = i - start;
        if (termLength >= MIN_TERM_LENGTH && termLength <= MAX_TERM_LENGTH) {
          this.insert(text, start, termLength, hash, hash2);
        }
        start = -1;
      }
    }
  }

  private insert(text: string, start: number, termLength: number, hash: number, hash2: number): void {
    const mask = this.slots.length - 1;
    const keys = this.keys;
    let slot = hash & mask;
    for (;;) {
      const held = this.slots[slot]!;
      if (held === 0) break;
      const k = 3 * (held - 1);
      if (keys[k] === hash && keys[k + 1] === hash2 && keys[k + 2] === termLength) return;
      slot = (slot + 1) & mask;
    }
    if (this.terms.length >= MAX_TERMS_PER_SESSION) return;
    const index = this.terms.length;
    this.terms.push(text.slice(start, start + termLength).toLowerCase());
    if (3 * index + 3 > this.keys.length) {
      const grown = new Int32Array(this.keys.length * 2);
      grown.set(this.keys);
      this.keys = grown;
    }
    this.keys[3 * index] = hash;
    this.keys[3 * index + 1] = hash2;
    this.keys[3 * index + 2] = termLength;
    this.slots[slot] = index + 1;
    // Keep the table at most half full.
    if (this.terms.length * 2 > this.slots.length) this.rehash();
  }

  private rehash(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    for (let index = 0; index < this.terms.length; index++) {
      let slot = this.keys[3 * index]! & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = index + 1;
    }
    this.slots = slots;
  }
}

export interface TextMatch {
  /** Where, in `text`, the first term a query term starts begins. */
  index: number;
  length: number;
}

/**
 * Whether every query term starts some term of `text` (the query's terms are
 * prefixes, as the index searches them). Returns where the earliest matching
 * term is, for a snippet, or `null`.
 */
export function matchText(text: string, terms: readonly string[]): TextMatch | null {
  if (terms.length === 0) return null;
  const seen = new Array<boolean>(terms.length).fill(false);
  let remaining = terms.length;
  let first: TextMatch | null = null;
  forEachTerm(text, (start, end) => {
    if (remaining === 0) return;
    const term = text.slice(start, end).toLowerCase();
    for (let t = 0; t < terms.length; t++) {
      if (!term.startsWith(terms[t]!)) continue;
      first ??= { index: start, length: end - start };
      if (!seen[t]) {
        seen[t] = true;
        remaining--;
      }
    }
  });
  return remaining === 0 ? first : null;
}

/** Ranges `[start, end)` of the terms of `text` that a query term starts. */
export function matchRanges(text: string, terms: readonly string[]): [number, number][] {
  const ranges: [number, number][] = [];
  forEachTerm(text, (start, end) => {
    const term = text.slice(start, end).toLowerCase();
    if (terms.some((query) => term.startsWith(query))) ranges.push([start, end]);
  });
  return ranges;
}
