/**
 * One entry nested 100,000 levels deep: the window lists its problem (as
 * `arbor check` does), the context of a leaf below it shows it with a note in
 * place of its content, its own entry view says why, and the other branch's
 * context and entries work as usual.
 */

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { piSessionFolderName } from "../app/library/pi-folders.ts";
import { NESTING_TEXT } from "../shared/session/nesting.ts";
import { expectPreviewOf, fitAll, node, openApp, openSession, previewItems } from "./support/app.ts";
import { cliCheck } from "./support/oracle.ts";
import { type RunningServe, startServe } from "./support/serve.ts";

const CWD = "/home/demo/deep";
let root: string;
let file: string;
let serve: RunningServe;

function user(id: string, parentId: string | null, content: string, second: number): string {
  return JSON.stringify({
    type: "message",
    id,
    parentId,
    timestamp: `2026-01-02T10:00:0${second}.000Z`,
    message: { role: "user", content, timestamp: second },
  });
}

test.beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "arbor-e2e-deep-"));
  const folder = join(root, piSessionFolderName(CWD));
  mkdirSync(folder, { recursive: true });
  const header = {
    type: "session",
    version: 3,
    id: "0199aa00-0000-7000-8000-00000000dee9",
    timestamp: "2026-01-02T10:00:00.000Z",
    cwd: CWD,
  };
  const deep = user("deep0001", "root0001", "PLACEHOLDER", 2).replace(
    '"PLACEHOLDER"',
    `[${"[".repeat(100_000)}${"]".repeat(100_000)}]`,
  );
  file = join(folder, "deep.jsonl");
  writeFileSync(
    file,
    `${[
      JSON.stringify(header),
      user("root0001", null, "Deep question", 1),
      deep,
      user("belo0001", "deep0001", "Below the deep one", 3),
      user("othr0001", "root0001", "Another branch", 4),
    ].join("\n")}\n`,
  );
  serve = await startServe({ dirs: [root] });
});

test.afterAll(async () => {
  await serve?.stop();
  rmSync(root, { recursive: true, force: true });
});

test("an entry nested 100,000 levels deep reports a problem and the rest of the session works", async ({
  page,
}) => {
  const [report] = cliCheck([file]);
  const deepProblem = report!.problems.find((problem) => problem.code === "too-deep")!;
  expect(deepProblem.line).toBe(3);

  await openApp(page, serve.url);
  await openSession(page, "Deep question", "othr0001");
  expect((await previewItems(page)).map((item) => item.text)).toEqual(["Deep question", "Another branch"]);

  // The problem, in the file's list as `arbor check` words it.
  const header = page.locator(".app-header");
  await header.locator(".problems-menu summary").click();
  await expect(page.getByRole("list", { name: "Problems in the file" })).toContainText(
    `line 3: error: ${deepProblem.message}`,
  );
  await header.locator(".problems-menu summary").click();

  // The context below it: the deep entry with a note for its content.
  await fitAll(page);
  await node(page, "belo0001").click();
  await expectPreviewOf(page, "belo0001");
  expect((await previewItems(page)).map((item) => [item.entryId, item.text])).toEqual([
    ["root0001", "Deep question"],
    ["deep0001", NESTING_TEXT.note],
    ["belo0001", "Below the deep one"],
  ]);

  // Its own entry view says why.
  await node(page, "deep0001").click();
  await expectPreviewOf(page, "deep0001");
  await page.getByRole("tab", { name: "Entry" }).click();
  const inspector = page.getByRole("region", { name: "Entry inspector" });
  await expect(inspector).toHaveAttribute("data-entry-id", "deep0001");
  await expect(page.getByRole("list", { name: "Problems" })).toContainText(
    `line 3: error: ${deepProblem.message}`,
  );
  await expect(inspector.locator(".raw-entry")).toContainText(NESTING_TEXT.note);

  // Another entry's view, as usual.
  await node(page, "othr0001").click();
  await expect(inspector).toHaveAttribute("data-entry-id", "othr0001");
  await expect(inspector.locator(".raw-entry")).toContainText("Another branch");
});
