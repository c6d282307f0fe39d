import { describe, expect, it } from "vitest";
import { SessionBuilder } from "../branches/testing/session-builder.ts";
import { inMemoryEntryReader } from "../session/entry-reader.ts";
import { readSession } from "../session/index.ts";
import { compareBranches } from "./compare.ts";
import { comparisonMarkdown, markedText } from "./markdown.ts";

function edited() {
  const builder = new SessionBuilder()
    .user("u1", null, "Fix the parser")
    .assistant("a1", "u1", { text: "Looking.", usage: { input: 10, output: 5, cost: 0.5 } })
    .user("u2", "a1", "Now run the tests please")
    .assistant("a2", "u2", {
      text: "Done.",
      tools: [{ name: "edit", args: { path: "src/parser.ts" } }],
      usage: { input: 20, output: 8, cost: 1.25 },
    })
    .user("v2", "a1", "Now run the unit tests please")
    .assistant("b2", "v2", { text: "Done.", usage: { input: 30, output: 9, cost: 2 } });
  const index = readSession(builder.text());
  const reader = inMemoryEntryReader(index);
  return compareBranches(
    { index, reader, tipId: "a2" },
    { index, reader, tipId: "b2" },
    { detail: { from: 0, count: 20 } },
  );
}

describe("comparisonMarkdown", () => {
  it("writes the facts table, the ancestor and each turn, a changed prompt as its word diff", () => {
    const comparison = edited();
    const markdown = comparisonMarkdown(comparison, comparison.detail!);
    expect(markdown).toContain("# Compare a2 (left) with b2 (right)");
    expect(markdown).toContain("Common ancestor: a1; then 2 entries on the left, 2 on the right.");
    expect(markdown).toContain("| Cost | $1.25 | $2.00 |");
    expect(markdown).toContain("| Files modified | src/parser.ts (only here) | none |");
    expect(markdown).toContain("## Turn 1: changed");
    expect(markdown).toMatch(
      /right: Now run the \*\*unit \*\*tests please|right: Now run the \*\*unit\*\* tests please/,
    );
  });

  it("without detail, counts each turn's entries; with no ancestor, says so", () => {
    const comparison = { ...edited(), ancestorId: null };
    const markdown = comparisonMarkdown(comparison, null);
    expect(markdown).toContain("The two branches share no entry.");
    expect(markdown).toContain("- left: 2 entries, right: 2 entries");
  });

  it("marks removed words on the left and added ones on the right", () => {
    const parts = [
      { op: "same", text: "a " },
      { op: "removed", text: "b" },
      { op: "added", text: "c" },
    ] as const;
    expect(markedText([...parts], "left")).toBe("a ~~b~~");
    expect(markedText([...parts], "right")).toBe("a **c**");
  });
});
