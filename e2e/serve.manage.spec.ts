/**
 * Managing sessions end to end (issue 19) in Chromium against a real `arbor
 * serve` on a temp copy of the demo library: every action through the
 * window (the graph's context menu, the library row's, the Entry tab, the
 * keyboard), each checked on disk afterwards (the bytes before unchanged
 * and one line appended, or a new file) and in what the window shows; the
 * undo toast and Ctrl+Z, archive with Show archived, trash and restore,
 * export downloads, import by the file chooser and by a drop, and the
 * question asked before writing into a file a Pi is writing.
 */

import { appendFileSync, copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { expect, type Locator, type Page, test } from "@playwright/test";
import { graphPanel, idsInPane, library, node, openApp, screenshot, sessionRow } from "./support/app.ts";
import { type DemoLibrary, LOGIN, leafOf, RELEASE, writeDemo } from "./support/demo.ts";
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
  outside = mkdtempSync(join(tmpdir(), "arbor-e2e-import-"));
  // No terminal starts from a test: Open in Pi answers with the command to copy.
  process.env.TERMINAL = join(outside, "no-such-terminal");
  serve = await startServe({ dirs: [demo.root], removeDirsOnStop: true });
});

test.afterAll(async () => {
  const code = await serve?.stop();
  rmSync(outside, { recursive: true, force: true });
  expect(code, serve?.output()).toBe(0);
});

/** A screenshot in the system's light colours and one in its dark ones (the theme follows the system). */
async function shot(page: Page, name: string): Promise<void> {
  await screenshot(page, name);
  await page.emulateMedia({ colorScheme: "dark" });
  await screenshot(page, `${name}-dark`);
  await page.emulateMedia({ colorScheme: "light" });
}

/** Waits until the write's toast says it is done, then closes it (the next write brings its own). */
async function expectToast(page: Page, text: string | RegExp): Promise<Locator> {
  await expect(toast(page)).toContainText(text);
  return toast(page);
}

/** Opens the login session (whose leaf the tests before may have moved). */
async function openLogin(page: Page): Promise<void> {
  await openByFile(page, serve.url, demo.login.file);
}

/** The last message on the file's branch (its leaf is a session_info entry the default filter hides). */
function lastMessage(): string {
  const { nodes } = demo.login.index;
  let id = leafOf(demo.login);
  while (nodes.get(id)!.entry.type !== "message") id = nodes.get(id)!.parentId!;
  return id;
}

/** The id of the last drawn entry of a kind (user, assistant...), with the whole graph in view. */
async function lastDrawn(page: Page, kind: string): Promise<string> {
  await graphPanel(page).getByRole("button", { name: "Fit", exact: true }).click();
  const selector = `.react-flow__node:has(.entry-node[data-kind="${kind}"])`;
  await expect(page.locator(selector).first()).toBeVisible();
  const found = (await idsInPane(page, selector)).at(-1);
  expect(found, `a ${kind} node in the graph's pane`).toBeDefined();
  return found!;
}

test("the graph's context menu labels an entry; the toast's Undo clears it again, both appended", async ({
  page,
}) => {
  await openLogin(page);
  const file = demo.login.file;
  const leaf = lastMessage();
  const before = readFileSync(file);
  await node(page, leaf).click({ button: "right" });
  await expect(menu(page)).toBeVisible();
  await expect(menuItem(page, "Label…")).toBeFocused();
  await shot(page, "manage-entry-menu");
  await menuItem(page, "Label…").click();
  await page.getByRole("textbox", { name: "Label" }).fill("checked by e2e");
  await page.getByRole("button", { name: "Save label" }).click();
  await expectToast(page, "Labelled “checked by e2e”.");
  const [label] = await appendedLines(file, before, 1);
  expect(label).toMatchObject({ type: "label", targetId: leaf, label: "checked by e2e" });
  await expect(node(page, leaf)).toContainText("checked by e2e");

  const labelled = readFileSync(file);
  await toast(page).getByRole("button", { name: "Undo" }).click();
  await expectToast(page, "Label change undone.");
  const [undo] = await appendedLines(file, labelled, 1);
  expect(undo).toMatchObject({ type: "label", targetId: leaf });
  expect(undo.label).toBeUndefined();
  await expect(node(page, leaf)).not.toContainText("checked by e2e");
});

test("by keyboard: Shift+F10 opens the cursor's menu, a letter picks Archive; Shift+A shows it dimmed; Ctrl+Z undoes", async ({
  page,
}) => {
  await openLogin(page);
  const file = demo.login.file;
  const leaf = lastMessage();
  const before = readFileSync(file);
  // The cursor on the last message (the file's leaf may be a label entry the filter hides by now).
  await node(page, leaf).click();
  await graphPanel(page).focus();
  await page.keyboard.press("Shift+F10");
  await expect(menu(page)).toBeVisible();
  await page.keyboard.press("a");
  await expect(menuItem(page, "Archive branch")).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(menu(page)).toHaveCount(0);
  await expectToast(page, /Branch archived/);
  const [marker] = await appendedLines(file, before, 1);
  expect(marker).toMatchObject({ type: "custom", customType: "arbor.archive", data: { archived: true } });
  const archivedAt = (marker.data as { targetId: string }).targetId;
  // Hidden by default, shown dimmed with Show archived (Shift+A), hidden again.
  await expect(node(page, leaf)).toHaveCount(0);
  await page.keyboard.press("Shift+A");
  await expect(page.getByRole("checkbox", { name: "Show archived" })).toBeChecked();
  await expect(node(page, leaf).locator(".entry-node")).toHaveClass(/\barchived\b/);
  await shot(page, "manage-archived-shown");
  await page.keyboard.press("Shift+A");
  await expect(node(page, leaf)).toHaveCount(0);

  const archived = readFileSync(file);
  await graphPanel(page).focus();
  await page.keyboard.press("Control+z");
  await expectToast(page, "Archive change undone.");
  const [undo] = await appendedLines(file, archived, 1);
  expect(undo).toMatchObject({ type: "custom", customType: "arbor.archive", data: { targetId: archivedAt } });
  await expect(node(page, leaf)).toBeVisible();
  await expect(node(page, leaf).locator(".entry-node")).not.toHaveClass(/\barchived\b/);
});

test("the Entry tab archives a branch; shown dimmed, its menu unarchives it; New session in this project opens one", async ({
  page,
}) => {
  await openLogin(page);
  const file = demo.login.file;
  const target = lastMessage();
  await node(page, target).click();
  await page.getByRole("tab", { name: "Entry" }).click();
  let before = readFileSync(file);
  await page.getByTestId("entry-actions").getByRole("button", { name: "Archive", exact: true }).click();
  const [marker] = await appendedLines(file, before, 1);
  expect(marker).toMatchObject({ customType: "arbor.archive", data: { targetId: target, archived: true } });
  await expect(node(page, target)).toHaveCount(0);
  await page.getByRole("checkbox", { name: "Show archived" }).check();
  await expect(node(page, target).locator(".entry-node")).toHaveClass(/\barchived\b/);
  before = readFileSync(file);
  await node(page, target).click({ button: "right" });
  await menuItem(page, "Unarchive branch").click();
  const [unarchive] = await appendedLines(file, before, 1);
  expect(unarchive).toMatchObject({ data: { targetId: target, archived: false } });
  await expect(node(page, target).locator(".entry-node")).not.toHaveClass(/\barchived\b/);

  const opened = library(page).locator('.session-row[aria-current="true"]');
  await expect(opened).toHaveAttribute("data-session-id", /.+/);
  const loginId = await opened.getAttribute("data-session-id");
  await opened.click({ button: "right" });
  await menuItem(page, "New session in this project").click();
  await expectToast(page, "New session started.");
  await expect(page.locator(".session-title")).not.toHaveText(LOGIN);
  expect(
    await library(page).locator('.session-row[aria-current="true"]').getAttribute("data-session-id"),
  ).not.toBe(loginId);
});

test("the Entry tab continues from an older entry and then offers Open in Pi (the command to copy)", async ({
  page,
}) => {
  await openLogin(page);
  const file = demo.login.file;
  const before = readFileSync(file);
  const target = await lastDrawn(page, "assistant");
  await node(page, target).click();
  await page.getByRole("tab", { name: "Entry" }).click();
  await shot(page, "manage-entry-tab");
  await page.getByTestId("entry-actions").getByRole("button", { name: "Continue here…" }).click();
  await expect(dialog(page)).toContainText(`Continue in Pi from ${target}`);
  await shot(page, "manage-continue-dialog");
  await dialog(page).getByRole("button", { name: "Continue" }).click();
  await expect(dialog(page)).toContainText("Pi will continue from here");
  const [marker] = await appendedLines(file, before, 1);
  expect(marker.parentId).toBe(target);
  await dialog(page).getByRole("button", { name: "Open in Pi" }).click();
  await expect(dialog(page)).toContainText("Run Pi yourself");
  await expect(dialog(page).getByRole("textbox", { name: "Command" })).toHaveValue(/--session/);
  await expect(dialog(page).getByRole("textbox", { name: "Command" })).toHaveValue(
    new RegExp(file.split("/").pop()!.replace(/[.]/g, "\\.")),
  );
  await shot(page, "manage-open-in-pi");
  await page.keyboard.press("Escape");
  await expect(dialog(page)).toHaveCount(0);
});

test("a note, and a context edit that shows the context before and after (Pi 1.x only)", async ({ page }) => {
  await openLogin(page);
  const file = demo.login.file;
  await page.getByRole("tab", { name: "Entry" }).click();
  // The file's leaf is selected on open.
  const leaf = (await page.getByRole("region", { name: "Entry inspector" }).getAttribute("data-entry-id"))!;
  let before = readFileSync(file);
  await page.getByTestId("entry-actions").getByRole("button", { name: "Note…" }).click();
  await dialog(page).getByRole("textbox", { name: "Note" }).fill("Remember: the flaky test is timing.");
  await shot(page, "manage-note-dialog");
  await dialog(page).getByRole("button", { name: "Add" }).click();
  await expectToast(page, /Note added/);
  const [note] = await appendedLines(file, before, 1);
  expect(note.type).toBe("custom_message");
  expect(JSON.stringify(note)).toContain("Remember: the flaky test is timing.");
  expect(note.parentId).toBe(leaf);

  before = readFileSync(file);
  const user = await lastDrawn(page, "user");
  await node(page, user).click({ button: "right" });
  await menuItem(page, /Edit in context/).click();
  await expect(dialog(page).getByTestId("pi-version-note")).toContainText("Pi 0.73 ignores");
  const replacement = dialog(page).getByRole("textbox", { name: "Replacement text" });
  await expect(replacement).not.toHaveValue("");
  await replacement.fill("A shorter prompt, as the model should read it.");
  await expect(dialog(page).getByTestId("context-effect")).toContainText("A shorter prompt");
  await expect(dialog(page).getByTestId("context-effect")).toContainText(/Before\d+ messages/);
  await shot(page, "manage-context-edit");
  await dialog(page).getByRole("button", { name: "Save edit" }).click();
  await expectToast(page, "Context edited (Pi 1.x).");
  const [edit] = await appendedLines(file, before, 1);
  expect(edit).toMatchObject({ type: "context_edit", targetId: user });
});

test("Fork before a prompt opens the new file with the prompt's text to copy; Clone from the library", async ({
  page,
}) => {
  await openLogin(page);
  const folder = dirname(demo.login.file);
  const files = sessionFiles(folder);
  const user = await lastDrawn(page, "user");
  await node(page, user).click({ button: "right" });
  await menuItem(page, "Fork before this prompt").click();
  await expect(dialog(page)).toContainText("Forked before the prompt");
  await expect(dialog(page).getByRole("textbox", { name: "Prompt text" })).not.toHaveValue("");
  await shot(page, "manage-fork-before");
  await page.keyboard.press("Escape");
  await expect.poll(() => sessionFiles(folder).length).toBe(files.length + 1);
  const forked = sessionFiles(folder).find((name) => !files.includes(name))!;
  const header = JSON.parse(readFileSync(join(folder, forked), "utf8").split("\n")[0]!) as Entry;
  expect(header).toMatchObject({ type: "session", parentSession: demo.login.file });
  // The window shows the new session, and the library lists it.
  await expect(library(page).locator('.session-row[aria-current="true"]')).toHaveAttribute("title", /.+/);
  await expect(library(page).locator('.session-row[aria-current="true"]')).toHaveAttribute(
    "title",
    new RegExp(forked.replace(/[.]/g, "\\.")),
  );

  const beforeClone = sessionFiles(folder);
  await sessionRow(page, LOGIN).first().click({ button: "right" });
  await menuItem(page, "Clone").click();
  await expectToast(page, "Cloned into a new session");
  await expect.poll(() => sessionFiles(folder).length).toBe(beforeClone.length + 1);
});

test("the library row by keyboard: Shift+F10, Rename… appends the name; export downloads Markdown and HTML", async ({
  page,
}) => {
  await openApp(page, serve.url);
  const file = demo.release.file;
  const before = readFileSync(file);
  await sessionRow(page, RELEASE).focus();
  await page.keyboard.press("Shift+F10");
  await expect(menu(page)).toBeVisible();
  await shot(page, "manage-library-menu");
  await page.keyboard.press("r");
  await expect(menuItem(page, "Rename…")).toBeFocused();
  await page.keyboard.press("Enter");
  const name = dialog(page).getByRole("textbox", { name: "Session name" });
  await expect(name).toHaveValue(RELEASE);
  await name.fill("Release 2.4.0 (shipped)");
  await shot(page, "manage-rename-dialog");
  await page.keyboard.press("Enter");
  await expectToast(page, "Renamed “Release 2.4.0 (shipped)”.");
  const [info] = await appendedLines(file, before, 1);
  expect(info).toMatchObject({ type: "session_info", name: "Release 2.4.0 (shipped)" });
  await expect(sessionRow(page, "Release 2.4.0 (shipped)")).toBeVisible();

  const unchanged = readFileSync(file);
  await sessionRow(page, "Release 2.4.0 (shipped)").click({ button: "right" });
  const markdown = page.waitForEvent("download");
  await menuItem(page, "Export current branch as Markdown").click();
  const md = await markdown;
  expect(md.suggestedFilename()).toMatch(/\.md$/);
  expect(readFileSync((await md.path())!, "utf8")).toContain("Release 2.4.0 (shipped)");

  await sessionRow(page, "Release 2.4.0 (shipped)").click({ button: "right" });
  const html = page.waitForEvent("download");
  await menuItem(page, "Export current branch as HTML").click();
  const page2 = await html;
  expect(page2.suggestedFilename()).toMatch(/\.html$/);
  const saved = join(outside, page2.suggestedFilename());
  await page2.saveAs(saved);
  expect(readFileSync(saved, "utf8")).toMatch(/^<!doctype html>/i);
  // Exports write nothing into the session.
  expect(readFileSync(file).equals(unchanged)).toBe(true);
  // The export as a reader sees it, opened from disk (no network requests: it is self-contained).
  const reader = await page.context().newPage();
  const requests: string[] = [];
  reader.on("request", (request) => {
    if (!request.url().startsWith("file:")) requests.push(request.url());
  });
  await reader.goto(`file://${saved}`);
  await expect(reader.locator("body")).toContainText("Release 2.4.0 (shipped)");
  await screenshot(reader, "manage-export-html");
  await reader.emulateMedia({ colorScheme: "dark" });
  await screenshot(reader, "manage-export-html-dark");
  expect(requests).toEqual([]);
  await reader.close();
});

test("Move to trash… asks first, closes the open session, and the toast's Undo restores the file", async ({
  page,
}) => {
  await openApp(page, serve.url);
  const file = demo.damaged.file;
  const bytes = readFileSync(file);
  const row = library(page)
    .locator(".session-row.broken, .session-row")
    .filter({ hasText: "Summarise" })
    .first();
  await row.click();
  await row.click({ button: "right" });
  await menuItem(page, "Move to trash…").click();
  await expect(dialog(page)).toContainText("It is open in this window: it is closed first.");
  await shot(page, "manage-trash-dialog");
  await dialog(page).getByRole("button", { name: "Move to trash" }).click();
  await expectToast(page, "Moved to the trash.");
  await expect.poll(() => existsSync(file)).toBe(false);
  await expect(page.getByText("Open a session from the library")).toBeVisible();
  await shot(page, "manage-trash-toast");
  await toast(page).getByRole("button", { name: "Undo" }).click();
  await expectToast(page, "Restored from the trash.");
  await expect.poll(() => existsSync(file)).toBe(true);
  expect(readFileSync(file).equals(bytes)).toBe(true);
});

test("Import… by the file chooser, and by dropping a file on a project: copies checked, originals untouched", async ({
  page,
}) => {
  await openApp(page, serve.url);
  const folder = dirname(demo.login.file);
  const source = join(outside, "shared-by-a-colleague.jsonl");
  copyFileSync(demo.release.file, source);
  const original = readFileSync(source);
  let files = sessionFiles(folder);

  await sessionRow(page, LOGIN).first().click({ button: "right" });
  const chooser = page.waitForEvent("filechooser");
  await menuItem(page, "Import a session into this project…").click();
  await (await chooser).setFiles(source);
  await expect(dialog(page)).toContainText("Imported shared-by-a-colleague.jsonl");
  await expect(dialog(page).getByTestId("import-counts")).toBeVisible();
  await shot(page, "manage-import-report");
  await expect.poll(() => sessionFiles(folder).length).toBe(files.length + 1);
  const imported = sessionFiles(folder).find((name) => !files.includes(name))!;
  expect(readFileSync(join(folder, imported)).equals(original)).toBe(true);
  expect(readFileSync(source).equals(original)).toBe(true);
  await dialog(page).getByRole("button", { name: "Open it" }).click();
  await expect(dialog(page)).toHaveCount(0);

  // Drops, on the other project: the File built in the page, as a browser hands a dropped file over.
  const releaseFolder = dirname(demo.release.file);
  files = sessionFiles(releaseFolder);
  const project = library(page).locator(".project").filter({ hasText: "/home/demo/projects/release-cli" });
  await expect(project).toBeVisible();
  const drop = async (content: string, name: string) => {
    const transfer = await page.evaluateHandle(
      ([text, fileName]) => {
        // The page's own DataTransfer and File (this code runs in the page).
        const dom = globalThis as unknown as {
          DataTransfer: new () => { items: { add(file: unknown): void } };
          File: new (parts: string[], name: string, options: { type: string }) => unknown;
        };
        const data = new dom.DataTransfer();
        data.items.add(new dom.File([text], fileName, { type: "application/x-ndjson" }));
        return data;
      },
      [content, name] as const,
    );
    await project.dispatchEvent("dragenter", { dataTransfer: transfer });
    await project.dispatchEvent("dragover", { dataTransfer: transfer });
    await expect(page.locator(".drop-hint")).toContainText("into this project");
    await shot(page, "manage-drop-hint");
    await project.dispatchEvent("drop", { dataTransfer: transfer });
  };
  // A file with unreadable lines: the check's errors refuse it, said in one sentence; nothing is copied.
  await drop(readFileSync(demo.damaged.file, "utf8"), "damaged.jsonl");
  await expect(dialog(page)).toContainText("damaged.jsonl was not imported");
  await expect(dialog(page)).toContainText("Nothing was imported.");
  await shot(page, "manage-import-refused");
  await dialog(page).getByRole("button", { name: "OK" }).click();
  expect(sessionFiles(releaseFolder)).toEqual(files);

  const text = readFileSync(demo.login.file, "utf8");
  await drop(text, "dropped.jsonl");
  await expect(dialog(page)).toContainText("Imported dropped.jsonl");
  await expect.poll(() => sessionFiles(releaseFolder).length).toBe(files.length + 1);
  const dropped = sessionFiles(releaseFolder).find((name) => !files.includes(name))!;
  expect(readFileSync(join(releaseFolder, dropped), "utf8")).toBe(text);
  await page.keyboard.press("Escape");
  await expect(dialog(page)).toHaveCount(0);
});

test("a file a Pi is writing: the window asks before writing, writes nothing on Cancel, once on Write anyway", async ({
  page,
}) => {
  await openLogin(page);
  const file = demo.login.file;
  let piEntries = 0;
  /** As a Pi would: a whole line appended, just now, after the file's last entry. */
  const piWrites = () => {
    const lines = readFileSync(file, "utf8").split("\n").filter(Boolean);
    const last = JSON.parse(lines[lines.length - 1]!) as Entry;
    const entry = { type: "session_info", id: `e2e0000${++piEntries}`, parentId: last.id, name: LOGIN };
    appendFileSync(file, `${JSON.stringify({ ...entry, timestamp: new Date().toISOString() })}\n`);
    return readFileSync(file);
  };
  await page.keyboard.press("Shift+L");
  await page.getByRole("textbox", { name: "Label" }).fill("while live");
  let before = piWrites();
  await page.getByRole("button", { name: "Save label" }).click();
  await expect(dialog(page)).toContainText("Pi is writing this session");
  await expect(dialog(page)).toContainText("will not see Arbor's entries until it reopens the file");
  await shot(page, "manage-live-confirm");
  await dialog(page).getByRole("button", { name: "Cancel" }).click();
  await expect(dialog(page)).toHaveCount(0);
  expect(readFileSync(file).equals(before)).toBe(true);

  await page.keyboard.press("Shift+L");
  await page.getByRole("textbox", { name: "Label" }).fill("while live");
  before = piWrites();
  await page.getByRole("button", { name: "Save label" }).click();
  await dialog(page).getByRole("button", { name: "Write anyway" }).click();
  await expectToast(page, "Labelled “while live”.");
  const [label] = await appendedLines(file, before, 1);
  expect(label).toMatchObject({ type: "label", label: "while live" });
  expect(label.targetId).toBeDefined();
});
