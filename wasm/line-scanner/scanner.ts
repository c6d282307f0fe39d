/**
 * The line scanner of the structure-first reader, in AssemblyScript, compiled
 * to WebAssembly (`npm run build:wasm` writes `shared/session/line-scanner-binary.ts`).
 *
 * It checks one line of JSON the way `shared/session/skim.ts` does, 16 bytes
 * at a time inside strings, and records where each member of the entry
 * object lies; `line-scanner.ts` builds the stub from those places. It takes
 * only the common case: a line it is not sure of (anything but a valid object
 * of plain keys and valid UTF-8, or nested deeper than `MAX_DEPTH`) is left
 * to the JavaScript skim, which answers every line exactly. So this scanner
 * may refuse more than it should, never accept more.
 *
 * Memory: `openers` (the stack of open containers), the member table, then
 * the line from `LINE_START`; the caller copies a line there and grows the
 * memory for longer ones. 16 bytes after the line must be addressable: the
 * string loop reads whole blocks.
 */

/** The line does not start with `{` after white space, or is not valid, or is unusual: the JavaScript skim reads it. */
const USE_SKIM: i32 = -2;
/** Only white space. */
const BLANK: i32 = -1;
const FAIL: i32 = -1;

const OPENERS: usize = 0;
const MAX_DEPTH: i32 = 256;
const MEMBERS: usize = 1024;
/** Members of the entry object recorded at most: more, and the JavaScript skim reads the line. */
const MAX_MEMBERS: i32 = 64;
/** i32 slots of a member row: see `recordMember`. */
const ROW_SLOTS: i32 = 8;
export const LINE_START: usize = 4096;

// Value kinds in a member row.
const STRING: i32 = 1;
const OBJECT: i32 = 2;
const ARRAY: i32 = 3;
const NUMBER: i32 = 4;
const LITERAL: i32 = 5;

/** Flags of the last string scanned. */
let hasEscape: bool = false;
let hasNonAscii: bool = false;
/** The line holds bytes that are not UTF-8: left to the JavaScript skim, which notes it. */
let invalidUtf8: bool = false;

/** Where the role of the message being scanned lies, or -1; and its string's flags. */
let roleStart: i32 = -1;
let roleEnd: i32 = -1;
let roleFlags: i32 = 0;

/**
 * Scans the line of `length` bytes at `LINE_START`. Returns the number of
 * members recorded (an object on the fast path), `BLANK`, or `USE_SKIM`.
 * Member rows, from `MEMBERS`, offsets counted from `LINE_START`:
 * key start, key end, value kind, value start, value end (a string's without
 * its quotes), value flags (1: escape, 2: non-ASCII), role start, role end
 * (-1 unless the value is an object holding a string `role`, for `message`),
 * with the role's flags in the kind's high bits (kind | flags << 8).
 */
export function scanLine(length: i32): i32 {
  invalidUtf8 = false;
  const stop = <i32>LINE_START + length;
  let i = skipWhitespace(<i32>LINE_START, stop);
  if (i === stop) return BLANK;
  if (load<u8>(i) !== 0x7b) return USE_SKIM;
  i = skipWhitespace(i + 1, stop);
  let count = 0;
  if (i < stop && load<u8>(i) === 0x7d) {
    i++;
  } else {
    for (;;) {
      if (i >= stop || load<u8>(i) !== 0x22) return USE_SKIM;
      const keyStart = i + 1;
      i = scanString(keyStart, stop);
      if (i === FAIL || hasEscape || hasNonAscii) return USE_SKIM;
      const keyEnd = i - 1;
      i = skipWhitespace(i, stop);
      if (i >= stop || load<u8>(i) !== 0x3a) return USE_SKIM;
      i = skipWhitespace(i + 1, stop);
      if (i >= stop || count === MAX_MEMBERS) return USE_SKIM;
      const c = load<u8>(i);
      const valueStart = i;
      let kind = LITERAL;
      let flags = 0;
      roleStart = -1;
      roleEnd = -1;
      roleFlags = 0;
      if (c === 0x22) {
        kind = STRING;
        i = scanString(i + 1, stop);
        flags = (hasEscape ? 1 : 0) | (hasNonAscii ? 2 : 0);
      } else if (c === 0x7b && isMessageKey(keyStart, keyEnd)) {
        kind = OBJECT;
        i = scanMessage(i, stop);
      } else {
        if (c === 0x7b) kind = OBJECT;
        else if (c === 0x5b) kind = ARRAY;
        else if (c !== 0x74 && c !== 0x66 && c !== 0x6e) kind = NUMBER;
        i = skipValue(i, stop);
      }
      if (i === FAIL) return USE_SKIM;
      const quoted = kind === STRING ? 1 : 0;
      recordMember(count, keyStart, keyEnd, kind | (roleFlags << 8), valueStart + quoted, i - quoted, flags);
      count++;
      i = skipWhitespace(i, stop);
      if (i >= stop) return USE_SKIM;
      const next = load<u8>(i);
      i++;
      if (next === 0x7d) break;
      if (next !== 0x2c) return USE_SKIM;
      i = skipWhitespace(i, stop);
    }
  }
  if (skipWhitespace(i, stop) !== stop || invalidUtf8) return USE_SKIM;
  return count;
}

function recordMember(
  row: i32,
  keyStart: i32,
  keyEnd: i32,
  kind: i32,
  valueStart: i32,
  valueEnd: i32,
  flags: i32,
): void {
  const at = MEMBERS + <usize>(row * ROW_SLOTS) * 4;
  const base = <i32>LINE_START;
  store<i32>(at, keyStart - base);
  store<i32>(at + 4, keyEnd - base);
  store<i32>(at + 8, kind);
  store<i32>(at + 12, valueStart - base);
  store<i32>(at + 16, valueEnd - base);
  store<i32>(at + 20, flags);
  store<i32>(at + 24, roleStart < 0 ? -1 : roleStart - base);
  store<i32>(at + 28, roleEnd < 0 ? -1 : roleEnd - base);
}

/** `i` at a message's `{`: validates it and notes its last `role` (a string; anything else goes to the skim). */
function scanMessage(i: i32, stop: i32): i32 {
  i = skipWhitespace(i + 1, stop);
  if (i < stop && load<u8>(i) === 0x7d) return i + 1;
  for (;;) {
    if (i >= stop || load<u8>(i) !== 0x22) return FAIL;
    const keyStart = i + 1;
    i = scanString(keyStart, stop);
    // An escaped key may spell "role": the skim decodes it.
    if (i === FAIL || hasEscape) return FAIL;
    const isRole = isRoleKey(keyStart, i - 1);
    i = skipWhitespace(i, stop);
    if (i >= stop || load<u8>(i) !== 0x3a) return FAIL;
    i = skipWhitespace(i + 1, stop);
    if (i >= stop) return FAIL;
    if (isRole) {
      if (load<u8>(i) !== 0x22) return FAIL;
      const start = i + 1;
      i = scanString(start, stop);
      if (i === FAIL) return FAIL;
      roleStart = start;
      roleEnd = i - 1;
      roleFlags = (hasEscape ? 1 : 0) | (hasNonAscii ? 2 : 0);
    } else {
      i = skipValue(i, stop);
      if (i === FAIL) return FAIL;
    }
    i = skipWhitespace(i, stop);
    if (i >= stop) return FAIL;
    const next = load<u8>(i);
    if (next === 0x7d) return i + 1;
    if (next !== 0x2c) return FAIL;
    i = skipWhitespace(i + 1, stop);
  }
  // biome-ignore lint/correctness/noUnreachable: AssemblyScript wants a return after an endless loop
  return FAIL;
}

function isMessageKey(start: i32, stop: i32): bool {
  // "message": "mess" and "age" as little-endian words.
  return stop - start === 7 && load<u32>(start) === 0x7373656d && load<u32>(start + 3) === 0x65676173;
}

function isRoleKey(start: i32, stop: i32): bool {
  return stop - start === 4 && load<u32>(start) === 0x656c6f72;
}

function skipWhitespace(i: i32, stop: i32): i32 {
  while (i < stop) {
    const c = load<u8>(i);
    if (c > 0x20 || (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09)) break;
    i++;
  }
  return i;
}

/** One value from `i` (at its first byte) with its own stack of open containers; the index after it, or `FAIL`. */
function skipValue(i: i32, stop: i32): i32 {
  let depth = 0;
  for (;;) {
    // At a value.
    if (i >= stop) return FAIL;
    const c = load<u8>(i);
    if (c === 0x22) {
      i = scanString(i + 1, stop);
      if (i === FAIL) return FAIL;
    } else if (c === 0x7b || c === 0x5b) {
      if (depth >= MAX_DEPTH) return FAIL;
      i = skipWhitespace(i + 1, stop);
      if (i >= stop) return FAIL;
      if (load<u8>(i) === c + 2) {
        i++; // empty: `}` or `]`
      } else {
        store<u8>(OPENERS + <usize>depth, c);
        depth++;
        if (c === 0x7b) {
          i = skipKeyColon(i, stop);
          if (i === FAIL) return FAIL;
        }
        continue;
      }
    } else {
      i = scanScalar(i, stop);
      if (i === FAIL) return FAIL;
    }
    // After a complete value: close containers or move to the next member.
    for (;;) {
      if (depth === 0) return i;
      i = skipWhitespace(i, stop);
      if (i >= stop) return FAIL;
      const d = load<u8>(i);
      const opener = load<u8>(OPENERS + <usize>(depth - 1));
      if (d === 0x2c) {
        i = skipWhitespace(i + 1, stop);
        if (opener === 0x7b) {
          i = skipKeyColon(i, stop);
          if (i === FAIL) return FAIL;
        }
        break;
      }
      if (d !== opener + 2) return FAIL;
      depth--;
      i++;
    }
  }
  // biome-ignore lint/correctness/noUnreachable: AssemblyScript wants a return after an endless loop
  return FAIL;
}

/** `i` at a key's `"`; the index of the value after `:` and white space. */
function skipKeyColon(i: i32, stop: i32): i32 {
  if (i >= stop || load<u8>(i) !== 0x22) return FAIL;
  i = scanString(i + 1, stop);
  if (i === FAIL) return FAIL;
  i = skipWhitespace(i, stop);
  if (i >= stop || load<u8>(i) !== 0x3a) return FAIL;
  return skipWhitespace(i + 1, stop);
}

/** `i` just after the opening quote; the index after the closing quote, or `FAIL`. */
function scanString(i: i32, stop: i32): i32 {
  hasEscape = false;
  hasNonAscii = false;
  const quote = i8x16.splat(0x22);
  const backslash = i8x16.splat(0x5c);
  const space = i8x16.splat(0x20);
  for (;;) {
    // 16 bytes a turn: a byte is special when it is `"`, `\`, below 0x20 or above 0x7f (its sign bit).
    for (;;) {
      const v = v128.load(i);
      const special = v128.or(v128.or(i8x16.eq(v, quote), i8x16.eq(v, backslash)), i8x16.lt_u(v, space));
      const bits = i8x16.bitmask(special) | i8x16.bitmask(v);
      if (bits !== 0) {
        i += ctz(bits);
        break;
      }
      i += 16;
      if (i >= stop) return FAIL;
    }
    if (i >= stop) return FAIL;
    const c = load<u8>(i);
    if (c === 0x22) return i + 1;
    if (c < 0x20) return FAIL; // JSON strings cannot hold raw control characters
    if (c >= 0x80) {
      hasNonAscii = true;
      i = skipUtf8Sequence(i, stop);
      continue;
    }
    hasEscape = true;
    if (i + 1 >= stop) return FAIL;
    const e = load<u8>(i + 1);
    if (e === 0x75) {
      if (i + 5 >= stop) return FAIL;
      if (
        !isHex(load<u8>(i + 2)) ||
        !isHex(load<u8>(i + 3)) ||
        !isHex(load<u8>(i + 4)) ||
        !isHex(load<u8>(i + 5))
      )
        return FAIL;
      i += 6;
    } else if (
      e === 0x22 ||
      e === 0x5c ||
      e === 0x2f ||
      e === 0x62 ||
      e === 0x66 ||
      e === 0x6e ||
      e === 0x72 ||
      e === 0x74
    ) {
      i += 2;
    } else {
      return FAIL;
    }
  }
  // biome-ignore lint/correctness/noUnreachable: AssemblyScript wants a return after an endless loop
  return FAIL;
}

/** Steps over one UTF-8 sequence (WHATWG rules); an invalid one is noted and stepped over as a decoder would. */
function skipUtf8Sequence(i: i32, stop: i32): i32 {
  const lead: u32 = load<u8>(i);
  let length = 0;
  let low: u32 = 0x80;
  let high: u32 = 0xbf;
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    if (lead === 0xe0) low = 0xa0;
    else if (lead === 0xed) high = 0x9f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    if (lead === 0xf0) low = 0x90;
    else if (lead === 0xf4) high = 0x8f;
  } else {
    invalidUtf8 = true;
    return i + 1;
  }
  for (let k = 1; k < length; k++) {
    const next: u32 = i + k < stop ? <u32>load<u8>(i + k) : 0;
    if (next < low || next > high) {
      invalidUtf8 = true;
      return i + k;
    }
    low = 0x80;
    high = 0xbf;
  }
  return i + length;
}

/** `true`, `false`, `null` or a number in JSON's grammar. */
function scanScalar(i: i32, stop: i32): i32 {
  const c = load<u8>(i);
  if (c === 0x74) return i + 4 <= stop && load<u32>(i) === 0x65757274 ? i + 4 : FAIL; // true
  if (c === 0x6e) return i + 4 <= stop && load<u32>(i) === 0x6c6c756e ? i + 4 : FAIL; // null
  if (c === 0x66) return i + 5 <= stop && load<u32>(i + 1) === 0x65736c61 ? i + 5 : FAIL; // false
  if (c === 0x2d) i++;
  if (i >= stop) return FAIL;
  const first = load<u8>(i);
  if (first === 0x30) i++;
  else if (isDigit(first)) i = skipDigits(i + 1, stop);
  else return FAIL;
  if (i < stop && load<u8>(i) === 0x2e) {
    i++;
    if (i >= stop || !isDigit(load<u8>(i))) return FAIL;
    i = skipDigits(i + 1, stop);
  }
  if (i < stop && (load<u8>(i) | 0x20) === 0x65) {
    i++;
    if (i < stop && (load<u8>(i) === 0x2b || load<u8>(i) === 0x2d)) i++;
    if (i >= stop || !isDigit(load<u8>(i))) return FAIL;
    i = skipDigits(i + 1, stop);
  }
  return i;
}

function skipDigits(i: i32, stop: i32): i32 {
  while (i < stop && isDigit(load<u8>(i))) i++;
  return i;
}

function isDigit(c: u32): bool {
  return c - 0x30 < 10;
}

function isHex(c: u32): bool {
  return c - 0x30 < 10 || (c | 0x20) - 0x61 < 6;
}
