/**
 * The entry graph's viewport as the store asks for it: centre and fit requests, and the view kept steady
 * when the layout changes under it.
 */

import { useReactFlow, useStoreApi } from "@xyflow/react";
import { useEffect, useRef } from "react";
import { fitZoom, type Position } from "../../../shared/graph/index.ts";
import { clampFitZoom, FIT_PADDING, fitExtent } from "../branch-map/default-view.ts";
import { type GraphModel, NODE_HEIGHT, NODE_WIDTH } from "../state/graph-model.ts";
import { useController, useSession } from "../state/hooks.tsx";
import { OVERVIEW_MIN_NODES, OVERVIEW_ZOOM } from "./overview-canvas.tsx";

/** Where an entry is drawn in a model's layout: its own node, or the chain holding it. */
function drawnAt(model: GraphModel, entryId: string | null): Position | undefined {
  if (entryId === null) return undefined;
  return model.layout.positions.get(model.graph.nodeOfEntry.get(entryId) ?? entryId);
}

/**
 * Applies centre and fit requests from the store to the React Flow viewport,
 * and keeps the view steady when the layout changes under it (a search or a
 * chain opening pushes nodes apart, entries arrive): the entry the user is
 * at (the cursor, or the chain just clicked) keeps its place on screen. A
 * centre or fit asked for in the same update still wins: it runs after.
 *
 * `drawn` is the model whose nodes React Flow is given (the graph's deferred
 * one, see `Graph`). React Flow takes new nodes in an effect, so the view is
 * kept steady in an effect too, after it: both move in one task, never a
 * frame apart.
 */
export function ViewportControl({ drawn: model }: { drawn: GraphModel | null }) {
  const controller = useController();
  const flow = useReactFlow();
  const flowStore = useStoreApi();
  const fit = useSession((s) => s.fitRequest);
  const last = useRef<{ model: GraphModel; cursorId: string | null; centre: unknown } | null>(null);
  useEffect(() => {
    const previous = last.current;
    const state = controller.stores.session.getState();
    last.current = model ? { model, cursorId: state.cursorId, centre: state.centreRequest } : null;
    if (!model || !previous || previous.model.layout === model.layout) return;
    if (previous.model.view.sessionId !== model.view.sessionId) return;
    // A centre asked for with this change (follow mode's, a reveal's) moves the view itself: no jump first.
    if (state.centreRequest !== previous.centre) return;
    const anchor = [state.anchorId, previous.cursorId, state.cursorId].find(
      (id) => drawnAt(previous.model, id) && drawnAt(model, id),
    );
    if (state.anchorId !== null) controller.stores.session.setState({ anchorId: null });
    if (anchor === undefined) return;
    const before = drawnAt(previous.model, anchor)!;
    const after = drawnAt(model, anchor)!;
    if (before.x === after.x && before.y === after.y) return;
    const { x, y, zoom } = flow.getViewport();
    void flow.setViewport({ x: x - (after.x - before.x) * zoom, y: y - (after.y - before.y) * zoom, zoom });
  }, [model, controller, flow]);
  useCentreRequests();
  useEffect(() => {
    if (!fit) return;
    const layout = controller.model()?.layout;
    if (!layout) return;
    // Not fitView: it waits until every node was measured, and an off-screen node never is (onlyRenderVisibleElements).
    const { width, height } = fitExtent(layout);
    // A large graph fitted ends in the overview. React Flow must have no nodes before the zoom gets there:
    // a frame zoomed out with every node still its own would mount thousands of them at once (seconds).
    // So the overview takes over first, and the fit follows in the next frame.
    const model = controller.model()!;
    const target = fitZoom({ width, height }, flowStore.getState(), FIT_PADDING);
    const toOverview = model.graph.nodes.length >= OVERVIEW_MIN_NODES && target < OVERVIEW_ZOOM;
    const bounds = { x: 0, y: 0, width, height };
    if (!toOverview) {
      // Never so far out that text is too small to read: past that, Fit shows the selection at the least
      // readable zoom (the branch map, or the overview of a large graph, shows the whole).
      const { zoom, clamped } = clampFitZoom(target, 2);
      const duration = fit.animate ? 200 : 0;
      if (!clamped) void flow.fitBounds(bounds, { duration, padding: FIT_PADDING });
      else {
        const at = drawnAt(model, controller.stores.session.getState().cursorId);
        const x = at ? at.x + NODE_WIDTH / 2 : Math.min(width, flowStore.getState().width / zoom) / 2;
        const y = at ? at.y + NODE_HEIGHT / 2 : Math.min(height, flowStore.getState().height / zoom) / 2;
        void flow.setCenter(x, y, { zoom, duration });
      }
      return;
    }
    const session = controller.stores.session;
    session.setState({ overviewAhead: true });
    const frame = requestAnimationFrame(() => {
      void flow
        .fitBounds(bounds, { duration: 0, padding: 0.1 })
        .finally(() => session.setState({ overviewAhead: false }));
    });
    return () => {
      cancelAnimationFrame(frame);
      session.setState({ overviewAhead: false });
    };
  }, [fit, controller, flow, flowStore]);
  return null;
}

/** Moves the view to each entry the store asks to centre (follow mode, a reveal, the cursor moving). */
function useCentreRequests() {
  const controller = useController();
  const flow = useReactFlow();
  const flowStore = useStoreApi();
  const centre = useSession((s) => s.centreRequest);
  useEffect(() => {
    if (!centre) return;
    const model = controller.model();
    if (!model) return;
    const graphId = model.graph.nodeOfEntry.get(centre.entryId) ?? centre.entryId;
    const position = model.layout.positions.get(graphId);
    if (!position) return;
    const x = position.x + NODE_WIDTH / 2;
    const y = position.y + NODE_HEIGHT / 2;
    const zoom = centre.keepZoom ? flow.getZoom() : Math.max(flow.getZoom(), 0.75);
    // Following a leaf that stays where it was drawn (a chain took the last one in) moves nothing: a viewport
    // set to itself still has React Flow run every node's selectors and draw again.
    const { width, height } = flowStore.getState();
    const now = flow.getViewport();
    if (now.zoom === zoom && near(now.x, width / 2 - x * zoom) && near(now.y, height / 2 - y * zoom)) return;
    void flow.setCenter(x, y, { zoom, duration: centre.animate ? 200 : 0 });
  }, [centre, controller, flow, flowStore]);
}

/** Within half a pixel: a viewport that close is where it is asked to be. */
const near = (a: number, b: number) => Math.abs(a - b) < 0.5;
