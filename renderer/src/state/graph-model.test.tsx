/**
 * The graph model's selectors on generated sessions: the selected path (by
 * parent positions) against the index's own walk up the tree, and a view
 * kept as columns (as decoded from the wire) against its node objects.
 */

import { describe, expect, it } from "vitest";
import { FILTER_MODES } from "../../../shared/graph/index.ts";
import type { SessionView } from "../../../shared/ipc/contract.ts";
import { sessionViewOf } from "../../../shared/ipc/testing/session-view.ts";
import { NodeTable } from "../../../shared/ipc/node-table.ts";
import { decodeResult, encodeResult } from "../../../shared/ipc/wire.ts";
import { pathToRoot, readSession } from "../../../shared/session/index.ts";
import { generateSession } from "../../../shared/session/testing/generate-session.ts";
import { DEFAULT_LAYOUT, layoutGraph } from "../../../shared/graph/index.ts";
import { applySessionDelta } from "../../../shared/ipc/session-delta.ts";
import { GrownGraph, WalkedGraph } from "../../../shared/graph/folded-graph.ts";
import { VisibleTreeState } from "../../../shared/graph/visible-tree.ts";
import { LiveSession } from "../../../shared/ipc/testing/live-session.ts";
import { Rng } from "../../../shared/session/testing/generate-session.ts";
import { createGraphSelectors, type GraphModel } from "./graph-model.ts";
import { initialSessionState, type SessionState } from "./stores.ts";

describe("pathSet", () => {
  it("holds exactly the entries from the root to the selection", () => {
    for (const seed of [2, 5, 9]) {
      const index = readSession(generateSession({ seed, entryCount: 200 }).text);
      const view = sessionViewOf("s", index);
      const selectors = createGraphSelectors();
      const ids = view.nodes.ids;
      for (const selectedId of [ids[0]!, ids[57]!, ids[150]!, index.leafId!]) {
        const path = selectors.pathSet({ view, selectedId } as SessionState);
        const expected = new Set(pathToRoot(index, selectedId));
        for (const id of ids)
          expect(path.has(id), `seed ${seed}, ${selectedId}: ${id}`).toBe(expected.has(id));
        expect(path.has("not-an-entry")).toBe(false);
      }
      expect(selectors.pathSet({ view, selectedId: null } as SessionState).has(ids[0]!)).toBe(false);
    }
  });
});

describe("a view decoded from the wire (its nodes kept as columns)", () => {
  /** The view as a window gets it: through the wire form and JSON. */
  function decoded(view: SessionView): SessionView {
    return decodeResult("session.open", JSON.parse(JSON.stringify(encodeResult("session.open", view))));
  }

  it("gives the same model as its node objects, in every filter mode, with search, folds and chains opened", () => {
    for (const seed of [3, 8, 13, 21]) {
      const index = readSession(generateSession({ seed, entryCount: 400, damage: seed === 13 }).text);
      const plain = sessionViewOf("s", index);
      const columns = decoded(plain);
      expect(columns.nodes).toBeInstanceOf(NodeTable);
      expect(columns.nodes.derivedShape).toBe(true);
      const ids = plain.nodes.ids;
      const states: Partial<SessionState>[] = FILTER_MODES.map((filterMode) => ({ filterMode }));
      states.push(
        { searchQuery: "the", searchFilter: true },
        { folded: new Set([ids[1]!, ids[40]!]) },
        { expandedChains: new Set(ids.map((id) => `chain:${id}`)) },
      );
      for (const change of states) {
        const state = { ...initialSessionState, selectedId: index.leafId, ...change };
        const fromObjects = createGraphSelectors().model({ ...state, view: plain } as SessionState)!;
        const fromColumns = createGraphSelectors().model({ ...state, view: columns } as SessionState)!;
        const what = `seed ${seed}, ${JSON.stringify(change, (_, value) => (value instanceof Set ? [...value] : value))}`;
        expect(fromColumns.visible.order, what).toEqual(fromObjects.visible.order);
        expect(fromColumns.graph.nodes, what).toEqual(fromObjects.graph.nodes);
        expect(fromColumns.layout.positions, what).toEqual(fromObjects.layout.positions);
        expect([...fromColumns.matches], what).toEqual([...fromObjects.matches]);
        expect(fromColumns.leafHost, what).toBe(fromObjects.leafHost);
        for (const id of fromObjects.visible.order.slice(0, 50)) {
          expect(fromColumns.nodesById.get(id), what).toEqual(fromObjects.nodesById.get(id));
        }
      }
    }
  });

  it("makes a node's object only when it is asked for", () => {
    const index = readSession(generateSession({ seed: 4, entryCount: 300 }).text);
    const columns = decoded(sessionViewOf("s", index));
    const table = columns.nodes;
    expect(table).toBeInstanceOf(NodeTable);
    let made = 0;
    const node = table.node.bind(table);
    table.node = (i: number) => {
      made++;
      return node(i);
    };
    const model = createGraphSelectors().model({
      ...initialSessionState,
      view: columns,
      selectedId: index.leafId,
    } as SessionState)!;
    // The drawn graph's own nodes at most (entries, and the first and last of each chain, are asked for when drawn).
    expect(made).toBeLessThanOrEqual(2);
    expect(model.graph.nodes.length).toBeGreaterThan(0);
    expect(model.nodesById.get(index.leafId!)!.id).toBe(index.leafId);
    expect(made).toBeLessThanOrEqual(3);
  });
});

describe("a view followed through appends", () => {
  /** What a model shows, as plain data. */
  function shown(model: GraphModel) {
    return {
      order: model.visible.order,
      count: model.visible.count,
      nodes: model.graph.nodes,
      roots: model.graph.roots,
      hosts: model.visible.order.map((id) => model.graph.nodeOfEntry.get(id)),
      matches: [...model.matches].sort(),
      matchOrder: model.matchOrder,
      leafHost: model.leafHost,
    };
  }

  it("keys a graph folded afresh by entry and starts its nodes' line while the page is idle, not at its first growth; a growth asks nothing", () => {
    // As columns, as the wire decodes them: the list knows its shape by position.
    const live = new LiveSession(new Rng(5), generateSession({ seed: 5, entryCount: 120 }).text, true);
    const idle: (() => void)[] = [];
    const selectors = createGraphSelectors((task) => idle.push(task));
    let view = live.view();
    const graph = selectors.model({ ...initialSessionState, view } as SessionState)!.graph;
    expect(graph).toBeInstanceOf(WalkedGraph);
    expect(idle).toHaveLength(1);
    // The keys a growth reads: made by the idle task, then kept (private: nothing else shows when they were made).
    const keyed = () => (graph as unknown as { keyed: unknown }).keyed;
    expect(keyed()).toBeNull();
    // The line the first append grows is started from the nodes' shape by the idle task, not by the append.
    let shapeReads = 0;
    const parent = view.nodes.parent;
    Object.defineProperty(view.nodes, "parent", {
      get() {
        shapeReads++;
        return parent;
      },
    });
    idle[0]!();
    expect(keyed()).not.toBeNull();
    expect(keyed()).toBe((graph as WalkedGraph).keys());
    const readsWhenIdle = shapeReads;
    expect(readsWhenIdle).toBeGreaterThan(0);
    view = applySessionDelta(view, live.step().delta);
    expect(shapeReads).toBe(readsWhenIdle);
    const grown = selectors.model({ ...initialSessionState, view } as SessionState)!.graph;
    expect(grown).toBeInstanceOf(GrownGraph);
    expect(idle).toHaveLength(1);
  });

  it("grows the model to what the grown view's model is afresh, its layout keeping the rows before", () => {
    let grownTrees = 0;
    let grownGraphs = 0;
    let followed = 0;
    for (const seed of [1, 4, 7, 12]) {
      const rng = new Rng(seed * 13);
      const live = new LiveSession(rng, generateSession({ seed, entryCount: 120 }).text, seed % 2 === 0);
      const first = live.view();
      const ids = first.nodes.ids;
      const states: Partial<SessionState>[] = [
        ...FILTER_MODES.map((filterMode) => ({ filterMode })),
        { searchQuery: "live" },
        { searchQuery: "answer", searchFilter: true },
        { folded: new Set([ids[3]!]) },
        { expandedChains: new Set(ids.map((id) => `chain:${id}`)) },
        { direction: "TB" as const },
      ];
      let views = states.map(() => first);
      const selectors = states.map(() => createGraphSelectors());
      const paths: ({ path: { has(id: string): boolean }; ids: string[] } | undefined)[] = [];
      let models = states.map(
        (change, k) =>
          selectors[k]!.model({ ...initialSessionState, ...change, view: first } as SessionState)!,
      );
      for (let step = 0; step < 25; step++) {
        const { delta, fresh, what } = live.step();
        views = views.map((view) => applySessionDelta(view, delta));
        models = states.map((change, k) => {
          const state = { ...initialSessionState, ...change, selectedId: fresh.leafId };
          const grown = selectors[k]!.model({ ...state, view: views[k]! } as SessionState)!;
          const afresh = createGraphSelectors().model({ ...state, view: fresh } as SessionState)!;
          const at = `seed ${seed}, step ${step} (${what}), ${JSON.stringify(change, (_, value) => (value instanceof Set ? [...value] : value))}`;
          expect(shown(grown), at).toEqual(shown(afresh));
          const path = selectors[k]!.pathSet({ ...state, view: views[k]! } as SessionState);
          const pathAfresh = createGraphSelectors().pathSet({ ...state, view: fresh } as SessionState);
          const onPath = (has: (id: string) => boolean) => fresh.nodes.ids.filter(has);
          expect(
            onPath((id) => path.has(id)),
            at,
          ).toEqual(onPath((id) => pathAfresh.has(id)));
          // The path before reads as it did: growing shares its marks.
          const before = paths[k];
          if (before)
            expect(
              onPath((id) => before.path.has(id)),
              at,
            ).toEqual(before.ids);
          paths[k] = { path, ids: onPath((id) => path.has(id)) };
          const direction = state.direction;
          const laidOut = layoutGraph(afresh.graph, { ...DEFAULT_LAYOUT, direction }, models[k]!.layout);
          // A grown layout's maps are layered (shared/graph/layered-map.ts): compared as plain maps.
          const plain = (layout: typeof laidOut) => ({
            ...layout,
            positions: new Map(layout.positions),
            rows: new Map(layout.rows),
          });
          expect(plain(grown.layout), at).toEqual(plain(laidOut));
          followed++;
          if (grown.visible instanceof VisibleTreeState && grown.visible.change !== null) grownTrees++;
          if (grown.graph instanceof GrownGraph) grownGraphs++;
          return grown;
        });
      }
    }
    // Most steps are a turn at the leaf: grown, not walked or folded again.
    expect(grownTrees).toBeGreaterThan(followed / 2);
    expect(grownGraphs).toBeGreaterThan(followed / 2);
  });
});
