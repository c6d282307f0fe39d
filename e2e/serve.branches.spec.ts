/**
 * Branches end to end in Chromium, against a real `arbor serve` (issue 18):
 * which view a session opens in (the branch map for a large session with
 * many tips, the entry graph for a small one), the text size each shows at
 * Fit (rendered font size times zoom), the map's rows and folds, a compare
 * started from the graph (select a tip, Shift-click another) and one of a
 * fork with its source (a fork written by Pi's own `createBranchedSession`),
 * checking what the two columns show. Screenshots, light and dark, go to
 * test-results/screenshots (and to ARBOR_SHOTS_DIR when set).
 */

import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, type Page, test } from "@playwright/test";
import { generateFile } from "../bench/generate.ts";
import {
  expandAllChains,
  expectPreviewOf,
  graphPanel,
  node,
  openApp,
  preview,
  screenshot,
  sessionRow,
  statusLine,
} from "./support/app.ts";
import { LOGIN, leafOf, writeDemo, type DemoSession } from "./support/demo.ts";
import { readIndex } from "./support/oracle.ts";
import { REPO, type RunningServe, startServe } from "./support/serve.ts";

let serve: RunningServe;
let login: DemoSession;
let big: { path: string; name: string; entries: number };
let retry: { name: string; firstTip: string; secondTip: string; ancestor: string };
let fork: { source: string; fork: string; sourceTip: string; forkTip: string; ancestor: string };

const READABLE_PX = 9;

/** Also keeps the screenshots outside the repo when asked (the helper's notes). */
async function shot(page: Page, name: string): Promise<void> {
  const path = await screenshot(page, `branches-${name}`);
  const extra = process.env.ARBOR_SHOTS_DIR;
  if (extra) {
    mkdirSync(extra, { recursive: true });
    copyFileSync(path, join(extra, `${name}.png`));
  }
}

/** A session where one prompt was asked twice: the tests pass on one side, fail on the other. */
function writeRetrySession(root: string): typeof retry {
  const dir = join(root, "--home-e2e-projects-retry--");
  mkdirSync(dir, { recursive: true });
  let second = 0;
  const BASE = Date.parse("2026-05-01T10:00:00.000Z");
  const lines: object[] = [
    {
      type: "session",
      version: 3,
      id: "019a0000-0000-7000-8000-00000000e018",
      timestamp: "2026-05-01T10:00:00.000Z",
      cwd: "/home/e2e/projects/retry",
    },
  ];
  const add = (id: string, parentId: string | null, fields: object) => {
    second++;
    lines.push({
      type: "message",
      id,
      parentId,
      timestamp: `2026-05-01T10:00:${String(second).padStart(2, "0")}.000Z`,
      ...fields,
    });
  };
  const usage = (cost: number) => ({
    input: 1000,
    output: 100,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 1100,
    cost: { input: cost / 2, output: cost / 2, cacheRead: 0, cacheWrite: 0, total: cost },
  });
  const answer = (text: string, cost: number, tool?: { id: string; command: string }) => ({
    message: {
      role: "assistant",
      content: [
        { type: "text", text },
        ...(tool
          ? [{ type: "toolCall", id: tool.id, name: "bash", arguments: { command: tool.command } }]
          : []),
      ],
      api: "anthropic-messages",
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      usage: usage(cost),
      stopReason: tool ? "toolUse" : "stop",
      timestamp: BASE + second * 1000,
    },
  });
  const result = (callId: string, text: string, isError: boolean) => ({
    message: {
      role: "toolResult",
      toolCallId: callId,
      toolName: "bash",
      content: [{ type: "text", text }],
      isError,
      timestamp: BASE + second * 1000,
    },
  });
  const userText = (text: string) => ({
    message: { role: "user", content: text, timestamp: BASE + second * 1000 },
  });
  lines.push({
    type: "session_info",
    id: "n0000001",
    parentId: null,
    timestamp: "2026-05-01T10:00:00.500Z",
    name: "Retry the parser fix",
  });
  add("u1", "n0000001", userText("Fix the parser so that empty lines are skipped"));
  add("a1", "u1", answer("I changed the tokenizer to skip blank lines.", 0.12));
  // First try: the tests fail.
  add("u2", "a1", userText("Run the unit tests"));
  add("a2", "u2", answer("Running them now.", 0.05, { id: "call-1", command: "npm test" }));
  add("t2", "a2", result("call-1", "2 failed, 40 passed: parser.test.ts", true));
  add("a3", "t2", answer("Two tests fail on trailing whitespace.", 0.04));
  // Second try from the same answer: the tests pass.
  add("v2", "a1", userText("Run the whole unit test suite"));
  add("b2", "v2", answer("Running them now.", 0.05, { id: "call-2", command: "npm test" }));
  add("s2", "b2", result("call-2", "42 passed", false));
  add("b3", "s2", answer("All 42 tests pass.", 0.03));
  writeFileSync(
    join(dir, "2026-05-01T10-00-00-000Z_019a0000-0000-7000-8000-00000000e018.jsonl"),
    `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`,
  );
  return { name: "Retry the parser fix", firstTip: "a3", secondTip: "b3", ancestor: "a1" };
}

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  const demo = writeDemo();
  login = demo.login;
  const root = mkdtempSync(join(tmpdir(), "arbor-e2e-branches-"));
  retry = writeRetrySession(root);
  const written = spawnSync(
    "node",
    ["--import", "tsx", join(REPO, "e2e", "support", "write-fork.ts"), root],
    {
      cwd: REPO,
      encoding: "utf8",
    },
  );
  if (written.status !== 0) throw new Error(`write-fork failed: ${written.stderr}`);
  fork = JSON.parse(written.stdout);
  // The bench generator's kind of session: 20k entries that branch often (re-asked prompts), ~200 tips.
  const generated = generateFile({
    name: "e2e-tips20k",
    profile: "normal",
    seed: 7018,
    entries: 20_000,
    branchChance: 0.15,
  });
  const dir = join(root, "--home-user-projects-arbor--");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "2026-09-25T19-00-00-000Z_019a0000-0000-7000-8000-0000000e2018.jsonl");
  copyFileSync(generated.path, path);
  rmSync(generated.path, { force: true });
  const index = readIndex(path);
  big = { path, name: index.sessionName ?? "", entries: generated.entries };
  serve = await startServe({ dirs: [demo.root, root], removeDirsOnStop: true });
});

test.afterAll(async () => {
  const code = await serve?.stop();
  expect(code, serve?.output()).toBe(0);
});

const mapView = (page: Page) => page.getByRole("region", { name: "Branch map" });
const viewButton = (page: Page, name: "Map" | "Entries") =>
  page.getByRole("group", { name: "View" }).getByRole("button", { name });
const comparePane = (page: Page) => page.getByRole("region", { name: "Compare branches" });

/** Opens a session from the library and waits for the open to finish (the graph panel takes the focus). */
async function open(page: Page, name: string): Promise<void> {
  await sessionRow(page, name).click();
  await expect(sessionRow(page, name)).toHaveAttribute("aria-current", "true");
  await expect(graphPanel(page)).toBeFocused();
}

/** The entry graph's smallest text on screen: the node titles' font size times the viewport's zoom. */
async function graphTextPx(page: Page): Promise<number> {
  return page.evaluate(() => {
    const { document, getComputedStyle } = globalThis as unknown as {
      document: { querySelector(selector: string): unknown };
      getComputedStyle(element: unknown): { fontSize: string; transform: string };
    };
    const title = document.querySelector(".react-flow__node .node-title");
    const viewport = document.querySelector(".react-flow__viewport");
    if (!title || !viewport) return 0;
    const size = Number.parseFloat(getComputedStyle(title).fontSize);
    const matrix = getComputedStyle(viewport).transform;
    const zoom = matrix === "none" ? 1 : Number.parseFloat(matrix.slice(7).split(",")[0]!);
    return size * zoom;
  });
}

/** The map's text on screen (it is never zoomed): a row title's font size. */
async function mapTextPx(page: Page): Promise<number> {
  const size = await mapView(page)
    .locator(".map-row-title")
    .first()
    .evaluate((element) => {
      const { getComputedStyle } = globalThis as unknown as {
        getComputedStyle(e: unknown): { fontSize: string };
      };
      return getComputedStyle(element).fontSize;
    });
  return Number.parseFloat(size);
}

async function setTheme(page: Page, theme: "light" | "dark"): Promise<void> {
  await page.getByRole("combobox", { name: "Theme" }).selectOption(theme);
  await expect(page.locator("html")).toHaveAttribute("data-theme", theme);
}

test("a small session opens in the entry graph, top down, its text readable at Fit", async ({ page }) => {
  await openApp(page, serve.url);
  await open(page, LOGIN);
  await expect(viewButton(page, "Entries")).toHaveAttribute("aria-pressed", "true");
  await expect(page.getByTestId("graph")).toBeVisible();
  await expect(page.getByRole("button", { name: "Layout direction" })).toHaveText("↓ TB");
  await page.getByRole("button", { name: "Fit", exact: true }).click();
  await expect.poll(() => graphTextPx(page)).toBeGreaterThanOrEqual(READABLE_PX);
  await expectPreviewOf(page, leafOf(login));
  // The status line in words, and the legend made from the graph's own looks.
  await expect(statusLine(page)).toContainText(/^Default filter: \d+ of \d+ entries shown/);
  await page.getByText("Legend", { exact: true }).click();
  await expect(page.locator(".legend-popover")).toContainText("a message of role user");
  await expect(page.locator(".legend-popover")).toContainText("in the context Pi would send");
  await shot(page, "graph-legend-light");
  await setTheme(page, "dark");
  await shot(page, "graph-legend-dark");
  await page.getByText("Legend", { exact: true }).click();
  await setTheme(page, "light");
  // The preview's cost, explained on hover.
  await expect(preview(page).locator('[title^="Cost:"]')).toBeVisible();
  // The map of it, as a toggle.
  await viewButton(page, "Map").click();
  await expect(mapView(page)).toBeVisible();
  expect(await mapTextPx(page)).toBeGreaterThanOrEqual(READABLE_PX);
  await shot(page, "map-small-light");
});

test("a large session with many tips opens in the branch map, readable, its retries folded", async ({
  page,
}) => {
  await openApp(page, serve.url);
  await open(page, big.name);
  await expect(viewButton(page, "Map")).toHaveAttribute("aria-pressed", "true");
  await expect(mapView(page)).toBeVisible();
  await expect(mapView(page).locator(".map-row").first()).toBeVisible();
  const status = statusLine(page);
  await expect(status).toHaveAttribute("data-branches", /\d+/);
  const branches = Number(await status.getAttribute("data-branches"));
  const rows = Number(await status.getAttribute("data-rows"));
  expect(branches).toBeGreaterThan(100);
  // Folded: far fewer rows than branches, all on one screen.
  expect(rows).toBeLessThan(branches / 5);
  await expect(mapView(page).locator(".retries-mark").first()).toContainText(
    /^\+\d+ (retry|retries|side branch|side branches)$/,
  );
  expect(await mapTextPx(page)).toBeGreaterThanOrEqual(READABLE_PX);
  await shot(page, "map-big-light");
  await setTheme(page, "dark");
  await shot(page, "map-big-dark");
  await setTheme(page, "light");
  // The fold opens on click; the map grows by the retries it held.
  await mapView(page).locator(".retries-mark").first().click();
  await expect.poll(async () => Number(await status.getAttribute("data-rows"))).toBeGreaterThan(rows);
  await shot(page, "map-big-unfolded");
  // A tip clicked opens in the entry graph, selected.
  const tipRow = mapView(page).locator(".map-row.tip").first();
  const tip = (await tipRow.getAttribute("data-entry-id"))!;
  await tipRow.locator(".map-row-open").click();
  await expect(viewButton(page, "Entries")).toHaveAttribute("aria-pressed", "true");
  await expectPreviewOf(page, tip);
  await expect(node(page, tip)).toBeVisible();
  // M goes back to the map.
  await graphPanel(page).focus();
  await page.keyboard.press("m");
  await expect(mapView(page)).toBeVisible();
});

test("compare from the graph: select a tip, Shift-click another", async ({ page }) => {
  await openApp(page, serve.url);
  await open(page, retry.name);
  await expect(page.getByTestId("graph")).toBeVisible();
  // The tips sit at the ends of folded chains: open them all.
  await expandAllChains(page);
  // Near their top-left corners: the minimap sits over the bottom right of the canvas.
  await node(page, retry.firstTip).click({ position: { x: 12, y: 8 } });
  await expectPreviewOf(page, retry.firstTip);
  await node(page, retry.secondTip).click({ modifiers: ["Shift"], position: { x: 12, y: 8 } });
  const pane = comparePane(page);
  await expect(pane).toBeVisible();
  await expect(pane.locator(".compare-head[data-side=left]")).toContainText(retry.firstTip);
  await expect(pane.locator(".compare-head[data-side=right]")).toContainText(retry.secondTip);
  await expect(pane.locator(".compare-shared")).toContainText(`up to ${retry.ancestor}`);
  // The edited prompt pairs with its original, its changed words marked.
  await expect(pane.locator(".compare-row.change-changed ins.diff-added").first()).toContainText("whole");
  // The divergence: the tests fail on the left and pass on the right.
  await expect(pane.locator(".compare-row.divergence")).toHaveCount(1);
  await expect(pane.locator(".compare-row.divergence .compare-cell.left")).toContainText("2 failed");
  await expect(pane.locator(".compare-row.divergence .compare-cell.right")).toContainText("42 passed");
  await pane.getByRole("button", { name: "Go to divergence" }).click();
  await shot(page, "compare-light");
  await setTheme(page, "dark");
  await shot(page, "compare-dark");
  await setTheme(page, "light");
  // Swap sides.
  await pane.getByRole("button", { name: "Swap sides" }).click();
  await expect(pane.locator(".compare-head[data-side=left]")).toContainText(retry.secondTip);
  // Escape closes it; the graph is back.
  await page.keyboard.press("Escape");
  await expect(pane).toHaveCount(0);
  await expect(page.getByTestId("graph")).toBeVisible();
  // The picker: C, filter, Enter.
  await graphPanel(page).focus();
  await page.keyboard.press("c");
  const picker = page.getByRole("dialog", { name: /Compare .* with…/ });
  await expect(picker).toBeVisible();
  await picker.getByRole("searchbox", { name: "Filter tips" }).fill("whole");
  await expect(picker.getByRole("option")).toHaveCount(1);
  await page.keyboard.press("Enter");
  await expect(comparePane(page)).toBeVisible();
});

test("compare a fork with its source from the library", async ({ page }) => {
  await openApp(page, serve.url);
  const forkRow = sessionRow(page, "Fork: docs instead");
  await expect(forkRow).toBeVisible();
  await page
    .locator(".session-item", { has: page.locator(".session-name", { hasText: "Fork: docs instead" }) })
    .getByRole("button", { name: "Compare with its source" })
    .click();
  const pane = comparePane(page);
  await expect(pane).toBeVisible();
  await expect(pane.locator(".compare-head[data-side=left]")).toContainText(fork.sourceTip);
  await expect(pane.locator(".compare-head[data-side=right]")).toContainText(fork.forkTip);
  await expect(pane.locator(".compare-head[data-side=right]")).toContainText("other session");
  await expect(pane.locator(".compare-shared")).toContainText(`up to ${fork.ancestor}`);
  // What each side did after the ancestor: the source ran the tests, the fork (named on its own side) wrote docs.
  await expect(pane.locator(".compare-cell.left", { hasText: "Run the unit tests now" })).toHaveCount(1);
  await expect(
    pane.locator(".compare-cell.right", { hasText: "Write the documentation instead" }),
  ).toHaveCount(1);
  await expect(pane.locator(".compare-cell.right", { hasText: "Fork: docs instead" })).toHaveCount(1);
  await expect(pane.locator(".compare-cell.left", { hasText: "Write the documentation" })).toHaveCount(0);
  await shot(page, "compare-fork-light");
});
