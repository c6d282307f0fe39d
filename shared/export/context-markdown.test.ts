/** The context as Markdown: what the preview shows, images and bash status included, as text. */

import { describe, expect, it } from "vitest";
import type { ContextView } from "../ipc/contract.ts";
import type { AgentMessage } from "../session/types.ts";
import { contextAsJson, contextAsMarkdown } from "./context-markdown.ts";

const png = "A".repeat(4000); // 3,000 bytes of base64

function viewOf(messages: Record<string, unknown>[]): ContextView {
  return {
    leafId: "x9",
    messageCount: messages.length,
    messagesFrom: 0,
    messages: messages.map((message, i) => ({
      entryId: `x${i}`,
      message: message as unknown as AgentMessage,
      tokenEstimate: 1,
    })),
    llm: null,
    llmSkipped: null,
    thinkingLevel: "off",
    model: { provider: "anthropic", modelId: "claude-test" },
    compaction: null,
    edits: [],
    tokenEstimate: messages.length,
    lastInputTokens: null,
    cost: { total: 0, answers: 0 },
    pathRuns: [messages.length],
  };
}

describe("contextAsMarkdown", () => {
  it("shows the session's bidirectional controls as markers, as the window does; the JSON keeps them", () => {
    const view = viewOf([{ role: "user", content: "invoice_\u202Etxt.exe and \u2066x\u2069", timestamp: 1 }]);
    const markdown = contextAsMarkdown(view);
    expect(markdown).toContain("invoice_⟨RLO⟩txt.exe and ⟨LRI⟩x⟨PDI⟩");
    expect(markdown).not.toMatch(/[\u202A-\u202E\u2066-\u2069]/);
    expect(contextAsJson(view, "agent")).toContain("invoice_\u202Etxt.exe");
  });

  it("notes each image by type and size, in user messages and tool results, without its data", () => {
    const markdown = contextAsMarkdown(
      viewOf([
        {
          role: "user",
          content: [
            { type: "text", text: "What is in this screenshot?" },
            { type: "image", mimeType: "image/png", data: png },
          ],
          timestamp: 1,
        },
        {
          role: "toolResult",
          toolCallId: "t1",
          toolName: "read",
          content: [
            { type: "text", text: "Read image file" },
            { type: "image", mimeType: "image/jpeg", data: png },
          ],
          isError: false,
          timestamp: 2,
        },
      ]),
    );
    expect(markdown).toContain("What is in this screenshot?\n\n[image: image/png, 2.9 KB]");
    expect(markdown).toContain("[image: image/jpeg, 2.9 KB]");
    expect(markdown).not.toContain(png.slice(0, 100));
  });

  it("says what the preview's bash badges say: exit code, cancelled, truncated, not sent", () => {
    const bash = (fields: Record<string, unknown>) => ({
      role: "bashExecution",
      command: "make",
      output: "...",
      timestamp: 1,
      ...fields,
    });
    const markdown = contextAsMarkdown(
      viewOf([
        bash({ exitCode: 2 }),
        bash({ cancelled: true }),
        bash({ exitCode: 0, truncated: true, fullOutputPath: "/tmp/pi-bash-1.log" }),
        bash({ exitCode: 0, excludeFromContext: true }),
      ]),
    );
    expect(markdown).toContain("Exit code 2.");
    expect(markdown).toContain("Cancelled. No exit code.");
    expect(markdown).toContain("Exit code 0. Output truncated; the whole of it is in /tmp/pi-bash-1.log.");
    expect(markdown).toContain("Exit code 0. Not sent to the model.");
  });
});

describe("copying what the model sees", () => {
  it("copies convertToLlm's messages, as JSON and as Markdown, when the preview shows them", () => {
    const view = viewOf([
      { role: "user", content: "fix it" },
      { role: "bashExecution", command: "ls", output: "a.txt", exitCode: 0 },
    ]);
    const llm = [
      { role: "user", content: "fix it" },
      { role: "user", content: [{ type: "text", text: "Ran `ls`\n```\na.txt\n```" }] },
    ];
    const withLlm = { ...view, llm: llm as unknown as NonNullable<ContextView["llm"]> };
    expect(JSON.parse(contextAsJson(withLlm, "llm"))).toEqual({
      leafId: "x9",
      messages: llm,
      thinkingLevel: "off",
      model: { provider: "anthropic", modelId: "claude-test" },
    });
    expect(JSON.parse(contextAsJson(withLlm, "agent")).messages).toEqual(view.messages.map((m) => m.message));
    const markdown = contextAsMarkdown(withLlm, "llm");
    expect(markdown).toContain("# What the model sees at x9");
    expect(markdown).toContain("Ran `ls`");
    expect(markdown).not.toContain("(x1)");
    expect(markdown.match(/^## user$/gm)).toHaveLength(2);
    expect(contextAsMarkdown(withLlm, "agent")).toContain("## bashExecution (x1)");
  });
});
