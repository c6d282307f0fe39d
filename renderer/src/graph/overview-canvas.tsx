/**
 * Level of detail for a large graph: zoomed out past OVERVIEW_ZOOM, where a
 * node's text is a few pixels high and unreadable anyway, React Flow gets no
 * nodes or edges (so it mounts no DOM for them) and the graph is drawn on
 * one canvas under React Flow's pane instead, following its viewport. The
 * canvas takes no pointer events: panning and zooming stay React Flow's, and
 * the pane's clicks and moves are hit-tested against the scene here.
 */

import { type ReactFlowState, useReactFlow, useStore, useStoreApi } from "@xyflow/react";
import { type MouseEvent as ReactMouseEvent, useEffect, useMemo, useRef } from "react";
import { useStore as useVanillaStore } from "zustand";
import { createStore, type StoreApi } from "zustand/vanilla";
import type { Controller } from "../state/controller.ts";
import type { GraphModel } from "../state/graph-model.ts";
import { useController, useGraphSelect, useSession } from "../state/hooks.tsx";
import type { SessionState } from "../state/stores.ts";
import { createRedraw, onGraphChange, sizeCanvas, watchPalette } from "./canvas-frame.ts";
import { drawOverview, type OverviewHighlights } from "./overview-draw.ts";
import { overviewScene, overviewTitle } from "./overview-scene.ts";
import { localFigure } from "../text/figures.ts";

/**
 * Below this zoom the graph is the overview. Node text is 11-12 px (styles.css), so under 0.4 it is
 * under 5 px: unreadable. Just above it a panel shows some 200 DOM nodes, which pan well within a frame.
 */
export const OVERVIEW_ZOOM = 0.4;
/**
 * A graph smaller than this stays DOM nodes at any zoom: all of it in view costs React Flow little,
 * and the DOM keeps each node's title and fold button.
 */
export const OVERVIEW_MIN_NODES = 500;
/** How far from a node, in CSS pixels, a click or hover still finds it: nodes are a few pixels tall out here. */
const HIT_SLOP_PX = 4;

const zoomedOut = (state: ReactFlowState) => state.transform[2] < OVERVIEW_ZOOM;

/** Whether the graph is drawn as the overview now. Call inside a ReactFlowProvider. */
export function useOverview(): boolean {
  const out = useStore(zoomedOut);
  // A fit on its way to the overview: React Flow gets no nodes before the zoom gets there.
  const ahead = useSession((state) => state.overviewAhead);
  const large = useGraphSelect((model) => (model?.graph.nodes.length ?? 0) >= OVERVIEW_MIN_NODES);
  return (out || ahead) && large;
}

export interface OverviewHover {
  id: string;
  title: string;
  clientX: number;
  clientY: number;
}

/** The pane's pointer handlers while the overview shows, and what the pointer is over. */
export interface OverviewPointer {
  /** React Flow's pane props. */
  pane: {
    onPaneClick(event: ReactMouseEvent): void;
    onPaneMouseMove(event: ReactMouseEvent): void;
    onPaneMouseLeave(): void;
    onPaneContextMenu(event: ReactMouseEvent | MouseEvent): void;
  };
  hover: StoreApi<OverviewHover | null>;
}

type ScreenToFlow = ReturnType<typeof useReactFlow>["screenToFlowPosition"];

export function createOverviewPointer(
  controller: Controller,
  flow: { screenToFlowPosition: ScreenToFlow; getZoom(): number },
): OverviewPointer {
  const hover = createStore<OverviewHover | null>(() => null);
  const hit = (event: ReactMouseEvent): { model: GraphModel; id: string } | null => {
    const model = controller.model();
    if (!model) return null;
    const scene = overviewScene(model, controller.stores.session.getState().direction);
    const point = flow.screenToFlowPosition({ x: event.clientX, y: event.clientY }, { snapToGrid: false });
    const item = scene.nodes.nearest(point, HIT_SLOP_PX / flow.getZoom());
    return item < 0 ? null : { model, id: scene.ids[item]! };
  };
  const pane: OverviewPointer["pane"] = {
    onPaneClick(event) {
      const found = hit(event);
      if (!found) return;
      // The node the hover title names, when the pointer has not moved since: a move's coordinates
      // are fractional, a click's whole pixels, which out here can be the next row.
      const shown = hover.getState();
      const id =
        shown && Math.abs(shown.clientX - event.clientX) < 1 && Math.abs(shown.clientY - event.clientY) < 1
          ? shown.id
          : found.id;
      // As a click on the DOM node would: a chain expands, an entry becomes the selection.
      if (found.model.graph.byId.get(id)?.kind === "chain") {
        controller.expandChain(id);
        // The chain is gone: its title with it.
        hover.setState(null, true);
      } else controller.select(id);
    },
    onPaneMouseMove(event) {
      // No title while a button is down: that is a pan.
      const found = event.buttons === 0 ? hit(event) : null;
      if (!found) {
        if (hover.getState() !== null) hover.setState(null, true);
        return;
      }
      hover.setState(
        {
          id: found.id,
          title: overviewTitle(found.model, found.id),
          clientX: event.clientX,
          clientY: event.clientY,
        },
        true,
      );
    },
    onPaneMouseLeave() {
      hover.setState(null, true);
    },
    onPaneContextMenu(event) {
      // The entry menu of the node under the pointer, as a right-click on its DOM node opens it.
      const found = hit(event as ReactMouseEvent);
      if (!found || found.model.graph.byId.get(found.id)?.kind === "chain") return;
      event.preventDefault();
      controller.manage.openEntryMenu(found.id, { x: event.clientX, y: event.clientY });
    },
  };
  return { pane, hover };
}

export function useOverviewPointer(): OverviewPointer {
  const controller = useController();
  const flow = useReactFlow();
  return useMemo(() => createOverviewPointer(controller, flow), [controller, flow]);
}

function highlightsOf(controller: Controller, model: GraphModel, state: SessionState): OverviewHighlights {
  const graphNode = (entryId: string | null) =>
    entryId === null ? null : (model.graph.nodeOfEntry.get(entryId) ?? null);
  return {
    path: controller.selectors.pathSet(state),
    shades: controller.stores.context.getState().shades,
    matches: model.matches,
    recent: controller.stores.live.getState().recent,
    // Only while they are shown: hidden, none is drawn.
    archived: state.showArchived ? (entryId) => model.nodesById.get(entryId)?.archived === true : undefined,
    selected: graphNode(state.selectedId),
    cursor: graphNode(state.cursorId),
    leaf: model.leafHost,
  };
}

/** Beside the pointer, on the side with room for it. */
function OverviewTooltip({ hover }: { hover: OverviewHover }) {
  const left = hover.clientX > window.innerWidth - 360;
  const above = hover.clientY > window.innerHeight - 140;
  return (
    <div
      className="overview-tooltip"
      role="tooltip"
      style={{
        left: hover.clientX + (left ? -14 : 14),
        top: hover.clientY + (above ? -18 : 18),
        transform: `translate(${left ? "-100%" : "0"}, ${above ? "-100%" : "0"})`,
      }}
    >
      {hover.title}
    </div>
  );
}

function overviewLabel(model: GraphModel | null): string {
  if (!model) return "Overview of the session graph";
  const nodes = localFigure(model.graph.nodes.length);
  const entries = localFigure(model.visible.count);
  return `Overview of the session graph, zoomed out: ${nodes} nodes for ${entries} entries, the selected path highlighted. Zoom in to read the entries.`;
}

/**
 * The canvas and the hover title. It redraws at most once a frame, whenever the viewport, the
 * selection, the search, the context's shading or the live marks change.
 */
export function OverviewCanvas({ hover }: { hover: StoreApi<OverviewHover | null> }) {
  const controller = useController();
  const flowStore = useStoreApi();
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const label = useGraphSelect(overviewLabel);
  const hovered = useVanillaStore(hover);

  useEffect(() => {
    const canvas = canvasRef.current;
    if (!canvas) return;
    // Null where there is no 2D canvas (happy-dom): the overview then draws nothing.
    const context = canvas.getContext("2d");
    const theme = watchPalette(canvas, () => schedule());
    let frames = 0;
    const redraw = createRedraw(() => {
      const state = controller.stores.session.getState();
      const model = controller.selectors.model(state);
      const { transform, width, height } = flowStore.getState();
      const pixelRatio = sizeCanvas(canvas, width, height);
      let drawn = { nodes: 0, edges: 0 };
      if (model && context) {
        drawn = drawOverview(
          context,
          overviewScene(model, state.direction),
          { viewport: { x: transform[0], y: transform[1], zoom: transform[2] }, width, height, pixelRatio },
          highlightsOf(controller, model, state),
          theme.palette(),
        );
      }
      frames += 1;
      // For tests and the curious: what the last frame drew.
      canvas.dataset.drawnNodes = String(drawn.nodes);
      canvas.dataset.drawnEdges = String(drawn.edges);
      canvas.dataset.frames = String(frames);
    });
    const schedule = redraw.schedule;
    const unsubscribe = [
      onGraphChange(controller, flowStore, schedule),
      controller.stores.live.subscribe((next, previous) => {
        if (next.recent !== previous.recent) schedule();
      }),
    ];
    schedule();
    return () => {
      redraw.dispose();
      for (const stop of unsubscribe) stop();
      theme.dispose();
    };
  }, [controller, flowStore]);

  // Leaving the overview (or the session) ends a hover.
  useEffect(() => () => hover.setState(null, true), [hover]);

  return (
    <>
      <canvas
        ref={canvasRef}
        className="overview-canvas"
        role="img"
        aria-label={label}
        data-testid="graph-overview"
        data-hover={hovered ? "true" : undefined}
      />
      {hovered ? <OverviewTooltip hover={hovered} /> : null}
    </>
  );
}
