/**
 * The structure-first reader's scanner: validates one line of JSON exactly
 * as `JSON.parse` would accept it, without building the value, and keeps only
 * the small fields the tree index needs (see `stub.ts`). Bodies are parsed
 * later, when someone looks at them.
 *
 * Every byte is checked: string characters (escapes, no raw control
 * characters, UTF-8 sequences), numbers, literals and nesting, so nothing is
 * decoded but the small fields kept. A line the scanner accepts is one
 * `JSON.parse` accepts (of the line decoded as UTF-8, invalid bytes read as
 * U+FFFD, as Pi reads them); the fuzz test holds the two to that. Key order and formatting do not matter; a repeated key keeps its
 * last value, as in `JSON.parse`.
 */

import { scanLine } from "./line-scanner.ts";
import { MAX_ENTRY_DEPTH } from "./nesting.ts";
import { decodeKey, decodeString, keepStringMember, scalarValue } from "./skim-decode.ts";
import { DEFERRED_VALUE, messageStub, SkimStub } from "./stub.ts";

/**
 * What `skimLine` found: a JSON object's stub (its small fields; see
 * `skimmedInvalidUtf8` for its bytes), only white space (`"blank"`), or not
 * an object, or not valid JSON (`"other"`: the caller parses the line fully
 * to get `JSON.parse`'s own answer). No object is made per line but the stub.
 */
export type SkimOutcome = Record<string, unknown> | "blank" | "other";

const HEX = new Uint8Array(256);
for (const c of "0123456789abcdefABCDEF") HEX[c.charCodeAt(0)] = 1;
const ESCAPABLE = new Uint8Array(256);
for (const c of '"\\/bfnrt') ESCAPABLE[c.charCodeAt(0)] = 1;

// Byte classes inside a string.
const PLAIN = 0;
const QUOTE = 1;
const BACKSLASH = 2;
const CONTROL = 3;
const NON_ASCII = 4;
const STRING_CLASS = new Uint8Array(256);
for (let c = 0; c < 0x20; c++) STRING_CLASS[c] = CONTROL;
STRING_CLASS[0x22] = QUOTE;
STRING_CLASS[0x5c] = BACKSLASH;
for (let c = 0x80; c < 0x100; c++) STRING_CLASS[c] = NON_ASCII;

/** Scanner state, module-level to keep the hot paths free of allocation. */
let bytes: Uint8Array = new Uint8Array(0);
let end = 0;
/** The buffer of `wordsOf` (the last input) as 32-bit words, and the byte offset of that input in it. */
let words: Int32Array = new Int32Array(0);
let wordsOf: Uint8Array | null = null;
let base = 0;
let stringHasEscape = false;
let stringHasNonAscii = false;
let lineHasInvalidUtf8 = false;
let previousId: unknown;

const FAIL = -1;

/**
 * Skims one line, `input[start, stop)` (by default all of `input`). Bytes
 * outside strings must be JSON; inside strings any byte sequence is accepted,
 * invalid UTF-8 being noted. `previous`: the id of the entry before, which
 * most entries name as their parent. The WebAssembly line scanner answers
 * the common lines (`line-scanner.ts`); the rest are read here.
 */
export function skimLine(input: Uint8Array, previous?: unknown, start = 0, stop = input.length): SkimOutcome {
  lineHasInvalidUtf8 = false;
  return scanLine(input, previous, start, stop) ?? skimLineInJavaScript(input, previous, start, stop);
}

/** `skimLine` without the WebAssembly scanner's fast path: the reference it is held to (tests). */
export function skimLineInJavaScript(
  input: Uint8Array,
  previous: unknown = undefined,
  start = 0,
  stop = input.length,
): SkimOutcome {
  previousId = previous;
  bytes = input;
  end = stop;
  lineHasInvalidUtf8 = false;
  if (input !== wordsOf) {
    // Lines come as ranges of one array per chunk read: its words are made once, not per line.
    wordsOf = input;
    words = new Int32Array(input.buffer, 0, input.buffer.byteLength >> 2);
    base = input.byteOffset;
  }
  let i = skipWhitespace(start);
  if (i === end) return "blank";
  if (bytes[i] !== 0x7b /* { */) return "other";
  const stub = new SkimStub() as Record<string, unknown>;
  i = scanObject(i, stub, 0);
  if (i === FAIL) return "other";
  i = skipWhitespace(i);
  if (i !== end) return "other";
  return stub;
}

/** Whether the line last skimmed to a stub has bytes that are not UTF-8 (they read as U+FFFD). */
export function skimmedInvalidUtf8(): boolean {
  return lineHasInvalidUtf8;
}

/** Where a message's fields are read (its role only: see `scanObject`). */
const messageFields: Record<string, unknown> = { role: undefined };

function skipWhitespace(i: number): number {
  while (i < end) {
    const c = bytes[i]!;
    // Every white space byte is at most 0x20: one test for the usual case, compact JSON.
    if (c > 0x20 || (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09)) break;
    i++;
  }
  return i;
}

/**
 * `i` at `{`. With `into`, primitives are kept (level 0: the entry; level 1:
 * its `message`); without, the object is only validated.
 */
function scanObject(i: number, into: Record<string, unknown> | null, level: number): number {
  i = skipWhitespace(i + 1);
  if (i < end && bytes[i] === 0x7d /* } */) return i + 1;
  for (;;) {
    if (i >= end || bytes[i] !== 0x22) return FAIL;
    const keyStart = i + 1;
    i = scanString(keyStart);
    if (i === FAIL) return FAIL;
    // In the message only the role is kept (see stub.ts): other keys need not even be decoded.
    const key = into
      ? level === 0
        ? decodeKey(bytes, keyStart, i - 1, stringHasEscape, stringHasNonAscii)
        : isRoleKey(keyStart, i - 1) ||
            (stringHasEscape &&
              decodeString(bytes, keyStart, i - 1, stringHasEscape, stringHasNonAscii) === "role")
          ? "role"
          : null
      : null;
    i = skipWhitespace(i);
    if (i >= end || bytes[i] !== 0x3a /* : */) return FAIL;
    i = skipWhitespace(i + 1);
    if (i >= end) return FAIL;
    const c = bytes[i]!;
    if (into && key !== null && key !== "__proto__") {
      if (c === 0x22) {
        const start = i + 1;
        i = scanString(start);
        if (i === FAIL) return FAIL;
        keepStringMember(into, key, bytes, start, i - 1, stringHasEscape, stringHasNonAscii, previousId);
      } else if (c === 0x7b && key === "message" && level === 0) {
        // The message's role is all it keeps: read into one object used for every line.
        messageFields.role = undefined;
        i = scanObject(i, messageFields, 1);
        // One stub per role, shared by every entry (as stub.ts keeps them).
        into[key] = messageStub(messageFields.role);
      } else if (c === 0x7b || c === 0x5b) {
        i = skipValue(i);
        // A placeholder: the key exists and holds a container, its body is read later.
        into[key] = DEFERRED_VALUE;
      } else {
        const start = i;
        i = scanScalar(i);
        if (i === FAIL) return FAIL;
        into[key] = scalarValue(bytes, start, i);
      }
    } else {
      i = skipValue(i);
    }
    if (i === FAIL) return FAIL;
    i = skipWhitespace(i);
    if (i >= end) return FAIL;
    const next = bytes[i]!;
    if (next === 0x7d) return i + 1;
    if (next !== 0x2c /* , */) return FAIL;
    i = skipWhitespace(i + 1);
  }
}

/** Open containers of `skipValue`, reused across calls: 1 = object, 2 = array. */
const OBJECT = 1;
const ARRAY = 2;
const openers = new Uint8Array(MAX_ENTRY_DEPTH);

/**
 * Validates one value from `i` (at its first byte) and returns the index after
 * it. One loop with its own stack of open containers (no recursion, so nesting
 * depth cannot overflow) and no call for structure: most of a session's lines
 * are small keys and values, where calls would cost more than the bytes.
 */
function skipValue(i: number): number {
  const b = bytes;
  const stop = end;
  // Deeper than this and the line is parsed whole, where `nesting.ts` decides (the entry and message take two levels).
  const deepest = MAX_ENTRY_DEPTH - 3;
  let depth = 0;
  for (;;) {
    // At a value.
    if (i >= stop) return FAIL;
    const c = b[i]!;
    if (c === 0x22) {
      i = scanString(i + 1);
      if (i === FAIL) return FAIL;
    } else if (c === 0x7b || c === 0x5b) {
      if (depth >= deepest) return FAIL;
      i++;
      if (i < stop && b[i]! <= 0x20) i = skipWhitespace(i);
      if (i >= stop) return FAIL;
      // An empty container is a complete value, never on the stack. Stepped over by an addition every
      // container makes: an operation first met late (empty ones are rare) has V8 compile the loop again.
      const empty = b[i] === c + 2; /* } or ] */
      i += empty ? 1 : 0;
      if (!empty) {
        openers[depth++] = c === 0x7b ? OBJECT : ARRAY;
        if (c === 0x7b) {
          i = skipKeyColon(i);
          if (i === FAIL) return FAIL;
        }
        continue; // now at a value
      }
    } else if (c >= 0x30 && c <= 0x39) {
      // A number's common form, then the full grammar for a fraction or exponent.
      i++;
      if (c !== 0x30) while (i < stop && isDigit(b[i]!)) i++;
      const next = i < stop ? b[i]! : 0;
      if (next === 0x2e || next === 0x65 || next === 0x45) {
        i = scanFraction(i);
        if (i === FAIL) return FAIL;
      }
    } else {
      i = scanScalar(i);
      if (i === FAIL) return FAIL;
    }
    // After a complete value: close containers or move to the next member.
    for (;;) {
      if (depth === 0) return i;
      if (i < stop && b[i]! <= 0x20) i = skipWhitespace(i);
      if (i >= stop) return FAIL;
      const d = b[i]!;
      const opener = openers[depth - 1]!;
      if (d === 0x2c) {
        i++;
        if (i < stop && b[i]! <= 0x20) i = skipWhitespace(i);
        if (opener === OBJECT) {
          i = skipKeyColon(i);
          if (i === FAIL) return FAIL;
        }
        break; // at a value
      }
      if (d === (opener === OBJECT ? 0x7d : 0x5d)) {
        depth--;
        i++;
        continue;
      }
      return FAIL;
    }
  }
}

/** `i` at a key's `"`; returns the index of the value after `:` and white space. */
function skipKeyColon(i: number): number {
  if (i >= end || bytes[i] !== 0x22) return FAIL;
  i = scanString(i + 1);
  if (i === FAIL) return FAIL;
  if (i < end && bytes[i] === 0x3a) return skipWhitespace(i + 1);
  i = skipWhitespace(i);
  if (i >= end || bytes[i] !== 0x3a) return FAIL;
  return skipWhitespace(i + 1);
}

/**
 * Skips plain string bytes from `i`, four at a time where it can (SWAR: a word
 * is plain when none of its bytes is `"`, `\\`, below 0x20 or above 0x7f; each
 * test below is exact for "any byte"). Returns the first byte that is not plain.
 */
function skipPlain(i: number): number {
  const b = bytes;
  const stop = end;
  const classes = STRING_CLASS;
  while (i < stop && ((base + i) & 3) !== 0) {
    if (classes[b[i]!] !== PLAIN) return i;
    i++;
  }
  let w = (base + i) >> 2;
  const wordsEnd = (base + stop) >> 2;
  const view = words;
  while (w < wordsEnd) {
    const x = view[w]!;
    const quote = x ^ 0x22222222;
    const backslash = x ^ 0x5c5c5c5c;
    const special =
      ((quote - 0x01010101) & ~quote) | ((backslash - 0x01010101) & ~backslash) | ((x - 0x20202020) & ~x) | x;
    if ((special & 0x80808080) !== 0) break;
    w++;
  }
  i = Math.max(i, (w << 2) - base);
  while (i < stop && classes[b[i]!] === PLAIN) i++;
  return i;
}

/** `i` just after the opening quote; returns the index after the closing quote. */
function scanString(i: number): number {
  stringHasEscape = false;
  stringHasNonAscii = false;
  const b = bytes;
  const stop = end;
  const classes = STRING_CLASS;
  // Short strings (most keys and values) byte by byte: cheaper than lining up the word loop.
  const shortEnd = Math.min(i + 16, stop);
  while (i < shortEnd && classes[b[i]!] === PLAIN) i++;
  if (i < stop && b[i] === 0x22) return i + 1;
  for (;;) {
    // The hot loop: most bytes of a session are plain string characters.
    i = skipPlain(i);
    if (i >= stop) return FAIL;
    const kind = classes[b[i]!];
    if (kind === QUOTE) return i + 1;
    if (kind === CONTROL) return FAIL; // JSON strings cannot hold raw control characters
    if (kind === NON_ASCII) {
      stringHasNonAscii = true;
      i = skipUtf8Sequence(i);
      continue;
    }
    stringHasEscape = true;
    if (i + 1 >= stop) return FAIL;
    const e = b[i + 1]!;
    if (e === 0x75 /* u */) {
      if (i + 5 >= stop || !HEX[b[i + 2]!] || !HEX[b[i + 3]!] || !HEX[b[i + 4]!] || !HEX[b[i + 5]!])
        return FAIL;
      i += 6;
    } else if (ESCAPABLE[e] === 1) {
      i += 2;
    } else {
      return FAIL;
    }
  }
}

/**
 * Steps over one UTF-8 sequence at `i` (WHATWG rules), or over the bytes of
 * an invalid one up to where a decoder resumes, noting that the line holds
 * invalid UTF-8.
 */
function skipUtf8Sequence(i: number): number {
  const lead = bytes[i]!;
  let length: number;
  let low = 0x80;
  let high = 0xbf;
  if (lead >= 0xc2 && lead <= 0xdf) length = 2;
  else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    if (lead === 0xe0) low = 0xa0;
    else if (lead === 0xed) high = 0x9f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    if (lead === 0xf0) low = 0x90;
    else if (lead === 0xf4) high = 0x8f;
  } else {
    lineHasInvalidUtf8 = true;
    return i + 1;
  }
  for (let k = 1; k < length; k++) {
    const next = i + k < end ? bytes[i + k]! : -1;
    if (next < low || next > high) {
      lineHasInvalidUtf8 = true;
      return i + k; // the offending byte is read again on its own
    }
    low = 0x80;
    high = 0xbf;
  }
  return i + length;
}

/** Numbers and `true`/`false`/`null`, with JSON's number grammar. */
function scanScalar(i: number): number {
  const c = bytes[i]!;
  if (c === 0x74) return matchLiteral(i, "true");
  if (c === 0x66) return matchLiteral(i, "false");
  if (c === 0x6e) return matchLiteral(i, "null");
  if (c === 0x2d) i++;
  if (i >= end) return FAIL;
  if (bytes[i] === 0x30) i++;
  else if (isDigit(bytes[i]!) && bytes[i] !== 0x30) {
    while (i < end && isDigit(bytes[i]!)) i++;
  } else return FAIL;
  return scanFraction(i);
}

/** The optional fraction and exponent of a number, from `i` after its integer digits. */
function scanFraction(i: number): number {
  if (i < end && bytes[i] === 0x2e) {
    i++;
    if (i >= end || !isDigit(bytes[i]!)) return FAIL;
    while (i < end && isDigit(bytes[i]!)) i++;
  }
  if (i < end && (bytes[i] === 0x65 || bytes[i] === 0x45)) {
    i++;
    if (i < end && (bytes[i] === 0x2b || bytes[i] === 0x2d)) i++;
    if (i >= end || !isDigit(bytes[i]!)) return FAIL;
    while (i < end && isDigit(bytes[i]!)) i++;
  }
  return i;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function matchLiteral(i: number, literal: string): number {
  if (i + literal.length > end) return FAIL;
  for (let k = 0; k < literal.length; k++) if (bytes[i + k] !== literal.charCodeAt(k)) return FAIL;
  return i + literal.length;
}

function isRoleKey(start: number, stop: number): boolean {
  return (
    stop - start === 4 &&
    bytes[start] === 0x72 &&
    bytes[start + 1] === 0x6f &&
    bytes[start + 2] === 0x6c &&
    bytes[start + 3] === 0x65 &&
    !stringHasEscape
  );
}
