/**
 * The graph model's selectors on generated sessions: the selected path (by
 * parent positions) against the index's own walk up the tree.
 */

import { describe, expect, it } from "vitest";
import { sessionViewOf } from "../../../shared/ipc/testing/session-view.ts";
import { pathToRoot, readSession } from "../../../shared/session/index.ts";
import { generateSession } from "../../../shared/session/testing/generate-session.ts";
import { createGraphSelectors } from "./graph-model.ts";
import type { SessionState } from "./stores.ts";

describe("pathSet", () => {
  it("holds exactly the entries from the root to the selection", () => {
    for (const seed of [2, 5, 9]) {
      const index = readSession(generateSession({ seed, entryCount: 200 }).text);
      const view = sessionViewOf("s", index);
      const selectors = createGraphSelectors();
      const ids = view.nodes.map((node) => node.id);
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
