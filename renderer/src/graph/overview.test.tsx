// @vitest-environment happy-dom
/**
 * The zoomed-out overview: the drawing (against a recording 2D context),
 * the scene it draws from, and in the explorer the switch from React Flow's
 * DOM nodes to the canvas and back, clicks and hover titles on it, keys.
 */

import "../testing/setup.ts";
import { READABLE_MIN_ZOOM } from "../branch-map/default-view.ts";
import { act, fireEvent, screen, waitFor } from "@testing-library/react";
import type { MouseEvent as ReactMouseEvent } from "react";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { viewportRect } from "../../../shared/graph/index.ts";
import { readSession } from "../../../shared/session/index.ts";
import { createGraphSelectors, type GraphModel, NODE_HEIGHT, NODE_WIDTH } from "../state/graph-model.ts";
import { type ContextShade, initialSessionState } from "../state/stores.ts";
import { RecordingContext } from "../testing/recording-context.ts";
import { flowViewport, renderExplorer } from "../testing/render-explorer.tsx";
import { TEST_VIEWPORT } from "../testing/setup.ts";
import { sessionViewOf } from "../testing/session-view.ts";
import { assistant, type HandEntry, sessionText, user } from "../testing/sessions.ts";
import { createOverviewPointer, OVERVIEW_MIN_NODES, OVERVIEW_ZOOM } from "./overview-canvas.tsx";
import {
  drawOverview,
  OVERVIEW_COLOUR_VARIABLES,
  type OverviewHighlights,
  overviewPalette,
} from "./overview-draw.ts";
import { createOverviewScene, OVERVIEW_STYLES, overviewScene, overviewTitle } from "./overview-scene.ts";

/** Each colour is its variable's name, so a paint says which it used. */
const palette = overviewPalette((variable) => `colour(${variable})`);
const colourOf = (variable: string) => `colour(${variable})`;

/**
 * u0 - a0 - u1 - a1 (the leaf), and from a0 a second branch: b1 - c1 - b2 - c2. Chains need runs of
 * three, so with the leaf kept every entry here is a node of its own except the b1..c2 run.
 */
const branchy: HandEntry[] = [
  user("u0", "start"),
  assistant("a0", "first answer"),
  user("b1", "other way"),
  assistant("c1", "other answer"),
  user("b2", "more"),
  assistant("c2", "more answers"),
  user("u1", "go on", "a0"),
  assistant("a1", "second answer"),
];

function modelOf(entries: HandEntry[], selectedId?: string): GraphModel {
  const view = sessionViewOf("t", readSession(sessionText(entries)));
  const selected = selectedId ?? view.leafId;
  return createGraphSelectors().model({
    ...initialSessionState,
    view,
    selectedId: selected,
    cursorId: selected,
  })!;
}

function highlightsFor(model: GraphModel, changes: Partial<OverviewHighlights> = {}): OverviewHighlights {
  const path = new Set<string>();
  for (let id: string | null = model.view.leafId; id !== null; id = model.nodesById.get(id)?.parentId ?? null)
    path.add(id);
  return {
    path,
    shades: new Map(),
    matches: new Set(),
    recent: new Set(),
    selected: model.view.leafId,
    cursor: model.view.leafId,
    leaf: model.leafHost,
    ...changes,
  };
}

const frameAt = (zoom: number, x = 0, y = 0, pixelRatio = 1) => ({
  viewport: { x, y, zoom },
  width: 800,
  height: 600,
  pixelRatio,
});

function filledNodes(context: RecordingContext): Map<string, { style: string; alpha: number }> {
  const found = new Map<string, { style: string; alpha: number }>();
  for (const paint of context.paints) {
    if (paint.kind !== "fill") continue;
    for (const rect of paint.rects)
      found.set(`${rect.x},${rect.y}`, { style: paint.style, alpha: paint.alpha });
  }
  return found;
}

const at = (model: GraphModel, id: string) => {
  const position = model.layout.positions.get(id)!;
  return `${position.x},${position.y}`;
};

describe("drawOverview", () => {
  it("fills each node in its kind's colour, full on the selected path and faded off it", () => {
    const model = modelOf(branchy);
    const context = new RecordingContext();
    const drawn = drawOverview(
      context,
      overviewScene(model, "LR"),
      frameAt(0.2),
      highlightsFor(model),
      palette,
    );
    expect(drawn.nodes).toBe(model.graph.nodes.length);
    const fills = filledNodes(context);
    expect(fills.size).toBe(model.graph.nodes.length);
    // The leaf's path: u0, a0, u1, a1.
    expect(fills.get(at(model, "u0"))).toEqual({ style: colourOf("--user"), alpha: 1 });
    expect(fills.get(at(model, "a1"))).toEqual({ style: colourOf("--assistant"), alpha: 1 });
    // The other branch folds into a chain, off the path.
    expect(fills.get(at(model, "chain:b1"))).toEqual({ style: colourOf("--muted"), alpha: 0.45 });
    // One fill per colour and opacity, not one per node.
    expect(context.paints.filter((paint) => paint.kind === "fill").length).toBeLessThanOrEqual(3);
  });

  it("shades path entries by the context: summarised and dropped ones fainter", () => {
    const model = modelOf(branchy);
    const shades = new Map<string, ContextShade>([
      ["u0", "summarised"],
      ["a0", "dropped"],
      ["u1", "context"],
    ]);
    const context = new RecordingContext();
    drawOverview(
      context,
      overviewScene(model, "LR"),
      frameAt(0.2),
      highlightsFor(model, { shades }),
      palette,
    );
    const fills = filledNodes(context);
    expect(fills.get(at(model, "u0"))!.alpha).toBe(0.6);
    expect(fills.get(at(model, "a0"))!.alpha).toBe(0.35);
    expect(fills.get(at(model, "u1"))!.alpha).toBe(1);
  });

  it("fades archived entries, as their DOM nodes are, while Show archived draws them", () => {
    const model = modelOf(branchy);
    const context = new RecordingContext();
    const archived = (entryId: string) => entryId === "a1";
    drawOverview(
      context,
      overviewScene(model, "LR"),
      frameAt(0.2),
      highlightsFor(model, { archived }),
      palette,
    );
    const fills = filledNodes(context);
    expect(fills.get(at(model, "a1"))!.alpha).toBe(0.35);
    expect(fills.get(at(model, "u1"))!.alpha).toBe(1);
  });

  it("follows the viewport: device pixels, zoom and offset in the transform, and only nodes in view", () => {
    const model = modelOf(branchy);
    const context = new RecordingContext();
    // Zoom 0.5 at ratio 2, panned so the view starts at flow x 400: u0 (x 0 to 240) is out of it.
    const drawn = drawOverview(
      context,
      overviewScene(model, "LR"),
      frameAt(0.5, -200, 0, 2),
      highlightsFor(model),
      palette,
    );
    expect(context.cleared[0]).toEqual([0, 0, 1600, 1200]);
    expect(context.transforms).toEqual([
      [1, 0, 0, 1, 0, 0],
      [1, 0, 0, 1, -400, 0],
    ]);
    const view = viewportRect({ x: -200, y: 0, zoom: 0.5 }, 800, 600);
    const margin = 12 / 0.5;
    const expected = model.graph.nodes.filter((node) => {
      const position = model.layout.positions.get(node.id)!;
      return (
        position.x <= view.x + view.width + margin &&
        position.x + NODE_WIDTH >= view.x - margin &&
        position.y <= view.y + view.height + margin &&
        position.y + NODE_HEIGHT >= view.y - margin
      );
    });
    expect(expected.length).toBeLessThan(model.graph.nodes.length);
    expect(drawn.nodes).toBe(expected.length);
    expect(filledNodes(context).has(at(model, "u0"))).toBe(false);
  });

  it("draws edges as elbows, the selected path's over the others in the path colour, widths in screen pixels", () => {
    const model = modelOf(branchy);
    const context = new RecordingContext();
    const drawn = drawOverview(
      context,
      overviewScene(model, "LR"),
      frameAt(0.25),
      highlightsFor(model),
      palette,
    );
    expect(drawn.edges).toBe(model.graph.nodes.length - 1);
    const [others, onPath] = context.paints.filter((paint) => paint.kind === "stroke").slice(0, 2);
    expect(others!.style).toBe(colourOf("--border"));
    expect(others!.lineWidth).toBe(1 / 0.25);
    expect(onPath!.style).toBe(colourOf("--path"));
    expect(onPath!.lineWidth).toBe(2.5 / 0.25);
    // u0 -> a0, a0 -> u1, u1 -> a1 on the path; a0 -> the chain off it.
    expect(onPath!.lines).toHaveLength(3);
    expect(others!.lines).toHaveLength(1);
    // Out of a0's right side, across the gap at its middle, into the chain's left side.
    const a0 = model.layout.positions.get("a0")!;
    const chain = model.layout.positions.get("chain:b1")!;
    const middle = (a0.x + NODE_WIDTH + chain.x) / 2;
    expect(others!.lines[0]).toEqual([
      a0.x + NODE_WIDTH,
      a0.y + NODE_HEIGHT / 2,
      middle,
      a0.y + NODE_HEIGHT / 2,
      middle,
      chain.y + NODE_HEIGHT / 2,
      chain.x,
      chain.y + NODE_HEIGHT / 2,
    ]);
  });

  it("routes top to bottom edges out of the bottom and into the top", () => {
    const model = modelOf(branchy);
    const context = new RecordingContext();
    const scene = createOverviewScene(model, "TB");
    drawOverview(context, scene, frameAt(0.25), highlightsFor(model), palette);
    const line = context.paints.find((paint) => paint.kind === "stroke")!.lines[0]!;
    // Each route starts at the middle of a parent's bottom edge and ends at the middle of a child's top edge.
    const parent = [...scene.ids.keys()].find(
      (i) => scene.x[i]! + NODE_WIDTH / 2 === line[0] && scene.y[i]! + NODE_HEIGHT === line[1],
    );
    const child = [...scene.ids.keys()].find(
      (i) => scene.x[i]! + NODE_WIDTH / 2 === line[6] && scene.y[i]! === line[7],
    );
    expect(parent).toBeDefined();
    expect(child).toBeDefined();
  });

  it("rings the selection, the cursor (dashed), the leaf, search matches and new entries", () => {
    const model = modelOf(branchy);
    const context = new RecordingContext();
    drawOverview(
      context,
      overviewScene(model, "LR"),
      frameAt(0.5),
      highlightsFor(model, {
        selected: "a0",
        cursor: "u1",
        matches: new Set(["u0", "a1"]),
        recent: new Set(["a1"]),
      }),
      palette,
    );
    const strokes = context.paints.filter((paint) => paint.kind === "stroke");
    const ring = (style: string) =>
      strokes.filter((paint) => paint.style === style && paint.rects.length > 0);
    const around = (id: string, offsetPx: number) => {
      const position = model.layout.positions.get(id)!;
      const offset = offsetPx / 0.5;
      return {
        x: position.x - offset,
        y: position.y - offset,
        width: NODE_WIDTH + 2 * offset,
        height: NODE_HEIGHT + 2 * offset,
      };
    };
    const [selected, cursor] = ring(colourOf("--accent"));
    expect(selected!.rects).toEqual([around("a0", 3)]);
    expect(selected!.dash).toEqual([]);
    expect(cursor!.rects).toEqual([around("u1", 7)]);
    expect(cursor!.dash).toEqual([4 / 0.5, 3 / 0.5]);
    const matched = [...ring(colourOf("--match"))[0]!.rects].sort((a, b) => a.x - b.x);
    expect(matched).toEqual([around("u0", 2), around("a1", 2)]);
    expect(ring(colourOf("--recent"))[0]!.rects).toEqual([around("a1", 2)]);
    expect(ring(colourOf("--text"))[0]!.rects).toEqual([around("a1", 0.5)]);
  });

  it("reads every colour from a CSS custom property, with a grey where one is missing", () => {
    expect(palette.styles).toEqual(
      OVERVIEW_STYLES.map((style) => colourOf(OVERVIEW_COLOUR_VARIABLES.styles[style])),
    );
    expect(overviewPalette(() => "  ").edge).toBe("#888888");
  });
});

describe("the overview scene", () => {
  it("is made once per layout; titles say what the DOM node would", () => {
    const model = modelOf(branchy);
    expect(overviewScene(model, "LR")).toBe(overviewScene(model, "LR"));
    const scene = overviewScene(model, "LR");
    const a1 = model.layout.positions.get("a1")!;
    expect(scene.ids[scene.nodes.nearest({ x: a1.x + 10, y: a1.y + 10 })]).toBe("a1");
    expect(overviewTitle(model, "a1")).toMatch(/^Assistant\nsecond answer\na1 · line \d+$/);
    expect(overviewTitle(model, "chain:b1")).toBe("4 entries: click to expand\nother way\n…\nmore answers");
  });
});

describe("the overview's pointer", () => {
  it("expands a chain and selects an entry, as clicks on their DOM nodes do; titles follow the pointer", async () => {
    const explorer = await renderExplorer([{ sessionId: "b", text: sessionText(branchy) }], { open: "b" });
    // Left to right (the default is top down): the hit slop below is measured to the left of a chain.
    act(() => explorer.controller.setDirection("LR"));
    // A stand-in for React Flow's viewport: flow coordinates are screen coordinates, zoom 0.1.
    const pointer = createOverviewPointer(explorer.controller, {
      screenToFlowPosition: (point) => point,
      getZoom: () => 0.1,
    });
    const model = explorer.controller.model()!;
    const event = (id: string, dx = 10, dy = 10) => {
      const position = model.layout.positions.get(id)!;
      return { clientX: position.x + dx, clientY: position.y + dy, buttons: 0 } as unknown as ReactMouseEvent;
    };
    act(() => pointer.pane.onPaneMouseMove(event("a0")));
    expect(pointer.hover.getState()?.id).toBe("a0");
    act(() => pointer.pane.onPaneClick(event("a0")));
    expect(explorer.controller.stores.session.getState().selectedId).toBe("a0");
    // Within the hit slop (4 px at zoom 0.1: 40 flow units) of the chain, just left of it.
    act(() => pointer.pane.onPaneMouseMove(event("chain:b1", -30, 20)));
    expect(pointer.hover.getState()?.title).toContain("4 entries: click to expand");
    act(() => pointer.pane.onPaneClick(event("chain:b1", -30, 20)));
    expect(explorer.controller.stores.session.getState().expandedChains.has("chain:b1")).toBe(true);
    expect(pointer.hover.getState()).toBeNull();
    // A move with a button down is a pan: no title.
    act(() => pointer.pane.onPaneMouseMove({ ...event("u0"), buttons: 1 } as ReactMouseEvent));
    expect(pointer.hover.getState()).toBeNull();
    act(() => pointer.pane.onPaneMouseMove(event("u0", -500, -500)));
    expect(pointer.hover.getState()).toBeNull();
    explorer.unmount();
  });
});

/** A full binary tree of user and assistant entries: no runs, so every entry is a graph node. */
function binaryTree(depth: number): HandEntry[] {
  const entries: HandEntry[] = [user("n1", "root question")];
  for (let id = 2; id < 2 ** depth; id++) {
    const parent = `n${Math.floor(id / 2)}`;
    const text = `entry number ${id}`;
    entries.push(id % 2 === 0 ? assistant(`n${id}`, text, parent) : user(`n${id}`, text, parent));
  }
  return entries;
}

describe("the overview in the explorer", () => {
  const saved = { ...TEST_VIEWPORT };
  beforeEach(() => {
    TEST_VIEWPORT.width = 1600;
    TEST_VIEWPORT.height = 900;
  });
  afterEach(() => {
    Object.assign(TEST_VIEWPORT, saved);
  });

  it("replaces the DOM nodes when a large graph is zoomed out, takes clicks and hovers, and goes when zoomed in", async () => {
    const explorer = await renderExplorer([{ sessionId: "tree", text: sessionText(binaryTree(10)) }], {
      open: "tree",
    });
    const model = explorer.controller.model()!;
    expect(model.graph.nodes.length).toBeGreaterThanOrEqual(OVERVIEW_MIN_NODES);
    await waitFor(() => expect(explorer.drawnIds().length).toBeGreaterThan(0));
    expect(screen.queryByRole("img", { name: /Overview of the session graph/ })).toBeNull();

    fireEvent.click(screen.getByRole("button", { name: "Fit" }));
    const canvas = await screen.findByRole("img", { name: /Overview of the session graph, zoomed out/ });
    await waitFor(() => expect(explorer.drawnIds()).toEqual([]));
    expect(canvas.getAttribute("aria-label")).toContain(`${model.graph.nodes.length.toLocaleString()} nodes`);
    expect(document.querySelector(".graph-status")!.textContent).toContain("overview (zoomed out)");
    // The minimap stays: it draws the overview's scene, not React Flow's nodes.
    expect(
      screen.getByRole("img", { name: `Minimap: ${model.graph.nodes.length.toLocaleString()} nodes` }),
    ).toBeTruthy();
    // happy-dom has no 2D canvas: the frame runs and draws nothing.
    await waitFor(() => expect(canvas.dataset.frames).toBeDefined());

    // A node's place on screen: the pane's bounds are at 0, 0 here.
    await waitFor(() => expect(flowViewport().zoom).toBeLessThan(OVERVIEW_ZOOM));
    const viewport = flowViewport();
    const onScreen = (id: string) => {
      const position = model.layout.positions.get(id)!;
      return {
        clientX: (position.x + NODE_WIDTH / 2) * viewport.zoom + viewport.x,
        clientY: (position.y + NODE_HEIGHT / 2) * viewport.zoom + viewport.y,
      };
    };
    // An entry well inside the view, not the one selected on opening.
    const target = model.graph.nodes
      .map((node) => node.id)
      .find((id) => {
        const { clientX, clientY } = onScreen(id);
        return id !== model.view.leafId && clientX > 200 && clientX < 1400 && clientY > 200 && clientY < 700;
      })!;
    expect(target).toBeDefined();
    const { clientX, clientY } = onScreen(target);
    const pane = document.querySelector<HTMLElement>(".react-flow__pane")!;
    fireEvent.pointerMove(pane, { clientX, clientY });
    const tooltip = await screen.findByRole("tooltip");
    expect(tooltip.textContent).toContain(`${target} · line`);
    expect(canvas.dataset.hover).toBe("true");
    fireEvent.click(pane, { clientX, clientY });
    expect(explorer.controller.stores.session.getState().selectedId).toBe(target);
    await explorer.waitForContext(target);
    // Far from any node, nothing is selected.
    fireEvent.click(pane, { clientX: viewport.x - 200, clientY: viewport.y - 200 });
    expect(explorer.controller.stores.session.getState().selectedId).toBe(target);
    fireEvent.pointerLeave(pane);
    await waitFor(() => expect(screen.queryByRole("tooltip")).toBeNull());

    // Centre zooms in to a readable size: the DOM nodes are back, the selection among them.
    fireEvent.click(screen.getByRole("button", { name: "Centre" }));
    await waitFor(() => expect(explorer.node(target)).not.toBeNull());
    expect(screen.queryByRole("img", { name: /Overview/ })).toBeNull();
    expect(explorer.node(target)!.querySelector(".entry-node")!.getAttribute("data-selected")).toBe("true");
    expect(document.querySelector(".graph-status")!.textContent).not.toContain("overview");
    explorer.unmount();
  });

  it("keeps the keys working: the cursor moves and is centred at a readable zoom", async () => {
    const explorer = await renderExplorer([{ sessionId: "tree", text: sessionText(binaryTree(10)) }], {
      open: "tree",
    });
    fireEvent.click(screen.getByRole("button", { name: "Fit" }));
    await screen.findByRole("img", { name: /Overview of the session graph/ });
    // The overview shows a frame before the fit zooms out: a key pressed in between was centred, then fitted away.
    await waitFor(() => expect(flowViewport().zoom).toBeLessThan(OVERVIEW_ZOOM));
    const order = explorer.controller.model()!.visible.order;
    const before = explorer.controller.stores.session.getState().cursorId!;
    fireEvent.keyDown(document.body, { key: "ArrowDown" });
    const after = order[(order.indexOf(before) + 1) % order.length]!;
    expect(explorer.controller.stores.session.getState().cursorId).toBe(after);
    // Centred, then drawn as a DOM node again: a few frames, longer on a busy machine than waitFor's 1 s.
    await waitFor(() => expect(explorer.node(after)).not.toBeNull(), { timeout: 5_000 });
    expect(explorer.node(after)!.querySelector(".entry-node")!.getAttribute("aria-current")).toBe("true");
    explorer.unmount();
  });

  it("leaves a small graph as DOM nodes, Fit stopping at the least readable zoom", async () => {
    const explorer = await renderExplorer([{ sessionId: "small", text: sessionText(binaryTree(6)) }], {
      open: "small",
    });
    expect(explorer.controller.model()!.graph.nodes.length).toBeLessThan(OVERVIEW_MIN_NODES);
    // The pane is 480 by 800 (setup.ts): the whole tree would fit only far below readable text.
    fireEvent.click(screen.getByRole("button", { name: "Fit" }));
    await waitFor(() => expect(flowViewport().zoom).toBeCloseTo(READABLE_MIN_ZOOM, 5));
    await act(async () => {});
    expect(screen.queryByRole("img", { name: /Overview/ })).toBeNull();
    // The nodes around the cursor, as DOM nodes (the rest are out of view at this zoom).
    expect(explorer.drawnIds().length).toBeGreaterThan(0);
    expect(explorer.drawnIds().length).toBeLessThan(explorer.controller.model()!.graph.nodes.length);
    explorer.unmount();
  });
});
