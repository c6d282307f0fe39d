/**
 * What is wrong with a file is said once: the window shows the problems
 * `arbor check --json` reports, counted the same way (errors and warnings are
 * problems, notes are not), for the damaged inputs a user meets: an empty
 * file, a header-only one, a JSONL file that is not Pi's, binary bytes, and
 * the demo's damaged session. The library names the unreadable ones by file
 * name and says why.
 */

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { piSessionFolderName } from "../app/library/pi-folders.ts";
import { library, openApp } from "./support/app.ts";
import { cliCheck } from "./support/oracle.ts";
import { type RunningServe, startServe } from "./support/serve.ts";

const CWD = "/home/demo/damage";
let root: string;
let serve: RunningServe;
const files: Record<string, string> = {};

test.beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "arbor-e2e-problems-"));
  const folder = join(root, piSessionFolderName(CWD));
  mkdirSync(folder, { recursive: true });
  const header = {
    type: "session",
    version: 3,
    id: "0199aa00-0000-7000-8000-00000000d001",
    timestamp: "2026-01-02T10:00:00.000Z",
    cwd: CWD,
  };
  const user = {
    type: "message",
    id: "d0000001",
    parentId: null,
    timestamp: "2026-01-02T10:00:01.000Z",
    message: { role: "user", content: "Hello", timestamp: 1 },
  };
  const contents: Record<string, string | Buffer> = {
    "empty.jsonl": "",
    "header-only.jsonl": `${JSON.stringify(header)}\n`,
    "not-pi.jsonl": '{"event":"start","at":1}\n{"event":"stop","at":2}\n',
    "binary.jsonl": Buffer.from([0x00, 0xff, 0xfe, 0x89, 0x50, 0x4e, 0x47, 0x0a, 0xc3, 0x28, 0x7b, 0x00]),
    "damaged.jsonl": `${JSON.stringify(header)}\n${JSON.stringify(user)}\n{not json\n${JSON.stringify({ ...user, id: "d0000002", parentId: "gone0000" })}\n`,
  };
  for (const [name, content] of Object.entries(contents)) {
    files[name] = join(folder, name);
    writeFileSync(files[name], content);
  }
  serve = await startServe({ dirs: [root] });
});

test.afterAll(async () => {
  await serve?.stop();
  rmSync(root, { recursive: true, force: true });
});

test("the window shows the problems `arbor check --json` reports, counted the same way", async ({ page }) => {
  await openApp(page, serve.url);
  const reports = cliCheck(Object.values(files));
  for (const report of reports) {
    const name = report.file.split("/").pop()!;
    const serious = report.counts.errors + report.counts.warnings;
    // An unreadable file is named by its file name, in its folder's project, with the reason.
    const row = library(page).locator(".session-row", {
      has: page.locator(".session-name", { hasText: name }),
    });
    const isSession = name === "header-only.jsonl" || name === "damaged.jsonl";
    if (!isSession) {
      await expect(row).toHaveClass(/broken/);
      await expect(row.locator(".error-text")).toHaveText(
        report.problems[report.problems.findIndex((p) => p.code === "missing-header")]!.message,
      );
      await expect(
        row.locator("xpath=ancestor::li[contains(@class,'project')]").locator(".project-name"),
      ).toHaveAttribute("title", CWD);
      await row.click();
    } else {
      await library(page)
        .locator(".session-row:not(.broken)")
        .filter({ hasText: name === "damaged.jsonl" ? "Hello" : "(no messages)" })
        .click();
    }
    await expect(page.locator(".app-header .session-title")).toBeVisible();
    const badge = page.locator(".app-header .problems-menu summary");
    if (report.problems.length === 0) {
      await expect(badge).toHaveCount(0);
      continue;
    }
    await expect(badge).toHaveText(new RegExp(`^${serious} problems?`));
    await badge.click();
    const listed = page.locator(".app-header .problems li.problem:not(.more)");
    await expect(listed).toHaveCount(report.problems.length);
    for (const problem of report.problems) {
      await expect(page.locator(".app-header .problems")).toContainText(
        `line ${problem.line}: ${problem.severity}: ${problem.message}`,
      );
    }
    await badge.click();
  }
});
