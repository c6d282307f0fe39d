import { describe, expect, it } from "vitest";
import { type BranchMap, BranchModel } from "../../../shared/branches/index.ts";
import { SessionBuilder } from "../../../shared/branches/testing/session-builder.ts";
import { inMemoryEntryReader, readSession } from "../../../shared/session/index.ts";
import { layoutBranchMap } from "./map-layout.ts";

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
    const layout = layoutBranchMap(map, { keep: none, expanded: none });
    expect(layout.rows.length).toBe(2);
    expect(layout.rows[0]!.retries.length).toBe(29);
    expect(layout.folded).toBe(29);
    expect(layout.rows[1]!.leaf?.leafId).toBe("a29");
    expect(layout.rows[1]!.parentRow).toBe(0);
    expect(layout.lanes).toBe(1);
  });

  it("keeps the branches asked for (the selected path) out of the fold", () => {
    const { map } = retries(10);
    const retrySegment = map.segments.find((segment) => segment.firstId === "r5")!;
    const layout = layoutBranchMap(map, { keep: new Set([retrySegment.id]), expanded: none });
    const row = layout.rows.find((r) => r.segments.some((s) => s.id === retrySegment.id))!;
    expect(row.leaf?.leafId).toBe("ra5");
    expect(row.lane).toBeGreaterThan(0);
    expect(layout.folded).toBe(8);
  });

  it("unfolds a run's segments given as expanded: each retry on its own row in its own lane", () => {
    const { map } = retries(5);
    const folded = layoutBranchMap(map, { keep: none, expanded: none });
    const expanded = new Set(folded.rows[0]!.segments.map((segment) => segment.id));
    const layout = layoutBranchMap(map, { keep: none, expanded });
    expect(layout.folded).toBe(0);
    expect(layout.rows.length).toBe(map.segments.length);
    expect(layout.rows.filter((row) => row.leaf !== null).length).toBe(5);
    // Depth first: every row comes after its parent, and no two rows of one parent share a lane.
    for (const row of layout.rows) if (row.parentRow !== null) expect(row.parentRow).toBeLessThan(row.row);
    expect(layout.lanes).toBe(2);
  });

  it("draws long side branches and labelled ones, each in a lane of its own", () => {
    const builder = new SessionBuilder();
    builder.user("u0", null, "start").assistant("a0", "u0", { text: "ok" });
    builder.user("u1", "a0", "left").assistant("a1", "u1", { text: "left" });
    builder.user("u2", "a0", "right").assistant("a2", "u2", { text: "right" });
    builder.label("l1", "a2", "a1", "kept");
    let parent = "a0";
    for (let turn = 0; turn < 12; turn++) {
      builder.user(`x${turn}`, parent, `long ${turn}`).assistant(`y${turn}`, `x${turn}`, { text: "." });
      parent = `y${turn}`;
    }
    const layout = layoutBranchMap(mapOf(builder), { keep: none, expanded: none });
    expect(layout.folded).toBe(1);
    expect(layout.rows.length).toBe(3);
    expect(new Set(layout.rows.slice(1).map((row) => row.lane)).size).toBe(2);
    expect(layout.rows.find((row) => row.leaf?.label === "kept")).toBeDefined();
  });

  it("lays out a thousand-tip map as a few rows, fast", () => {
    const { map } = retries(1000);
    const start = performance.now();
    const layout = layoutBranchMap(map, { keep: none, expanded: none });
    expect(performance.now() - start).toBeLessThan(100);
    expect(layout.rows.length).toBeLessThanOrEqual(3);
    expect(layout.folded).toBe(999);
  });
});
