/**
 * The WebAssembly line scanner is a fast path of the skim: for every line it
 * answers as the JavaScript skim does (the same stub, key order included), or
 * leaves the line to it. It must never accept a line the skim refuses.
 */

import { afterEach, describe, expect, it } from "vitest";
import { scanLine, setLineScannerEnabled } from "./line-scanner.ts";
import { MAX_ENTRY_DEPTH } from "./nesting.ts";
import { type ParsedSession, parseSessionBytes } from "./parse.ts";
import { type SkimOutcome, skimLine, skimLineInJavaScript, skimmedInvalidUtf8 } from "./skim.ts";
import { DEFERRED_VALUE } from "./stub.ts";
import { generateSession } from "./testing/generate-session.ts";
import { damage, mulberry32, randomEntryLine } from "./testing/random-lines.ts";

const encoder = new TextEncoder();
const bytesOf = (text: string) => encoder.encode(text);

/** What the scanner answers for `line` (alone in its array), and what the JavaScript skim answers. */
function bothOf(
  line: Uint8Array,
  previous?: unknown,
): { fast: ReturnType<typeof scanLine>; reference: SkimOutcome } {
  return {
    fast: scanLine(line, previous, 0, line.length),
    reference: skimLineInJavaScript(line, previous, 0, line.length),
  };
}

/** The scanner's answer, when it gives one, is the skim's: kind, fields, key order and values. */
function expectSameAnswer(fast: ReturnType<typeof scanLine>, reference: SkimOutcome, text: string): void {
  if (fast === undefined) return;
  if (fast === "blank") {
    expect(reference, text).toBe("blank");
    return;
  }
  expect(typeof reference, text).toBe("object");
  expect(Object.getPrototypeOf(fast)).toBe(Object.getPrototypeOf(reference));
  expect(Object.keys(fast), text).toEqual(Object.keys(reference as object));
  for (const key of Object.keys(fast)) {
    const expected = (reference as Record<string, unknown>)[key];
    expect(fast[key], `${text} [${key}]`).toStrictEqual(expected);
    // The placeholder of a deferred body is the one object (readers test for it by identity).
    if (expected === DEFERRED_VALUE) expect(fast[key]).toBe(DEFERRED_VALUE);
  }
}

const entry = (fields: string) =>
  `{"type":"message","id":"aaaa0001","parentId":"prev0001","timestamp":"2026-01-01T00:00:00.000Z",${fields}}`;

afterEach(() => setLineScannerEnabled(true));

describe("the line scanner", () => {
  it("answers random lines, valid and damaged, as the JavaScript skim does, or leaves them to it", () => {
    const random = mulberry32(20261207);
    let scanned = 0;
    let accepted = 0;
    for (let round = 0; round < 6000; round++) {
      const valid = bytesOf(randomEntryLine(random));
      const line = round % 3 === 0 ? valid : damage(random, valid);
      // Inside a larger array, with quotes on both sides: the scanner must read only its range.
      const before = 1 + Math.floor(random() * 7);
      const buffer = new Uint8Array(before + line.length + 40).fill(0x22);
      buffer.set(line, before);
      const previous = random() < 0.5 ? "abcd1234" : undefined;
      const fast = scanLine(buffer, previous, before, before + line.length);
      const reference = skimLineInJavaScript(buffer, previous, before, before + line.length);
      const text = new TextDecoder().decode(line);
      if (reference === "other") expect(fast, text).toBeUndefined();
      if (typeof reference === "object") accepted++;
      if (fast !== undefined) scanned++;
      expectSameAnswer(fast, reference, text);
    }
    // The fast path took most of the lines the skim accepts: this test held it to the skim.
    expect(accepted).toBeGreaterThan(2000);
    expect(scanned).toBeGreaterThan(accepted * 0.5);
  });

  it("keeps what the skim keeps from Pi's own lines: ids, the parent shared, the role, deferred bodies", () => {
    const line = bytesOf(
      entry(
        '"message":{"role":"assistant","content":[{"type":"text","text":"hi"}],"usage":{"input":12,"cost":{"total":0.5}},"stopReason":"stop","timestamp":1775977202665}',
      ),
    );
    const previous = `prev${"0001"}`; // not the literal's string: the parent must be this very one
    const { fast, reference } = bothOf(line, previous);
    expect(fast).toEqual({
      type: "message",
      id: "aaaa0001",
      parentId: "prev0001",
      timestamp: "2026-01-01T00:00:00.000Z",
      message: { role: "assistant" },
    });
    expect((fast as Record<string, unknown>).parentId).toBe(previous);
    expectSameAnswer(fast, reference, "pi line");
  });

  it("agrees with the skim on repeated keys, long strings, __proto__, scalars, escapes and white space", () => {
    const long = "x".repeat(600);
    const cases = [
      entry('"label":"a","label":"b"'),
      entry(`"note":"short","note":"${long}"`),
      entry(`"name":"${long}"`),
      entry('"__proto__":{"polluted":true},"x":1'),
      entry('"__proto__":"p","constructor":"c","12":"n"'),
      entry('"a":-0,"b":1e5,"c":1.5E-3,"d":true,"e":false,"f":null,"g":[],"h":{},"i":[1,{"j":[]}]'),
      entry(String.raw`"summary":"line\nbreak \"quoted\" \u00e9 é ✓ 🌳"`),
      entry(String.raw`"message":{"role":"us\u0065r","content":"x"}`),
      entry('"message":{"role":"user","role":"custom","content":[]}'),
      entry('"message":{"content":"no role"}'),
      entry('"message":{},"message":{"role":"toolResult"}'),
      entry('"message":[1,2]'),
      entry('"message":"text"'),
      ' \t{ "type" : "custom" ,\t"id" : "aaaa0001" , "data" : { "a" : [ 1 , 2 ] } } \r',
      "{}",
      " { } ",
      "   \t\r",
      "",
    ];
    for (const text of cases) {
      const { fast, reference } = bothOf(bytesOf(text), "prev0001");
      expect(fast, text).toBeDefined();
      expectSameAnswer(fast, reference, text);
    }
  });

  it("leaves unusual lines to the skim: escaped or non-ASCII keys, odd roles, invalid UTF-8, deep nesting, many members", () => {
    const manyMembers = Array.from({ length: 70 }, (_, k) => `"k${k}":${k}`).join(",");
    const cases: Uint8Array[] = [
      bytesOf(entry(String.raw`"l\u0061bel":"x"`)),
      bytesOf(entry('"labél":"x"')),
      bytesOf(entry(String.raw`"message":{"r\u006fle":"user"}`)),
      bytesOf(entry('"message":{"role":{"nested":true}}')),
      bytesOf(entry('"message":{"role":7}')),
      Uint8Array.from([...bytesOf(entry('"text":"')), 0xff, 0xfe, ...bytesOf('"')].concat([0x7d])),
      bytesOf(entry(`"data":${"[".repeat(300)}${"]".repeat(300)}`)),
      bytesOf(`{${manyMembers}}`),
      bytesOf("[1,2]"),
      bytesOf('"text"'),
    ];
    for (const line of cases) {
      const { fast, reference } = bothOf(line);
      const text = new TextDecoder().decode(line);
      expect(fast, text).toBeUndefined();
      // The skim itself answers them (the deep one up to its own limit: see skim.test.ts).
      expect(reference, text).toBeDefined();
    }
    expect(
      skimLineInJavaScript(
        bytesOf(entry(`"data":${"[".repeat(MAX_ENTRY_DEPTH - 3)}${"]".repeat(MAX_ENTRY_DEPTH - 3)}`)),
      ),
    ).toMatchObject({ data: DEFERRED_VALUE });
    // Through `skimLine`, a line with invalid UTF-8 is the skim's, which notes it.
    expect(typeof skimLine(cases[5]!)).toBe("object");
    expect(skimmedInvalidUtf8()).toBe(true);
    expect(typeof skimLine(bytesOf(entry('"x":1')))).toBe("object");
    expect(skimmedInvalidUtf8()).toBe(false);
  });

  it("never reads past a line's end, even over the bytes of a longer line before it", () => {
    // The scanner reads strings 16 bytes at a time from its own copy of the line: what lies after
    // the line there is the rest of an earlier, longer line (here all quotes and braces).
    const full = entry('"summary":"abcdefghijklmnopqrstuvwxyz0123456789","n":12345');
    const noise = bytesOf(`{"a":"${'\\"'.repeat(200)}"}${'"}'.repeat(100)}`);
    for (let cut = 1; cut < full.length; cut++) {
      scanLine(noise, undefined, 0, noise.length);
      const line = bytesOf(full.slice(0, cut));
      const { fast, reference } = bothOf(line);
      expect(reference, full.slice(0, cut)).toBe("other");
      expect(fast, full.slice(0, cut)).toBeUndefined();
    }
  });

  it("takes long lines into grown memory, and leaves lines over 1 MiB to the skim", () => {
    const long = bytesOf(entry(`"summary":"${"y".repeat(300_000)}","n":1`));
    const { fast, reference } = bothOf(long);
    expect(fast).toBeDefined();
    expectSameAnswer(fast, reference, "300 kB line");
    const huge = bytesOf(entry(`"summary":"${"z".repeat(1_100_000)}"`));
    expect(scanLine(huge, undefined, 0, huge.length)).toBeUndefined();
    expect(typeof skimLine(huge)).toBe("object");
    // A short line after the long ones is scanned as before.
    const { fast: after } = bothOf(bytesOf(entry('"x":2')));
    expect(after).toMatchObject({ x: 2 });
  });

  it("leaves a structure-first parse of Pi's sessions, damaged ones included, exactly as the skim alone makes it", () => {
    const rowsOf = (parsed: ParsedSession) =>
      Array.from({ length: parsed.records.length }, (_, row) => {
        const { value, ...rest } = parsed.records.at(row);
        return { ...rest, fields: Object.entries(value) };
      });
    for (let seed = 1; seed <= 40; seed++) {
      const { text } = generateSession({ seed, entryCount: 150, damage: seed % 2 === 0 });
      const bytes = bytesOf(text);
      const scanned = parseSessionBytes(bytes, { mode: "structure", chunkSize: 4096 });
      setLineScannerEnabled(false);
      const skimmed = parseSessionBytes(bytes, { mode: "structure", chunkSize: 4096 });
      setLineScannerEnabled(true);
      expect(rowsOf(scanned), `seed ${seed}`).toEqual(rowsOf(skimmed));
      expect(scanned.problems, `seed ${seed}`).toEqual(skimmed.problems);
    }
  });

  it("leaves every line to the skim when turned off, as where WebAssembly cannot run", () => {
    setLineScannerEnabled(false);
    const line = bytesOf(entry('"x":1'));
    expect(scanLine(line, undefined, 0, line.length)).toBeUndefined();
    expect(skimLine(line)).toMatchObject({ type: "message", x: 1 });
    setLineScannerEnabled(true);
    expect(scanLine(line, undefined, 0, line.length)).toMatchObject({ x: 1 });
  });
});
