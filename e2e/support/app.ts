/**
 * The explorer page as the tests drive it: where things are, and waits for
 * the states the app signals in the DOM (attributes, nodes, text), never
 * for a fixed time.
 */

import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { expect, type Locator, type Page } from "@playwright/test";
import { REPO } from "./serve.ts";

export const SCREENSHOT_DIR = join(REPO, "test-results", "screenshots");

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path });
  return path;
}

export const library = (page: Page) => page.getByRole("navigation", { name: "Library" });
export const preview = (page: Page) => page.locator('[aria-label="Context preview"]');
export const graphPanel = (page: Page) => page.getByRole("region", { name: "Session graph" });
export const statusLine = (page: Page) => page.locator(".graph-status");
export const node = (page: Page, id: string) => page.locator(`.react-flow__node[data-id="${id}"]`);
export const chainNodes = (page: Page) => page.locator(".react-flow__node-chain");
export const filterSelect = (page: Page) => page.getByRole("combobox", { name: "Filter" });
export const searchBox = (page: Page) => page.getByRole("searchbox", { name: "Search entries" });

/** The library row of a session, by the name the sidebar shows. */
export function sessionRow(page: Page, name: string): Locator {
  return library(page).locator(".session-row", {
    has: page.locator(".session-name", { hasText: name }),
  });
}

/** Opens the app and waits for the library to list sessions. */
export async function openApp(page: Page, url: string): Promise<void> {
  await page.goto(url);
  // A library of several 100 MB files lists its first rows once their scan has read them: seconds on a
  // busy machine.
  await expect(library(page).locator(".session-row").first()).toBeVisible({ timeout: 30_000 });
}

/** Waits until the preview shows the context of `leafId` (in `mode`, when given). */
export async function expectPreviewOf(page: Page, leafId: string, mode?: "agent" | "llm"): Promise<void> {
  await expect(preview(page)).toHaveAttribute("data-leaf-id", leafId);
  await expect(preview(page)).toHaveAttribute("aria-busy", "false");
  if (mode) await expect(preview(page)).toHaveAttribute("data-mode", mode);
}

/**
 * Clicks a session in the library and waits until the open has finished
 * (the graph takes the focus then) and the preview shows its leaf.
 */
export async function openSession(page: Page, name: string, leafId: string): Promise<void> {
  await sessionRow(page, name).click();
  await expect(sessionRow(page, name)).toHaveAttribute("aria-current", "true");
  await expect(graphPanel(page)).toBeFocused();
  await expect(page.getByTestId("graph")).toBeVisible();
  await expectPreviewOf(page, leafId);
}

export interface PreviewItem {
  entryId: string;
  role: string;
  text: string;
}

/** The messages the preview draws, in order. */
export function previewItems(page: Page): Promise<PreviewItem[]> {
  return preview(page)
    .locator("article.message")
    .evaluateAll((articles) =>
      articles.map((article) => ({
        entryId: article.getAttribute("data-entry-id") ?? "",
        role: article.getAttribute("data-role") ?? "",
        text: (() => {
          const body = article.querySelector(".message-body")?.cloneNode(true);
          // "Show N more lines" is the collapsed text's own button, not the message's.
          for (const more of body?.querySelectorAll(".more") ?? []) more.remove();
          return body?.textContent ?? "";
        })(),
      })),
    );
}

/** The ids of the graph nodes in the DOM (React Flow mounts those in view). */
export function drawnIds(page: Page): Promise<string[]> {
  return page
    .locator(".react-flow__node")
    .evaluateAll((nodes) => nodes.map((element) => element.getAttribute("data-id") ?? ""));
}

/**
 * The ids of the drawn nodes matching `selector` whose centre (where a click lands) lies in the graph's
 * pane, in DOM order. React Flow also mounts nodes just past the pane's edge, and Fit stops at readable
 * text, so a node in the DOM is not always one a person can click.
 */
export function idsInPane(page: Page, selector = ".react-flow__node"): Promise<string[]> {
  return page.locator(selector).evaluateAll((nodes) => {
    interface Box {
      left: number;
      right: number;
      top: number;
      bottom: number;
    }
    const box = (element: unknown) => (element as { getBoundingClientRect(): Box }).getBoundingClientRect();
    return nodes
      .filter((element) => {
        const pane = element.closest(".react-flow");
        if (!pane) return false;
        const [a, b] = [box(element), box(pane)];
        const [x, y] = [(a.left + a.right) / 2, (a.top + a.bottom) / 2];
        return x > b.left && x < b.right && y > b.top && y < b.bottom;
      })
      .map((element) => element.getAttribute("data-id") ?? "");
  });
}

export interface GraphStatus {
  /** 1-based position of the cursor in the visible order (0: none). */
  cursor: number;
  /** Visible entries. */
  visible: number;
  /** Entries in the session. */
  entries: number;
  /** Graph nodes (entries and chains). */
  nodes: number;
  text: string;
}

/** The status line under the graph: `(3/21) Default · 27 entries, 6 nodes drawn`. */
export async function graphStatus(page: Page): Promise<GraphStatus> {
  const line = statusLine(page);
  const text = (await line.textContent()) ?? "";
  // The line is in words; its figures are in data attributes.
  const [cursor, visible, entries, nodes] = await Promise.all(
    ["data-cursor", "data-visible", "data-entries", "data-nodes"].map((name) => line.getAttribute(name)),
  );
  if (cursor == null || visible == null || entries == null || nodes == null)
    throw new Error(`unexpected status line: ${text}`);
  return {
    cursor: Number(cursor),
    visible: Number(visible),
    entries: Number(entries),
    nodes: Number(nodes),
    text,
  };
}

/** Fits the whole graph in view, then waits until every graph node is mounted. */
export async function fitAll(page: Page): Promise<void> {
  await page.getByRole("button", { name: "Fit", exact: true }).click();
  // Fit stops where text is still readable; past that the graph's zoom-out control takes the view further,
  // a step at a time, until every node is in it. Each move animates: counted once the view stands still,
  // or a count taken mid-way passes and the move ends elsewhere.
  const allDrawn = async () => {
    await viewStandsStill(page);
    return (await drawnIds(page)).length === (await graphStatus(page)).nodes;
  };
  const zoomOut = page.getByRole("button", { name: "Zoom Out" });
  await expect(async () => {
    if (!(await allDrawn())) await zoomOut.click();
    expect(await allDrawn()).toBe(true);
  }).toPass({ timeout: 20_000 });
}

/** Expands every chain (clicking each), so each visible entry is a node of its own, all in view. */
export async function expandAllChains(page: Page): Promise<void> {
  for (let round = 0; round < 200; round++) {
    await fitAll(page);
    const status = await graphStatus(page);
    if (status.nodes === status.visible) return;
    // A chain a person can click: one whose centre is in the pane (fitAll put every node there).
    const [id] = await idsInPane(page, ".react-flow__node-chain");
    if (id === undefined) throw new Error(`no chain in the graph's pane: ${status.text}`);
    await node(page, id).click();
    await expect(node(page, id)).toHaveCount(0);
  }
  throw new Error("chains kept appearing");
}

/** How far a node's centre is from the graph canvas's centre, in pixels. */
export async function distanceFromCentre(page: Page, id: string): Promise<number> {
  const box = await node(page, id).boundingBox();
  const canvas = await page.getByTestId("graph").boundingBox();
  if (!box || !canvas) return Number.POSITIVE_INFINITY;
  return Math.hypot(
    box.x + box.width / 2 - (canvas.x + canvas.width / 2),
    box.y + box.height / 2 - (canvas.y + canvas.height / 2),
  );
}

/** The part of a canvas the pixel check reads, inside the page (e2e/ is typed without the DOM library). */
interface PageCanvas {
  width: number;
  height: number;
  getContext(kind: "2d"): {
    getImageData(x: number, y: number, width: number, height: number): { data: Uint8ClampedArray };
  } | null;
}

/**
 * How much of a canvas is painted (alpha > 0, sampled every `step`th pixel each way), in how many
 * colours, and how far the paint reaches across it: `spread`, the larger of the shares of sampled columns
 * and of rows holding paint (a drawing fitted to the canvas reaches across it one way or the other). The
 * canvases are transparent where they draw nothing: what shows there is the page's background.
 */
export function canvasPixels(
  canvas: Locator,
  step = 3,
): Promise<{ painted: number; colours: number; spread: number }> {
  return canvas.evaluate((element, step) => {
    const canvas = element as unknown as PageCanvas;
    const data = canvas.getContext("2d")!.getImageData(0, 0, canvas.width, canvas.height).data;
    let painted = 0;
    let sampled = 0;
    const colours = new Set<number>();
    const columns = new Set<number>();
    const rows = new Set<number>();
    for (let y = 0; y < canvas.height; y += step) {
      for (let x = 0; x < canvas.width; x += step) {
        const at = (y * canvas.width + x) * 4;
        sampled += 1;
        if (data[at + 3]! === 0) continue;
        painted += 1;
        columns.add(x);
        rows.add(y);
        // Opaque-ish pixels only, coarsely: blended edges would count as colours of their own.
        if (data[at + 3]! > 200)
          colours.add(((data[at]! >> 5) << 6) | ((data[at + 1]! >> 5) << 3) | (data[at + 2]! >> 5));
      }
    }
    const spread = Math.max(
      columns.size / Math.ceil(canvas.width / step),
      rows.size / Math.ceil(canvas.height / step),
    );
    return { painted: painted / sampled, colours: colours.size, spread };
  }, step);
}

/** Waits until React Flow's viewport keeps its transform over a few frames (an animated move has ended). */
export async function viewStandsStill(page: Page): Promise<void> {
  let last = "";
  await expect
    .poll(
      async () => {
        const now = await viewportTransform(page);
        const still = now === last;
        last = now;
        return still;
      },
      { intervals: [100] },
    )
    .toBe(true);
}

/** React Flow's viewport transform, as its viewport element's style has it. */
export function viewportTransform(page: Page): Promise<string> {
  return page
    .locator(".react-flow__viewport")
    .evaluate((element) => (element as unknown as { style: { transform: string } }).style.transform);
}
