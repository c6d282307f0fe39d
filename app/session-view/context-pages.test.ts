/**
 * Contexts in pages of messages (issue 20): `session.context` answers a
 * window within a few MB however long the context, `session.contextPage`
 * the rest, and the pages put together are exactly the context built whole
 * (and Pi's `buildSessionContext` and `convertToLlm`). Real files in a temp
 * folder, through the handlers as a window asks (parameters validated,
 * answers through JSON).
 */

import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  CONTEXT_ANSWER_BUDGET_BYTES,
  CONTEXT_FIRST_WINDOW_MESSAGES,
  CONTEXT_PAGE_MAX_MESSAGES,
  type ContextView,
} from "../../shared/ipc/contract.ts";
import { readWholeContext } from "../../shared/ipc/context-reading.ts";
import { MESSAGE_OVERHEAD_BYTES } from "../../shared/ipc/context-pages.ts";
import { stringAt, TEXT_BLOCK_MAX_CHARS } from "../../shared/ipc/text-pages.ts";
import { contextView } from "../../shared/ipc/views.ts";
import { ensureNoLeaks } from "../../shared/lifecycle/testing.ts";
import {
  buildSessionContext,
  contextGraphOf,
  convertToLlm,
  inMemoryEntryReader,
  readSession,
} from "../../shared/session/index.ts";
import type { ArborHost } from "../ipc/host.ts";
import { hostsInTempFolder, items, request, waitForEvent } from "../ipc/testing.ts";
import { fileSessionFactory } from "../runtime/file-session.ts";
import { openIndexedFile } from "../store/open-indexed-file.ts";
import { createParseCache } from "../store/parse-cache.ts";
import { countingLoads } from "../store/testing/counting-cache.ts";

ensureNoLeaks();

const fixture = hostsInTempFolder("arbor-context-pages-");

type Json = Record<string, unknown>;

interface Chain {
  /** The entry of each message written (by its `i`). */
  messageIds: string[];
  leafId: string;
}

/**
 * A chain of `count` small messages (user, assistant, tool result; now and
 * then a bash run the model never sees), with a thinking level change, a
 * compaction and two context edits on the way, and a long text (`long`
 * characters) at each index of `longAt`.
 */
function writeChain(path: string, count: number, options: { longAt?: number[]; long?: number } = {}): Chain {
  const header = {
    type: "session",
    version: 3,
    id: "019b7a4e-0000-7000-8000-0000000000cc",
    timestamp: "2026-01-01T00:00:00.000Z",
    cwd: "/work/project",
  };
  const lines = [JSON.stringify(header)];
  const ids: string[] = [];
  const add = (fields: Json) => {
    const id = `cc${String(ids.length).padStart(7, "0")}`;
    const timestamp = new Date(Date.UTC(2026, 0, 1) + ids.length * 1000).toISOString();
    lines.push(JSON.stringify({ type: "message", ...fields, id, parentId: ids.at(-1) ?? null, timestamp }));
    ids.push(id);
    return id;
  };
  const longAt = new Set(options.longAt ?? []);
  const messageIds: string[] = [];
  for (let i = 0; i < count; i++) {
    const text = longAt.has(i) ? `long ${i} `.repeat(options.long! / 8).slice(0, options.long) : `m${i} é`;
    if (i === 40) add({ type: "thinking_level_change", thinkingLevel: "high" });
    if (i === 300)
      add({ type: "compaction", summary: "what came before", firstKeptEntryId: ids[250], tokensBefore: 9 });
    if (i === 500) add({ type: "context_edit", targetId: ids[420], replacement: null });
    if (i === 501) add({ type: "context_edit", targetId: ids[430], replacement: { content: "edited" } });
    if (i % 97 === 5) {
      messageIds[i] = add({
        message: {
          role: "bashExecution",
          command: `echo ${i}`,
          output: text,
          exitCode: 0,
          cancelled: false,
          truncated: false,
          excludeFromContext: i % 2 === 1,
          timestamp: i,
        },
      });
      continue;
    }
    const role = ["user", "assistant", "toolResult"][i % 3]!;
    const message: Json =
      role === "assistant"
        ? {
            role,
            content: [{ type: "text", text }],
            provider: "anthropic",
            model: "claude-test",
            usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { total: 0.5 } },
            stopReason: "stop",
            timestamp: i,
          }
        : role === "user"
          ? { role, content: text, timestamp: i }
          : {
              role,
              toolCallId: `t${i}`,
              toolName: "read",
              content: [{ type: "text", text }],
              isError: false,
              timestamp: i,
            };
    messageIds[i] = add({ message });
  }
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${lines.join("\n")}\n`);
  return { messageIds, leafId: ids.at(-1)! };
}

async function openSample(created = fixture.host()): Promise<ArborHost> {
  const [item] = items(await created.windowServices.library.rescan());
  await created.windowServices.actions.open(item!.sessionId);
  return created;
}

/** The client of `readWholeContext` over the handlers, with every answer's JSON size. */
function clientOf(host: ArborHost, sizes: number[] = []) {
  return {
    async request(name: never, params: never) {
      const answer = await request(host.handlers, name, params);
      sizes.push(JSON.stringify(answer).length);
      return answer as never;
    },
  };
}

/** The context built whole from the file as it is (no pages, no cuts), and Pi's own. */
function oracle(path: string, leafId: string, llm: boolean) {
  const index = readSession(readFileSync(path));
  const reader = inMemoryEntryReader(index);
  const whole = contextView(index, reader, leafId, llm);
  const pi = buildSessionContext(contextGraphOf(index, reader), leafId);
  return { whole: JSON.parse(JSON.stringify(whole)) as ContextView, pi: JSON.parse(JSON.stringify(pi)) };
}

describe("contexts in pages", () => {
  it("answers a context of many small messages within the budget, and its pages make the whole", async () => {
    const { leafId } = writeChain(fixture.samplePath, 6_000);
    const host = await openSample();
    for (const llm of [false, true]) {
      const sizes: number[] = [];
      const client = clientOf(host, sizes);
      const first = await request(host.handlers, "session.context", { leafId, llm });
      const { whole: expected, pi } = oracle(fixture.samplePath, leafId, llm);
      // The last page: it ends with the leaf's own message, and the figures are the whole context's.
      expect(first.messageCount).toBe(expected.messageCount);
      // The first answer is the first window (a few hundred KB); the pages after it are larger.
      expect(first.messages.length).toBe(CONTEXT_FIRST_WINDOW_MESSAGES);
      expect(first.messagesFrom + first.messages.length).toBe(first.messageCount);
      expect(first.messages).toEqual(expected.messages.slice(first.messagesFrom));
      expect(first.tokenEstimate).toBe(expected.tokenEstimate);
      expect(first.cost).toEqual(expected.cost);
      expect(first.cost.answers).toBeGreaterThan(1000);
      expect(first.pathRuns).toEqual(expected.pathRuns);
      expect(first.llmSkipped).toEqual(expected.llmSkipped);
      if (llm) expect(first.llmSkipped!.length).toBeGreaterThan(10);
      expect(JSON.stringify(first).length).toBeLessThan(CONTEXT_ANSWER_BUDGET_BYTES);

      const whole = await readWholeContext(client, leafId, llm);
      expect(whole).toEqual(expected);
      expect(whole.messages.map((item) => item.message)).toEqual(pi.messages);
      expect(whole.llm).toEqual(llm ? convertToLlm(pi.messages) : null);
      expect(sizes.length).toBe(
        1 + Math.ceil((first.messageCount - CONTEXT_FIRST_WINDOW_MESSAGES) / CONTEXT_PAGE_MAX_MESSAGES),
      );
      for (const size of sizes) expect(size).toBeLessThan(CONTEXT_ANSWER_BUDGET_BYTES);
    }
  });

  it("pages a context of long messages by their size, each answer within the budget", async () => {
    const longAt = Array.from({ length: 40 }, (_, i) => 10 + i * 5);
    const { leafId } = writeChain(fixture.samplePath, 260, { longAt, long: 150_000 });
    const host = await openSample();
    for (const llm of [false, true]) {
      const sizes: number[] = [];
      const first = await request(host.handlers, "session.context", { leafId, llm });
      expect(first.messagesFrom).toBeGreaterThan(0);
      const whole = await readWholeContext(clientOf(host, sizes), leafId, llm);
      expect(whole).toEqual(oracle(fixture.samplePath, leafId, llm).whole);
      // Each answer holds its messages' estimate (150 KB lines: twice that with the model's form) and a bit.
      const most = (llm ? 2 : 1) * (150_000 + MESSAGE_OVERHEAD_BYTES);
      for (const size of sizes) expect(size).toBeLessThan(CONTEXT_ANSWER_BUDGET_BYTES + most);
    }
  });

  it("cuts long strings with the whole context's paths, which session.text reads in any page", async () => {
    const long = TEXT_BLOCK_MAX_CHARS + 5_000;
    // One long text before the compaction's kept range (summarised away), one early on, one late (in the first window).
    const { leafId, messageIds } = writeChain(fixture.samplePath, 3_000, { longAt: [100, 700, 2_900], long });
    const host = await openSample();
    for (const llm of [false, true]) {
      const first = await request(host.handlers, "session.context", { leafId, llm });
      const early = await request(host.handlers, "session.contextPage", { leafId, llm, from: 0, count: 500 });
      expect(first.messagesFrom).toBeGreaterThan(500);
      const { whole } = oracle(fixture.samplePath, leafId, llm);
      const cuts = [...(first.cuts ?? []), ...(early.cuts ?? [])];
      const roots = llm ? ["messages", "llm"] : ["messages"];
      // Each long text in the context, cut in its page, once per form.
      const at = [700, 2_900].map((i) => whole.messages.findIndex((item) => item.entryId === messageIds[i]));
      expect(at[0]).toBeLessThan(500);
      expect(cuts.map((cut) => cut.path.slice(0, 2))).toEqual(
        expect.arrayContaining(roots.flatMap((root) => at.map((index) => [root, llmAt(whole, root, index)]))),
      );
      expect(cuts).toHaveLength(2 * roots.length);
      for (const cut of cuts) {
        const text = stringAt(whole, cut.path)!;
        expect([cut.length, cut.shown]).toEqual([long, TEXT_BLOCK_MAX_CHARS]);
        const tail = await request(host.handlers, "session.text", {
          of: { leafId, llm },
          path: cut.path,
          offset: long - 10,
          length: 100,
        });
        expect(tail).toEqual({ text: text.slice(long - 10), length: long });
      }
    }
  });

  /** A session of `count` messages opened from its saved view (the index built only when needed). */
  async function openFromSavedView(count: number) {
    const chain = writeChain(fixture.samplePath, count);
    const cache = countingLoads(createParseCache(join(fixture.folder, "open-cache"), { minBytes: 0 }));
    const opened = openIndexedFile(fixture.samplePath, { mode: "structure-with-facts", parseCache: cache });
    opened.saveForNextOpen?.();
    opened.close();
    cache.loads = 0;
    const host = await openSample(
      fixture.host({
        demo: false,
        openSession: fileSessionFactory({ mode: "structure-with-facts", parseCache: cache }),
        indexBuildDelayMs: 60_000,
      }),
    );
    expect(host.runtime.session!.savedView?.leafContextJson).toBeTruthy();
    return { ...chain, host, cache };
  }

  it("pages the leaf's context saved with a large session's view without building the index", async () => {
    const { leafId, host, cache } = await openFromSavedView(3_000);
    const whole = await readWholeContext(clientOf(host), leafId, false);
    expect(cache.loads).toBe(0);
    expect(whole).toEqual(oracle(fixture.samplePath, leafId, false).whole);
  });

  const userLine = (id: string, parentId: string, content: string) =>
    `${JSON.stringify({ type: "message", id, parentId, timestamp: "2026-04-01T00:00:00.000Z", message: { role: "user", content, timestamp: 1 } })}\n`;

  it("grows the saved leaf's context when the leaf is followed: the appended entries read, not the path", async () => {
    const { leafId, host } = await openFromSavedView(3_000);
    await readWholeContext(clientOf(host), leafId, false);
    const appended = waitForEvent(host, "session.appended");
    appendFileSync(fixture.samplePath, userLine("next1", leafId, "one") + userLine("next2", "next1", "two"));
    await appended;
    // The index was built at the append, from the view's bytes, and grown in place.
    const reader = host.runtime.session!.reader;
    const read: string[] = [];
    const entryOfNode = reader.entryOfNode.bind(reader);
    reader.entryOfNode = (node) => {
      read.push(node.id);
      return entryOfNode(node);
    };
    const whole = await readWholeContext(clientOf(host), "next2", false);
    expect(whole).toEqual(oracle(fixture.samplePath, "next2", false).whole);
    expect(new Set(read)).toEqual(new Set(["next1", "next2"]));
  });

  it("builds the saved leaf's context again once an append rebuilt the index (an id on its path used again)", async () => {
    const { leafId, messageIds, host } = await openFromSavedView(200);
    const before = await readWholeContext(clientOf(host), leafId, false);
    const appended = waitForEvent(host, "session.appended");
    // Pi reads the later of two entries with one id: the leaf's path now runs through the new one.
    appendFileSync(fixture.samplePath, userLine(messageIds[150]!, messageIds[20]!, "again"));
    await appended;
    const after = await readWholeContext(clientOf(host), leafId, false);
    expect(after).toEqual(oracle(fixture.samplePath, leafId, false).whole);
    expect(after.messageCount).not.toBe(before.messageCount);
  });

  it("keeps paging a context while the file grows: an append changes no context already there", async () => {
    const { leafId } = writeChain(fixture.samplePath, 5_000);
    const host = await openSample();
    const expected = oracle(fixture.samplePath, leafId, true).whole;
    const first = await request(host.handlers, "session.context", { leafId, llm: true });
    const appended = waitForEvent(host, "session.appended");
    appendFileSync(
      fixture.samplePath,
      `${JSON.stringify({ type: "message", id: "ccafter", parentId: leafId, timestamp: "2026-02-01T00:00:00.000Z", message: { role: "user", content: "after", timestamp: 1 } })}\n`,
    );
    await appended;
    const whole = await readWholeContext(
      {
        request: ((name: "session.context" | "session.contextPage", params: never) =>
          name === "session.context" ? first : request(host.handlers, name, params)) as never,
      },
      leafId,
      true,
    );
    expect(whole).toEqual(expected);
    const after = await request(host.handlers, "session.context", { leafId: "ccafter", llm: true });
    expect(after.messageCount).toBe(first.messageCount + 1);
  });

  it("follows a growing file's leaf: each new leaf's context, grown from the last, is the one built afresh", async () => {
    const { leafId } = writeChain(fixture.samplePath, 3_000);
    const host = await openSample();
    let parentId = leafId;
    // One form at a time, as a window asks: a context grows from the last one of its form.
    for (let round = 0; round < 6; round++) {
      const llm = round >= 3;
      if (round === 0 || round === 3)
        await request(host.handlers, "session.context", { leafId: parentId, llm });
      const appended = waitForEvent(host, "session.appended");
      const lines = [0, 1, 2].map((k) => {
        const id = `follow${round}${k}`;
        const message =
          k === 1
            ? {
                role: "assistant",
                content: [{ type: "text", text: `answer ${round}` }],
                provider: "anthropic",
                model: `claude-${round}`,
                usage: {
                  input: 5,
                  output: 1,
                  cacheRead: round,
                  cacheWrite: 0,
                  totalTokens: 6 + round,
                  cost: { total: 0.25 },
                },
                stopReason: "stop",
                timestamp: round,
              }
            : { role: "user", content: `question ${round}.${k}`, timestamp: round };
        const line = {
          type: "message",
          id,
          parentId,
          timestamp: `2026-03-0${round + 1}T00:00:0${k}.000Z`,
          message,
        };
        parentId = id;
        return `${JSON.stringify(line)}\n`;
      });
      appendFileSync(fixture.samplePath, lines.join(""));
      await appended;
      const whole = await readWholeContext(clientOf(host), parentId, llm);
      const expected = oracle(fixture.samplePath, parentId, llm);
      expect(whole, `round ${round}, llm ${llm}`).toEqual(expected.whole);
      expect(whole.messages.map((item) => item.message)).toEqual(expected.pi.messages);
      expect(whole.llm).toEqual(llm ? convertToLlm(expected.pi.messages) : null);
    }
  });

  it("builds a context again once the index is rebuilt: an orphan whose parent arrives has a longer path", async () => {
    const { leafId } = writeChain(fixture.samplePath, 40);
    const host = await openSample();
    const line = (id: string, parentId: string, content: string) =>
      `${JSON.stringify({ type: "message", id, parentId, timestamp: "2026-04-01T00:00:00.000Z", message: { role: "user", content, timestamp: 1 } })}\n`;
    let appended = waitForEvent(host, "session.appended");
    appendFileSync(fixture.samplePath, line("orphan1", "parent1", "its parent comes later"));
    await appended;
    const alone = await request(host.handlers, "session.context", { leafId: "orphan1", llm: false });
    expect(alone.messageCount).toBe(1);
    appended = waitForEvent(host, "session.appended");
    appendFileSync(fixture.samplePath, line("parent1", leafId, "the parent"));
    await appended;
    const whole = await readWholeContext(clientOf(host), "orphan1", false);
    expect(whole).toEqual(oracle(fixture.samplePath, "orphan1", false).whole);
    expect(whole.messageCount).toBeGreaterThan(2);
  });

  it("refuses ranges out of bounds, in the parameters or in the context", async () => {
    const { leafId } = writeChain(fixture.samplePath, 30);
    const host = await openSample();
    const page = (from: number, count: number) =>
      request(host.handlers, "session.contextPage", { leafId, llm: false, from, count });
    for (const [from, count] of [
      [-1, 10],
      [0, 0],
      [0, CONTEXT_PAGE_MAX_MESSAGES + 1],
      [1.5, 10],
    ] as const) {
      await expect(page(from, count)).rejects.toMatchObject({ code: "invalid-request" });
    }
    await expect(
      request(host.handlers, "session.contextPage", { leafId, from: 0, count: 5 } as never),
    ).rejects.toMatchObject({ code: "invalid-request" });
    const { messageCount } = await request(host.handlers, "session.context", { leafId, llm: false });
    await expect(page(messageCount, 1)).rejects.toMatchObject({ code: "not-found" });
    await expect(page(messageCount + 5, 1)).rejects.toMatchObject({ code: "not-found" });
    // The last message, asked for beyond the end: what there is.
    expect((await page(messageCount - 1, 50)).messages).toHaveLength(1);
  });
});

/** A message's index in `root`: its own in "messages", its model form's in "llm". */
function llmAt(whole: ContextView, root: string, index: number): number {
  if (root === "messages") return index;
  return index - (whole.llmSkipped ?? []).filter((skipped) => skipped < index).length;
}
