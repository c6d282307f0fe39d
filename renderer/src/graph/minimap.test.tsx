// @vitest-environment happy-dom
/**
 * The canvas minimap: its two layers drawn against a recording 2D context (every node once per
 * layout, the viewport rectangle on its own), and in the explorer that it follows the viewport
 * without drawing the nodes again, and that a press or the wheel moves and zooms the view.
 */

import "../testing/setup.ts";
import { fireEvent, screen, waitFor } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type Box, viewportRect } from "../../../shared/graph/index.ts";
import { readSession } from "../../../shared/session/index.ts";
import { createGraphSelectors, type GraphModel, NODE_HEIGHT, NODE_WIDTH } from "../state/graph-model.ts";
import { initialSessionState } from "../state/stores.ts";
import { type Paint, RecordingContext } from "../testing/recording-context.ts";
import { flowViewport, renderExplorer } from "../testing/render-explorer.tsx";
import { TEST_VIEWPORT } from "../testing/setup.ts";
import { sessionViewOf } from "../testing/session-view.ts";
import { assistant, type HandEntry, sessionText, user } from "../testing/sessions.ts";
import * as minimap from "./minimap-draw.ts";
import { overviewPalette } from "./overview-draw.ts";
import { overviewScene, sceneMade } from "./overview-scene.ts";
import { createGrowingScenes, createPacedDraws, GROWN_SCENE_PAUSE_MS } from "./minimap-canvas.tsx";
import { GrownGraph } from "../../../shared/graph/folded-graph.ts";
import { applySessionDelta } from "../../../shared/ipc/session-delta.ts";
import { LiveSession } from "../../../shared/ipc/testing/live-session.ts";
import { Rng } from "../../../shared/session/testing/generate-session.ts";

const palette = overviewPalette((variable) => `colour(${variable})`);
const colourOf = (variable: string) => `colour(${variable})`;
const frame = { width: minimap.MINIMAP_WIDTH, height: minimap.MINIMAP_HEIGHT, pixelRatio: 2 };

/** u0 - a0 - u1 - a1 (the leaf), and a branch b1 off a0: no runs of three, so no chains. */
const entries: HandEntry[] = [
  user("u0", "start"),
  assistant("a0", "first answer"),
  user("b1", "other way"),
  user("u1", "go on", "a0"),
  assistant("a1", "second answer"),
];

function modelOf(): GraphModel {
  const view = sessionViewOf("m", readSession(sessionText(entries)));
  return createGraphSelectors().model({
    ...initialSessionState,
    view,
    selectedId: view.leafId,
    cursorId: view.leafId,
  })!;
}

function pathOf(model: GraphModel): Set<string> {
  const path = new Set<string>();
  for (let id: string | null = model.view.leafId; id !== null; id = model.nodesById.get(id)?.parentId ?? null)
    path.add(id);
  return path;
}

const fills = (paints: readonly Paint[]) => paints.filter((paint) => paint.kind === "fill");
const filledRects = (paints: readonly Paint[]) => fills(paints).flatMap((paint) => paint.rects);

describe("drawMinimapNodes", () => {
  it("fills every node once, fitted into the minimap, by kind; the path and the selection over them", () => {
    const model = modelOf();
    const scene = overviewScene(model, "LR");
    const context = new RecordingContext();
    const drawn = minimap.drawMinimapNodes(
      context,
      scene,
      frame,
      { path: pathOf(model), shades: new Map(), selected: "a1" },
      palette,
    );
    expect(drawn).toBe(model.graph.nodes.length);
    const rects = filledRects(context.paints);
    expect(rects).toHaveLength(model.graph.nodes.length);
    // Each node a rectangle about its own box's centre, inside the minimap once mapped.
    const map = minimap.minimapMapping(scene.bounds, minimap.MINIMAP_WIDTH, minimap.MINIMAP_HEIGHT);
    for (const rect of rects) {
      expect(rect.width).toBeGreaterThanOrEqual(NODE_WIDTH);
      expect(rect.height).toBeGreaterThanOrEqual(NODE_HEIGHT);
      expect(rect.x * map.scale + map.x).toBeGreaterThanOrEqual(0);
      expect((rect.x + rect.width) * map.scale + map.x).toBeLessThanOrEqual(minimap.MINIMAP_WIDTH);
      expect(rect.y * map.scale + map.y).toBeGreaterThanOrEqual(0);
      expect((rect.y + rect.height) * map.scale + map.y).toBeLessThanOrEqual(minimap.MINIMAP_HEIGHT);
    }
    // Device pixels: the ratio times the mapping.
    expect(context.transforms.at(-1)).toEqual([2 * map.scale, 0, 0, 2 * map.scale, 2 * map.x, 2 * map.y]);
    const styles = new Set(fills(context.paints).map((paint) => paint.style));
    expect(styles).toEqual(new Set([colourOf("--user"), colourOf("--assistant")]));
    // b1 is off the path: fainter.
    const centredOn = (id: string) => (paint: Paint) => {
      const position = model.layout.positions.get(id)!;
      return paint.rects.some(
        (rect) =>
          Math.abs(rect.x + rect.width / 2 - (position.x + NODE_WIDTH / 2)) < 1e-6 &&
          Math.abs(rect.y + rect.height / 2 - (position.y + NODE_HEIGHT / 2)) < 1e-6,
      );
    };
    const faded = fills(context.paints).find(centredOn("b1"))!;
    expect(fills(context.paints).find(centredOn("u1"))!.alpha).toBe(1);
    expect(faded.alpha).toBeLessThan(1);
    const strokes = context.paints.filter((paint) => paint.kind === "stroke");
    // The path's three edges, then the selection's ring.
    expect(strokes.map((paint) => paint.style)).toEqual([colourOf("--path"), colourOf("--accent")]);
    expect(strokes[0]!.lines).toHaveLength(3);
    const a1 = model.layout.positions.get("a1")!;
    expect(strokes[1]!.rects[0]!.x).toBeLessThan(a1.x);
  });
});

describe("drawMinimapViewport", () => {
  it("dims what is outside the viewport and outlines the viewport, in graph coordinates", () => {
    const scene = overviewScene(modelOf(), "LR");
    const context = new RecordingContext();
    const viewport = { x: -100, y: 20, zoom: 0.5 };
    const box = minimap.drawMinimapViewport(
      context,
      scene,
      frame,
      { viewport, flowWidth: 800, flowHeight: 600 },
      palette,
    );
    expect(box).toEqual(viewportRect(viewport, 800, 600));
    const [mask, outline] = context.paints;
    expect(mask!.kind).toBe("fill");
    expect(mask!.rule).toBe("evenodd");
    expect(mask!.style).toBe(colourOf("--panel-2"));
    expect(mask!.rects[1]).toEqual(box);
    expect(outline!.kind).toBe("stroke");
    expect(outline!.style).toBe(colourOf("--accent"));
    // Larger than what the minimap shows: the outline keeps to the minimap, its visible edges on the border.
    const map = minimap.minimapMapping(scene.bounds, frame.width, frame.height);
    const shown = {
      x: -map.x / map.scale,
      y: -map.y / map.scale,
      right: (frame.width - map.x) / map.scale,
      bottom: (frame.height - map.y) / map.scale,
    };
    const [drawn] = outline!.rects;
    expect(drawn!.x).toBe(box.x);
    expect(drawn!.y).toBeGreaterThan(shown.y);
    expect(drawn!.x + drawn!.width).toBeLessThan(shown.right);
    expect(drawn!.y + drawn!.height).toBeLessThan(shown.bottom);
    expect(drawn!.y + drawn!.height).toBeGreaterThan(shown.bottom - 2 / map.scale);
  });

  it("outlines a view inside the minimap as it is, and marks the border nearest a view off it", () => {
    const scene = overviewScene(modelOf(), "LR");
    const map = minimap.minimapMapping(scene.bounds, frame.width, frame.height);
    const draw = (viewport: { x: number; y: number; zoom: number }) => {
      const context = new RecordingContext();
      const box = minimap.drawMinimapViewport(
        context,
        scene,
        frame,
        { viewport, flowWidth: 80, flowHeight: 60 },
        palette,
      );
      return { box, paints: context.paints };
    };
    // A small view over the graph's middle: drawn whole.
    const centre = {
      x: scene.bounds.x + scene.bounds.width / 2,
      y: scene.bounds.y + scene.bounds.height / 2,
    };
    const inside = draw({ x: 40 - centre.x, y: 30 - centre.y, zoom: 1 });
    expect(inside.paints[1]).toMatchObject({ kind: "stroke", rects: [inside.box] });
    // Far to the right of everything: a filled mark on the minimap's right border.
    const off = draw({ x: -(scene.bounds.x + scene.bounds.width + 100_000), y: 30 - centre.y, zoom: 1 });
    const mark = off.paints[1]!;
    expect(mark.kind).toBe("fill");
    expect(mark.style).toBe(colourOf("--accent"));
    const right = (frame.width - map.x) / map.scale;
    expect(mark.rects[0]!.x + mark.rects[0]!.width).toBeLessThanOrEqual(right);
    expect(mark.rects[0]!.x + mark.rects[0]!.width).toBeGreaterThan(right - 2 / map.scale);
  });

  it("maps minimap points back to the graph points drawn there", () => {
    const bounds: Box = { x: 0, y: 0, width: 4000, height: 1000 };
    const map = minimap.minimapMapping(bounds, minimap.MINIMAP_WIDTH, minimap.MINIMAP_HEIGHT);
    // Wider than the minimap: it spans the width less the padding, centred vertically.
    expect(map.scale).toBeCloseTo(190 / 4000);
    const centre = minimap.minimapToGraph(map, {
      x: minimap.MINIMAP_WIDTH / 2,
      y: minimap.MINIMAP_HEIGHT / 2,
    });
    expect(centre.x).toBeCloseTo(2000);
    expect(centre.y).toBeCloseTo(500);
  });
});

describe("the minimap in the explorer", () => {
  const saved = { ...TEST_VIEWPORT };
  const contexts = new WeakMap<HTMLCanvasElement, RecordingContext>();
  beforeEach(() => {
    TEST_VIEWPORT.width = 1600;
    TEST_VIEWPORT.height = 900;
    // happy-dom has no 2D canvas: each canvas gets a recording one.
    vi.spyOn(HTMLCanvasElement.prototype, "getContext").mockImplementation(function (
      this: HTMLCanvasElement,
    ) {
      let context = contexts.get(this);
      if (!context) {
        context = new RecordingContext();
        contexts.set(this, context);
      }
      return context as unknown as CanvasRenderingContext2D;
    } as unknown as HTMLCanvasElement["getContext"]);
  });
  afterEach(() => {
    Object.assign(TEST_VIEWPORT, saved);
    vi.restoreAllMocks();
  });

  it("draws the nodes once, follows the viewport on its own layer, and moves the view to a pressed point", async () => {
    const explorer = await renderExplorer([{ sessionId: "m", text: sessionText(entries) }], { open: "m" });
    const model = explorer.controller.model()!;
    const panel = screen.getByRole("img", { name: `Minimap: ${model.graph.nodes.length} nodes` });
    const [nodesCanvas, viewCanvas] = [...panel.querySelectorAll("canvas")];
    const nodesContext = contexts.get(nodesCanvas!)!;
    const viewContext = contexts.get(viewCanvas!)!;
    await waitFor(() => expect(nodesCanvas!.dataset.frames).toBe("1"));
    expect(filledRects(nodesContext.paints)).toHaveLength(model.graph.nodes.length);
    const nodePaints = nodesContext.paints.length;
    // The viewport as drawn: the hole in the mask (the outline keeps to the minimap's border).
    const outline = () =>
      viewContext.paints.filter((paint) => paint.kind === "fill" && paint.rule === "evenodd").at(-1)!
        .rects[1];
    await waitFor(() => expect(outline()).toEqual(viewportRect(flowViewport(), 1600, 900)));

    // A press on the minimap over b1 (off the path, away from the leaf the view opened on) centres the
    // view on that point, at the same zoom.
    const scene = overviewScene(model, explorer.controller.stores.session.getState().direction);
    const map = minimap.minimapMapping(scene.bounds, minimap.MINIMAP_WIDTH, minimap.MINIMAP_HEIGHT);
    const b1 = model.layout.positions.get("b1")!;
    const target = { x: b1.x + NODE_WIDTH / 2, y: b1.y + NODE_HEIGHT / 2 };
    const before = flowViewport();
    // The minimap's corner is at 0, 0 in happy-dom.
    fireEvent.pointerDown(viewCanvas!, {
      button: 0,
      pointerId: 1,
      clientX: target.x * map.scale + map.x,
      clientY: target.y * map.scale + map.y,
    });
    await waitFor(() => expect(flowViewport()).not.toEqual(before));
    const after = flowViewport();
    expect(after.zoom).toBe(before.zoom);
    expect((800 - after.x) / after.zoom).toBeCloseTo(target.x, 6);
    expect((450 - after.y) / after.zoom).toBeCloseTo(target.y, 6);
    // The viewport layer follows; the nodes layer is not drawn again.
    await waitFor(() => expect(outline()).toEqual(viewportRect(after, 1600, 900)));
    expect(nodesCanvas!.dataset.frames).toBe("1");
    expect(nodesContext.paints).toHaveLength(nodePaints);

    // The wheel zooms in about the view's centre.
    fireEvent.wheel(viewCanvas!, { deltaY: -100, deltaMode: 0 });
    await waitFor(() => expect(flowViewport().zoom).toBeCloseTo(after.zoom * 2 ** 0.2, 6));
    const zoomed = flowViewport();
    expect((800 - zoomed.x) / zoomed.zoom).toBeCloseTo(target.x, 6);
    expect(nodesCanvas!.dataset.frames).toBe("1");

    // A new selection changes the path: the nodes are drawn again, once.
    explorer.controller.select("b1");
    await waitFor(() => expect(nodesCanvas!.dataset.frames).toBe("2"));
    explorer.unmount();
  });

  it("draws a graph growing by appends at most once a pause, then its newest state", () => {
    vi.useFakeTimers();
    const live = new LiveSession(new Rng(3), sessionText(entries), false);
    let view = live.view();
    const selectors = createGraphSelectors();
    const modelOf = (v: typeof view) =>
      selectors.model({ ...initialSessionState, view: v, selectedId: v.leafId })!;
    let time = 0;
    let asked = 0;
    const scenes = createGrowingScenes(
      () => asked++,
      () => time,
    );
    const first = modelOf(view);
    expect(scenes.of(first, "LR")).toEqual({ scene: overviewScene(first, "LR"), held: false });
    const grow = () => {
      view = applySessionDelta(view, live.step("turn").delta);
      return modelOf(view);
    };
    // Within the pause: the scene drawn last, and a frame asked for at its end.
    time = 100;
    const second = grow();
    expect(second.graph).toBeInstanceOf(GrownGraph);
    expect(scenes.of(second, "LR")).toEqual({ scene: overviewScene(first, "LR"), held: true });
    time = 200;
    const third = grow();
    expect(scenes.of(third, "LR").held).toBe(true);
    expect(asked).toBe(0);
    vi.advanceTimersByTime(GROWN_SCENE_PAUSE_MS);
    expect(asked).toBe(1);
    // After it: the newest.
    time = GROWN_SCENE_PAUSE_MS;
    expect(scenes.of(third, "LR")).toEqual({ scene: overviewScene(third, "LR"), held: false });
    // The same layout (a new selection) is never held; another direction neither.
    time += 10;
    expect(scenes.of(third, "LR").held).toBe(false);
    expect(scenes.of(third, "TB").held).toBe(false);
    scenes.dispose();
    vi.useRealTimers();
  });

  it("draws the nodes layer in a task of its own: at once after a quiet pause, else at the pause's end, the newest asked", () => {
    vi.useFakeTimers();
    let time = 1000;
    const paced = createPacedDraws(250, () => time);
    const drawn: string[] = [];
    paced.ask(() => drawn.push("a"));
    expect(drawn).toEqual([]);
    vi.advanceTimersByTime(0);
    expect(drawn).toEqual(["a"]);
    time = 1100;
    paced.ask(() => drawn.push("b"));
    time = 1200;
    paced.ask(() => drawn.push("c"));
    vi.advanceTimersByTime(0);
    expect(drawn).toEqual(["a"]);
    time = 1250;
    vi.advanceTimersByTime(150);
    expect(drawn).toEqual(["a", "c"]);
    // Within the pause after that draw: later again; after a quiet pause: at once, in its own task.
    time = 1300;
    paced.ask(() => drawn.push("d"));
    vi.advanceTimersByTime(0);
    expect(drawn).toEqual(["a", "c"]);
    paced.dispose();
    vi.advanceTimersByTime(1000);
    expect(drawn).toEqual(["a", "c"]);
    time = 2000;
    paced.ask(() => drawn.push("e"));
    vi.advanceTimersByTime(0);
    expect(drawn).toEqual(["a", "c", "e"]);
    vi.useRealTimers();
  });

  it("makes the newest scene in the pause's own task, so the frame asked for only draws it", () => {
    vi.useFakeTimers();
    const live = new LiveSession(new Rng(4), sessionText(entries), false);
    let view = live.view();
    const selectors = createGraphSelectors();
    const modelOf = (v: typeof view) =>
      selectors.model({ ...initialSessionState, view: v, selectedId: v.leafId })!;
    let time = 0;
    let newest = modelOf(view);
    const madeWhenAsked: boolean[] = [];
    const scenes = createGrowingScenes(
      () => madeWhenAsked.push(sceneMade(newest, "LR")),
      () => time,
      () => ({ model: newest, direction: "LR" }),
    );
    scenes.of(newest, "LR");
    time = 100;
    view = applySessionDelta(view, live.step("turn").delta);
    newest = modelOf(view);
    expect(scenes.of(newest, "LR").held).toBe(true);
    expect(sceneMade(newest, "LR")).toBe(false);
    vi.advanceTimersByTime(GROWN_SCENE_PAUSE_MS);
    expect(madeWhenAsked).toEqual([true]);
    time = 400;
    expect(scenes.of(newest, "LR").held).toBe(false);
    // Long after the pause, a grown graph's scene not made yet is made in a task of its own as well.
    time = 5000;
    view = applySessionDelta(view, live.step("turn").delta);
    newest = modelOf(view);
    expect(scenes.of(newest, "LR").held).toBe(true);
    vi.advanceTimersByTime(0);
    expect(madeWhenAsked).toEqual([true, true]);
    expect(scenes.of(newest, "LR").held).toBe(false);
    scenes.dispose();
    vi.useRealTimers();
  });
});
