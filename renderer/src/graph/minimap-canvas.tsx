/**
 * The graph's minimap, in React Flow's bottom-right panel: two stacked canvases instead of React
 * Flow's <MiniMap>, which mounts one SVG rect per node (thousands on a large session, each a React
 * commit and a layout). The lower canvas holds the nodes, drawn when the layout, the selected path or
 * the theme changes, at most once a GROWN_SCENE_PAUSE_MS and in a task of its own; the upper one the
 * viewport, redrawn at most once a frame as it pans and zooms.
 * A press or drag moves the viewport's centre to the point under the pointer; the wheel zooms.
 */

import { Panel, useReactFlow, useStoreApi } from "@xyflow/react";
import { type PointerEvent as ReactPointerEvent, type RefObject, useEffect, useMemo, useRef } from "react";
import { GrownGraph } from "../../../shared/graph/folded-graph.ts";
import type { LayoutDirection } from "../../../shared/graph/index.ts";
import type { Controller } from "../state/controller.ts";
import type { GraphModel } from "../state/graph-model.ts";
import { useController, useGraphSelect } from "../state/hooks.tsx";
import type { SessionState } from "../state/stores.ts";
import { createRedraw, onGraphChange, sizeCanvas, watchPalette } from "./canvas-frame.ts";
import {
  drawMinimapNodes,
  drawMinimapViewport,
  MINIMAP_HEIGHT,
  MINIMAP_WIDTH,
  type MinimapFrame,
  minimapMapping,
  minimapToGraph,
} from "./minimap-draw.ts";
import type { OverviewHighlights } from "./overview-draw.ts";
import { type OverviewScene, overviewScene, sceneMade } from "./overview-scene.ts";
import { localFigure } from "../text/figures.ts";

type Flow = Pick<ReturnType<typeof useReactFlow>, "setCenter" | "getViewport">;

export interface MinimapPointer {
  /** Centres the viewport on the graph point under (clientX, clientY), the minimap's corner at `origin`. */
  moveTo(client: { x: number; y: number }, origin: { x: number; y: number }): void;
  /** Zooms by a wheel step about the viewport's centre, within React Flow's zoom limits. */
  zoom(deltaY: number, deltaMode: number, limits: { minZoom: number; maxZoom: number }): void;
}

export function createMinimapPointer(controller: Controller, flow: Flow, viewSize: () => [number, number]) {
  const mapping = () => {
    const model = controller.model();
    if (!model) return null;
    const scene = overviewScene(model, controller.stores.session.getState().direction);
    return minimapMapping(scene.bounds, MINIMAP_WIDTH, MINIMAP_HEIGHT);
  };
  const pointer: MinimapPointer = {
    moveTo(client, origin) {
      const map = mapping();
      if (!map) return;
      const point = minimapToGraph(map, { x: client.x - origin.x, y: client.y - origin.y });
      void flow.setCenter(point.x, point.y, { zoom: flow.getViewport().zoom });
    },
    zoom(deltaY, deltaMode, { minZoom, maxZoom }) {
      const { x, y, zoom } = flow.getViewport();
      // As React Flow's minimap steps: lines and pages are bigger than pixels.
      const step = -deltaY * (deltaMode === 1 ? 0.05 : deltaMode ? 1 : 0.002);
      const next = Math.min(maxZoom, Math.max(minZoom, zoom * 2 ** step));
      const [width, height] = viewSize();
      void flow.setCenter((width / 2 - x) / zoom, (height / 2 - y) / zoom, { zoom: next });
    },
  };
  return pointer;
}

const minimapLabel = (model: GraphModel | null) =>
  `Minimap: ${localFigure(model?.graph.nodes.length ?? 0)} nodes`;

type FlowStore = ReturnType<typeof useStoreApi>;
type MinimapHighlights = Pick<OverviewHighlights, "path" | "shades" | "selected">;
type MinimapView = Parameters<typeof drawMinimapViewport>[3];

/** What the nodes layer highlights: the selected path, the context's shading, the selected node. */
function minimapHighlights(
  controller: Controller,
  model: GraphModel,
  state: SessionState,
): MinimapHighlights {
  return {
    path: controller.selectors.pathSet(state),
    shades: controller.stores.context.getState().shades,
    selected: state.selectedId === null ? null : (model.graph.nodeOfEntry.get(state.selectedId) ?? null),
  };
}

function flowView(flowStore: FlowStore): MinimapView {
  const { transform, width, height } = flowStore.getState();
  return {
    viewport: { x: transform[0], y: transform[1], zoom: transform[2] },
    flowWidth: width,
    flowHeight: height,
  };
}

/** A graph grown by appends is drawn again at most this often: a burst would otherwise redraw it every frame. */
export const GROWN_SCENE_PAUSE_MS = 250;

/**
 * The scene the minimap draws: the model's, except that while appends grow
 * the graph (a grown graph of the same session and direction) the scene
 * drawn last stays for up to GROWN_SCENE_PAUSE_MS, then `schedule` asks for
 * the frame that draws the newest. `current`, when given, names that newest
 * model: its scene is then made in the pause's own task, so the frame only
 * draws it (a scene of a large graph costs tens of milliseconds to make).
 */
export function createGrowingScenes(
  schedule: () => void,
  now: () => number = () => performance.now(),
  current?: () => { model: GraphModel; direction: LayoutDirection } | null,
) {
  let last: { scene: OverviewScene; layout: GraphModel["layout"]; sessionId: string; at: number } | null =
    null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  return {
    of(model: GraphModel, direction: LayoutDirection): { scene: OverviewScene; held: boolean } {
      const time = now();
      const grows =
        last !== null &&
        model.graph instanceof GrownGraph &&
        last.sessionId === model.view.sessionId &&
        last.scene.direction === direction;
      // Within the pause; past it, a scene not made yet is made in a task of its own too (when `current` names it).
      const waits = () =>
        time - last!.at < GROWN_SCENE_PAUSE_MS || (current !== undefined && !sceneMade(model, direction));
      if (grows && last!.layout !== model.layout && waits()) {
        timer ??= setTimeout(
          () => {
            timer = null;
            const newest = current?.();
            if (newest) overviewScene(newest.model, newest.direction);
            schedule();
          },
          Math.max(0, GROWN_SCENE_PAUSE_MS - (time - last!.at)),
        );
        return { scene: last!.scene, held: true };
      }
      const scene = overviewScene(model, direction);
      if (last?.scene !== scene)
        last = { scene, layout: model.layout, sessionId: model.view.sessionId, at: time };
      return { scene, held: false };
    },
    dispose() {
      if (timer !== null) clearTimeout(timer);
      timer = null;
    },
  };
}

/**
 * Draws in a task of its own: at once when the last draw is at least `pause`
 * ago, else at the pause's end, the newest of what was asked. Following a live
 * session changes the selection and the shading several times a second, and
 * the nodes layer of a large graph takes tens of milliseconds to draw: drawn in
 * every frame, it made each frame one long task.
 */
export function createPacedDraws(pause: number, now: () => number = () => performance.now()) {
  let last = Number.NEGATIVE_INFINITY;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let pending: (() => void) | null = null;
  return {
    ask(draw: () => void): void {
      pending = draw;
      if (timer !== null) return;
      timer = setTimeout(
        () => {
          timer = null;
          const run = pending;
          pending = null;
          last = now();
          run?.();
        },
        Math.max(0, pause - (now() - last)),
      );
    },
    dispose() {
      if (timer !== null) clearTimeout(timer);
      timer = null;
      pending = null;
    },
  };
}

interface MinimapPainter {
  /** Draws a frame: the nodes layer only when what it was drawn from changed, the viewport layer always. */
  paint(): void;
  dispose(): void;
}

/** `schedule` asks for a frame: the theme's palette changed, so the nodes layer must be drawn again. */
function createMinimapPainter(
  controller: Controller,
  flowStore: FlowStore,
  canvases: { nodes: HTMLCanvasElement; view: HTMLCanvasElement },
  schedule: () => void,
): MinimapPainter {
  // Null where there is no 2D canvas (happy-dom): the minimap then draws nothing.
  const nodesContext = canvases.nodes.getContext("2d");
  const viewContext = canvases.view.getContext("2d");
  // What the nodes layer was last asked to draw: it is drawn again only when one of these changes.
  let askedFrom: readonly unknown[] = [];
  const theme = watchPalette(canvases.nodes, () => {
    askedFrom = [];
    schedule();
  });
  const paced = createPacedDraws(GROWN_SCENE_PAUSE_MS);
  let frames = 0;
  let nodeFrames = 0;
  const scenes = createGrowingScenes(schedule, undefined, () => {
    const state = controller.stores.session.getState();
    const model = controller.selectors.model(state);
    return model ? { model, direction: state.direction } : null;
  });
  const paintNodes = (scene: OverviewScene, frame: MinimapFrame, highlights: MinimapHighlights) => {
    const from = [
      scene,
      highlights.path,
      highlights.shades,
      highlights.selected,
      theme.palette(),
      frame.pixelRatio,
    ];
    if (from.every((value, i) => value === askedFrom[i])) return;
    askedFrom = from;
    paced.ask(() => {
      nodeFrames += 1;
      const drawn = nodesContext
        ? drawMinimapNodes(nodesContext, scene, frame, highlights, theme.palette())
        : 0;
      // For tests and the curious: how often the nodes were drawn, and how many.
      canvases.nodes.dataset.frames = String(nodeFrames);
      canvases.nodes.dataset.drawnNodes = String(drawn);
    });
  };
  return {
    paint() {
      const state = controller.stores.session.getState();
      const model = controller.selectors.model(state);
      const pixelRatio = sizeCanvas(canvases.nodes, MINIMAP_WIDTH, MINIMAP_HEIGHT);
      sizeCanvas(canvases.view, MINIMAP_WIDTH, MINIMAP_HEIGHT);
      const frame = { width: MINIMAP_WIDTH, height: MINIMAP_HEIGHT, pixelRatio };
      frames += 1;
      canvases.view.dataset.frames = String(frames);
      if (!model) return;
      const { scene, held } = scenes.of(model, state.direction);
      canvases.nodes.dataset.held = String(held);
      // While held, the nodes layer stays as drawn (its highlights too): the newest comes at the pause's end.
      if (!held) paintNodes(scene, frame, minimapHighlights(controller, model, state));
      if (viewContext) drawMinimapViewport(viewContext, scene, frame, flowView(flowStore), theme.palette());
    },
    dispose: () => {
      theme.dispose();
      scenes.dispose();
      paced.dispose();
    },
  };
}

function useMinimapPointer(): MinimapPointer {
  const controller = useController();
  const flowStore = useStoreApi();
  const flow = useReactFlow();
  return useMemo(
    () =>
      createMinimapPointer(controller, flow, () => {
        const { width, height } = flowStore.getState();
        return [width, height];
      }),
    [controller, flow, flowStore],
  );
}

/**
 * Paints the two canvases at most once a frame while the graph, the selection, the shading or the
 * viewport change, and zooms on the wheel over the viewport layer.
 */
function useMinimapDrawing(
  nodesRef: RefObject<HTMLCanvasElement | null>,
  viewRef: RefObject<HTMLCanvasElement | null>,
  pointer: MinimapPointer,
): void {
  const controller = useController();
  const flowStore = useStoreApi();
  useEffect(() => {
    const nodes = nodesRef.current;
    const view = viewRef.current;
    if (!nodes || !view) return;
    const painter = createMinimapPainter(controller, flowStore, { nodes, view }, () => redraw.schedule());
    const redraw = createRedraw(painter.paint);
    // Zooming needs the wheel's default (page scroll, pinch) held back: React's wheel listeners are passive.
    const onWheel = (event: WheelEvent) => {
      event.preventDefault();
      pointer.zoom(event.deltaY, event.deltaMode, flowStore.getState());
    };
    view.addEventListener("wheel", onWheel, { passive: false });
    const unsubscribe = onGraphChange(controller, flowStore, redraw.schedule);
    redraw.schedule();
    return () => {
      redraw.dispose();
      unsubscribe();
      view.removeEventListener("wheel", onWheel);
      painter.dispose();
    };
  }, [controller, flowStore, nodesRef, viewRef, pointer]);
}

export function MinimapCanvas() {
  const nodesRef = useRef<HTMLCanvasElement>(null);
  const viewRef = useRef<HTMLCanvasElement>(null);
  const label = useGraphSelect(minimapLabel);
  const pointer = useMinimapPointer();
  useMinimapDrawing(nodesRef, viewRef, pointer);

  const move = (event: ReactPointerEvent<HTMLCanvasElement>) => {
    const box = event.currentTarget.getBoundingClientRect();
    pointer.moveTo({ x: event.clientX, y: event.clientY }, { x: box.left, y: box.top });
  };
  return (
    // role="img" makes the canvases presentational: the label is the whole of it for assistive technology.
    <Panel
      position="bottom-right"
      className="graph-minimap"
      role="img"
      aria-label={label}
      data-testid="graph-minimap"
    >
      <canvas ref={nodesRef} className="graph-minimap-nodes" />
      <canvas
        ref={viewRef}
        className="graph-minimap-viewport"
        onPointerDown={(event) => {
          if (event.button !== 0) return;
          // Held back so the press focuses nothing: the keys stay with the graph (or the search box).
          event.preventDefault();
          event.currentTarget.setPointerCapture?.(event.pointerId);
          move(event);
        }}
        onPointerMove={(event) => {
          if (event.buttons === 1 && event.currentTarget.hasPointerCapture?.(event.pointerId)) move(event);
        }}
        onMouseDown={(event) => event.preventDefault()}
      />
    </Panel>
  );
}
