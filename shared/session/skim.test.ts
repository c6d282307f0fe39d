/**
 * The skim must accept exactly the lines `JSON.parse` accepts (as objects),
 * and keep the same small fields. Random valid lines, then random damage.
 */

import { describe, expect, it } from "vitest";
import { MAX_ENTRY_DEPTH } from "./nesting.ts";
import { skimLine, skimmedInvalidUtf8 } from "./skim.ts";
import { DEFERRED_VALUE } from "./stub.ts";
import { damage, mulberry32, randomEntryLine } from "./testing/random-lines.ts";

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

const encoder = new TextEncoder();
const lenient = new TextDecoder("utf-8", { ignoreBOM: true });
const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

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
