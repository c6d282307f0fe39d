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
