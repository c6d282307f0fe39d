/**
 * A node list's first growth prepared ahead (`prepareGrowth`): the list grown
 * from a prepared line reads as the view sent whole, the pass over every
 * node's shape is made by the preparation and not by the append, and each
 * growth of the same list starts its own line.
 */

import { describe, expect, it } from "vitest";
import { generateSession, Rng } from "../session/testing/generate-session.ts";
import type { SessionView } from "./contract.ts";
import { applySessionDelta } from "./session-delta.ts";
import { growthSince, prepareGrowth } from "./session-nodes-grown.ts";
import type { SessionNodes } from "./session-nodes.ts";
import { LiveSession } from "./testing/live-session.ts";

/** The view's nodes as plain data, with the roots. */
function plainNodes(view: SessionView) {
  return { roots: view.roots, nodes: view.nodes.toArray() };
}

/** `nodes` with each read of its parent positions (the shape a line is started from) counted. */
function countingShapeReads(nodes: SessionNodes): { nodes: SessionNodes; reads: () => number } {
  let reads = 0;
  const counted = new Proxy(nodes, {
    get(target, key) {
      if (key === "parent") reads++;
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { nodes: counted, reads: () => reads };
}

function liveSession(seed: number): LiveSession {
  return new LiveSession(new Rng(seed), generateSession({ seed, entryCount: 300 }).text, true);
}

describe("a node list's first growth prepared ahead", () => {
  it("grows as an unprepared one, reading the list's shape when prepared and not at the append", () => {
    for (let seed = 1; seed <= 12; seed++) {
      const live = liveSession(seed);
      const view = live.view();
      const prepared = countingShapeReads(view.nodes);
      prepareGrowth(prepared.nodes);
      const readsWhenPrepared = prepared.reads();
      expect(readsWhenPrepared, `seed ${seed}`).toBeGreaterThan(0);
      const { delta, fresh } = live.step("turn");
      const grown = applySessionDelta({ ...view, nodes: prepared.nodes }, delta);
      expect(prepared.reads(), `seed ${seed}: read again by the append`).toBe(readsWhenPrepared);
      expect(growthSince(grown.nodes, prepared.nodes), `seed ${seed}`).not.toBeNull();
      expect(plainNodes(grown), `seed ${seed}`).toEqual(plainNodes(fresh));

      // Unprepared, the append itself reads the shape.
      const unprepared = countingShapeReads(view.nodes);
      const alsoGrown = applySessionDelta({ ...view, nodes: unprepared.nodes }, delta);
      expect(unprepared.reads(), `seed ${seed}`).toBeGreaterThan(0);
      expect(plainNodes(alsoGrown)).toEqual(plainNodes(fresh));
    }
  });

  it("starts a line for each growth of the same list: a second delta to it reads as its own", () => {
    for (let seed = 1; seed <= 12; seed++) {
      const first = liveSession(seed);
      const second = liveSession(seed);
      const view = first.view();
      prepareGrowth(view.nodes);
      // Two sessions from the same file, each appended to differently.
      const a = first.step("turn");
      const b = second.step("branch");
      second.step("turn");
      const grownA = applySessionDelta(view, a.delta);
      const grownB = applySessionDelta(view, b.delta);
      expect(plainNodes(grownA), `seed ${seed}`).toEqual(plainNodes(a.fresh));
      expect(plainNodes(grownB), `seed ${seed}`).toEqual(plainNodes(b.fresh));
      // Each later step grows its own line further.
      const nextA = first.step("turn");
      expect(plainNodes(applySessionDelta(grownA, nextA.delta))).toEqual(plainNodes(nextA.fresh));
    }
  });
});
