/**
 * A context of 6,000 messages in one chain (issue 20): the deepest entry's
 * context comes in pages, no WebSocket answer over the budget of one; the
 * preview counts every message, opens at the last ones, and Home brings the
 * first message, its page fetched as it comes into view.
 */

import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { piSessionFolderName } from "../app/library/pi-folders.ts";
import { CONTEXT_ANSWER_BUDGET_BYTES } from "../shared/ipc/contract.ts";
import { expectPreviewOf, openApp, openSession, preview, previewItems } from "./support/app.ts";
import { type RunningServe, startServe } from "./support/serve.ts";

const CWD = "/home/demo/long-chain";
const MESSAGES = 6_000;
let root: string;
let serve: RunningServe;

const idOf = (i: number) => `m${String(i).padStart(7, "0")}`;

/** A chain of `count` messages, user and assistant in turn, about 600 bytes each; its first says `title`. */
function chainLines(title: string, count: number, idOf: (i: number) => string): string[] {
  const lines = [
    JSON.stringify({
      type: "session",
      version: 3,
      id: `0199aa00-0000-7000-8000-${String(count).padStart(12, "0")}`,
      timestamp: "2026-01-03T10:00:00.000Z",
      cwd: CWD,
    }),
  ];
  for (let i = 0; i < count; i++) lines.push(JSON.stringify(chainEntry(title, i, idOf)));
  return lines;
}

function chainEntry(title: string, i: number, idOf: (i: number) => string) {
  const text = `${title} ${i + 1}. ${"Some words to read. ".repeat(28)}`;
  const message =
    i % 2 === 0
      ? { role: "user", content: text, timestamp: i }
      : {
          role: "assistant",
          content: [{ type: "text", text }],
          provider: "anthropic",
          model: "claude-test",
          stopReason: "stop",
          timestamp: i,
        };
  return {
    type: "message",
    id: idOf(i),
    parentId: i === 0 ? null : idOf(i - 1),
    timestamp: new Date(Date.UTC(2026, 0, 3, 10) + i * 1000).toISOString(),
    message,
  };
}

const LONG_TITLE = "Message";
const followIdOf = (i: number) => `f${String(i).padStart(7, "0")}`;
const shortIdOf = (i: number) => `s${String(i).padStart(7, "0")}`;
/** Followed while appended to: long enough for pages (virtualised), and short enough to be drawn plainly. */
const FOLLOWED = {
  long: { title: "Followed chain", count: 400 },
  short: { title: "Short chain", count: 30 },
};
let folder: string;

test.beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "arbor-e2e-pages-"));
  folder = join(root, piSessionFolderName(CWD));
  mkdirSync(folder, { recursive: true });
  // Small messages, about 600 bytes each: 3.6 MB in all, a little over a thousand and a half an answer.
  writeFileSync(join(folder, "long-chain.jsonl"), `${chainLines(LONG_TITLE, MESSAGES, idOf).join("\n")}\n`);
  const { long, short } = FOLLOWED;
  writeFileSync(
    join(folder, "followed.jsonl"),
    `${chainLines(long.title, long.count, followIdOf).join("\n")}\n`,
  );
  writeFileSync(
    join(folder, "short.jsonl"),
    `${chainLines(short.title, short.count, shortIdOf).join("\n")}\n`,
  );
  serve = await startServe({ dirs: [root] });
});

test.afterAll(async () => {
  await serve?.stop();
  rmSync(root, { recursive: true, force: true });
});

test("the deepest entry's context of 6,000 messages comes in pages and scrolls to its first message", async ({
  page,
}) => {
  const frames: { size: number; context: boolean }[] = [];
  let pagesAsked = 0;
  page.on("websocket", (socket) => {
    socket.on("framesent", ({ payload }) => {
      if (String(payload).includes('"session.contextPage"')) pagesAsked++;
    });
    socket.on("framereceived", ({ payload }) => {
      const text = typeof payload === "string" ? payload : payload.toString("utf8");
      frames.push({ size: Buffer.byteLength(text), context: text.includes(`"messageCount":${MESSAGES}`) });
    });
  });
  await openApp(page, serve.url);
  const last = idOf(MESSAGES - 1);
  await openSession(page, "Message 1.", last);

  // Every message counted, the last ones shown, the selected entry's own message at the end.
  await expect(preview(page)).toHaveAttribute("data-message-count", String(MESSAGES));
  await expect(page.getByTestId("message-count")).toHaveText(MESSAGES.toLocaleString("en-US"));
  const shown = await previewItems(page);
  expect(shown.at(-1)?.entryId).toBe(last);
  expect(shown.every((item) => Number(item.entryId.slice(1)) > MESSAGES - 100)).toBe(true);

  // Opening at the end asked for no other page.
  expect(pagesAsked).toBe(0);

  // Home: the first message's page is fetched and its text appears.
  const list = page.getByRole("region", { name: "Context messages" });
  await list.focus();
  await page.keyboard.press("Home");
  const first = preview(page).locator(`article.message[data-entry-id="${idOf(0)}"]`);
  await expect(first).toBeVisible();
  await expect(first).toContainText("Message 1. Some words");
  await expect(first).toHaveAttribute("data-index", "0");
  await expect(preview(page).locator("[data-loading]")).toHaveCount(0);
  expect(pagesAsked).toBeGreaterThan(0);

  // No answer larger than one answer's budget: the context came as its last page, then a page of the top.
  expect(frames.some((frame) => frame.context)).toBe(true);
  const largest = Math.max(...frames.map((frame) => frame.size));
  expect(largest).toBeGreaterThan(500_000);
  expect(largest).toBeLessThan(CONTEXT_ANSWER_BUDGET_BYTES);
});

/** Appends messages `from` to `to - 1` of a chain to its file, a whole line a write, as Pi does. */
function appendChain(file: string, title: string, idOf: (i: number) => string, from: number, to: number) {
  for (let i = from; i < to; i++)
    appendFileSync(join(folder, file), `${JSON.stringify(chainEntry(title, i, idOf))}\n`);
}

for (const [kind, file, idOfFollowed] of [
  ["long", "followed.jsonl", followIdOf],
  ["short", "short.jsonl", shortIdOf],
] as const) {
  test(`a followed ${kind} context stays where the user reads it, and follows its end from there`, async ({
    page,
  }) => {
    const { title, count } = FOLLOWED[kind];
    await openApp(page, serve.url);
    await openSession(page, `${title} 1.`, idOfFollowed(count - 1));
    const list = page.getByRole("region", { name: "Context messages" });
    // In view: within the list's visible box, which clips the rows scrolled out of it.
    const message = (i: number) => list.locator(`article.message[data-entry-id="${idOfFollowed(i)}"]`);
    await list.focus();
    await page.keyboard.press("Home");
    await expect(message(0)).toBeInViewport();

    // Pi answers: the preview follows the new leaf, and the first message stays in view, its page held.
    appendChain(file, title, idOfFollowed, count, count + 2);
    await expectPreviewOf(page, idOfFollowed(count + 1));
    await expect(preview(page)).toHaveAttribute("data-message-count", String(count + 2));
    await expect(message(0)).toBeInViewport();
    await expect(preview(page).locator("[data-loading]")).toHaveCount(0);

    // The list says what came below; its button goes there.
    const below = preview(page).getByRole("button", { name: "↓ 2 new messages" });
    await expect(below).toBeVisible();
    await below.click();
    await expect(message(count + 1)).toBeInViewport();
    await expect(preview(page).getByRole("button", { name: /new message/ })).toHaveCount(0);

    // From the end, it follows the end, with nothing to say.
    appendChain(file, title, idOfFollowed, count + 2, count + 4);
    await expectPreviewOf(page, idOfFollowed(count + 3));
    await expect(message(count + 3)).toBeInViewport();
    await expect(message(0)).not.toBeInViewport();
    await expect(preview(page).getByRole("button", { name: /new message/ })).toHaveCount(0);
  });
}
