/** Entries nested too deep: the check, the bounded entry, and what the parser reports. */

import { describe, expect, it } from "vitest";
import {
  boundEntryDepth,
  DEPTH_CHECK_MIN_CHARS,
  isNestedTooDeep,
  MAX_ENTRY_DEPTH,
  NESTING_TEXT,
  nestsDeeperThan,
} from "./nesting.ts";
import { parseSessionBytes } from "./parse.ts";

function arrays(depth: number): unknown {
  let value: unknown = [];
  for (let level = 1; level < depth; level++) value = [value];
  return value;
}

function deepLineText(depth: number): string {
  return `[`.repeat(depth) + `]`.repeat(depth);
}

describe("nesting", () => {
  it("measures depth without recursion, the value itself being level 1", () => {
    expect(nestsDeeperThan("text", 0)).toBe(false);
    expect(nestsDeeperThan([], 1)).toBe(false);
    expect(nestsDeeperThan([[]], 1)).toBe(true);
    expect(nestsDeeperThan({ a: [1, { b: {} }] }, 3)).toBe(true);
    expect(nestsDeeperThan({ a: [1, { b: {} }] }, 4)).toBe(false);
    expect(nestsDeeperThan(arrays(100_000), 99_999)).toBe(true);
    expect(nestsDeeperThan(arrays(100_000), 100_000)).toBe(false);
  });

  it("leaves an entry within bounds as it is, however long its line", () => {
    const entry = {
      type: "message",
      id: "a",
      message: { role: "user", content: arrays(MAX_ENTRY_DEPTH - 2) },
    };
    const bounded = boundEntryDepth(entry, 10 * DEPTH_CHECK_MIN_CHARS);
    expect(bounded.entry).toBe(entry);
    expect(bounded.replaced).toEqual([]);
    expect(isNestedTooDeep(bounded.entry)).toBe(false);
  });

  it("replaces the fields nested too deep with a note, keeping the rest and the message's shape", () => {
    const entry = {
      type: "message",
      id: "a",
      parentId: null,
      details: arrays(MAX_ENTRY_DEPTH),
      message: { role: "user", content: arrays(MAX_ENTRY_DEPTH - 1), timestamp: 5 },
    };
    const bounded = boundEntryDepth(entry, 100_000);
    expect(bounded.replaced).toEqual(["details", "message.content"]);
    expect(JSON.parse(JSON.stringify(bounded.entry))).toEqual({
      type: "message",
      id: "a",
      parentId: null,
      details: NESTING_TEXT.note,
      message: { role: "user", content: [{ type: "text", text: NESTING_TEXT.note }], timestamp: 5 },
    });
    expect(isNestedTooDeep(bounded.entry)).toBe(true);
    // The mark survives a copy (a fork re-chains entries with a spread) and is not part of the JSON.
    expect(isNestedTooDeep({ ...bounded.entry })).toBe(true);
    expect(nestsDeeperThan(bounded.entry, 4)).toBe(false);
  });

  it("the parser reports a too-deep problem on the line in every mode; the other entries read as usual", () => {
    const header = '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}';
    const deep = `{"type":"message","id":"d","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":${deepLineText(100_000)}}}`;
    const after =
      '{"type":"message","id":"e","parentId":"d","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"ok"}}';
    for (const mode of ["full", "structure", "structure-with-facts"] as const) {
      const parsed = parseSessionBytes(`${header}\n${deep}\n${after}\n`, { mode });
      expect(
        parsed.problems.map(({ kind, line, entryId, severity }) => ({ kind, line, entryId, severity })),
      ).toEqual([{ kind: "too-deep", line: 2, entryId: "d", severity: "error" }]);
      expect(parsed.problems[0]!.message).toBe(NESTING_TEXT.problem(["message.content"]));
      expect([...parsed.records].map((record) => record.value.id)).toEqual(["d", "e"]);
      expect(JSON.stringify([...parsed.records].map((record) => record.value))).not.toContain("[[[");
    }
  });

  it("a line nested as deep as allowed is read whole, skimmed or not", () => {
    const header = '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}';
    const line = `{"type":"custom","id":"d","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","data":${deepLineText(MAX_ENTRY_DEPTH - 1)}}`;
    for (const mode of ["full", "structure"] as const) {
      const parsed = parseSessionBytes(`${header}\n${line}\n`, { mode });
      expect(parsed.problems).toEqual([]);
    }
    expect(parseSessionBytes(`${header}\n${line}\n`, { mode: "full" }).records.value(0).data).toEqual(
      arrays(MAX_ENTRY_DEPTH - 1),
    );
  });
});
