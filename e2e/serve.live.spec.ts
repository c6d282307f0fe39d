/**
 * Live sessions: another process (as Pi would) appends whole lines to the
 * session the window has open; the new entries appear in the graph, the
 * preview follows the new leaf and the header says the file is live, with
 * no reload.
 */

import { spawn } from "node:child_process";
import { expect, test } from "@playwright/test";
import {
  expandAllChains,
  expectPreviewOf,
  graphStatus,
  node,
  openApp,
  openSession,
  preview,
  screenshot,
  sessionRow,
} from "./support/app.ts";
import { type DemoLibrary, LOGIN, leafOf, writeDemo } from "./support/demo.ts";
import { type RunningServe, startServe } from "./support/serve.ts";

let serve: RunningServe;
/** These measure the entry graph: the address asks for it, whatever view a session would open in by default. */
const ENTRY_GRAPH = { view: "entries" };
let demo: DemoLibrary;

test.beforeAll(async () => {
  demo = writeDemo();
  serve = await startServe({ dirs: [demo.root], removeDirsOnStop: true });
});

test.afterAll(async () => {
  const code = await serve?.stop();
  expect(code, serve?.output()).toBe(0);
});

/** Appends each entry as one whole line, from a separate Node process, with appendFileSync. */
async function appendFromAnotherProcess(file: string, entries: readonly object[]): Promise<void> {
  const script = `
    const { appendFileSync } = require("node:fs");
    for (const line of JSON.parse(process.argv[2])) appendFileSync(process.argv[1], line + "\\n");
  `;
  const lines = JSON.stringify(entries.map((entry) => JSON.stringify(entry)));
  const child = spawn(process.execPath, ["-e", script, file, lines], {
    stdio: ["ignore", "inherit", "inherit"],
  });
  const code = await new Promise<number | null>((done) => child.once("exit", done));
  expect(code).toBe(0);
}

test("entries another process appends appear in the open session without a reload", async ({ page }) => {
  const session = demo.login;
  const fileLeaf = leafOf(session);
  await openApp(page, serve.urlWith(ENTRY_GRAPH));
  await openSession(page, LOGIN, fileLeaf);
  await expect(page.locator(".app-header .badge.live")).toHaveCount(0);
  // Every entry a node of its own, so the appended ones show as nodes too.
  await expandAllChains(page);
  const before = await graphStatus(page);
  const row = sessionRow(page, LOGIN);
  const messagesBefore = Number(/(\d+) msgs/.exec((await row.textContent()) ?? "")?.[1]);
  // A mark in the page's own globals: a reload would lose it (the address may change in place, a history
  // update: it names the selected entry once a label makes another entry the file's leaf).
  await page.evaluate(() => {
    (globalThis as unknown as { notReloaded?: boolean }).notReloaded = true;
  });

  const now = Date.now();
  const question = {
    type: "message",
    id: "e2e0live",
    parentId: fileLeaf,
    timestamp: new Date(now).toISOString(),
    message: { role: "user", content: [{ type: "text", text: "Is the fix merged yet?" }], timestamp: now },
  };
  const answer = {
    type: "message",
    id: "e2e1live",
    parentId: question.id,
    timestamp: new Date(now + 1000).toISOString(),
    message: {
      role: "assistant",
      content: [{ type: "text", text: "Yes: merged as #4822 a minute ago." }],
      api: "anthropic-messages",
      provider: "anthropic",
      model: "claude-opus-4-5",
      usage: { input: 900, output: 20, cacheRead: 0, cacheWrite: 0, totalTokens: 920 },
      stopReason: "stop",
      timestamp: now + 1000,
    },
  };
  await appendFromAnotherProcess(session.file, [question, answer]);

  await expect(node(page, answer.id)).toBeVisible();
  await expect(node(page, question.id)).toBeVisible();
  await expect(node(page, answer.id).locator(".entry-node")).toHaveClass(/\brecent\b/);
  await expect(node(page, answer.id).locator(".entry-node")).toHaveClass(/\bleaf\b/);
  await expect(page.locator(".app-header .badge.live")).toBeVisible();
  // "Follow leaf" is on: the new leaf is selected and its context shown.
  await expectPreviewOf(page, answer.id);
  await expect(preview(page).locator(`article[data-entry-id="${answer.id}"]`)).toContainText(
    "merged as #4822",
  );
  expect((await graphStatus(page)).entries).toBe(before.entries + 2);
  // The library's row counts the two new messages, without a rescan.
  await expect(row).toContainText(`${messagesBefore + 2} msgs`);
  await screenshot(page, "live");

  // A label appended later shows on its entry.
  await appendFromAnotherProcess(session.file, [
    {
      type: "label",
      id: "e2e2live",
      parentId: answer.id,
      timestamp: new Date(now + 2000).toISOString(),
      targetId: answer.id,
      label: "merged",
    },
  ]);
  await expect(node(page, answer.id).locator(".badge.label")).toHaveText("merged");
  expect((await graphStatus(page)).entries).toBe(before.entries + 3);
  const notReloaded = await page.evaluate(
    () => (globalThis as unknown as { notReloaded?: boolean }).notReloaded,
  );
  expect(notReloaded, "the page never reloaded").toBe(true);
});
