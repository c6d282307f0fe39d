/**
 * A context of 6,000 messages in one chain (issue 20): the deepest entry's
 * context comes in pages, no WebSocket answer over the budget of one; the
 * preview counts every message, opens at the last ones, and Home brings the
 * first message, its page fetched as it comes into view.
 */

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { piSessionFolderName } from "../app/library/pi-folders.ts";
import { CONTEXT_ANSWER_BUDGET_BYTES } from "../shared/ipc/contract.ts";
import { openApp, openSession, preview, previewItems } from "./support/app.ts";
import { type RunningServe, startServe } from "./support/serve.ts";

const CWD = "/home/demo/long-chain";
const MESSAGES = 6_000;
let root: string;
let serve: RunningServe;

const idOf = (i: number) => `m${String(i).padStart(7, "0")}`;

test.beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "arbor-e2e-pages-"));
  const folder = join(root, piSessionFolderName(CWD));
  mkdirSync(folder, { recursive: true });
  const lines = [
    JSON.stringify({
      type: "session",
      version: 3,
      id: "0199aa00-0000-7000-8000-0000000c0a9e",
      timestamp: "2026-01-03T10:00:00.000Z",
      cwd: CWD,
    }),
  ];
  // Small messages, about 600 bytes each: 3.6 MB in all, a little over a thousand and a half an answer.
  for (let i = 0; i < MESSAGES; i++) {
    const text = `Message ${i + 1} of the long chain. ${"Some words to read. ".repeat(28)}`;
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
    lines.push(
      JSON.stringify({
        type: "message",
        id: idOf(i),
        parentId: i === 0 ? null : idOf(i - 1),
        timestamp: new Date(Date.UTC(2026, 0, 3, 10) + i * 1000).toISOString(),
        message,
      }),
    );
  }
  writeFileSync(join(folder, "long-chain.jsonl"), `${lines.join("\n")}\n`);
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
  await openSession(page, "Message 1 of the long chain", last);

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
  await expect(first).toContainText("Message 1 of the long chain.");
  await expect(first).toHaveAttribute("data-index", "0");
  await expect(preview(page).locator("[data-loading]")).toHaveCount(0);
  expect(pagesAsked).toBeGreaterThan(0);

  // No answer larger than one answer's budget: the context came as its last page, then a page of the top.
  expect(frames.some((frame) => frame.context)).toBe(true);
  const largest = Math.max(...frames.map((frame) => frame.size));
  expect(largest).toBeGreaterThan(500_000);
  expect(largest).toBeLessThan(CONTEXT_ANSWER_BUDGET_BYTES);
});
