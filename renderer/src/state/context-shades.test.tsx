/**
 * The graph's context shades, walked along the view's parent positions,
 * against their definition over the projection's root-to-leaf path: in
 * context, summarised by the compaction in effect, edited or dropped by a
 * context edit, or only on the path.
 */

import { describe, expect, it } from "vitest";
import { indexNodeList, indexNodes } from "../../../shared/graph/index.ts";
import { applySessionDelta } from "../../../shared/ipc/session-delta.ts";
import { LiveSession } from "../../../shared/ipc/testing/live-session.ts";
import { sessionViewOf } from "../../../shared/ipc/testing/session-view.ts";
import { contextView } from "../../../shared/ipc/views.ts";
import {
  buildSessionProjection,
  contextGraphOf,
  inMemoryEntryReader,
  readSession,
} from "../../../shared/session/index.ts";
import { generateSession, Rng } from "../../../shared/session/testing/generate-session.ts";
import { contextShades } from "./context-shades.ts";
import type { ContextShade } from "./stores.ts";

describe("contextShades", () => {
  it("shades each path entry as its definition over the path says, and nothing off it", () => {
    const seen = new Set<ContextShade>();
    for (const seed of [3, 4, 11, 12, 21]) {
      const index = readSession(generateSession({ seed, entryCount: 400 }).text);
      const reader = inMemoryEntryReader(index);
      const view = sessionViewOf("s", index);
      const tree = indexNodes(view.nodes.toArray());
      const ids = view.nodes.ids;
      for (let at = ids.length - 1; at >= 0; at -= 13) {
        const leafId = ids[at]!;
        const context = contextView(index, reader, leafId, false);
        const { pathIds } = buildSessionProjection(contextGraphOf(index, reader), leafId);
        const inContext = new Set(context.messages.map((message) => message.entryId));
        const compactionAt = context.compaction ? pathIds.indexOf(context.compaction.entryId) : -1;
        const expected = new Map<string, ContextShade>();
        pathIds.forEach((id, i) => {
          expected.set(id, inContext.has(id) ? "context" : i < compactionAt ? "summarised" : "path");
        });
        for (const edit of context.edits) {
          if (expected.has(edit.targetId)) expected.set(edit.targetId, edit.drop ? "dropped" : "edited");
        }
        const shades = contextShades(context, tree);
        // A context sent in pages (its last message only) shades the same: the path's runs say it all.
        const last = context.messages.length - 1;
        const paged = contextShades(
          { ...context, messagesFrom: last, messages: context.messages.slice(last) },
          tree,
        );
        for (const id of ids) {
          expect(shades.get(id), `seed ${seed}, leaf ${leafId}: ${id}`).toBe(expected.get(id));
          expect(paged.get(id), `seed ${seed}, leaf ${leafId}: ${id}, paged`).toBe(expected.get(id));
          const shade = shades.get(id);
          if (shade) seen.add(shade);
        }
        expect(shades.get("not-an-entry")).toBeUndefined();
      }
    }
    // The sessions exercise every shade a context gives.
    expect([...seen].sort()).toEqual(["context", "dropped", "edited", "path", "summarised"]);
  });

  it("grows the shades before by a followed leaf's new entries, as a walk of the whole path shades them", () => {
    let grown = 0;
    let walked = 0;
    for (const seed of [2, 5, 9]) {
      const live = new LiveSession(new Rng(seed), generateSession({ seed, entryCount: 300 }).text, true);
      let view = live.view();
      let shades = contextShades(
        contextView(live.index, inMemoryEntryReader(live.index), view.leafId, false),
        indexNodeList(view.nodes),
        { nodes: view.nodes },
      );
      for (let step = 0; step < 40; step++) {
        // Mostly turns at the leaf; now and then a branch, a label, a model change or a compaction.
        view = applySessionDelta(view, live.step().delta);
        const context = contextView(live.index, inMemoryEntryReader(live.index), view.leafId, false);
        const tree = indexNodeList(view.nodes);
        const next = contextShades(context, tree, { nodes: view.nodes, previous: shades });
        const afresh = contextShades(context, tree);
        for (const id of view.nodes.ids)
          expect(next.get(id), `seed ${seed}, step ${step}: ${id}`).toBe(afresh.get(id));
        if ((next as unknown as { grown: boolean }).grown) grown++;
        else walked++;
        shades = next;
      }
      // A whole view, not grown from the one the shades were made over: walked again.
      const whole = live.view();
      const context = contextView(live.index, inMemoryEntryReader(live.index), whole.leafId, false);
      const again = contextShades(context, indexNodeList(whole.nodes), {
        nodes: whole.nodes,
        previous: shades,
      });
      expect((again as unknown as { grown: boolean }).grown).toBe(false);
    }
    // Most steps grow; the others (a compaction, a branch elsewhere) walk the path again.
    expect(grown).toBeGreaterThan(60);
    expect(walked).toBeGreaterThan(3);
  });

  it("shades nothing for an empty context or a leaf the view does not hold", () => {
    const index = readSession(generateSession({ seed: 5, entryCount: 50 }).text);
    const reader = inMemoryEntryReader(index);
    const tree = indexNodes(sessionViewOf("s", index).nodes.toArray());
    const empty = contextView(index, reader, null, false);
    expect(contextShades(empty, tree).get(index.leafId!)).toBeUndefined();
    const elsewhere = { ...contextView(index, reader, index.leafId, false), leafId: "not-in-this-view" };
    expect(contextShades(elsewhere, tree).get(index.leafId!)).toBeUndefined();
  });
});
