/**
 * Long texts in pages: `session.entry` and `session.context` answers carry at
 * most 256 KB of a string (and a few MB in all), list what they cut, and
 * `session.text` returns the rest a page at a time, through the handlers as a
 * window asks (parameters validated, answers through JSON).
 */

import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { describe, expect, it } from "vitest";
import {
  ANSWER_TEXT_MAX_CHARS,
  TEXT_BLOCK_MAX_CHARS,
  TEXT_CUT_SHORT_CHARS,
  TEXT_PAGE_MAX_CHARS,
} from "../../shared/ipc/text-pages.ts";
import { ensureNoLeaks } from "../../shared/lifecycle/testing.ts";
import { hostsInTempFolder, items, request } from "../ipc/testing.ts";

ensureNoLeaks();

const fixture = hostsInTempFolder("arbor-text-pages-");

/** A text of `length` characters, of few distinct words (the library's scan indexes each). */
function longText(length: number, seed: string): string {
  const unit = Array.from({ length: 97 }, (_, i) => `${seed}${i} é€😀 `).join("");
  return unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
}

const BIG = 3 * TEXT_PAGE_MAX_CHARS + 12_345;

/** One message per item of `texts`: its text, or its text blocks. */
function writeSession(path: string, texts: (string | string[])[]): string[] {
  const header = {
    type: "session",
    version: 3,
    id: "019b7a4e-0000-7000-8000-0000000000aa",
    timestamp: "2026-01-01T00:00:00.000Z",
    cwd: "/work/project",
  };
  const ids: string[] = [];
  const lines = [JSON.stringify(header)];
  texts.forEach((text, i) => {
    const id = `bb${String(i).padStart(6, "0")}`;
    lines.push(
      JSON.stringify({
        type: "message",
        id,
        parentId: ids.at(-1) ?? null,
        timestamp: `2026-01-01T00:00:${String(i + 1).padStart(2, "0")}.000Z`,
        message: {
          role: i % 2 === 0 ? "user" : "toolResult",
          ...(i % 2 === 0 ? {} : { toolCallId: "t", toolName: "read", isError: false }),
          content: (Array.isArray(text) ? text : [text]).map((block) => ({ type: "text", text: block })),
          timestamp: i,
        },
      }),
    );
    ids.push(id);
  });
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${lines.join("\n")}\n`);
  return ids;
}

describe("long texts in pages", () => {
  it("cuts a long text in entry and context answers, and returns the rest in pages", async () => {
    const big = longText(BIG, "big");
    const ids = writeSession(fixture.samplePath, ["short question", big, "after"]);
    const created = fixture.host();
    const [item] = items(await created.windowServices.library.rescan());
    await created.windowServices.actions.open(item!.sessionId);
    const { handlers } = created;

    const detail = await request(handlers, "session.entry", { entryId: ids[1]! });
    const path = ["message", "content", 0, "text"];
    expect(detail.cuts).toEqual([{ path, length: BIG, shown: TEXT_BLOCK_MAX_CHARS }]);
    const shown = (detail.entry as unknown as { message: { content: { text: string }[] } }).message
      .content[0]!.text;
    expect(shown).toBe(big.slice(0, TEXT_BLOCK_MAX_CHARS));
    expect(JSON.stringify(detail).length).toBeLessThan(TEXT_BLOCK_MAX_CHARS * 2);
    // Entries without long texts are answered as before.
    expect((await request(handlers, "session.entry", { entryId: ids[0]! })).cuts).toBeUndefined();

    // "Show all": the rest, a page at a time.
    let whole = shown;
    while (whole.length < BIG) {
      const page = await request(handlers, "session.text", {
        of: { entryId: ids[1]! },
        path,
        offset: whole.length,
        length: TEXT_PAGE_MAX_CHARS,
      });
      expect(page.length).toBe(BIG);
      expect(page.text.length).toBeLessThanOrEqual(TEXT_PAGE_MAX_CHARS);
      whole += page.text;
    }
    expect(whole).toBe(big);

    for (const llm of [false, true]) {
      const context = await request(handlers, "session.context", { leafId: ids[2]!, llm });
      const messagePath = ["messages", 1, "message", "content", 0, "text"];
      expect(context.cuts).toContainEqual({ path: messagePath, length: BIG, shown: TEXT_BLOCK_MAX_CHARS });
      if (llm) expect(context.cuts!.some((cut) => cut.path[0] === "llm")).toBe(true);
      const page = await request(handlers, "session.text", {
        of: { leafId: ids[2]!, llm },
        path: messagePath,
        offset: BIG - 10,
        length: 100,
      });
      expect(page).toEqual({ text: big.slice(BIG - 10), length: BIG });
    }
    await expect(
      request(handlers, "session.text", {
        of: { entryId: ids[0]! },
        path: ["message", "none"],
        offset: 0,
        length: 10,
      }),
    ).rejects.toMatchObject({ code: "not-found" });
    // Parameters are checked like every request's.
    await expect(
      request(handlers, "session.text", { of: { entryId: ids[1]! }, path, offset: -1, length: 10 }),
    ).rejects.toMatchObject({ code: "invalid-request" });
    await expect(
      request(handlers, "session.text", {
        of: { entryId: ids[1]! },
        path,
        offset: 0,
        length: TEXT_PAGE_MAX_CHARS + 1,
      }),
    ).rejects.toMatchObject({ code: "invalid-request" });
  });

  it("keeps a context answer within a few MB: once its budget is spent, long texts are cut shorter", async () => {
    // Few messages of many long texts each: one answer's worth of messages (context-pages.ts), 6 MB of texts.
    const texts = Array.from({ length: 6 }, (_, i) =>
      Array.from({ length: 5 }, (_, j) => longText(200_000, `t${i}.${j}-`)),
    );
    const ids = writeSession(fixture.samplePath, texts);
    const created = fixture.host();
    const [item] = items(await created.windowServices.library.rescan());
    await created.windowServices.actions.open(item!.sessionId);
    const context = await request(created.handlers, "session.context", { leafId: ids.at(-1)!, llm: false });
    expect([context.messagesFrom, context.messages.length, context.messageCount]).toEqual([0, 6, 6]);
    expect(JSON.stringify(context).length).toBeLessThan(ANSWER_TEXT_MAX_CHARS + 200_000 + 30 * 1000);
    expect(context.cuts!.length).toBeGreaterThan(5);
    expect(context.cuts!.every((cut) => cut.length === 200_000 && cut.shown === TEXT_CUT_SHORT_CHARS)).toBe(
      true,
    );
  });
});
