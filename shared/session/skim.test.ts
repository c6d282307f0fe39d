/**
 * The skim must accept exactly the lines `JSON.parse` accepts (as objects),
 * and keep the same small fields. Random valid lines, then random damage.
 */

import { describe, expect, it } from "vitest";
import { MAX_ENTRY_DEPTH } from "./nesting.ts";
import { skimLine, skimmedInvalidUtf8 } from "./skim.ts";

type Skimmed =
  | { kind: "object"; stub: Record<string, unknown>; invalidUtf8: boolean }
  | { kind: "blank" | "other" };

/** `skimLine`'s answer as one object, for the assertions. */
function skimmed(...args: Parameters<typeof skimLine>): Skimmed {
  const outcome = skimLine(...args);
  return typeof outcome === "string"
    ? { kind: outcome }
    : { kind: "object", stub: outcome, invalidUtf8: skimmedInvalidUtf8() };
}
import { DEFERRED_VALUE } from "./stub.ts";

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = [
  "a",
  "Z",
  "0",
  " ",
  "\n",
  "\t",
  '"',
  "\\",
  "/",
  "é",
  "✓",
  "🌳",
  "\u2028",
  "\u0001",
  "\u001f",
  "{",
  "}",
];

function randomString(random: () => number, max: number): string {
  let text = "";
  const length = Math.floor(random() * max);
  for (let i = 0; i < length; i++) text += PIECES[Math.floor(random() * PIECES.length)];
  return text;
}

function randomValue(random: () => number, depth: number): unknown {
  const pick = random();
  if (depth > 3 || pick < 0.3) return randomString(random, 12);
  if (pick < 0.4) return Math.floor(random() * 2000) - 1000;
  if (pick < 0.45) return random() * 1e6;
  if (pick < 0.5) return [true, false, null][Math.floor(random() * 3)];
  if (pick < 0.7)
    return Array.from({ length: Math.floor(random() * 4) }, () => randomValue(random, depth + 1));
  return randomObject(random, depth + 1);
}

function randomObject(random: () => number, depth: number): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  const keys = ["type", "id", "parentId", "timestamp", "message", "role", "content", randomString(random, 6)];
  const count = Math.floor(random() * 6);
  for (let i = 0; i < count; i++)
    object[keys[Math.floor(random() * keys.length)]!] = randomValue(random, depth);
  return object;
}

function randomEntryLine(random: () => number): string {
  const entry: Record<string, unknown> = {
    type: "message",
    id: Math.floor(random() * 0xffffffff)
      .toString(16)
      .padStart(8, "0"),
    parentId: random() < 0.2 ? null : "abcd1234",
    timestamp: new Date(1_700_000_000_000 + Math.floor(random() * 1e9)).toISOString(),
    message: {
      role: random() < 0.5 ? "user" : "assistant",
      content: randomValue(random, 1),
      extra: randomObject(random, 2),
    },
    ...randomObject(random, 1),
  };
  let line = JSON.stringify(entry);
  // Formatting must not matter: add white space between tokens sometimes.
  if (random() < 0.3) line = JSON.stringify(entry, null, random() < 0.5 ? 1 : "\t").replace(/\n/g, " ");
  return line;
}

const encoder = new TextEncoder();
const lenient = new TextDecoder("utf-8", { ignoreBOM: true });
const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function damage(random: () => number, bytes: Uint8Array): Uint8Array {
  const copy = Array.from(bytes);
  const edits = 1 + Math.floor(random() * 3);
  const junk = [
    0x00, 0x09, 0x0d, 0x20, 0x22, 0x2c, 0x3a, 0x5c, 0x7b, 0x7d, 0x5b, 0x5d, 0x30, 0x65, 0x2d, 0x80, 0xc3,
    0xff, 0xed, 0xa0, 0xf4,
  ];
  for (let e = 0; e < edits; e++) {
    const at = Math.floor(random() * (copy.length + 1));
    const kind = random();
    if (kind < 0.4) copy.splice(at, 1);
    else if (kind < 0.8) copy.splice(at, 0, junk[Math.floor(random() * junk.length)]!);
    else copy.length = at; // truncation, as a half-written line
  }
  return Uint8Array.from(copy);
}

function parsedObject(bytes: Uint8Array): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(lenient.decode(bytes));
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Every field the skim kept must be the parsed value; every short primitive must have been kept. */
function expectStubMatches(
  stub: Record<string, unknown>,
  parsed: Record<string, unknown>,
  nested: boolean,
): void {
  for (const [key, value] of Object.entries(stub)) {
    const original = parsed[key];
    if (
      key === "message" &&
      !nested &&
      typeof original === "object" &&
      original !== null &&
      !Array.isArray(original)
    ) {
      expectStubMatches(value as Record<string, unknown>, original as Record<string, unknown>, true);
    } else if (typeof original === "object" && original !== null) {
      expect(value).toBe(DEFERRED_VALUE);
    } else {
      expect(value).toEqual(original);
    }
  }
  for (const [key, original] of Object.entries(parsed)) {
    if (key === "__proto__") continue;
    // A message keeps only its role; an entry keeps every short primitive.
    if (nested && key !== "role") continue;
    const short = typeof original !== "string" || original.length * 4 <= 512;
    if (short) expect(Object.hasOwn(stub, key), `key ${key}`).toBe(true);
  }
}

/**
 * Skims `line` as the range it is of a larger buffer, at a random alignment,
 * with quotes around it: a skim reading a byte outside its range would end a
 * string there, and accept what `JSON.parse` rejects.
 */
function skimRange(random: () => number, line: Uint8Array): Skimmed {
  const before = 1 + Math.floor(random() * 7);
  const after = 1 + Math.floor(random() * 7);
  const buffer = new Uint8Array(before + line.length + after).fill(0x22);
  buffer.set(line, before);
  return skimmed(buffer, undefined, before, before + line.length);
}

describe("skimLine", () => {
  it("accepts exactly what JSON.parse accepts as an object, keeping the same small fields", () => {
    const random = mulberry32(20261202);
    let accepted = 0;
    let rejected = 0;
    for (let round = 0; round < 6000; round++) {
      const valid = encoder.encode(randomEntryLine(random));
      const bytes = round % 3 === 0 ? valid : damage(random, valid);
      // Every other line as a range of a larger buffer, as the reader hands lines over.
      const outcome = round % 2 === 0 ? skimmed(bytes) : skimRange(random, bytes);
      const parsed = parsedObject(bytes);
      const isBlank = lenient.decode(bytes).trim() === "";
      if (outcome.kind === "object") {
        expect(parsed, lenient.decode(bytes)).toBeDefined();
        expectStubMatches(outcome.stub, parsed!, false);
        let valid8 = true;
        try {
          strict.decode(bytes);
        } catch {
          valid8 = false;
        }
        expect(outcome.invalidUtf8).toBe(!valid8);
        accepted++;
      } else if (outcome.kind === "blank") {
        expect(isBlank).toBe(true);
      } else {
        expect(parsed, lenient.decode(bytes)).toBeUndefined();
        rejected++;
      }
    }
    // Both sides of the boundary were exercised.
    expect(accepted).toBeGreaterThan(2000);
    expect(rejected).toBeGreaterThan(1000);
  });

  it("ignores key order and keeps the last of repeated keys, as JSON.parse does", () => {
    const line =
      '{"customType":"x","data":{"a":[1,2]},"id":"aaaa0001","parentId":null,"type":"custom","id":"bbbb0002","timestamp":"2026-01-01T00:00:00.000Z"}';
    const outcome = skimmed(encoder.encode(line));
    expect(outcome.kind).toBe("object");
    if (outcome.kind !== "object") return;
    expect(outcome.stub).toMatchObject({ type: "custom", id: "bbbb0002", parentId: null, customType: "x" });
    expect(outcome.stub.data).toBe(DEFERRED_VALUE);
  });

  it("keeps a message's last role, an escaped key included, as JSON.parse does", () => {
    const message = (body: string) =>
      `{"type":"message","id":"aaaa0001","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":${body}}`;
    const cases = [
      String.raw`{"role":"user","r\u006fle":"assistant"}`,
      String.raw`{"r\u006fle":"user","content":[],"role":"toolResult"}`,
      '{"content":"x","role":"user","role":"custom"}',
      String.raw`{"role":"us\u0065r"}`,
    ];
    for (const body of cases) {
      const line = message(body);
      const outcome = skimmed(encoder.encode(line));
      expect(outcome.kind, line).toBe("object");
      if (outcome.kind !== "object") continue;
      expect(outcome.stub.message, line).toEqual({ role: JSON.parse(body).role });
    }
  });

  it("keeps keys that name object internals (__proto__, constructor, a number) as plain keys, each time", () => {
    const line =
      '{"type":"custom","id":"aaaa0001","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","__proto__":"p","constructor":"c","12":"n","toString":1}';
    // Twice: the second time the keys come from the skim's caches.
    for (let round = 0; round < 2; round++) {
      const outcome = skimmed(encoder.encode(line));
      expect(outcome.kind).toBe("object");
      if (outcome.kind !== "object") return;
      expect(Object.getPrototypeOf(outcome.stub)).not.toBe(null);
      expect(Object.keys(outcome.stub).sort()).toEqual(
        ["12", "constructor", "id", "parentId", "timestamp", "toString", "type"].sort(),
      );
      expect(outcome.stub).toMatchObject({ constructor: "c", 12: "n", toString: 1, type: "custom" });
    }
  });

  it("decodes ids and timestamps of every length alike, a parentId equal to the id before included", () => {
    const ids = ["a", "aaaa0001", "bbbb0002", "019a70e1-3e8b-710e-a4b3-6408c0f75dc3", "é0000001"];
    const times = ["2026-01-01T00:00:00.000Z", "2026-01-01T00:00:00Z", "2026-01-01T00:00:00.000+01:00"];
    for (const [n, id] of ids.entries()) {
      const parentId = n === 0 ? null : ids[n - 1];
      const line = JSON.stringify({ type: "label", id, parentId, timestamp: times[n % times.length] });
      const outcome = skimmed(encoder.encode(line), parentId);
      expect(outcome.kind).toBe("object");
      if (outcome.kind !== "object") continue;
      expect({ ...outcome.stub }).toEqual(JSON.parse(line));
    }
  });

  it("rejects the JSON corner cases JSON.parse rejects", () => {
    const cases = [
      '{"a":01}',
      '{"a":1.}',
      '{"a":.5}',
      '{"a":+1}',
      '{"a":"\\x"}',
      '{"a":"\\u12"}',
      '{"a":"tab\there"}',
      '{"a":tru}',
      '{"a":1,}',
      '{"a" 1}',
      '{"a":[1,]}',
      '{"a":1}{"b":2}',
      "{'a':1}",
      '{"a":1',
      '{"a":[{"b":}]}',
    ];
    for (const line of cases) {
      expect(() => JSON.parse(line), line).toThrow();
      expect(skimmed(encoder.encode(line)).kind, line).toBe("other");
    }
  });

  it("crosses deep nesting without recursion, leaving a line nested too deep to the parser", () => {
    const line = (depth: number) => `{"id":"aaaa0001","data":${"[".repeat(depth)}${"]".repeat(depth)}}`;
    expect(skimmed(encoder.encode(line(MAX_ENTRY_DEPTH - 3))).kind).toBe("object");
    // Parsed whole instead, where nesting.ts replaces what is too deep and reports it.
    expect(skimmed(encoder.encode(line(MAX_ENTRY_DEPTH - 2))).kind).toBe("other");
    expect(skimmed(encoder.encode(line(200_000))).kind).toBe("other");
  });
});
