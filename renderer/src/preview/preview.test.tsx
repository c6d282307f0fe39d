// @vitest-environment happy-dom
import "../testing/setup.ts";
import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import {
  buildSessionContext,
  buildSessionProjection,
  contextGraphOf,
  contextItems,
  convertToLlm,
} from "../../../shared/session/index.ts";
import { generatedSessions, renderExplorer } from "../testing/render-explorer.tsx";
import { assistant, conversation, sessionText, user } from "../testing/sessions.ts";

function items(region: HTMLElement) {
  return [...region.querySelectorAll<HTMLElement>("[data-entry-id][data-role]")].filter((el) =>
    el.classList.contains("message"),
  );
}

describe("the context preview", () => {
  it("shows exactly buildSessionContext's messages for the selected leaf: roles, entry ids, order", async () => {
    let compared = 0;
    for (const seed of [2, 7, 11, 19, 23]) {
      const explorer = await renderExplorer(generatedSessions([seed]), { open: `s${seed}` });
      const index = explorer.client.index(`s${seed}`);
      const ids = [...index.nodes.keys()];
      const leaves = [index.leafId!, ...ids.filter((_, i) => i % 7 === 3)];
      for (const leafId of leaves) {
        await act(async () => explorer.controller.select(leafId));
        const region = await explorer.waitForContext(leafId);
        const expected = buildSessionContext(contextGraphOf(index), leafId);
        const expectedIds = contextItems(buildSessionProjection(contextGraphOf(index), leafId)).map(
          (i) => i.entryId,
        );
        const shown = items(region);
        expect(Number(region.dataset.messageCount), `seed ${seed} leaf ${leafId}`).toBe(
          expected.messages.length,
        );
        expect(shown.map((el) => el.dataset.role)).toEqual(expected.messages.map((m) => m.role));
        expect(shown.map((el) => el.dataset.entryId)).toEqual(expectedIds);
        compared++;
      }
      explorer.unmount();
    }
    expect(compared).toBeGreaterThan(20);
  });

  it("selecting a node by clicking it shows that node's context", async () => {
    const explorer = await renderExplorer(generatedSessions([4], 30), { open: "s4" });
    const index = explorer.client.index("s4");
    const target = [...index.nodes.values()].find(
      (node) => node.entry.type === "message" && explorer.node(node.id) !== null && node.id !== index.leafId,
    )!;
    fireEvent.click(explorer.node(target.id)!);
    const region = await explorer.waitForContext(target.id);
    expect(Number(region.dataset.messageCount)).toBe(
      buildSessionContext(contextGraphOf(index), target.id).messages.length,
    );
    expect(explorer.node(target.id)!.querySelector(".entry-node")!.classList).toContain("selected");
    explorer.unmount();
  });

  it('shows convertToLlm\'s messages with "What the model sees"', async () => {
    const explorer = await renderExplorer(generatedSessions([9]), { open: "s9" });
    const index = explorer.client.index("s9");
    const leafId = index.leafId!;
    await explorer.waitForContext(leafId);
    fireEvent.click(screen.getByRole("button", { name: "What the model sees" }));
    await waitFor(() => expect(explorer.preview().dataset.mode).toBe("llm"));
    const llm = convertToLlm(buildSessionContext(contextGraphOf(index), leafId).messages);
    const region = explorer.preview();
    expect(Number(region.dataset.messageCount)).toBe(llm.length);
    expect(items(region).map((el) => el.dataset.role)).toEqual(llm.map((m) => m.role));
    fireEvent.click(screen.getByRole("button", { name: "Agent messages" }));
    await waitFor(() => expect(explorer.preview().dataset.mode).toBe("agent"));
    explorer.unmount();
  });

  it("shows raw HTML in assistant text as text: no script, no image with onerror", async () => {
    const evil =
      'Look: <script>window.hacked = 1</script> and <img src="x" onerror="window.hacked = 2"> **bold**';
    const text = sessionText([user("u0", "hi <b>there</b>"), assistant("a0", evil)]);
    const explorer = await renderExplorer([{ sessionId: "evil", text }], { open: "evil" });
    const region = await explorer.waitForContext("a0");
    const message = region.querySelector<HTMLElement>('[data-entry-id="a0"]')!;
    expect(message.querySelector("script")).toBeNull();
    expect(message.querySelector("img")).toBeNull();
    expect(message.textContent).toContain("<script>window.hacked = 1</script>");
    expect(message.textContent).toContain('<img src="x" onerror="window.hacked = 2">');
    expect(message.querySelector("strong")?.textContent).toBe("bold");
    expect(region.querySelector('[data-entry-id="u0"]')!.querySelector("b")).toBeNull();
    expect((window as { hacked?: number }).hacked).toBeUndefined();
    explorer.unmount();
  });

  it("keeps only web and mail links as links: a javascript: or relative one is text", async () => {
    const links =
      "[web](https://example.com/a) [mail](mailto:a@example.com) [js](javascript:alert(1)) [rel](./notes.md) [hash](#top)";
    const text = sessionText([user("u0", "links"), assistant("a0", links)]);
    const explorer = await renderExplorer([{ sessionId: "links", text }], { open: "links" });
    const region = await explorer.waitForContext("a0");
    const message = region.querySelector<HTMLElement>('[data-entry-id="a0"]')!;
    const anchors = [...message.querySelectorAll("a")];
    expect(anchors.map((a) => [a.textContent, a.getAttribute("href"), a.target])).toEqual([
      ["web", "https://example.com/a", "_blank"],
      ["mail", "mailto:a@example.com", "_blank"],
    ]);
    const dead = [...message.querySelectorAll(".markdown-dead-link")].map((span) => span.textContent);
    expect(dead).toEqual(["js", "rel", "hash"]);
    explorer.unmount();
  });

  it("renders code blocks, collapsed thinking, tool calls with JSON, edit diffs, long results collapsed, bash exit codes", async () => {
    const longOutput = Array.from({ length: 30 }, (_, i) => `line ${i}`).join("\n");
    const entries = [
      user("u0", "Fix it"),
      {
        id: "a0",
        message: {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "Let me think about the parser." },
            { type: "text", text: "Here:\n\n```ts\nconst x = 1;\n```" },
            {
              type: "toolCall",
              id: "call1",
              name: "edit",
              arguments: { path: "src/a.ts", oldText: "a\nb", newText: "a\nc" },
            },
            { type: "toolCall", id: "call2", name: "read", arguments: { path: "src/b.ts" } },
          ],
          provider: "anthropic",
          model: "claude-test",
          stopReason: "toolUse",
          timestamp: 1,
        },
      },
      {
        id: "t0",
        message: {
          role: "toolResult",
          toolCallId: "call1",
          toolName: "read",
          content: [{ type: "text", text: longOutput }],
          isError: false,
          timestamp: 2,
        },
      },
      {
        id: "b0",
        message: {
          role: "bashExecution",
          command: "npm test",
          output: "1 failed",
          exitCode: 1,
          cancelled: false,
          truncated: false,
          timestamp: 3,
        },
      },
    ];
    const explorer = await renderExplorer([{ sessionId: "rich", text: sessionText(entries) }], {
      open: "rich",
    });
    const region = await explorer.waitForContext("b0");
    const a0 = region.querySelector<HTMLElement>('[data-entry-id="a0"]')!;
    expect(a0.querySelector("pre code")?.textContent).toContain("const x = 1;");
    const thinking = a0.querySelector<HTMLDetailsElement>("details.thinking")!;
    expect(thinking.open).toBe(false);
    expect(within(a0).getByRole("group", { name: "Edit of src/a.ts" }).textContent).toMatch(/- b[\s\S]*\+ c/);
    expect(a0.querySelector(".json")?.textContent).toContain('"path": "src/b.ts"');
    const t0 = region.querySelector<HTMLElement>('[data-entry-id="t0"]')!;
    expect(t0.querySelector<HTMLDetailsElement>("details.collapsible")?.open).toBe(false);
    expect(t0.textContent).toContain("Show 22 more lines");
    const b0 = region.querySelector<HTMLElement>('[data-entry-id="b0"]')!;
    expect(b0.textContent).toContain("exit 1");
    expect(b0.textContent).toContain("$ npm test");
    explorer.unmount();
  });

  it("virtualises a 10,000-message context: the count is whole, a few items are rendered, in order", async () => {
    const text = sessionText(conversation(5000));
    const explorer = await renderExplorer([{ sessionId: "big", text }], { open: "big" });
    const region = await explorer.waitForContext("a4999");
    expect(region.dataset.messageCount).toBe("10000");
    const shown = items(region);
    expect(shown.length).toBeGreaterThan(0);
    expect(shown.length).toBeLessThan(500);
    const indices = shown.map((el) => Number(el.dataset.index));
    expect(indices).toEqual(indices.slice().sort((a, b) => a - b));
    expect(shown[0]!.dataset.entryId).toBe(
      indices[0]! % 2 === 0 ? `u${indices[0]! / 2}` : `a${(indices[0]! - 1) / 2}`,
    );
    explorer.unmount();
  });

  it("reveals a message's entry in the graph and copies the context", async () => {
    const explorer = await renderExplorer([{ sessionId: "c", text: sessionText(conversation(10)) }], {
      open: "c",
    });
    const region = await explorer.waitForContext("a9");
    // u3 sits inside a folded chain until it is revealed.
    fireEvent.click(within(region).getByRole("button", { name: "u3" }));
    await waitFor(() =>
      expect(explorer.node("u3")?.querySelector(".entry-node")?.classList).toContain("cursor"),
    );
    fireEvent.click(screen.getByRole("button", { name: "Copy JSON" }));
    await waitFor(() => expect(explorer.clipboard).toHaveLength(1));
    // What `arbor context --json` prints: Pi's buildSessionContext for the leaf.
    const copied = JSON.parse(explorer.clipboard[0]!) as {
      leafId: string;
      messages: { role: string; content: unknown }[];
      thinkingLevel: string;
    };
    expect(Object.keys(copied)).toEqual(["leafId", "messages", "thinkingLevel", "model"]);
    expect(copied.leafId).toBe("a9");
    expect(copied.messages.map((m) => m.role)).toEqual(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? "assistant" : "user")),
    );
    fireEvent.click(screen.getByRole("button", { name: "Copy Markdown" }));
    await waitFor(() => expect(explorer.clipboard).toHaveLength(2));
    expect(explorer.clipboard[1]).toContain("## assistant (a9)");
    explorer.unmount();
  });
});
