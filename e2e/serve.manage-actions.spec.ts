/**
 * The rest of managing sessions end to end (issue 19; serve.manage.spec.ts
 * has the first half), in Chromium against a real `arbor serve` on a temp
 * copy of the demo library, each write read back from disk by Pi 0.73 and
 * 1.6: a label's time and Remove label, clearing the name and its Undo, a
 * continue with a summary (Pi's branch summary) and its Undo, Fork here at
 * an assistant entry, Clone from the Entry tab, Drop from context, the
 * JSONL export Pi opens with the branch's context, Open in Pi from a
 * library row, an archived branch left out of the library's count and the
 * branch map, and a store refusal shown as its one sentence, nothing written.
 */

import { appendFileSync, copyFileSync, mkdtempSync, readFileSync, rmSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { expect, type Page, test } from "@playwright/test";
import { PI_GENERATIONS, type PiContext } from "../app/store/testing/pi.ts";
import {
  expandAllChains,
  graphPanel,
  library,
  node,
  openApp,
  screenshot,
  sessionRow,
} from "./support/app.ts";
import { type DemoLibrary, leafOf, RELEASE, writeDemo } from "./support/demo.ts";
import {
  appendedLines,
  dialog,
  type Entry,
  menu,
  menuItem,
  openByFile,
  sessionFiles,
  toast,
} from "./support/manage.ts";
import { type RunningServe, startServe } from "./support/serve.ts";

let serve: RunningServe;
let demo: DemoLibrary;
let outside: string;

test.beforeAll(async () => {
  demo = writeDemo();
  outside = mkdtempSync(join(tmpdir(), "arbor-e2e-manage-actions-"));
  // No terminal starts from a test: Open in Pi answers with the command to copy.
  process.env.TERMINAL = join(outside, "no-such-terminal");
  serve = await startServe({ dirs: [demo.root], removeDirsOnStop: true });
});

test.afterAll(async () => {
  const code = await serve?.stop();
  rmSync(outside, { recursive: true, force: true });
  expect(code, serve?.output()).toBe(0);
});

/** Each Pi generation's session manager on its own copy of `file` (opening never touches the user's file). */
function piOpen(file: string) {
  return PI_GENERATIONS.map(({ name, module }) => {
    const copy = join(mkdtempSync(join(outside, "pi-")), basename(file));
    copyFileSync(file, copy);
    return { name, module, manager: module.SessionManager.open(copy) };
  });
}

/** Pi's own context of `file` at `leafId`, per generation. */
function piContextsAt(file: string, leafId: string): Record<string, PiContext> {
  return Object.fromEntries(
    piOpen(file).map(({ name, module, manager }) => [
      name,
      module.buildSessionContext(manager.getEntries(), leafId),
    ]),
  );
}

function piContexts(file: string): Record<string, PiContext> {
  return Object.fromEntries(piOpen(file).map(({ name, manager }) => [name, manager.buildSessionContext()]));
}

const openRow = (page: Page) => library(page).locator('.session-row[aria-current="true"]');

/** Opens the login session by its file (its name may be cleared by now), every entry its own node. */
async function openLogin(page: Page): Promise<void> {
  await openByFile(page, serve.url, demo.login.file);
}

const roleOf = (entry: unknown) => (entry as { message?: { role?: string } }).message?.role;

/** The login session's side branch: its tip (an assistant message) and the prompt that starts it. */
function sideBranch(): { tip: string; prompt: string } {
  const { nodes } = demo.login.index;
  const leaf = leafOf(demo.login);
  const tip = [...nodes.values()].find((n) => n.children.length === 0 && n.id !== leaf)!;
  expect(roleOf(tip.entry)).toBe("assistant");
  let prompt = tip;
  while (roleOf(prompt.entry) !== "user") prompt = nodes.get(prompt.parentId!)!;
  return { tip: tip.id, prompt: prompt.id };
}

/** The last message on the file's first branch, and the last user message there. */
function mainBranch(): { last: string; prompt: string } {
  const { nodes } = demo.login.index;
  let id = leafOf(demo.login);
  while (nodes.get(id)!.entry.type !== "message") id = nodes.get(id)!.parentId!;
  let prompt = id;
  while (roleOf(nodes.get(prompt)!.entry) !== "user") prompt = nodes.get(prompt)!.parentId!;
  return { last: id, prompt };
}

test("a label shows its time in the Entry tab and Remove label clears it; the name is cleared by keyboard and its Undo names it again", async ({
  page,
}) => {
  await openLogin(page);
  const file = demo.login.file;
  const { last } = mainBranch();
  let before = readFileSync(file);
  await node(page, last).click({ button: "right" });
  await menuItem(page, "Label…").click();
  await page.getByRole("textbox", { name: "Label" }).fill("to remove");
  await page.getByRole("button", { name: "Save label" }).click();
  await expect(toast(page)).toContainText("Labelled “to remove”.");
  const [label] = await appendedLines(file, before, 1);
  await node(page, last).click();
  await page.getByRole("tab", { name: "Entry" }).click();
  const labelled = new Date(label.timestamp as string).getFullYear();
  await expect(page.getByTestId("label-time")).toContainText(`labelled`);
  await expect(page.getByTestId("label-time")).toContainText(String(labelled));

  before = readFileSync(file);
  await node(page, last).click({ button: "right" });
  await menuItem(page, "Remove label").click();
  await expect(toast(page)).toContainText("Label removed.");
  const [unlabel] = await appendedLines(file, before, 1);
  expect(unlabel).toMatchObject({ type: "label", targetId: last });
  expect(unlabel.label).toBeUndefined();
  await expect(page.getByTestId("label-time")).toHaveCount(0);
  for (const { name, manager } of piOpen(file)) expect(manager.getLabel(last), name).toBeUndefined();

  // The session's name from the graph, by keyboard: Shift+F10 on the cursor's entry, "r", an empty name.
  const contexts = piContexts(file);
  before = readFileSync(file);
  await graphPanel(page).focus();
  await page.keyboard.press("Shift+F10");
  await page.keyboard.press("r");
  await expect(menuItem(page, "Rename session…")).toBeFocused();
  await page.keyboard.press("Enter");
  await dialog(page).getByRole("textbox", { name: "Session name" }).fill("");
  await page.keyboard.press("Enter");
  await expect(toast(page)).toContainText("Name cleared.");
  const [cleared] = await appendedLines(file, before, 1);
  expect(cleared).toMatchObject({ type: "session_info" });
  for (const { name, manager } of piOpen(file)) expect(manager.getSessionName(), name).toBeUndefined();

  before = readFileSync(file);
  await toast(page).getByRole("button", { name: "Undo" }).click();
  await expect(toast(page)).toContainText("Rename undone.");
  const [named] = await appendedLines(file, before, 1);
  expect(named).toMatchObject({ type: "session_info", name: demo.login.index.sessionName });
  for (const { name, manager } of piOpen(file))
    expect(manager.getSessionName(), name).toBe(demo.login.index.sessionName);
  // Names and labels leave Pi's context as it was.
  expect(piContexts(file)).toEqual(contexts);
});

test("Continue with a summary writes Pi's branch summary at the entry; the toast's Undo puts the resume point back", async ({
  page,
}) => {
  await openLogin(page);
  const file = demo.login.file;
  const { tip } = sideBranch();
  const original = piContexts(file);
  const atTip = piContextsAt(file, tip);
  const leafBefore = piOpen(file)[0]!.manager.getLeafId();
  let before = readFileSync(file);
  await node(page, tip).click({ button: "right" });
  await menuItem(page, "Continue in Pi from here…").click();
  await dialog(page)
    .getByRole("textbox", { name: "Summary of the branch left (optional)" })
    .fill("The proper fix is on the other branch.");
  await dialog(page).getByRole("button", { name: "Continue" }).click();
  await expect(dialog(page)).toContainText("Pi will continue from here");
  const [summary] = await appendedLines(file, before, 1);
  expect(summary).toMatchObject({
    type: "branch_summary",
    parentId: tip,
    fromId: leafBefore,
    summary: "The proper fix is on the other branch.",
  });
  for (const { name, manager } of piOpen(file)) {
    expect(manager.getLeafId(), name).toBe(summary.id);
    const context = manager.buildSessionContext().messages;
    expect(context.slice(0, -1), name).toEqual(atTip[name]!.messages);
    expect(context.at(-1), name).toMatchObject({ role: "branchSummary" });
  }
  await dialog(page).getByRole("button", { name: "Close" }).click();

  before = readFileSync(file);
  await toast(page).getByRole("button", { name: "Undo" }).click();
  await expect(toast(page)).toContainText("Continue undone: Pi resumes where it did before.");
  const [back] = await appendedLines(file, before, 1);
  expect(back).toMatchObject({ type: "custom", customType: "arbor.continue", parentId: leafBefore });
  expect(piContexts(file)).toEqual(original);
});

test("Fork here at an assistant entry opens Pi's fork of it; Clone in the Entry tab clones the fork", async ({
  page,
}) => {
  await openLogin(page);
  const folder = dirname(demo.login.file);
  const { tip } = sideBranch();
  const files = sessionFiles(folder);
  await node(page, tip).click({ button: "right" });
  await menuItem(page, "Fork here").click();
  await expect(toast(page)).toContainText("Forked into a new session: it is open now.");
  await expect.poll(() => sessionFiles(folder).length).toBe(files.length + 1);
  const forkName = sessionFiles(folder).find((name) => !files.includes(name))!;
  const fork = join(folder, forkName);
  const header = JSON.parse(readFileSync(fork, "utf8").split("\n")[0]!) as Entry;
  expect(header).toMatchObject({ type: "session", parentSession: demo.login.file });
  await expect(openRow(page)).toHaveAttribute("title", new RegExp(`${forkName.replace(/[.]/g, "\\.")}$`));
  // Pi reads the fork as the branch ending at the assistant entry, its labels kept.
  const atTip = piContextsAt(demo.login.file, tip);
  const labelled = [...demo.login.index.labels.keys()];
  const source = piOpen(demo.login.file)[1]!.manager;
  for (const { name, manager } of piOpen(fork)) {
    expect(manager.buildSessionContext(), name).toEqual(atTip[name]);
    for (const id of labelled)
      if (manager.getEntry(id)) expect(manager.getLabel(id), name).toBe(source.getLabel(id));
  }

  await expandAllChains(page);
  await node(page, tip).click();
  await page.getByRole("tab", { name: "Entry" }).click();
  const withFork = sessionFiles(folder);
  await page.getByTestId("entry-actions").getByRole("button", { name: "Clone", exact: true }).click();
  await expect(toast(page)).toContainText("Cloned into a new session: it is open now.");
  await expect.poll(() => sessionFiles(folder).length).toBe(withFork.length + 1);
  const clone = join(folder, sessionFiles(folder).find((name) => !withFork.includes(name))!);
  expect(JSON.parse(readFileSync(clone, "utf8").split("\n")[0]!)).toMatchObject({ parentSession: fork });
  expect(piContexts(clone)).toEqual(piContexts(fork));
});

test("Drop from context (Pi 1.x only) by the graph menu; a branch exported as JSONL opens in Pi with its context", async ({
  page,
}) => {
  await openLogin(page);
  const file = demo.login.file;
  const { prompt } = mainBranch();
  const contexts = piContexts(file);
  const message = (piOpen(file)[1]!.manager.getEntry(prompt) as { message?: Record<string, unknown> })
    .message;
  expect(contexts["Pi 1.6"]!.messages).toContainEqual(message);
  let before = readFileSync(file);
  await node(page, prompt).click({ button: "right" });
  await menuItem(page, "Drop from context… (Pi 1.x only)").click();
  await expect(dialog(page).getByTestId("pi-version-note")).toContainText("Pi 0.73 ignores");
  await expect(dialog(page).getByTestId("context-effect")).toContainText("is left out");
  await screenshot(page, "manage-drop-context");
  await dialog(page).getByRole("button", { name: "Drop from context" }).click();
  await expect(toast(page)).toContainText("Dropped from the context (Pi 1.x).");
  const [edit] = await appendedLines(file, before, 1);
  expect(edit).toMatchObject({ type: "context_edit", targetId: prompt, replacement: null });
  const after = piContexts(file);
  // Pi 1.6 leaves the prompt out, one message fewer; Pi 0.73 reads the context as before.
  expect(after["Pi 1.6"]!.messages).toHaveLength(contexts["Pi 1.6"]!.messages.length - 1);
  expect(after["Pi 1.6"]!.messages).not.toContainEqual(message);
  expect(after["Pi 0.73"]).toEqual(contexts["Pi 0.73"]);

  const { tip } = sideBranch();
  before = readFileSync(file);
  await node(page, tip).click({ button: "right" });
  const download = page.waitForEvent("download");
  await menuItem(page, "Export branch as JSONL (a Pi session)").click();
  const jsonl = await download;
  expect(jsonl.suggestedFilename()).toMatch(/^\d{4}-\d\d-\d\dT[\d-]+Z_[0-9a-f-]{36}\.jsonl$/);
  const saved = join(outside, jsonl.suggestedFilename());
  await jsonl.saveAs(saved);
  expect(readFileSync(file).equals(before)).toBe(true);
  const atTip = piContextsAt(file, tip);
  for (const { name, manager } of piOpen(saved))
    expect(manager.buildSessionContext(), name).toEqual(atTip[name]);
});

test("Open in Pi from a library row and the graph's background shows the command; an archived branch leaves the library's count and the branch map", async ({
  page,
}) => {
  await openApp(page, serve.url);
  await sessionRow(page, RELEASE).click({ button: "right" });
  await menuItem(page, "Open in Pi").click();
  await expect(dialog(page)).toContainText("Run Pi yourself");
  await expect(dialog(page).getByRole("textbox", { name: "Command" })).toHaveValue(
    new RegExp(`--session .*${basename(demo.release.file).replace(/[.]/g, "\\.")}`),
  );
  await page.keyboard.press("Escape");

  await openLogin(page);
  // The graph's background offers the open session's menu, the same as its row's.
  await page.locator(".react-flow__pane").click({ button: "right", position: { x: 24, y: 24 } });
  await expect(menu(page)).toHaveAccessibleName("Session");
  await menuItem(page, "Open in Pi").click();
  await expect(dialog(page)).toContainText("Run Pi yourself");
  await page.keyboard.press("Escape");

  const file = demo.login.file;
  const meta = openRow(page).locator(".session-meta");
  const countOf = async () => Number(/(\d+) msgs/.exec((await meta.textContent()) ?? "")?.[1]);
  const messages = await countOf();
  const { prompt } = sideBranch();
  const before = readFileSync(file);
  await node(page, prompt).click({ button: "right" });
  await menuItem(page, "Archive branch").click();
  await expect(toast(page)).toContainText("Branch archived");
  await appendedLines(file, before, 1);
  // The branch's messages come off the row's count, said in brackets.
  await expect(meta).toContainText(/\d+ msgs \(\d+ archived\)/);
  const archived = Number(/\((\d+) archived\)/.exec((await meta.textContent()) ?? "")?.[1]);
  expect(archived).toBeGreaterThan(0);
  expect(await countOf()).toBe(messages - archived);

  // The branch map (M) leaves the archived branch out, and draws it dimmed once Show archived is on.
  await graphPanel(page).focus();
  await page.keyboard.press("m");
  const map = page.getByRole("region", { name: "Branch map" });
  await expect(map).toBeVisible();
  await expect(page.locator(".graph-status")).toContainText("1 archived branch hidden");
  await expect(map.locator(".map-row.archived")).toHaveCount(0);
  const tips = await map.locator(".map-row.tip").count();
  await page.keyboard.press("Shift+A");
  await expect(map.locator(".map-row.tip")).toHaveCount(tips + 1);
  await expect(map.locator(".map-row.tip.archived")).toHaveCount(1);
  await expect(page.locator(".graph-status")).not.toContainText("archived branch");
  await screenshot(page, "manage-map-archived-shown");
});

test("a refusal of the store (a half-written last line) is its one sentence in a dialog, and nothing is written", async ({
  page,
}) => {
  await openApp(page, serve.url);
  const file = demo.release.file;
  await sessionRow(page, RELEASE).click();
  await expect(graphPanel(page)).toBeFocused();
  // A line a writer left half-written a while ago (a crash): not live, so the store's own check refuses.
  appendFileSync(file, '{"type":"custom","customType":"x","id":"half');
  const aMinuteAgo = new Date(Date.now() - 60_000);
  utimesSync(file, aMinuteAgo, aMinuteAgo);
  const before = readFileSync(file);
  await page.keyboard.press("Shift+L");
  await page.getByRole("textbox", { name: "Label" }).fill("not now");
  await page.getByRole("button", { name: "Save label" }).click();
  await expect(dialog(page)).toContainText("The label was not saved");
  await expect(dialog(page)).toContainText(`The last line of ${file} is not terminated`);
  await screenshot(page, "manage-refusal");
  await dialog(page).getByRole("button", { name: "OK" }).click();
  expect(readFileSync(file).equals(before)).toBe(true);
});
