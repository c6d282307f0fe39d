/**
 * What the managing-sessions specs share: the bytes a write must leave, the
 * menu, dialog and toast of the window, and opening the demo's login session
 * with every entry its own node.
 */

import { readdirSync, readFileSync } from "node:fs";
import { basename } from "node:path";
import { expect, type Page } from "@playwright/test";
import { expandAllChains, graphPanel, library, openApp } from "./app.ts";

export type Entry = Record<string, unknown> & { id?: string; type: string; parentId?: string | null };

/** What a write must leave: the bytes that were there, then `count` whole new lines (returned parsed). */
export async function appendedLines(
  file: string,
  before: Buffer,
  count: number,
): Promise<[Entry, ...Entry[]]> {
  await expect.poll(() => readFileSync(file).length).toBeGreaterThan(before.length);
  await expect
    .poll(
      () => readFileSync(file).subarray(before.length).toString("utf8").split("\n").filter(Boolean).length,
    )
    .toBe(count);
  const after = readFileSync(file);
  expect(after.subarray(0, before.length).equals(before)).toBe(true);
  const tail = after.subarray(before.length).toString("utf8");
  expect(tail.endsWith("\n")).toBe(true);
  return tail
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Entry) as [Entry, ...Entry[]];
}

export const menu = (page: Page) => page.getByRole("menu");
export const menuItem = (page: Page, name: string | RegExp) => menu(page).getByRole("menuitem", { name });
export const dialog = (page: Page) => page.getByRole("dialog");
export const toast = (page: Page) => page.getByTestId("action-toast");
export const sessionFiles = (folder: string) => readdirSync(folder).filter((name) => name.endsWith(".jsonl"));

/** Opens a session by its file (its name may be cleared or shared by forks), every entry its own node. */
export async function openByFile(page: Page, url: string, file: string): Promise<void> {
  await openApp(page, url);
  const row = library(page).locator(`.session-row[title$="${basename(file)}"]`);
  await row.click();
  await expect(row).toHaveAttribute("aria-current", "true");
  await expect(graphPanel(page)).toBeFocused();
  await expect(page.locator('[aria-label="Context preview"]')).toHaveAttribute("aria-busy", "false");
  // Every entry its own node (long runs are folded into chains).
  await expandAllChains(page);
}
