/** The one-line preview of a text: what a graph node and a library row show of it. */

import { describe, expect, it } from "vitest";
import { entryFacts, firstLine } from "./facts.ts";

describe("firstLine", () => {
  it("is the first line that says something: blank lines and bare code fences are passed over", () => {
    expect(firstLine("\n  \nHello there\nmore")).toBe("Hello there");
    expect(firstLine("```sh\nnpm test\n```")).toBe("npm test");
    expect(firstLine("~~~\n\n```ts\nconst a = 1;")).toBe("const a = 1;");
    // A fence with more on its line is text, and so is a line of only backticks in prose.
    expect(firstLine("```js const a = 1```")).toBe("```js const a = 1```");
    expect(firstLine("``\nx")).toBe("``");
    // Nothing but fences: the last line, as it is.
    expect(firstLine("```\n```")).toBe("```");
    expect(firstLine("")).toBe("");
  });

  it("cuts a long line, without splitting a huge text", () => {
    const long = "word ".repeat(100);
    const line = firstLine(long);
    expect(line.length).toBe(200);
    expect(line.endsWith("…")).toBe(true);
    expect(firstLine(`\n${"x".repeat(5_000_000)}`).length).toBe(200);
  });

  it("gives an assistant message that opens with a code block the code's first line", () => {
    const facts = entryFacts({
      type: "message",
      id: "a1",
      parentId: null,
      timestamp: "2026-01-01T00:00:00.000Z",
      message: { role: "assistant", content: [{ type: "text", text: "```sh\ngit status\n```\nDone." }] },
    } as never);
    expect(facts.preview).toBe("git status");
  });
});

describe("what the branch model adds up", () => {
  const base = { id: "e1", parentId: null, timestamp: "2026-01-01T00:00:00.000Z" };

  it("keeps an assistant message's usage, cost, model and the files its tools read and changed", () => {
    const facts = entryFacts({
      ...base,
      type: "message",
      message: {
        role: "assistant",
        content: [
          { type: "text", text: "Reading." },
          { type: "toolCall", id: "t1", name: "read", arguments: { path: "src/a.ts" } },
          { type: "toolCall", id: "t2", name: "edit", arguments: { file_path: "src/b.ts", oldText: "x" } },
          { type: "toolCall", id: "t3", name: "write", arguments: { path: "src/c.ts", content: "" } },
          { type: "toolCall", id: "t4", name: "bash", arguments: { command: "cat src/d.ts" } },
          { type: "toolCall", id: "t5", name: "read", arguments: { path: 7 } },
        ],
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        usage: { input: 100, output: 20, cacheRead: 3000, cacheWrite: 40, cost: { total: 0.0125 } },
        stopReason: "toolUse",
      },
    } as never);
    expect(facts.usage).toEqual({ input: 100, output: 20, cacheRead: 3000, cacheWrite: 40, cost: 0.0125 });
    expect(facts.model).toBe("claude-sonnet-4-5");
    expect(facts.filesRead).toEqual(["src/a.ts"]);
    expect(facts.filesModified).toEqual(["src/b.ts", "src/c.ts"]);
  });

  it("reads usage without a cost, and nothing from other roles", () => {
    const assistant = entryFacts({
      ...base,
      type: "message",
      message: { role: "assistant", content: [], model: "m", usage: { input: 5, output: "?" } },
    } as never);
    expect(assistant.usage).toEqual({ input: 5, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 });
    const user = entryFacts({
      ...base,
      type: "message",
      message: { role: "user", content: "hi", usage: { input: 1 }, model: "m" },
    } as never);
    expect([user.usage, user.model, user.filesRead, user.filesModified]).toEqual([null, null, [], []]);
    // One shared empty list, not an array per entry.
    expect(user.filesRead).toBe(assistant.filesModified);
  });

  it("takes a compaction's and a branch summary's file lists from their details", () => {
    for (const type of ["compaction", "branch_summary"]) {
      const facts = entryFacts({
        ...base,
        type,
        summary: "s",
        details: { readFiles: ["a.ts", 3, "b.ts"], modifiedFiles: ["c.ts"] },
      } as never);
      expect([facts.filesRead, facts.filesModified]).toEqual([["a.ts", "b.ts"], ["c.ts"]]);
    }
  });
});
