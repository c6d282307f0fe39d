/**
 * React Flow's nodes and edges of a model grown by appends: equal to those
 * made afresh, and the same objects for every graph node the append did not
 * touch, so React Flow re-adopts only what changed.
 */

import { describe, expect, it } from "vitest";
import { applySessionDelta } from "../../../shared/ipc/session-delta.ts";
import { LiveSession } from "../../../shared/ipc/testing/live-session.ts";
import { generateSession, Rng } from "../../../shared/session/testing/generate-session.ts";
import { createGraphSelectors, NODE_HEIGHT, NODE_WIDTH } from "../state/graph-model.ts";
import { initialSessionState, type SessionState } from "../state/stores.ts";
import { edgeAreaKey, edgeAreaOf, flowEdges, flowNodes } from "./flow-elements.ts";

describe("flow elements of a followed session", () => {
  it("equal the elements made afresh, keeping the objects of the nodes an append left alone", () => {
    const rng = new Rng(5);
    const live = new LiveSession(rng, generateSession({ seed: 5, entryCount: 150 }).text, true);
    let view = live.view();
    const selectors = createGraphSelectors();
    const state = (v: typeof view) =>
      ({ ...initialSessionState, view: v, selectedId: v.leafId }) as SessionState;
    let model = selectors.model(state(view))!;
    let nodes = flowNodes(model, "LR");
    let edges = flowEdges(model, selectors.pathSet(state(view)));
    let kept = 0;
    for (let step = 0; step < 20; step++) {
      const { delta, fresh } = live.step("turn");
      view = applySessionDelta(view, delta);
      const next = selectors.model(state(view))!;
      const nextNodes = flowNodes(next, "LR");
      const nextEdges = flowEdges(next, selectors.pathSet(state(view)));
      const afresh = createGraphSelectors().model(state(fresh))!;
      // Afresh, with the grown model's rows (a fresh layout may put branches elsewhere).
      expect(nextNodes).toEqual(flowNodes({ ...afresh, layout: next.layout }, "LR"));
      expect(nextEdges).toEqual(flowEdges(afresh, createGraphSelectors().pathSet(state(fresh))));
      const before = new Map(nodes.map((node) => [node.id, node]));
      for (const node of nextNodes) {
        const old = before.get(node.id);
        if (old === node) kept++;
        else if (old) expect(old.position !== node.position || old.data !== node.data).toBe(true);
      }
      // An append touches the leaf's branch: almost every other node is the same object.
      expect(nextNodes.filter((node) => before.get(node.id) === node).length).toBeGreaterThan(
        nextNodes.length - 6,
      );
      const edgesBefore = new Set(edges);
      expect(nextEdges.filter((edge) => edgesBefore.has(edge)).length).toBeGreaterThan(nextEdges.length - 6);
      model = next;
      nodes = nextNodes;
      edges = nextEdges;
    }
    expect(kept).toBeGreaterThan(0);
    expect(model.view).toBe(view);
  });
});

describe("the nodes and edges near the view", () => {
  it("are every edge whose path can cross the area and the nodes it needs, only those; the area covers the view", () => {
    const view = new LiveSession(new Rng(9), generateSession({ seed: 9, entryCount: 200 }).text, true).view();
    const selectors = createGraphSelectors();
    const state = { ...initialSessionState, view, selectedId: view.leafId } as SessionState;
    const model = selectors.model(state)!;
    const path = selectors.pathSet(state);
    const all = flowEdges(model, path);
    const { positions } = model.layout;
    const centre = [...positions.values()][Math.floor(positions.size / 2)]!;
    const area = { x: centre.x - 300, y: centre.y - 200, width: 600, height: 400 };
    const near = flowEdges(model, path, area);
    expect(near.length).toBeGreaterThan(0);
    expect(near.length).toBeLessThan(all.length);
    // An edge whose two nodes' box meets the area is kept (also one whose ends are both outside it).
    const meets = (edge: (typeof all)[number]) => {
      const [a, b] = [positions.get(edge.source)!, positions.get(edge.target)!];
      return (
        Math.max(a.x, b.x) + NODE_WIDTH >= area.x &&
        Math.min(a.x, b.x) <= area.x + area.width &&
        Math.max(a.y, b.y) + NODE_HEIGHT >= area.y &&
        Math.min(a.y, b.y) <= area.y + area.height
      );
    };
    expect(near).toEqual(all.filter(meets));

    // The nodes given with them: those whose box meets the area, and every edge's two ends.
    const nodesNear = flowNodes(model, "LR", area);
    const allNodes = flowNodes(model, "LR");
    expect(nodesNear.length).toBeLessThan(allNodes.length);
    const given = new Set(nodesNear.map((node) => node.id));
    for (const edge of near) expect(given.has(edge.source) && given.has(edge.target)).toBe(true);
    const inArea = (id: string) => {
      const at = positions.get(id)!;
      return (
        at.x + NODE_WIDTH >= area.x &&
        at.x <= area.x + area.width &&
        at.y + NODE_HEIGHT >= area.y &&
        at.y <= area.y + area.height
      );
    };
    const ends = new Set(near.flatMap((edge) => [edge.source, edge.target]));
    expect(nodesNear).toEqual(allNodes.filter((node) => inArea(node.id) || ends.has(node.id)));

    // Any view: the area of its key holds it with room to spare, whatever the zoom.
    for (const [tx, ty, zoom] of [
      [0, 0, 1],
      [-1234, 567, 0.37],
      [800, -9000, 1.9],
      [-50_000, -20_000, 0.11],
    ] as const) {
      const [width, height] = [900, 700];
      const covered = edgeAreaOf(edgeAreaKey({ transform: [tx, ty, zoom], width, height }))!;
      const shown = { x: -tx / zoom, y: -ty / zoom, width: width / zoom, height: height / zoom };
      expect(covered.x).toBeLessThanOrEqual(shown.x - shown.width / 2);
      expect(covered.y).toBeLessThanOrEqual(shown.y - shown.height / 2);
      expect(covered.x + covered.width).toBeGreaterThanOrEqual(shown.x + 1.5 * shown.width);
      expect(covered.y + covered.height).toBeGreaterThanOrEqual(shown.y + 1.5 * shown.height);
    }
    expect(edgeAreaOf(edgeAreaKey({ transform: [0, 0, 1], width: 0, height: 0 }))).toBeNull();
  });
});
