// @vitest-environment happy-dom
/**
 * A long context in the preview (issue 20): it comes as its last page; the
 * list has a row for every message, rows whose page is still to come say so
 * and their page is fetched as they are scrolled to; the header counts the
 * whole context; copying copies all of it; a model's message is paired with
 * its entry in any page. The fake client pages as the main process does,
 * with a smaller budget.
 */
import "../testing/setup.ts";
import { act, fireEvent, screen, waitFor } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { screenErrors } from "../../../shared/error-texts.ts";
import { ArborError, CONTEXT_FIRST_WINDOW_MESSAGES, type ContextPage } from "../../../shared/ipc/contract.ts";
import { contextPageOf, lastWindow, pagedContext } from "../../../shared/ipc/context-pages.ts";
import { pageOfView } from "../../../shared/ipc/context-reading.ts";
import { convertToLlm, readSession } from "../../../shared/session/index.ts";
import { nextPage, PAGE_AROUND_ROWS } from "../state/controller/context-pages.ts";
import { renderExplorer } from "../testing/render-explorer.tsx";
import { contextViewOf } from "../testing/session-view.ts";
import { conversation, type HandEntry, sessionText } from "../testing/sessions.ts";
import { previewItem } from "./preview-items.ts";

/** 50 messages an answer: a 400-message context comes in 8 pages. */
const SMALL_PAGES = { contextBudget: { bytes: 10_000_000, messages: 50 } };

function messages(list: HTMLElement) {
  return [...list.querySelectorAll<HTMLElement>("article.message[data-entry-id]")];
}

/** The list, with the scroll height of the space the virtualiser keeps (happy-dom lays nothing out). */
function scrollList(): { list: HTMLElement; press(key: string): void } {
  const list = screen.getByRole("region", { name: "Context messages" });
  Object.defineProperty(list, "scrollHeight", {
    get: () => Number.parseFloat(list.querySelector<HTMLElement>(".virtual-space")!.style.height),
  });
  return {
    list,
    press(key) {
      fireEvent.keyDown(list, { key });
      // happy-dom moves scrollTop but fires no scroll event: send the one a browser would.
      act(() => {
        fireEvent.scroll(list);
      });
    },
  };
}

/** `count` turns, with a bash run the model never sees every `every` entries. */
function withHiddenRuns(count: number, every: number): HandEntry[] {
  return conversation(count).flatMap((entry, i) =>
    i % every === every - 1
      ? [
          entry,
          {
            id: `b${i}`,
            message: {
              role: "bashExecution",
              command: `ls ${i}`,
              output: "x",
              exitCode: 0,
              cancelled: false,
              truncated: false,
              excludeFromContext: true,
              timestamp: 1,
            },
          },
        ]
      : [entry],
  );
}

describe("a long context in the preview", () => {
  it("opens at its last page, says which rows are still to come and fetches them as they are scrolled to", async () => {
    const explorer = await renderExplorer([{ sessionId: "long", text: sessionText(conversation(200)) }], {
      open: "long",
      client: SMALL_PAGES,
    });
    const region = await explorer.waitForContext("a199");
    expect(region.dataset.messageCount).toBe("400");
    expect(screen.getByTestId("message-count").textContent).toBe("400");
    const asked = () => explorer.client.calls.filter((call) => call.name === "session.contextPage");
    const { view, pages } = explorer.controller.stores.context.getState();
    expect([view!.messagesFrom, view!.messages.length]).toEqual([350, 50]);
    expect(pages.map((page) => page.from)).toEqual([350]);

    // Home: the top rows wait for their page, which comes.
    explorer.client.held.add("session.contextPage");
    const { list, press } = scrollList();
    press("Home");
    expect(list.scrollTop).toBe(0);
    await waitFor(() => expect(list.querySelector("[data-loading]")?.textContent).toBe("Loading message 1…"));
    expect(messages(list)).toEqual([]);
    await waitFor(() => expect(asked().length).toBe(1));
    expect(asked()[0]!.params).toMatchObject({ leafId: "a199", llm: false, from: 0 });
    act(() => explorer.client.release());
    await waitFor(() => expect(list.querySelector('[data-entry-id="u0"]')).not.toBeNull());
    expect(list.querySelector("[data-loading]")).toBeNull();
    expect(messages(list)[0]!.dataset.index).toBe("0");
    // One request at a time: the page about the rows shown, as much as one answer holds.
    explorer.client.held.delete("session.contextPage");
    await waitFor(() => expect(explorer.controller.stores.context.getState().pages.length).toBe(2));
    expect(explorer.controller.stores.context.getState().pages.map((page) => page.from)).toEqual([0, 350]);

    // End: back at the last page, nothing more to ask.
    press("End");
    await waitFor(() => expect(list.querySelector('[data-entry-id="a199"]')).not.toBeNull());
    expect(asked().length).toBe(1);

    // Another view (here the model's form) starts from its own window.
    fireEvent.click(screen.getByRole("button", { name: "What the model sees" }));
    await waitFor(() => expect(explorer.preview().dataset.mode).toBe("llm"));
    expect(explorer.controller.stores.context.getState().pages.map((page) => page.from)).toEqual([350]);
    explorer.unmount();
  });

  it("says when a page could not be loaded, and asks again as the list scrolls", async () => {
    const explorer = await renderExplorer([{ sessionId: "long", text: sessionText(conversation(200)) }], {
      open: "long",
      client: SMALL_PAGES,
      prepare: (client) =>
        client.failing.set("session.contextPage", new ArborError("io", "The disk is gone.")),
    });
    await explorer.waitForContext("a199");
    const { list, press } = scrollList();
    press("Home");
    await waitFor(() =>
      expect(explorer.controller.stores.live.getState().notice?.text).toBe(
        screenErrors.contextPageNotLoaded("The disk is gone."),
      ),
    );
    expect(list.querySelector("[data-loading]")?.textContent).toBe("Loading message 1…");
    explorer.client.failing.clear();
    press("End");
    press("Home");
    await waitFor(() => expect(list.querySelector('[data-entry-id="u0"]')).not.toBeNull());
    explorer.unmount();
  });

  it("copies the whole context, fetching the pages it does not hold", async () => {
    const explorer = await renderExplorer([{ sessionId: "long", text: sessionText(conversation(200)) }], {
      open: "long",
      client: SMALL_PAGES,
    });
    await explorer.waitForContext("a199");
    fireEvent.click(screen.getByRole("button", { name: "Copy JSON" }));
    await waitFor(() => expect(explorer.clipboard).toHaveLength(1));
    const copied = JSON.parse(explorer.clipboard[0]!) as { messages: { content: unknown }[] };
    expect(copied.messages).toHaveLength(400);
    expect(copied.messages[0]!.content).toBe("Question number 0");
    expect(explorer.client.calls.filter((call) => call.name === "session.contextPage")).toHaveLength(7);
    expect(explorer.controller.stores.live.getState().notice?.text).toBe("Context copied as JSON.");
    explorer.unmount();
  });

  it("keeps a followed context where the user reads it, with its pages, and follows its end from there", async () => {
    const explorer = await renderExplorer([{ sessionId: "long", text: sessionText(conversation(200)) }], {
      open: "long",
      client: SMALL_PAGES,
    });
    await explorer.waitForContext("a199");
    const context = () => explorer.controller.stores.context.getState();
    const turn = (n: number) => [
      {
        type: "message",
        id: `u${n}`,
        message: { role: "user", content: `Question number ${n}`, timestamp: 1 },
      },
      {
        type: "message",
        id: `a${n}`,
        message: { role: "assistant", content: [{ type: "text", text: `Answer ${n}` }], timestamp: 2 },
      },
    ];
    const { list, press } = scrollList();
    press("Home");
    await waitFor(() => expect(list.querySelector('[data-entry-id="u0"]')).not.toBeNull());
    await waitFor(() => expect(context().pages.map((page) => page.from)).toEqual([0, 350]));

    // Pi answers while the user reads the top: the preview follows the leaf, and the list stays where it is.
    act(() => {
      explorer.client.append("long", turn(200));
    });
    await explorer.waitForContext("a200");
    expect(explorer.preview().dataset.messageCount).toBe("402");
    expect(list.scrollTop).toBe(0);
    expect(list.querySelector('[data-entry-id="u0"]')).not.toBeNull();
    // The page read stays held, and the old window up to the new one (the last 50).
    expect(context().pages.map((page) => [page.from, page.messages.length])).toEqual([
      [0, 50],
      [350, 2],
      [352, 50],
    ]);
    expect(list.querySelector("[data-loading]")).toBeNull();
    const asked = explorer.client.calls.filter((call) => call.name === "session.contextPage").length;
    // The list says what came below, and takes the user there.
    const below = screen.getByRole("button", { name: "↓ 2 new messages" });
    fireEvent.click(below);
    act(() => {
      fireEvent.scroll(list);
    });
    await waitFor(() => expect(list.querySelector('[data-entry-id="a200"]')).not.toBeNull());
    expect(screen.queryByRole("button", { name: /new message/ })).toBeNull();

    // At the end, the list follows the context as it grows.
    act(() => {
      explorer.client.append("long", turn(201));
    });
    await explorer.waitForContext("a201");
    await waitFor(() => expect(list.querySelector('[data-entry-id="a201"]')).not.toBeNull());
    expect(list.querySelector('[data-entry-id="u0"]')).toBeNull();
    expect(screen.queryByRole("button", { name: /new message/ })).toBeNull();
    expect(explorer.client.calls.filter((call) => call.name === "session.contextPage").length).toBe(asked);

    // Another entry's context is a new view: it opens at its end, from its own window.
    press("Home");
    await waitFor(() => expect(list.querySelector('[data-entry-id="u0"]')).not.toBeNull());
    act(() => explorer.controller.select("a150"));
    await explorer.waitForContext("a150");
    // The scroll event a browser sends for the list's move (happy-dom sends none).
    act(() => {
      fireEvent.scroll(list);
    });
    await waitFor(() => expect(list.querySelector('[data-entry-id="a150"]')).not.toBeNull());
    expect(list.scrollTop).toBeGreaterThan(0);
    explorer.unmount();
  });

  it("shows what the model sees in pages, each message with its entry, and counts them all", async () => {
    const text = sessionText(withHiddenRuns(150, 7));
    const explorer = await renderExplorer([{ sessionId: "bash", text }], {
      open: "bash",
      client: SMALL_PAGES,
    });
    await explorer.waitForContext("a149");
    fireEvent.click(screen.getByRole("button", { name: "What the model sees" }));
    await waitFor(() => expect(explorer.preview().dataset.mode).toBe("llm"));
    const index = readSession(text);
    const whole = contextViewOf(index, "a149", true);
    expect(whole.llmSkipped!.length).toBe(42);
    expect(explorer.preview().dataset.messageCount).toBe(String(whole.llm!.length));
    expect(screen.getByTestId("message-count").textContent).toBe(String(whole.llm!.length));
    const sources = whole.messages.filter((_, i) => !whole.llmSkipped!.includes(i));
    const { list, press } = scrollList();
    for (const key of ["Home", "End"]) {
      press(key);
      await waitFor(() => expect(list.querySelector("[data-loading]")).toBeNull());
      expect(messages(list).length).toBeGreaterThan(0);
      for (const row of messages(list)) {
        const at = Number(row.dataset.index);
        expect([row.dataset.role, row.dataset.entryId]).toEqual([whole.llm![at]!.role, sources[at]!.entryId]);
      }
    }
    explorer.unmount();
  });
});

describe("the preview's rows", () => {
  it("pair each of the model's messages with its entry in any page, as the whole context does", () => {
    const index = readSession(sessionText(withHiddenRuns(120, 5)));
    const whole = contextViewOf(index, index.leafId, true);
    const paged = pagedContext(whole, undefined, { bytes: 1e9, messages: 7 });
    const view = lastWindow(paged);
    const pages: ContextPage[] = [];
    for (let from = 0; from < view.messagesFrom; from += 7) pages.push(contextPageOf(paged, from, 7));
    pages.push(pageOfView(view));
    // Pi's pairing: the messages the model sees, in order, with their entries.
    const sources = whole.messages.filter((_, i) => !whole.llmSkipped!.includes(i));
    expect(convertToLlm(sources.map((item) => item.message))).toEqual(whole.llm);
    whole.llm!.forEach((message, row) => {
      expect(previewItem(view, pages, "llm", row)).toEqual({
        key: `llm:${row}`,
        entryId: sources[row]!.entryId,
        message,
        tokenEstimate: null,
      });
    });
    whole.messages.forEach((item, row) => {
      expect(previewItem(view, pages, "agent", row)?.entryId).toBe(item.entryId);
    });
    // A row whose page is not held is not drawn yet.
    expect(previewItem(view, [pageOfView(view)], "agent", 0)).toBeUndefined();
  });

  it("ask for a page about the rows shown, in the gap they are in, never over a page held", () => {
    const index = readSession(sessionText(conversation(2000)));
    const view = lastWindow(
      pagedContext(contextViewOf(index, index.leafId, false), undefined, {
        bytes: 1e9,
        messages: 1000,
      }),
    );
    const held = [pageOfView(view)];
    // The first window: the last CONTEXT_FIRST_WINDOW_MESSAGES of 4,000.
    const edge = 4000 - CONTEXT_FIRST_WINDOW_MESSAGES;
    expect(view.messagesFrom).toBe(edge);
    // The rows shown at the top, at the edge of the last page, in the middle.
    expect(nextPage(view, held, { first: 0, last: 8 })).toMatchObject({ from: 0, count: PAGE_AROUND_ROWS });
    expect(nextPage(view, held, { first: edge - 5, last: edge + 5 })).toMatchObject({
      from: edge - PAGE_AROUND_ROWS,
      count: PAGE_AROUND_ROWS,
    });
    expect(nextPage(view, held, { first: 1500, last: 1510 })).toMatchObject({
      from: 1505 - PAGE_AROUND_ROWS / 2,
      count: PAGE_AROUND_ROWS,
    });
    expect(nextPage(view, held, { first: edge + 100, last: edge + 190 })).toBeNull();
    // A small gap is asked for whole, and no more.
    const near = [{ from: edge - 10, messages: view.messages.slice(0, 5), llm: null }, ...held];
    expect(nextPage(view, near, { first: edge - 4, last: edge - 2 })).toMatchObject({
      from: edge - 5,
      count: 5,
    });
  });
});
