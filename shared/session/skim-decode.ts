/**
 * Decoding the few strings a skim keeps (`skim.ts`): ids, timestamps, types
 * and keys, which repeat or have fixed lengths. `escaped` and `nonAscii`:
 * whether the string holds an escape or a byte above 0x7f, as the scanner
 * saw while scanning it.
 */

import { keepsString } from "./stub.ts";

const utf8 = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });
const fromCharCode = String.fromCharCode;

/**
 * A fresh string of ASCII bytes (never a slice of a larger string, which would
 * keep that alive), made flat in one call: built with `+=`, a string of 13 or
 * more characters is a chain of cons strings, three times the memory of the
 * text (a timestamp kept on every entry). Pi's ids (8 characters) and
 * timestamps (24) are most of them: for those the bytes go to `fromCharCode`
 * as arguments, without the subarray and spread `apply` needs (half the time).
 */
export function asciiString(bytes: Uint8Array, start: number, stop: number): string {
  const b = bytes;
  const at = start;
  const length = stop - start;
  // biome-ignore format: the bytes in rows of eight read better than one to a line
  if (length === 8) return fromCharCode(b[at]!, b[at + 1]!, b[at + 2]!, b[at + 3]!, b[at + 4]!, b[at + 5]!, b[at + 6]!, b[at + 7]!);
  if (length === 24) {
    // biome-ignore format: the bytes in rows of eight read better than one to a line
    return fromCharCode(
      b[at]!, b[at + 1]!, b[at + 2]!, b[at + 3]!, b[at + 4]!, b[at + 5]!, b[at + 6]!, b[at + 7]!,
      b[at + 8]!, b[at + 9]!, b[at + 10]!, b[at + 11]!, b[at + 12]!, b[at + 13]!, b[at + 14]!, b[at + 15]!,
      b[at + 16]!, b[at + 17]!, b[at + 18]!, b[at + 19]!, b[at + 20]!, b[at + 21]!, b[at + 22]!, b[at + 23]!,
    );
  }
  return fromCharCode.apply(null, b.subarray(start, stop) as unknown as number[]);
}

/** Keys repeat on every line: decode each distinct one once. */
const keyCache = new Map<number, string>();

/** Keys (and values decoded as keys) up to this many bytes are remembered by length. */
const LAST_KEY_MAX = 24;

/**
 * The last key decoded of each length, and its bytes: a line's keys mostly
 * repeat the line before's, each its own length. Compared as bytes: cheaper
 * than reading the string back a character at a time.
 */
const lastKeyOfLength: (string | undefined)[] = new Array(LAST_KEY_MAX + 1).fill(undefined);
/** Row `length` holds the bytes of `lastKeyOfLength[length]`. */
const lastKeyBytes = new Uint8Array((LAST_KEY_MAX + 1) * LAST_KEY_MAX);

/** A key (or a value that repeats as keys do, such as a type): the same string each time. */
export function decodeKey(
  bytes: Uint8Array,
  start: number,
  stop: number,
  escaped: boolean,
  nonAscii: boolean,
): string {
  const length = stop - start;
  if (escaped || nonAscii || length > LAST_KEY_MAX)
    return decodeString(bytes, start, stop, escaped, nonAscii);
  const row = length * LAST_KEY_MAX;
  const last = lastKeyOfLength[length];
  if (last !== undefined && sameBytes(lastKeyBytes, row, bytes, start, length)) return last;
  const key = cachedKey(bytes, start, stop);
  lastKeyOfLength[length] = key;
  // A loop: a subarray and `set` for a few bytes cost more than the lookup saves, and this runs
  // often (a role and a key of its length take turns: "assistant" and "timestamp").
  for (let k = 0; k < length; k++) lastKeyBytes[row + k] = bytes[start + k]!;
  return key;
}

function sameBytes(a: Uint8Array, aStart: number, b: Uint8Array, bStart: number, length: number): boolean {
  for (let k = 0; k < length; k++) if (a[aStart + k] !== b[bStart + k]) return false;
  return true;
}

function cachedKey(bytes: Uint8Array, start: number, stop: number): string {
  let hash = stop - start;
  for (let k = start; k < stop; k++) hash = (Math.imul(hash, 31) + bytes[k]!) | 0;
  const cached = keyCache.get(hash);
  if (cached !== undefined && cached.length === stop - start && sameAscii(cached, bytes, start))
    return cached;
  const key = internalized(asciiString(bytes, start, stop));
  if (keyCache.size < 4096) keyCache.set(hash, key);
  return key;
}

/**
 * V8's own copy of `text` as a property name. A key stored under a string
 * that is not one is looked up in V8's table of names, and the string turned
 * into a reference to the name found: each later read of its characters then
 * goes through that reference.
 */
function internalized(text: string): string {
  // No prototype: `__proto__` is then a key like any other.
  const holder = Object.create(null) as Record<string, true>;
  holder[text] = true;
  return Object.keys(holder)[0] ?? text;
}

/** Whether `text` (ASCII) is the bytes from `start`. */
export function sameAscii(text: string, bytes: Uint8Array, start: number): boolean {
  for (let k = 0; k < text.length; k++) if (text.charCodeAt(k) !== bytes[start + k]) return false;
  return true;
}

/**
 * Keeps a string member of an entry in its stub, as the skim keeps them: a
 * type or role decoded once like a key, a `parentId` equal to `previous` (the
 * id of the entry before) as that same string, any other string only if the
 * stub keeps one that long (a longer repeat of the key drops the earlier value).
 */
export function keepStringMember(
  stub: Record<string, unknown>,
  key: string,
  bytes: Uint8Array,
  start: number,
  stop: number,
  escaped: boolean,
  nonAscii: boolean,
  previous: unknown,
): void {
  if (key === "type" || key === "role") stub[key] = decodeKey(bytes, start, stop, escaped, nonAscii);
  else if (key === "parentId") stub[key] = decodeParentId(previous, bytes, start, stop, escaped, nonAscii);
  else if (keepsString(key, stop - start)) stub[key] = decodeString(bytes, start, stop, escaped, nonAscii);
  else delete stub[key];
}

/** A `parentId` equal to `previous` is that same string: decoded once, kept once. */
function decodeParentId(
  previous: unknown,
  bytes: Uint8Array,
  start: number,
  stop: number,
  escaped: boolean,
  nonAscii: boolean,
): string {
  if (
    typeof previous === "string" &&
    !escaped &&
    !nonAscii &&
    previous.length === stop - start &&
    sameAscii(previous, bytes, start)
  )
    return previous;
  return decodeString(bytes, start, stop, escaped, nonAscii);
}

/** A number, `true`, `false` or `null`, from its valid JSON bytes. */
export function scalarValue(bytes: Uint8Array, start: number, stop: number): unknown {
  const c = bytes[start]!;
  if (c === 0x74) return true;
  if (c === 0x66) return false;
  if (c === 0x6e) return null;
  return Number(asciiString(bytes, start, stop));
}

/** Decodes the string between `start` and `stop` (exclusive, quotes excluded) as `JSON.parse` would. */
export function decodeString(
  bytes: Uint8Array,
  start: number,
  stop: number,
  escaped: boolean,
  nonAscii: boolean,
): string {
  if (!escaped && !nonAscii && stop - start <= 32) return asciiString(bytes, start, stop);
  const text = utf8.decode(bytes.subarray(start, stop));
  return escaped ? (JSON.parse(`"${text}"`) as string) : text;
}
