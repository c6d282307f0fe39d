import { describe, expect, it } from "vitest";
import { type BranchMap, BranchModel } from "../../../shared/branches/index.ts";
import { SessionBuilder } from "../../../shared/branches/testing/session-builder.ts";
import { inMemoryEntryReader, readSession } from "../../../shared/session/index.ts";
import { layoutBranchMap, ROW_BUDGET } from "./map-layout.ts";
import { archivedSegments, shownMap } from "./map-selection.ts";

function mapOf(builder: SessionBuilder): BranchMap {
  const index = readSession(builder.text());
  return BranchModel.build(index, inMemoryEntryReader(index)).branchMap();
}

/** A main line of `count` turns; after each turn but the last, a one-turn retry branches off. */
function retries(count: number): { map: BranchMap; mainTip: string } {
  const builder = new SessionBuilder();
  let parent: string | null = null;
  for (let turn = 0; turn < count; turn++) {
    builder
      .user(`u${turn}`, parent, `prompt ${turn}`)
      .assistant(`a${turn}`, `u${turn}`, { text: `answer ${turn}` });
    if (turn > 0) {
      builder.user(`r${turn}`, parent, `retry ${turn}`).assistant(`ra${turn}`, `r${turn}`, { text: "no" });
    }
    parent = `a${turn}`;
  }
  return { map: mapOf(builder), mainTip: `a${count - 1}` };
}

const none = new Set<string>();

describe("layoutBranchMap", () => {
  it("folds a run of one-turn retries into one row with their count, the tip on a row of its own", () => {
    const { map } = retries(30);
    expect(map.leaves.length).toBe(30);
    const layout = layoutBranchMap(map, { keep: none, expanded: none, budget: 2 });
    expect(layout.rows.length).toBe(2);
    expect(layout.rows[0]!.folded.length).toBe(29);
    expect(layout.rows[0]!.foldedTips).toBe(29);
    expect(layout.rows[0]!.retriesOnly).toBe(true);
    expect(layout.folded).toBe(29);
    expect(layout.rows[1]!.leaf?.leafId).toBe("a29");
    expect(layout.rows[1]!.parentRow).toBe(0);
    expect(layout.lanes).toBe(1);
  });

  it("opens folds while the map stays within its budget of rows", () => {
    const { map } = retries(30);
    const layout = layoutBranchMap(map, { keep: none, expanded: none, budget: 12 });
    expect(layout.rows.length).toBeLessThanOrEqual(12);
    expect(layout.rows.length).toBeGreaterThan(8);
    // Every tip is drawn or counted in a fold.
    const drawnTips = layout.rows.filter((row) => row.leaf !== null).length;
    expect(drawnTips + layout.folded).toBe(30);
    // A small map shows every branch.
    const small = retries(4);
    const all = layoutBranchMap(small.map, { keep: none, expanded: none });
    expect(all.folded).toBe(0);
    expect(all.rows.filter((row) => row.leaf !== null).length).toBe(4);
  });

  it("keeps the branches asked for (the selected path) out of the fold", () => {
    const { map } = retries(10);
    const retrySegment = map.segments.find((segment) => segment.firstId === "r5")!;
    const layout = layoutBranchMap(map, { keep: new Set([retrySegment.id]), expanded: none, budget: 1 });
    const row = layout.rows.find((r) => r.segments.some((s) => s.id === retrySegment.id))!;
    expect(row.leaf?.leafId).toBe("ra5");
    expect(row.lane).toBeGreaterThan(0);
    expect(layout.folded).toBe(8);
  });

  it("unfolds a run's segments given as expanded: each retry on its own row, lanes reused", () => {
    const { map } = retries(5);
    const folded = layoutBranchMap(map, { keep: none, expanded: none, budget: 1 });
    const expanded = new Set(folded.rows[0]!.segments.map((segment) => segment.id));
    const layout = layoutBranchMap(map, { keep: none, expanded, budget: 1 });
    expect(layout.folded).toBe(0);
    expect(layout.rows.length).toBe(map.segments.length);
    expect(layout.rows.filter((row) => row.leaf !== null).length).toBe(5);
    // Depth first: every row comes after its parent; each retry's lane is free again after it.
    for (const row of layout.rows) if (row.parentRow !== null) expect(row.parentRow).toBeLessThan(row.row);
    expect(layout.lanes).toBe(2);
  });

  it("says side branches, not retries, when a folded branch is long or branches again", () => {
    const builder = new SessionBuilder();
    builder.user("u0", null, "start").assistant("a0", "u0", { text: "ok" });
    builder.user("u1", "a0", "left").assistant("a1", "u1", { text: "left" });
    let parent = "a0";
    for (let turn = 0; turn < 12; turn++) {
      builder.user(`x${turn}`, parent, `long ${turn}`).assistant(`y${turn}`, `x${turn}`, { text: "." });
      parent = `y${turn}`;
    }
    builder.user("z0", "a1", "short").assistant("z1", "z0", { text: "." });
    builder.user("w0", "a1", "other").assistant("w1", "w0", { text: "." });
    const layout = layoutBranchMap(mapOf(builder), { keep: none, expanded: none, budget: 1 });
    // The main line goes on in the larger subtree (left, which branches again); the 12-turn line folds.
    expect(layout.rows[0]!.folded.map((segment) => segment.firstId)).toEqual(["x0", "w0"]);
    expect(layout.rows[0]!.foldedTips).toBe(2);
    expect(layout.rows[0]!.retriesOnly).toBe(false);
  });

  it("lays out a thousand-tip map within a screenful of rows, fast", () => {
    const { map } = retries(1000);
    const start = performance.now();
    const layout = layoutBranchMap(map, { keep: none, expanded: none });
    // Generous: the machine running the tests is shared (the tips100k map measured ~60-75 ms).
    expect(performance.now() - start).toBeLessThan(1500);
    expect(layout.rows.length).toBeLessThanOrEqual(ROW_BUDGET);
    expect(layout.rows.filter((row) => row.leaf !== null).length + layout.folded).toBe(1000);
  });
});

describe("archived branches in the map", () => {
  /**
   *   u1 ─ a1 ┬ u2 ─ a2              (archived at u2)
   *           ├ u3 ─ a3 ┬ u4 ─ a4    (archived at u3: both below it)
   *           │         └ u5 ─ a5
   *           └ u6 ─ a6              (the marker hangs here: the file's leaf)
   */
  function archivedSession(): BranchMap {
    return mapOf(
      new SessionBuilder()
        .user("u1", null, "start")
        .assistant("a1", "u1", { text: "ok" })
        .user("u2", "a1", "left")
        .assistant("a2", "u2", { text: "left done" })
        .user("u3", "a1", "middle")
        .assistant("a3", "u3", { text: "middle done" })
        .user("u4", "a3", "middle left")
        .assistant("a4", "u4", { text: "done" })
        .user("u5", "a3", "middle right")
        .assistant("a5", "u5", { text: "done" })
        .user("u6", "a1", "right")
        .assistant("a6", "u6", { text: "right done" })
        .custom("m1", "a6", "arbor.archive", { targetId: "u2", archived: true })
        .custom("m2", "m1", "arbor.archive", { targetId: "u3", archived: true }),
    );
  }
  const tips = (shown: ReturnType<typeof shownMap>) =>
    shown.layout.rows.flatMap((row) => (row.leaf ? [row.leaf.leafId] : []));

  it("leaves archived branches out unless they are shown, then marks their segments to dim", () => {
    const map = archivedSession();
    expect(map.leaves.map((leaf) => [leaf.leafId, leaf.archived])).toEqual([
      ["a2", true],
      ["a4", true],
      ["a5", true],
      ["a6", false],
    ]);
    const archived = archivedSegments(map);
    // u2's segment, u3's and both below it: not the root's, not u6's.
    expect([...archived].sort()).toEqual(["u2", "u3", "u4", "u5"]);

    const hidden = shownMap(map, new Set(), null, none, ROW_BUDGET, false);
    expect(tips(hidden)).toEqual(["a6"]);
    expect(hidden.map.leaves.map((leaf) => leaf.leafId)).toEqual(["a6"]);
    expect(hidden.map.segments.find((segment) => segment.id === "u1")!.children).toEqual(["u6"]);
    // The same map object is the whole map when nothing is archived.
    const plain = retries(3).map;
    expect(shownMap(plain, new Set(), null, none, ROW_BUDGET, false).map).toBe(plain);

    const shown = shownMap(map, new Set(), null, none, ROW_BUDGET, true);
    expect(tips(shown).sort()).toEqual(["a2", "a4", "a5", "a6"]);
    expect(shown.archived).toEqual(archived);
  });
});
