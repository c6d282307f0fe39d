// @vitest-environment happy-dom
import "../testing/setup.ts";
import { act, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { type ReactNode, useMemo, useState } from "react";
import { afterEach, describe, expect, it } from "vitest";
import {
  buildSessionContext,
  buildSessionProjection,
  contextGraphOf,
  contextItems,
  convertToLlm,
  inMemoryEntryReader,
} from "../../../shared/session/index.ts";
import { generatedSessions, renderExplorer } from "../testing/render-explorer.tsx";
import { assistant, conversation, type HandEntry, sessionText, user } from "../testing/sessions.ts";
import { COLLAPSE_LINES, MessageView, type ShownWhole, ShownWholeContext } from "./message-view.tsx";
import { LINE_SCROLL } from "./context-preview.tsx";

function items(region: HTMLElement) {
  return [...region.querySelectorAll<HTMLElement>("[data-entry-id][data-role]")].filter((el) =>
    el.classList.contains("message"),
  );
}

/** Keys of texts shown whole, kept outside the rows as the context preview's store keeps them. */
function Rows({ keys, children }: { keys: Set<string>; children: ReactNode }) {
  const [version, setVersion] = useState(0);
  const shownWhole = useMemo<ShownWhole>(
    () => ({
      has: (key) => version >= 0 && keys.has(key),
      set: (key, shown) => {
        if (shown) keys.add(key);
        else keys.delete(key);
        setVersion((v) => v + 1);
      },
    }),
    [keys, version],
  );
  return <ShownWholeContext.Provider value={shownWhole}>{children}</ShownWholeContext.Provider>;
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
        const expected = buildSessionContext(contextGraphOf(index, inMemoryEntryReader(index)), leafId);
        const expectedIds = contextItems(
          buildSessionProjection(contextGraphOf(index, inMemoryEntryReader(index)), leafId),
        ).map((i) => i.entryId);
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
      buildSessionContext(contextGraphOf(index, inMemoryEntryReader(index)), target.id).messages.length,
    );
    expect(explorer.node(target.id)!.querySelector(".entry-node")!.classList).toContain("selected");
    explorer.unmount();
  });

  it("keeps the last context drawn, marked busy, while the next one loads", async () => {
    const explorer = await renderExplorer(generatedSessions([4], 30), { open: "s4" });
    const index = explorer.client.index("s4");
    const region = await explorer.waitForContext(index.leafId!);
    const shown = items(region).length;
    const target = [...index.nodes.values()].find(
      (node) => node.entry.type === "message" && explorer.node(node.id) !== null && node.id !== index.leafId,
    )!;
    explorer.client.held.add("session.context");
    fireEvent.click(explorer.node(target.id)!);
    await waitFor(() => expect(region.getAttribute("aria-busy")).toBe("true"));
    expect(region.textContent).not.toContain("Building the context");
    expect(region.dataset.leafId).toBe(index.leafId);
    expect(items(region)).toHaveLength(shown);
    explorer.client.release();
    await explorer.waitForContext(target.id);
    explorer.unmount();
  });

  it('shows convertToLlm\'s messages with "What the model sees"', async () => {
    const explorer = await renderExplorer(generatedSessions([9]), { open: "s9" });
    const index = explorer.client.index("s9");
    const leafId = index.leafId!;
    await explorer.waitForContext(leafId);
    fireEvent.click(screen.getByRole("button", { name: "What the model sees" }));
    await waitFor(() => expect(explorer.preview().dataset.mode).toBe("llm"));
    const llm = convertToLlm(
      buildSessionContext(contextGraphOf(index, inMemoryEntryReader(index)), leafId).messages,
    );
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
    expect(within(t0).getByRole("button", { name: "Show all 30 lines" }).getAttribute("aria-expanded")).toBe(
      "false",
    );
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
    // happy-dom lays nothing out and sends no scroll event: the list, at its end as a browser has it.
    const list = screen.getByRole("region", { name: "Context messages" });
    Object.defineProperty(list, "scrollHeight", { get: () => virtualHeight(list) });
    fireEvent.keyDown(list, { key: "End" });
    act(() => {
      fireEvent.scroll(list);
    });
    await waitFor(() => expect(items(region).at(-1)?.dataset.entryId).toBe("a4999"));
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

  it("clicking a message, its header or its body, reveals its entry; a control inside it or a text selection does not", async () => {
    const entries = [
      ...conversation(3),
      {
        id: "a9",
        message: {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "Hmm." },
            { type: "text", text: "Done." },
          ],
          provider: "anthropic",
          model: "claude-test",
          stopReason: "stop",
          timestamp: 1,
        },
      },
      toolResult("t0", lines(30)),
    ];
    const explorer = await renderExplorer([{ sessionId: "c", text: sessionText(entries) }], { open: "c" });
    const region = await explorer.waitForContext("t0");
    const cursor = () => explorer.controller.stores.session.getState().cursorId;
    const message = (id: string) => region.querySelector<HTMLElement>(`article[data-entry-id="${id}"]`)!;

    fireEvent.click(message("u1").querySelector(".message-body .plain-text")!);
    expect(cursor()).toBe("u1");
    fireEvent.click(message("a0").querySelector(".role-name")!);
    expect(cursor()).toBe("a0");
    await waitFor(() =>
      expect(explorer.node("a0")?.querySelector(".entry-node")?.classList).toContain("cursor"),
    );

    // Controls inside a message do their own thing.
    fireEvent.click(within(message("t0")).getByRole("button", { name: "Show all 30 lines" }));
    fireEvent.click(message("a9").querySelector("summary")!);
    expect(cursor()).toBe("a0");
    // The id link still reveals.
    fireEvent.click(within(message("u2")).getByRole("button", { name: "u2" }));
    expect(cursor()).toBe("u2");

    // A click that ends a text selection is for the selection.
    const selection = window.getSelection()!;
    selection.selectAllChildren(message("a1").querySelector(".message-body")!);
    expect(selection.isCollapsed).toBe(false);
    fireEvent.click(message("a1").querySelector(".message-body")!);
    expect(cursor()).toBe("u2");
    selection.removeAllRanges();
    fireEvent.click(message("a1").querySelector(".message-body")!);
    expect(cursor()).toBe("a1");
    explorer.unmount();
  });

  it("shows a long output's first lines as text with a button that shows all of it and then fewer again", async () => {
    const entries = [user("u0", "Run it"), toolResult("t0", lines(30))];
    const explorer = await renderExplorer([{ sessionId: "long", text: sessionText(entries) }], {
      open: "long",
    });
    const region = await explorer.waitForContext("t0");
    const t0 = region.querySelector<HTMLElement>('[data-entry-id="t0"]')!;
    const output = t0.querySelector("pre")!;
    const rest = output.querySelector("span")!;
    expect(t0.querySelector("details, summary")).toBeNull();
    const more = within(t0).getByRole("button", { name: "Show all 30 lines" });
    expect(more.getAttribute("aria-expanded")).toBe("false");
    expect(more.getAttribute("aria-controls")).toBe(output.id);
    // The first lines are plain text; the rest is in the page (find, copy) but hidden.
    expect(output.firstChild!.textContent).toBe(lines(COLLAPSE_LINES));
    expect(rest.hidden).toBe(true);
    expect(output.textContent).toBe(lines(30));

    // Clicking into the output to select text toggles nothing.
    fireEvent.mouseDown(output);
    fireEvent.click(output);
    expect(rest.hidden).toBe(true);

    fireEvent.click(more);
    expect(rest.hidden).toBe(false);
    expect(more.getAttribute("aria-expanded")).toBe("true");
    expect(more.textContent).toBe("Show fewer lines");
    fireEvent.click(output);
    expect(rest.hidden).toBe(false);

    fireEvent.click(within(t0).getByRole("button", { name: "Show fewer lines" }));
    expect(rest.hidden).toBe(true);
    expect(more.getAttribute("aria-expanded")).toBe("false");
    explorer.unmount();
  });

  it("a long output shown whole stays so when its row comes back, or the context is read again", () => {
    const output = (text: string) => ({ type: "text", text });
    const message = { role: "toolResult", toolName: "bash", content: [output(lines(30)), output(lines(30))] };
    // What the context preview gives its rows: a set of keys kept outside them (its store's).
    const keys = new Set<string>();
    const row = (shown: unknown, entryId = "t0") =>
      render(
        <Rows keys={keys}>
          <MessageView message={shown} entryId={entryId} index={0} tokenEstimate={null} onReveal={() => {}} />
        </Rows>,
      );
    const buttons = (view: ReturnType<typeof row>) =>
      within(view.container)
        .getAllByRole("button")
        .filter((button) => button.classList.contains("more"))
        .map((button) => button.textContent);
    const first = row(message);
    // The first of two identical outputs.
    fireEvent.click(within(first.container).getAllByRole("button", { name: "Show all 30 lines" })[0]!);
    expect(buttons(first)).toEqual(["Show fewer lines", "Show all 30 lines"]);
    first.unmount();
    // The row again (scrolled back), and the same entry's message read again (another leaf, an append).
    for (const shown of [message, structuredClone(message)]) {
      const again = row(shown);
      expect(buttons(again)).toEqual(["Show fewer lines", "Show all 30 lines"]);
      again.unmount();
    }
    // Another entry's output starts folded.
    const other = row(message, "t9");
    expect(buttons(other)).toEqual(["Show all 30 lines", "Show all 30 lines"]);
    other.unmount();
    // Folded again, it comes back folded.
    const third = row(message);
    fireEvent.click(within(third.container).getByRole("button", { name: "Show fewer lines" }));
    third.unmount();
    const fourth = row(message);
    expect(buttons(fourth)).toEqual(["Show all 30 lines", "Show all 30 lines"]);
    fourth.unmount();
  });

  describe("in a virtualised list", () => {
    const OriginalResizeObserver = globalThis.ResizeObserver;
    afterEach(() => {
      globalThis.ResizeObserver = OriginalResizeObserver;
    });

    it("a long output shown whole is re-measured: the rows after it move down", async () => {
      // The virtualiser measures rows by a ResizeObserver; this one lets the test report a row's new size.
      const observed = new Map<Element, { callback: ResizeObserverCallback; observer: ResizeObserver }>();
      globalThis.ResizeObserver = class extends OriginalResizeObserver {
        constructor(callback: ResizeObserverCallback) {
          super(callback);
          const record = { callback, observer: this as ResizeObserver };
          this.observe = (target: Element) => {
            observed.set(target, record);
            super.observe(target);
          };
        }
      };
      // happy-dom fires no scroll events, so the virtualiser draws the first rows: the output is one of them.
      const entries = [
        user("q0", "Run it"),
        toolResult("t0", lines(400)),
        user("q1", "Thanks"),
        ...conversation(60),
      ];
      const explorer = await renderExplorer([{ sessionId: "big", text: sessionText(entries) }], {
        open: "big",
      });
      const region = await explorer.waitForContext("a59");
      expect(Number(region.dataset.messageCount)).toBeGreaterThan(100);
      const row = region
        .querySelector<HTMLElement>('[data-entry-id="t0"]')!
        .closest<HTMLElement>(".virtual-row")!;
      const next = region
        .querySelector<HTMLElement>('[data-entry-id="q1"]')!
        .closest<HTMLElement>(".virtual-row")!;
      const top = (element: HTMLElement) =>
        Number(/translateY\(([-\d.]+)px\)/.exec(element.style.transform)![1]);
      const before = top(next);
      const record = observed.get(row);
      expect(record, "the row is observed for its size").toBeDefined();

      fireEvent.click(within(row).getByRole("button", { name: "Show all 400 lines" }));
      expect(
        within(row).getByRole("button", { name: "Show fewer lines" }).getAttribute("aria-expanded"),
      ).toBe("true");
      expect(row.querySelector("pre span")!.hasAttribute("hidden")).toBe(false);
      // What a browser's ResizeObserver reports once the row has grown.
      const height = row.getBoundingClientRect().height + 5000;
      act(() =>
        record!.callback(
          [
            {
              target: row,
              contentRect: row.getBoundingClientRect(),
              borderBoxSize: [{ inlineSize: 480, blockSize: height }],
              contentBoxSize: [{ inlineSize: 480, blockSize: height }],
              devicePixelContentBoxSize: [],
            } as unknown as ResizeObserverEntry,
          ],
          record!.observer,
        ),
      );
      expect(top(next)).toBe(before + 5000);
      explorer.unmount();
    });

    it("the list is a focusable region that scrolls by Home, End, PageUp, PageDown and the arrows, and keeps the focus when the focused row goes", async () => {
      const explorer = await renderExplorer([{ sessionId: "big", text: sessionText(conversation(100)) }], {
        open: "big",
      });
      await explorer.waitForContext("a99");
      const list = screen.getByRole("region", { name: "Context messages" });
      expect(list.tabIndex).toBe(0);
      // happy-dom lays nothing out: give the list the scroll height of the space the virtualiser keeps.
      Object.defineProperty(list, "scrollHeight", {
        get: () => virtualHeight(list),
      });
      const cursorBefore = explorer.controller.stores.session.getState().cursorId;
      // happy-dom moves scrollTop but fires no scroll event: send the one a browser would.
      const press = (target: Element, key: string) => {
        const handled = !fireEvent.keyDown(target, { key });
        act(() => {
          fireEvent.scroll(list);
        });
        return handled;
      };

      // happy-dom fires no scroll events, so the virtualiser draws the first rows.
      const link = within(list).getByRole("button", { name: "u0" });
      link.focus();
      expect(document.activeElement).toBe(link);
      expect(press(link, "End")).toBe(true);
      expect(list.scrollTop).toBeGreaterThan(0);
      // The row with the focused link is gone; the focus stayed in the list, not on the page.
      expect(list.querySelector('[data-entry-id="u0"]')).toBeNull();
      expect(list.querySelector('[data-entry-id="a99"]')).not.toBeNull();
      expect(document.activeElement).toBe(list);

      expect(press(list, "Home")).toBe(true);
      expect(list.scrollTop).toBe(0);
      expect(list.querySelector('[data-entry-id="u0"]')).not.toBeNull();
      expect(press(list, "PageDown")).toBe(true);
      const page = list.clientHeight - LINE_SCROLL;
      expect(list.scrollTop).toBe(page);
      expect(press(list, "ArrowDown")).toBe(true);
      expect(list.scrollTop).toBe(page + LINE_SCROLL);
      expect(press(list, "ArrowUp")).toBe(true);
      expect(press(list, "PageUp")).toBe(true);
      expect(list.scrollTop).toBe(0);
      expect(document.activeElement).toBe(list);
      // Other keys, and these keys with a modifier, are not the list's.
      expect(press(list, "a")).toBe(false);
      expect(fireEvent.keyDown(list, { key: "Home", ctrlKey: true })).toBe(true);
      // The explorer's own keys (the graph cursor) stay out of it.
      expect(explorer.controller.stores.session.getState().cursorId).toBe(cursorBefore);
      explorer.unmount();
    });
  });

  it("a short list scrolls by its keys too", async () => {
    const explorer = await renderExplorer([{ sessionId: "c", text: sessionText(conversation(10)) }], {
      open: "c",
    });
    await explorer.waitForContext("a9");
    const list = screen.getByRole("region", { name: "Context messages" });
    list.focus();
    list.scrollTop = 0;
    expect(fireEvent.keyDown(list, { key: "PageDown" })).toBe(false);
    expect(list.scrollTop).toBe(list.clientHeight - LINE_SCROLL);
    expect(fireEvent.keyDown(list, { key: "Home" })).toBe(false);
    expect(list.scrollTop).toBe(0);
    explorer.unmount();
  });
});

function virtualHeight(list: HTMLElement): number {
  return Number.parseFloat(list.querySelector<HTMLElement>(".virtual-space")!.style.height);
}

function lines(count: number): string {
  return Array.from({ length: count }, (_, i) => `line ${i}`).join("\n");
}

function toolResult(id: string, text: string): HandEntry {
  return {
    id,
    message: {
      role: "toolResult",
      toolCallId: "call1",
      toolName: "bash",
      content: [{ type: "text", text }],
      isError: false,
      timestamp: 2,
    },
  };
}
