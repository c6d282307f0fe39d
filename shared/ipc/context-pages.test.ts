/**
 * Contexts in pages, pure: which messages fit an answer, the window and the
 * pages cut from a whole context, the model's indices, the path's runs, and
 * pages put together again, for contexts of generated sessions.
 */

import { describe, expect, it } from "vitest";
import { inMemoryEntryReader, readSession } from "../session/index.ts";
import { generateSession } from "../session/testing/generate-session.ts";
import {
  contextPageOf,
  contextWindow,
  lastPageFrom,
  lastWindow,
  llmIndexOf,
  MESSAGE_OVERHEAD_BYTES,
  messageIndexOfLlm,
  pagedContext,
  pageLength,
  rowCount,
} from "./context-pages.ts";
import {
  gapAt,
  gaps,
  grownFrom,
  grownPages,
  joinPages,
  pageAt,
  pageOfView,
  wholeContext,
  withPage,
} from "./context-reading.ts";
import type { ContextPage, ContextView } from "./context-view.ts";
import { contextView, pathRuns } from "./leaf-context.ts";

/** Contexts of generated sessions, with the model's form: bash runs left out, edits, compactions. */
function contexts() {
  const found = [];
  for (const seed of [1, 2, 3, 5, 8, 13]) {
    const index = readSession(generateSession({ seed, entryCount: 300 }).text);
    const reader = inMemoryEntryReader(index);
    for (const leafId of [...index.nodes.keys()].filter((_, i) => i % 37 === 36)) {
      found.push(contextView(index, reader, leafId, true));
    }
  }
  return found;
}

describe("a context in pages", () => {
  it("cuts pages within the budget that concatenate to the whole, the model's form with them", async () => {
    let skipped = 0;
    for (const whole of contexts()) {
      const paged = pagedContext(whole, undefined, { bytes: 5_000, messages: 9 });
      const view = lastWindow(paged);
      expect(view.messagesFrom + view.messages.length).toBe(whole.messageCount);
      expect(view.messageCount).toBe(whole.messageCount);
      const pages: ContextPage[] = [];
      const asked: number[] = [];
      const joined = await wholeContext(view, [], async ({ from, count }) => {
        asked.push(count);
        return contextPageOf(paged, from, pageLength(paged, from, count));
      });
      expect(joined).toEqual(whole);
      for (let from = 0; from < whole.messageCount; ) {
        const length = pageLength(paged, from, 100);
        expect(length).toBeGreaterThan(0);
        expect(length).toBeLessThanOrEqual(9);
        const bytes = paged.sizes.slice(from, from + length).reduce((sum, size) => sum + size, 0);
        if (length > 1) expect(bytes).toBeLessThanOrEqual(5_000);
        pages.push(contextPageOf(paged, from, length));
        from += length;
      }
      expect(joinPages(view, pages)).toEqual(whole);
      // The model's k-th message is the k-th message not left out.
      skipped += whole.llmSkipped!.length;
      expect(rowCount(whole, true)).toBe(whole.llm!.length);
      const kept = whole.messages.map((_, i) => i).filter((i) => !whole.llmSkipped!.includes(i));
      kept.forEach((index, k) => {
        expect(messageIndexOfLlm(whole.llmSkipped!, k)).toBe(index);
        expect(llmIndexOf(whole.llmSkipped!, index)).toBe(k);
      });
    }
    expect(skipped).toBeGreaterThan(0);
  });

  it("sends a context whole when it fits, else its last page; one message at least", () => {
    const [whole] = contexts().sort((a, b) => b.messageCount - a.messageCount);
    expect(whole!.messageCount).toBeGreaterThan(10);
    const fits = pagedContext(whole!, () => 100);
    expect(lastPageFrom(fits)).toBe(0);
    expect(lastWindow(fits)).toEqual(whole);
    // Each message as large as the budget: a page of one.
    const huge = pagedContext(whole!, undefined, { bytes: 1, messages: 50 });
    expect(lastPageFrom(huge)).toBe(whole!.messageCount - 1);
    expect(pageLength(huge, 3, 10)).toBe(1);
    expect(pageLength(huge, whole!.messageCount, 10)).toBe(0);
    // By count: at most that many.
    expect(lastPageFrom(pagedContext(whole!, () => 1, { bytes: 1e9, messages: 7 }))).toBe(
      whole!.messageCount - 7,
    );
  });

  it("estimates a message by its line, capped at what the cutter leaves, twice with the model's form", () => {
    const [whole] = contexts();
    const agent = pagedContext({ ...whole!, llm: null, llmSkipped: null }, () => 1_000);
    expect(agent.sizes[0]).toBe(1_000 + MESSAGE_OVERHEAD_BYTES);
    const model = pagedContext(whole!, () => 10_000_000);
    const first = whole!.llmSkipped!.includes(0) ? 1 : 2;
    expect(model.sizes[0]).toBe((256 * 1024 + MESSAGE_OVERHEAD_BYTES) * first);
    // Without lines, by the token estimate (about 4 characters a token).
    const byTokens = pagedContext({ ...whole!, llm: null, llmSkipped: null });
    expect(byTokens.sizes[0]).toBe(whole!.messages[0]!.tokenEstimate * 4 + MESSAGE_OVERHEAD_BYTES);
  });

  it("runs along the path: alternating runs from the leaf up, starting with the entries that give a message", () => {
    expect(pathRuns(["a", "b", "c"], new Set(["a", "b", "c"]))).toEqual([3]);
    expect(pathRuns(["a", "b", "c", "d"], new Set(["a", "b"]))).toEqual([0, 2, 2]);
    expect(pathRuns(["a", "b", "c", "d"], new Set(["a", "d"]))).toEqual([1, 2, 1]);
    expect(pathRuns([], new Set())).toEqual([0]);
  });
});

describe("the pages a window holds", () => {
  const page = (from: number, length: number): ContextPage => ({
    from,
    messages: Array.from({ length }, (_, i) => ({
      entryId: `e${from + i}`,
      message: { role: "user", content: `${from + i}`, timestamp: 0 },
      tokenEstimate: 1,
    })),
    llm: null,
  });

  it("keeps them sorted and apart, and finds the gaps between them", () => {
    let pages = withPage([], page(50, 10));
    pages = withPage(pages, page(0, 10));
    pages = withPage(pages, page(20, 5));
    expect(withPage(pages, page(55, 10))).toBe(pages);
    expect(withPage(pages, page(15, 6))).toBe(pages);
    expect(pages.map((each) => each.from)).toEqual([0, 20, 50]);
    expect(gaps(pages, 70)).toEqual([
      { from: 10, to: 20 },
      { from: 25, to: 50 },
      { from: 60, to: 70 },
    ]);
    expect(gapAt(pages, 70, 30)).toEqual({ from: 25, to: 50 });
    expect(gapAt(pages, 70, 5)).toBeUndefined();
    expect(pageAt(pages, 24)?.from).toBe(20);
    expect(pageAt(pages, 25)).toBeUndefined();
  });

  it("tells a context grown at its end (a followed leaf's) from any other, by the windows both carry", () => {
    const budget = { bytes: 1e9, messages: 9 };
    let grown = 0;
    let other = 0;
    for (const seed of [1, 2, 3, 5, 8, 13]) {
      const index = readSession(generateSession({ seed, entryCount: 300 }).text);
      const reader = inMemoryEntryReader(index);
      const ids = [...index.nodes.keys()];
      const childrenOf = new Map<string, string[]>();
      for (const node of index.nodes.values())
        if (node.parentId !== null)
          childrenOf.set(node.parentId, [...(childrenOf.get(node.parentId) ?? []), node.id]);
      for (const leafId of ids.filter((_, i) => i % 11 === 5)) {
        const whole = contextView(index, reader, leafId, true);
        const before = lastWindow(pagedContext(whole, undefined, budget));
        // Entries below it (a chain a few steps down) and elsewhere (the entry 40 lines on).
        const below: string[] = [];
        for (let at = childrenOf.get(leafId)?.[0]; at && below.length < 12; at = childrenOf.get(at)?.[0])
          below.push(at);
        const elsewhere = ids[(ids.indexOf(leafId) + 40) % ids.length]!;
        for (const afterId of [leafId, ...below, elsewhere]) {
          const afterWhole = contextView(index, reader, afterId, true);
          const after = lastWindow(pagedContext(afterWhole, undefined, budget));
          const samePrefix =
            whole.messageCount > 0 &&
            afterWhole.messageCount >= whole.messageCount &&
            JSON.stringify(afterWhole.messages.slice(0, whole.messageCount)) ===
              JSON.stringify(whole.messages);
          const reaches = after.messagesFrom <= whole.messageCount - 1;
          const sameCuts =
            before.compaction?.entryId === after.compaction?.entryId &&
            JSON.stringify(before.edits) === JSON.stringify(after.edits);
          // Never a false growth; and every growth the windows can see is found.
          expect(grownFrom(before, after)).toBe(samePrefix && reaches && sameCuts);
          if (grownFrom(before, after)) {
            grown++;
            // The model's form grows alike: its rows of `before` are the first rows of `after`.
            const rows = rowCount(whole, true);
            expect(JSON.stringify(afterWhole.llm!.slice(0, rows))).toBe(JSON.stringify(whole.llm));
          } else other++;
        }
        // Of the other form, never.
        expect(grownFrom(before, { ...before, llm: null, llmSkipped: null })).toBe(false);
      }
    }
    expect(grown).toBeGreaterThan(50);
    expect(other).toBeGreaterThan(20);
  });

  it("keeps what the pages held before a grown window, a page reaching into it cut at its start", () => {
    let cutInto = 0;
    // Chains of 30 to 80 messages, every fifth one a bash run the model never sees.
    const base = contexts()[0]!;
    const leafContexts = [30, 41, 57, 64, 80].map((count): ContextView => {
      const indices = Array.from({ length: count }, (_, i) => i);
      const llmSkipped = indices.filter((i) => i % 5 === 4);
      const messages = indices.map((i) => ({
        entryId: `e${i}`,
        message: { role: "user" as const, content: `message ${i}`, timestamp: i },
        tokenEstimate: 3,
      }));
      const llm = indices
        .filter((i) => i % 5 !== 4)
        .map((i) => ({ role: "user" as const, content: `message ${i}`, timestamp: i }));
      return { ...base, messageCount: count, messagesFrom: 0, messages, llm, llmSkipped };
    });
    for (const whole of leafContexts) {
      const paged = pagedContext(whole);
      // Pages of 7 from the top; the window starts inside one of them.
      const held: ContextPage[] = [];
      for (let from = 0; from + 7 <= whole.messageCount - 5; from += 7) {
        const page = contextPageOf(paged, from, 7);
        // A cut text in each page, of the agent's and of the model's message there.
        const llmAt = llmIndexOf(whole.llmSkipped!, from + 6);
        page.cuts = [
          { path: ["messages", from + 6, "content"], length: 9, shown: 1 },
          { path: ["llm", llmAt, "content"], length: 9, shown: 1 },
        ];
        held.push(page);
      }
      // Inside the last page held, a message further on for each context.
      const start = held.at(-1)!.from + 1 + (cutInto % 6);
      const window = contextWindow(paged, start);
      const pages = grownPages(held, window);
      // Every message once, in order, with its model's form: the pages join into the whole context.
      const joined = joinPages(window, pages);
      expect({ ...joined, cuts: undefined }).toEqual({ ...whole, cuts: undefined });
      // The cut texts of the messages kept, each once; none of those the window now holds.
      const cuts = pages.flatMap((page) => page.cuts ?? []);
      const kept = held
        .flatMap((page) => page.cuts!)
        .filter((cut) => {
          const index = Number(cut.path[1]);
          return cut.path[0] === "llm" ? index < llmIndexOf(whole.llmSkipped!, start) : index < start;
        });
      expect(cuts).toEqual(kept);
      // The last page held, cut at the window's start.
      expect(pages.at(-2)!.messages.length).toBe(start - held.at(-1)!.from);
      cutInto++;
      // Those before the window are the pages held, unchanged.
      expect(pages.filter((page) => page.from + 7 <= start)).toEqual(
        held.filter((page) => page.from + 7 <= start),
      );
      expect(pages.at(-1)).toEqual(pageOfView(window));
    }
    expect(cutInto).toBe(leafContexts.length);
  });

  it("puts a whole context together only from pages that hold every message", () => {
    const [whole] = contexts();
    const view = { ...whole!, messagesFrom: 1, messages: whole!.messages.slice(1) };
    expect(() => joinPages(view, [pageOfView(view)])).toThrow(/misses message 1/);
  });
});
