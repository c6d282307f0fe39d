/**
 * React Flow's nodes and edges of a model grown by appends: equal to those
 * made afresh, and the same objects for every graph node the append did not
 * touch, so React Flow re-adopts only what changed.
 */

import { describe, expect, it } from "vitest";
import { applySessionDelta } from "../../../shared/ipc/session-delta.ts";
import { LiveSession } from "../../../shared/ipc/testing/live-session.ts";
import { generateSession, Rng } from "../../../shared/session/testing/generate-session.ts";
import { createGraphSelectors } from "../state/graph-model.ts";
import { initialSessionState, type SessionState } from "../state/stores.ts";
import { flowEdges, flowNodes } from "./flow-elements.ts";

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
