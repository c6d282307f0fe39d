/**
 * The branch model on crafted trees (facts written out by hand), on
 * generated sessions (checked against sums over the entries themselves), and
 * kept up to date by appends (equal to a fresh build after each one).
 */

import { describe, expect, it } from "vitest";
import { FileEntryReader } from "../../app/store/entry-reader.ts";
import { type EntryReader, inMemoryEntryReader } from "../session/entry-reader.ts";
import { entryFacts } from "../session/facts.ts";
import { type ParseMode, parseSessionBytes } from "../session/parse.ts";
import { generateSession, Rng } from "../session/testing/generate-session.ts";
import { readInPieces } from "../session/testing/read-in-pieces.ts";
import { buildSessionIndex, type SessionIndex, type TreeNode } from "../session/tree-index.ts";
import { readSession } from "../session/index.ts";
import type { BranchMap, SegmentInfo } from "./branch-map.ts";
import { BranchModel } from "./branch-model.ts";
import { isMarker } from "./entry-kinds.ts";
import { SessionBuilder } from "./testing/session-builder.ts";

function modelOf(text: string): { model: BranchModel; index: SessionIndex } {
  const index = readSession(text);
  return { model: BranchModel.build(index, inMemoryEntryReader(index)), index };
}

/**
 * u1 "Fix the bug" → a1 (read src/a.ts) → t1 → a2 (edit src/a.ts) → t2, then
 *   left:  a3 "Done." (m1), label l1 → a3 "good"
 *   right: a3b (bash, m2) → t3b (error), branch summary bs1 back at t2 from t3b
 */
function twoBranches(): string {
  return new SessionBuilder()
    .user("u1", null, "Fix the bug\nin parse.ts")
    .assistant("a1", "u1", {
      text: "Looking.",
      tools: [{ name: "read", args: { path: "src/a.ts" } }],
      model: "m1",
      usage: { input: 100, output: 10, cacheRead: 1000, cacheWrite: 5, cost: 0.01 },
    })
    .toolResult("t1", "a1", { toolName: "read", text: "export const a = 1;" })
    .assistant("a2", "t1", {
      tools: [{ name: "edit", args: { path: "src/a.ts", oldText: "1", newText: "2" } }],
      model: "m1",
      usage: { input: 200, output: 20, cost: 0.02 },
    })
    .toolResult("t2", "a2", { toolName: "edit", text: "ok" })
    .assistant("a3", "t2", { text: "Done.", model: "m1", usage: { input: 300, output: 30, cost: 0.03 } })
    .label("l1", "a3", "a3", "good")
    .assistant("a3b", "t2", {
      tools: [{ name: "bash", args: { command: "npm test" } }],
      model: "m2",
      usage: { input: 400, output: 40, cost: 0.04 },
    })
    .toolResult("t3b", "a3b", { toolName: "bash", text: "1 failed", isError: true })
    .branchSummary("bs1", "t2", {
      fromId: "t3b",
      summary: "Tried npm test.",
      details: { readFiles: ["x.md"] },
    })
    .text();
}

describe("archived branches", () => {
  it("marks the tips at or below an archive target, the latest marker per target winning", () => {
    const base = () =>
      new SessionBuilder()
        .user("u1", null, "start")
        .assistant("a1", "u1", { text: "ok" })
        .user("u2", "a1", "left")
        .assistant("a2", "u2", { text: "left done" })
        .user("u3", "a1", "right")
        .assistant("a3", "u3", { text: "right done" });
    const archivedOf = (text: string) =>
      Object.fromEntries(
        modelOf(text)
          .model.branchMap()
          .leaves.map((leaf) => [leaf.leafId, leaf.archived]),
      );
    expect(archivedOf(base().text())).toEqual({ a2: false, a3: false });
    // Inside the tip's own segment, below the branch point; the marker itself is no tip.
    const left = base().custom("m1", "a3", "arbor.archive", { targetId: "a2", archived: true });
    expect(archivedOf(left.text())).toEqual({ a2: true, a3: false });
    // Above the branch point: both branches.
    const both = base().custom("m1", "a3", "arbor.archive", { targetId: "a1", archived: true });
    expect(archivedOf(both.text())).toEqual({ a2: true, a3: true });
    // Unarchived again by a later marker.
    const again = both.custom("m2", "m1", "arbor.archive", { targetId: "a1", archived: false });
    expect(archivedOf(again.text())).toEqual({ a2: false, a3: false });
  });
});

describe("the branch model of a crafted tree", () => {
  it("cuts segments at branch points and adds up each one's facts", () => {
    const { model } = modelOf(twoBranches());
    const { segments } = model.branchMap();
    expect(segments.map((s) => [s.id, s.lastId, s.parentId, s.children, s.facts.entries])).toEqual([
      ["u1", "t2", null, ["a3", "a3b", "bs1"], 5],
      ["a3", "l1", "u1", [], 2],
      ["a3b", "t3b", "u1", [], 2],
      ["bs1", "bs1", "u1", [], 1],
    ]);
    const trunk = segments[0]!.facts;
    expect(trunk).toMatchObject({
      turns: 1,
      tokens: { input: 300, output: 30, cacheRead: 1000, cacheWrite: 5 },
      errors: 0,
      models: ["m1"],
      firstPrompt: { entryId: "u1", text: "Fix the bug" },
      lastPrompt: { entryId: "u1", text: "Fix the bug" },
      lastAnswer: { entryId: "a1", text: "Looking." },
      firstTimestamp: "2026-01-01T00:00:01.000Z",
      lastTimestamp: "2026-01-01T00:00:05.000Z",
      endsInError: false,
      labels: [],
      branchSummaryIds: [],
    });
    expect(trunk.cost).toBeCloseTo(0.03, 12);
    // Tool calls and files come with a segment's full facts.
    expect(model.segmentFacts("u1")).toMatchObject({
      ...trunk,
      toolCalls: { edit: 1, read: 1 },
      filesRead: ["src/a.ts"],
      filesModified: ["src/a.ts"],
    });
    expect(model.segmentFacts("a1")).toBeUndefined();
    const right = segments[2]!.facts;
    expect(right).toMatchObject({ errors: 1, endsInError: true, branchSummaryIds: ["bs1"] });
    expect(model.segmentFacts("a3b")?.toolCalls).toEqual({ bash: 1 });
    expect(segments[1]!.facts.labels).toEqual([{ entryId: "a3", label: "good" }]);
    // The label was written after the answer: the time span ends at the answer.
    expect(segments[1]!.facts.lastTimestamp).toBe("2026-01-01T00:00:06.000Z");
    expect(model.segmentFacts("bs1")?.filesRead).toEqual(["x.md"]);
  });

  it("names each branch by its tip; a label after the tip is part of it, not a branch", () => {
    const { model } = modelOf(twoBranches());
    const { leaves } = model.branchMap();
    expect(leaves.map((leaf) => [leaf.leafId, leaf.fileLeafIds, leaf.segmentId, leaf.label])).toEqual([
      ["a3", ["l1"], "a3", "good"],
      ["t3b", ["t3b"], "a3b", null],
      ["bs1", ["bs1"], "bs1", null],
    ]);
    const [left, right] = leaves;
    expect(left).toMatchObject({
      archived: false,
      entries: 7,
      turns: 1,
      tokens: { input: 600, output: 60, cacheRead: 1000, cacheWrite: 5 },
      errors: 0,
      models: ["m1"],
      lastAnswer: { entryId: "a3", text: "Done." },
      endsInError: false,
      lastTimestamp: "2026-01-01T00:00:06.000Z",
    });
    expect(left!.cost).toBeCloseTo(0.06, 12);
    expect(right).toMatchObject({ entries: 7, errors: 1, endsInError: true, models: ["m1", "m2"] });
    expect(right!.branchSummaryIds).toEqual(["bs1"]);
    expect(right!.cost).toBeCloseTo(0.07, 12);
  });

  it("gives a branch's full facts: tool calls and files from the root to its tip", () => {
    const { model } = modelOf(twoBranches());
    expect(model.branchFacts("t3b")).toMatchObject({
      entries: 7,
      toolCalls: { bash: 1, edit: 1, read: 1 },
      filesRead: ["src/a.ts"],
      filesModified: ["src/a.ts"],
      firstPrompt: { entryId: "u1" },
      lastAnswer: { entryId: "a1" },
      endsInError: true,
      branchSummaryIds: ["bs1"],
    });
    expect(model.branchFacts("a2")).toBeUndefined();
    expect(model.segmentIdOf("t1")).toBe("u1");
    expect(model.segmentIdOf("t3b")).toBe("a3b");
  });

  it("lets markers end no branch: labels, names and Arbor's marks belong to the branch they follow", () => {
    const text = new SessionBuilder()
      .user("u1", null, "one")
      .assistant("a1", "u1", { text: "A" })
      .label("l1", "a1", "u1", "start")
      .sessionInfo("n1", "a1", "my session")
      .user("u2", "a1", "two")
      .assistant("a2", "u2", { text: "B", stopReason: "aborted" })
      .custom("m1", "a2", "arbor.mark")
      .custom("x1", "m1", "todo-state")
      .custom("m2", "x1", "arbor.mark")
      .text();
    const { model } = modelOf(text);
    const { leaves } = model.branchMap();
    // a1 has three children (l1, n1, u2): only u2 goes on with work; the markers join its branch.
    expect(leaves.map((leaf) => [leaf.leafId, leaf.fileLeafIds])).toEqual([["x1", ["l1", "n1", "m2"]]]);
    expect(leaves[0]!.label).toBeNull();
    expect(leaves[0]!.endsInError).toBe(false);

    const aborted = modelOf(
      new SessionBuilder()
        .user("u1", null, "one")
        .assistant("a1", "u1", { text: "A", stopReason: "aborted" })
        .label("l1", "a1", "a1", "x")
        .label("l2", "a1", "u1", "y")
        .text(),
    ).model.branchMap().leaves;
    expect(aborted.map((leaf) => [leaf.leafId, leaf.fileLeafIds, leaf.endsInError, leaf.label])).toEqual([
      ["a1", ["l1", "l2"], true, "x"],
    ]);
    // Only markers: no branch at all.
    const markers = modelOf(new SessionBuilder().sessionInfo("n1", null, "empty").text()).model.branchMap();
    expect(markers.leaves).toEqual([]);
    expect(markers.segments.map((segment) => segment.id)).toEqual(["n1"]);
  });

  it("counts a turn at each user message and custom_message, and bash exits as tool errors", () => {
    const text = new SessionBuilder()
      .user("u1", null, "go")
      .customMessage("c1", "u1", "reminder", "remember the tests")
      .bash("b1", "c1", { command: "make", output: "error", exitCode: 2 })
      .bash("b2", "b1", { command: "ls", output: "a", exitCode: 0 })
      .text();
    const leaf = modelOf(text).model.branchMap().leaves[0]!;
    expect(leaf).toMatchObject({ turns: 2, errors: 1, lastPrompt: { entryId: "c1" }, endsInError: false });
  });
});

// ---------------------------------------------------------------------------
// Generated sessions, against sums over the entries

function nodesOfSegment(index: SessionIndex, segment: SegmentInfo): TreeNode[] {
  const nodes: TreeNode[] = [];
  let node = index.nodes.get(segment.firstId)!;
  for (;;) {
    nodes.push(node);
    if (node.id === segment.lastId) return nodes;
    expect(node.children, `${node.id} inside segment ${segment.id}`).toHaveLength(1);
    node = index.nodes.get(node.children[0]!)!;
  }
}

function expectSegmentsHold(index: SessionIndex, reader: EntryReader, model: BranchModel): void {
  const seen = new Set<string>();
  for (const info of model.branchMap().segments) {
    const full = model.segmentFacts(info.id)!;
    expect(full).toMatchObject(info.facts);
    const segment = { ...info, ...full };
    const nodes = nodesOfSegment(index, segment);
    const first = nodes[0]!;
    const last = nodes[nodes.length - 1]!;
    expect(first.parent === null || first.parent.children.length > 1).toBe(true);
    expect(last.children.length).not.toBe(1);
    expect(segment.children).toEqual(last.children);
    for (const node of nodes) {
      expect(seen.has(node.id)).toBe(false);
      seen.add(node.id);
    }
    const facts = nodes.map((node) => entryFacts(reader.entryOfNode(node)));
    const sum = (pick: (i: number) => number) => nodes.reduce((total, _, i) => total + pick(i), 0);
    expect(segment.entries).toBe(nodes.length);
    expect(segment.tokens.input).toBe(sum((i) => facts[i]!.usage?.input ?? 0));
    expect(segment.tokens.cacheRead).toBe(sum((i) => facts[i]!.usage?.cacheRead ?? 0));
    expect(segment.cost).toBeCloseTo(
      sum((i) => facts[i]!.usage?.cost ?? 0),
      6,
    );
    const toolCalls = new Map<string, number>();
    for (const fact of facts) {
      if (fact.role !== "assistant") continue;
      for (const name of fact.toolNames) toolCalls.set(name, (toolCalls.get(name) ?? 0) + 1);
    }
    expect(new Map(Object.entries(segment.toolCalls))).toEqual(toolCalls);
    expect(segment.filesRead).toEqual([...new Set(facts.flatMap((fact) => fact.filesRead))].sort());
  }
  expect(seen.size).toBe(index.nodes.size);
}

/** The tips by their definition: each leaf's nearest entry that is not a marker, unless work goes on below it. */
function tipsByDefinition(index: SessionIndex): Set<string> {
  const candidates = new Set<string>();
  for (const node of index.nodes.values()) {
    if (node.children.length > 0) continue;
    let at: TreeNode | null = node;
    while (at && isMarker(at.entry)) at = at.parent;
    if (at) candidates.add(at.id);
  }
  for (const id of [...candidates]) {
    for (let at = index.nodes.get(id)!.parent; at; at = at.parent) candidates.delete(at.id);
  }
  return candidates;
}

describe("the branch model of generated sessions", () => {
  it("holds its definitions on 40 sessions, clean and damaged", () => {
    for (let seed = 1; seed <= 40; seed++) {
      const generated = generateSession({ seed, damage: seed % 4 === 0 });
      const index = readSession(generated.text);
      const reader = inMemoryEntryReader(index);
      const model = BranchModel.build(index, reader);
      const map = model.branchMap();
      expectSegmentsHold(index, reader, model);
      expect(new Set(map.leaves.map((leaf) => leaf.leafId)), `seed ${seed}`).toEqual(tipsByDefinition(index));
      const bySegment = new Map(map.segments.map((segment) => [segment.id, segment]));
      const fileLeaves = new Set<string>();
      for (const leaf of map.leaves) {
        const path: SegmentInfo[] = [];
        for (let id: string | null = leaf.segmentId; id !== null; id = bySegment.get(id)!.parentId) {
          path.push(bySegment.get(id)!);
        }
        expect(leaf.entries).toBe(path.reduce((total, segment) => total + segment.facts.entries, 0));
        expect(leaf.turns).toBe(path.reduce((total, segment) => total + segment.facts.turns, 0));
        expect(leaf.cost).toBeCloseTo(
          path.reduce((total, segment) => total + segment.facts.cost, 0),
          6,
        );
        const modelCounts = new Map<string, number>();
        for (const segment of path) {
          for (const node of nodesOfSegment(index, segment)) {
            const facts = entryFacts(reader.entryOfNode(node));
            if (facts.model !== null) modelCounts.set(facts.model, (modelCounts.get(facts.model) ?? 0) + 1);
          }
        }
        const ranked = [...modelCounts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([m]) => m);
        expect(leaf.models).toEqual(ranked);
        for (const id of leaf.fileLeafIds) {
          expect(fileLeaves.has(id)).toBe(false);
          fileLeaves.add(id);
          expect(index.nodes.get(id)!.children).toEqual([]);
        }
      }
    }
  });
});

describe("the branch model of a large file, read structure first", () => {
  it("is the same whether facts were kept from the parse, read from the file, or the file parsed whole", () => {
    for (let seed = 50; seed < 60; seed++) {
      const bytes = new TextEncoder().encode(generateSession({ seed, damage: seed % 2 === 0 }).text);
      const readBody = (offset: number, length: number) => bytes.subarray(offset, offset + length);
      const maps = (["full", "structure", "structure-with-facts"] as ParseMode[]).map((mode) => {
        const index = buildSessionIndex(parseSessionBytes(bytes, { mode }));
        return BranchModel.build(index, fileReaderOf(index, readBody)).branchMap();
      });
      expect(maps[1], `seed ${seed}`).toEqual(maps[0]);
      expect(maps[2], `seed ${seed}`).toEqual(maps[0]);
    }
  });
});

// ---------------------------------------------------------------------------
// Appends

function fileReaderOf(
  index: SessionIndex,
  readBody: (offset: number, length: number) => Uint8Array,
): EntryReader {
  return new FileEntryReader(index, readBody);
}

/** Cuts after whole lines, so appends of clean files extend the index in place. */
function lineCuts(bytes: Uint8Array, rng: Rng, count: number): number[] {
  const ends: number[] = [];
  for (let i = 0; i < bytes.length - 1; i++) if (bytes[i] === 0x0a) ends.push(i + 1);
  const picked = new Set<number>();
  for (let i = 0; i < count; i++) picked.add(rng.pick(ends.slice(1)));
  return [...picked].sort((a, b) => a - b);
}

describe("the branch model as entries are appended", () => {
  for (const mode of ["full", "structure-with-facts"] as ParseMode[]) {
    it(`is after each append what a fresh build gives (${mode})`, () => {
      let updates = 0;
      for (let seed = 1; seed <= 30; seed++) {
        const generated = generateSession({ seed, entryCount: 60 + seed * 3 });
        const bytes = new TextEncoder().encode(generated.text);
        const cuts = lineCuts(bytes, new Rng(seed), 12);
        let model: BranchModel | undefined;
        let step = 0;
        for (const { index, reader, rebuilt } of readInPieces(bytes, cuts, mode, fileReaderOf)) {
          if (rebuilt || !model) model = BranchModel.build(index, reader);
          else if (model.update()) updates++;
          const available = step < cuts.length ? cuts[step]! : bytes.length;
          step++;
          const freshBytes = bytes.subarray(0, available);
          const fresh = buildSessionIndex(parseSessionBytes(freshBytes, { mode }));
          const expected = BranchModel.build(
            fresh,
            fileReaderOf(fresh, (offset, length) => freshBytes.subarray(offset, offset + length)),
          ).branchMap();
          expect(model.branchMap(), `seed ${seed}, ${available} bytes`).toEqual(expected);
        }
      }
      expect(updates).toBeGreaterThan(200);
    });
  }

  it("splits a long segment by walking only its shorter half", () => {
    const builder = new SessionBuilder();
    let parent: string | null = null;
    for (let i = 0; i < 2000; i++) {
      builder.user(`u${i}`, parent, `prompt ${i}`);
      parent = `u${i}`;
    }
    const base = builder.text();
    const baseBytes = new TextEncoder().encode(base).length;
    // Near the end (the lower half is short) and near the start (the upper half is).
    for (const parentId of ["u1996", "u2"]) {
      const line = JSON.stringify({
        type: "message",
        id: "x",
        parentId,
        timestamp: "2026-02-01T00:00:00.000Z",
        message: { role: "user", content: "again", timestamp: 1 },
      });
      const text = `${base}${line}\n`;
      let reads = 0;
      const countingReader = (index: SessionIndex): EntryReader => {
        const inner = inMemoryEntryReader(index);
        return {
          ...inner,
          factsOfNode: (node) => {
            reads++;
            return inner.factsOfNode(node);
          },
        };
      };
      const steps = readInPieces(new TextEncoder().encode(text), [baseBytes], "full", countingReader);
      const opened = steps.next().value!;
      const model = BranchModel.build(opened.index, opened.reader);
      const appended = steps.next().value!;
      expect(appended.rebuilt).toBe(false);
      reads = 0;
      expect(model.update()).toBe(true);
      expect(reads, parentId).toBeLessThan(10);
      const fresh = readSession(text);
      expect(model.branchMap()).toEqual(BranchModel.build(fresh, inMemoryEntryReader(fresh)).branchMap());
    }
  });
});

describe("the branch model of a large session", () => {
  /** `count` entries in turns of four (prompt, tool call, result, answer), a new branch every 100 entries. */
  function largeSession(count: number): string {
    const rng = new Rng(20);
    const lines = [
      JSON.stringify({
        type: "session",
        version: 3,
        id: "big",
        timestamp: "2026-01-01T00:00:00.000Z",
        cwd: "/w",
      }),
    ];
    const prompts: string[] = [];
    let leaf: string | null = null;
    const add = (id: string, fields: Record<string, unknown>) => {
      const timestamp = new Date(Date.UTC(2026, 0, 1) + lines.length * 1000).toISOString();
      lines.push(JSON.stringify({ type: "message", id, parentId: leaf, timestamp, ...fields }));
      leaf = id;
    };
    for (let i = 0; lines.length <= count; i++) {
      if (i > 0 && i % 25 === 0) leaf = rng.pick(prompts.slice(-50));
      add(`u${i}`, { message: { role: "user", content: `prompt ${i}` } });
      prompts.push(`u${i}`);
      add(`c${i}`, {
        message: {
          role: "assistant",
          content: [
            { type: "toolCall", id: `t${i}`, name: "read", arguments: { path: `src/f${i % 300}.ts` } },
          ],
          model: rng.pick(["m1", "m2"]),
          usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, cost: { total: 0.001 } },
        },
      });
      add(`r${i}`, { message: { role: "toolResult", toolName: "read", content: [], isError: i % 7 === 0 } });
      add(`a${i}`, { message: { role: "assistant", content: [{ type: "text", text: `answer ${i}` }] } });
    }
    return `${lines.join("\n")}\n`;
  }

  it("builds the map of 100k entries with about 1,000 tips in well under 200 ms (printed)", () => {
    const index = readSession(largeSession(100_000));
    const reader = inMemoryEntryReader(index);
    // As in a window: the facts were kept from the parse.
    for (const node of index.nodes.values()) reader.factsOfNode(node);
    const times: number[] = [];
    let map: BranchMap | undefined;
    for (let run = 0; run < 5; run++) {
      const started = performance.now();
      map = BranchModel.build(index, reader).branchMap();
      times.push(performance.now() - started);
    }
    const best = Math.min(...times);
    console.log(
      `branch model: ${index.nodes.size} entries, ${map!.leaves.length} tips, ${map!.segments.length} segments: ` +
        `${times.map((ms) => ms.toFixed(0)).join(", ")} ms`,
    );
    expect(map!.leaves.length).toBeGreaterThan(900);
    // A loose bound for a busy test machine; `npm run bench` reports the figure.
    expect(best).toBeLessThan(1000);
  });
});
