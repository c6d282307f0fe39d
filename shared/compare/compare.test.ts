/**
 * The compare engine on crafted trees (an edited prompt, extra tool calls, a
 * compaction on one side, the degenerate cases), on a fork written by Pi's
 * own `createBranchedSession`, and on generated sessions, whose "what the
 * model sees" walks are checked against Pi's `buildSessionContext` and
 * `convertToLlm`.
 */

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  assistantMessage,
  type PiEntry,
  pi16,
  pi16Messages,
  userMessage,
} from "../../app/store/testing/pi.ts";
import { SessionBuilder } from "../branches/testing/session-builder.ts";
import { FileEntryReader } from "../../app/store/entry-reader.ts";
import { inMemoryEntryReader } from "../session/entry-reader.ts";
import { parseSessionBytes } from "../session/parse.ts";
import { buildSessionIndex } from "../session/tree-index.ts";
import { readSession } from "../session/index.ts";
import { generateSession, Rng } from "../session/testing/generate-session.ts";
import type { SessionIndex } from "../session/tree-index.ts";
import { type CompareOptions, compareBranches } from "./compare.ts";
import type { CompareSide } from "./paths.ts";
import type { BranchComparison, ContextOp } from "./types.ts";

function sideOf(index: SessionIndex, tipId: string, file: string | null = null): CompareSide {
  return { index, reader: inMemoryEntryReader(index), tipId, file };
}

function compareIn(text: string, left: string, right: string, options?: CompareOptions) {
  const index = readSession(text);
  const reader = inMemoryEntryReader(index);
  return compareBranches({ index, reader, tipId: left }, { index, reader, tipId: right }, options);
}

/** Each side's ids listed once, in order, by the turns. */
function expectTurnsCover(comparison: BranchComparison): void {
  expect(comparison.turns.flatMap((turn) => turn.left)).toEqual(comparison.left.entryIds);
  expect(comparison.turns.flatMap((turn) => turn.right)).toEqual(comparison.right.entryIds);
}

/** The ops walk 0..left-1 and 0..right-1 in order, each index once. */
function expectWalk(ops: readonly ContextOp[], leftLength: number, rightLength: number): void {
  expect(ops.flatMap((op) => (op.left === undefined ? [] : [op.left]))).toEqual([
    ...Array(leftLength).keys(),
  ]);
  expect(ops.flatMap((op) => (op.right === undefined ? [] : [op.right]))).toEqual([
    ...Array(rightLength).keys(),
  ]);
  for (const op of ops) {
    expect(op.left === undefined).toBe(op.op === "added");
    expect(op.right === undefined).toBe(op.op === "removed");
  }
}

const trunk = () =>
  new SessionBuilder().user("u1", null, "Fix the parser").assistant("a1", "u1", { text: "Which file?" });

describe("compareBranches on crafted trees", () => {
  it("pairs an edited prompt with its original and diffs it word by word", () => {
    const text = trunk()
      .user("u2", "a1", "Add a test for the parser in parse.ts")
      .assistant("a2", "u2", { text: "Added one test." })
      .user("v2", "a1", "Add two tests for the parser in parse.ts")
      .assistant("b2", "v2", { text: "Added two tests." })
      .text();
    const comparison = compareIn(text, "a2", "b2", { detail: { from: 0, count: 10 } });
    expect(comparison.ancestorId).toBe("a1");
    expect(comparison.left.entryIds).toEqual(["u2", "a2"]);
    expect(comparison.right.entryIds).toEqual(["v2", "b2"]);
    expect(comparison.turns).toEqual([{ change: "changed", left: ["u2", "a2"], right: ["v2", "b2"] }]);
    expect(comparison.context).toEqual([
      { op: "same", left: 0, right: 0 },
      { op: "same", left: 1, right: 1 },
      { op: "changed", left: 2, right: 2 },
      { op: "changed", left: 3, right: 3 },
    ]);
    const [prompt, answer] = comparison.detail!.turns[0]!.messages;
    expect(prompt).toMatchObject({ change: "changed", kind: "user", leftEntryId: "u2", rightEntryId: "v2" });
    expect(prompt!.granularity).toBe("words");
    expect(prompt!.parts).toEqual([
      { op: "same", text: "Add " },
      { op: "removed", text: "a" },
      { op: "added", text: "two" },
      { op: "same", text: " " },
      { op: "removed", text: "test" },
      { op: "added", text: "tests" },
      { op: "same", text: " for the parser in parse.ts" },
    ]);
    expect(answer).toMatchObject({ change: "changed", kind: "assistant" });
    expect(comparison.divergence).toBeNull();
  });

  it("aligns messages by role and tool call: the extra calls of one side are added", () => {
    const text = trunk()
      .user("u2", "a1", "Run the tests")
      .assistant("c1", "u2", { tools: [{ name: "bash", args: { command: "npm test" } }] })
      .toolResult("r1", "c1", { toolName: "bash", text: "ok\n3 passed" })
      .assistant("d1", "r1", { text: "All pass." })
      .user("v2", "a1", "Run the tests")
      .assistant("c2", "v2", { tools: [{ name: "read", args: { path: "package.json" } }] })
      .toolResult("r2", "c2", { toolName: "read", text: '{"scripts": {}}' })
      .assistant("e2", "r2", { tools: [{ name: "bash", args: { command: "npm test" } }] })
      .toolResult("s2", "e2", { toolName: "bash", text: "ok\n4 passed" })
      .assistant("d2", "s2", { text: "All pass." })
      .text();
    const comparison = compareIn(text, "d1", "d2", { detail: { from: 0, count: 1 } });
    expect(comparison.turns).toEqual([
      { change: "changed", left: ["u2", "c1", "r1", "d1"], right: ["v2", "c2", "r2", "e2", "s2", "d2"] },
    ]);
    const messages = comparison.detail!.turns[0]!.messages;
    expect(messages.map((m) => [m.change, m.leftEntryId, m.rightEntryId])).toEqual([
      ["same", "u2", "v2"],
      ["added", null, "c2"],
      ["added", null, "r2"],
      ["same", "c1", "e2"],
      ["changed", "r1", "s2"],
      ["same", "d1", "d2"],
    ]);
    const result = messages[4]!;
    expect(result.granularity).toBe("lines");
    expect(result.parts).toEqual([
      { op: "same", text: "ok\n" },
      { op: "removed", text: "3 passed" },
      { op: "added", text: "4 passed" },
    ]);
    expect(comparison.left.facts).toMatchObject({ entries: 4, turns: 1, toolCalls: { bash: 1 } });
    expect(comparison.right.facts).toMatchObject({ entries: 6, toolCalls: { bash: 1, read: 1 } });
    expect(comparison.right.facts.filesRead).toEqual(["package.json"]);
  });

  it("walks both contexts when only one side was compacted", () => {
    const text = trunk()
      .user("u2", "a1", "Now the lexer")
      .assistant("a2", "u2", { text: "Done with the lexer." })
      .compaction("k1", "a2", { summary: "Parser and lexer fixed.", firstKeptEntryId: "u2" })
      .user("u3", "k1", "Write the release notes")
      .assistant("a3", "u3", { text: "Notes written." })
      .user("v3", "a2", "Write the release notes, short")
      .assistant("b3", "v3", { text: "Short notes written." })
      .text();
    const comparison = compareIn(text, "a3", "b3");
    expect(comparison.ancestorId).toBe("a2");
    expectTurnsCover(comparison);
    expect(comparison.turns.map((turn) => turn.change)).toEqual(["removed", "changed"]);
    // Left sees [summary, u2, a2, u3, a3]; right [u1, a1, u2, a2, v3, b3].
    expect(comparison.context).toEqual([
      { op: "removed", left: 0 },
      { op: "added", right: 0 },
      { op: "added", right: 1 },
      { op: "same", left: 1, right: 2 },
      { op: "same", left: 2, right: 3 },
      { op: "changed", left: 3, right: 4 },
      { op: "changed", left: 4, right: 5 },
    ]);
  });

  it("finds where the outcomes part: a test that fails on one side only", () => {
    const text = trunk()
      .user("u2", "a1", "Run the tests")
      .assistant("c1", "u2", { tools: [{ name: "bash", args: { command: "npm test" } }] })
      .toolResult("r1", "c1", { toolName: "bash", text: "3 passed" })
      .assistant("c2", "u2", { tools: [{ name: "bash", args: { command: "npm test" } }] })
      .toolResult("r2", "c2", { toolName: "bash", text: "1 failed", isError: true })
      .bash("x1", "r1", { command: "make", output: "", exitCode: 0 })
      .bash("x2", "r2", { command: "make", output: "boom", exitCode: 2 })
      .text();
    const comparison = compareIn(text, "x1", "x2");
    expect(comparison.ancestorId).toBe("u2");
    expect(comparison.divergence).toEqual({
      leftEntryId: "r1",
      rightEntryId: "r2",
      reason: "the bash call passed on the left, the bash call failed on the right",
    });
    expect(comparison.right.facts.errors).toBe(2);
    // Only exit codes differ.
    const onlyExit = compareIn(
      trunk()
        .bash("y1", "a1", { command: "make", output: "", exitCode: 0 })
        .bash("y2", "a1", { command: "make", output: "", exitCode: 1 })
        .text(),
      "y1",
      "y2",
    );
    expect(onlyExit.divergence).toEqual({
      leftEntryId: "y1",
      rightEntryId: "y2",
      reason: "`make` exited with 0 on the left, `make` exited with 1 on the right",
    });
    // An error one side alone has.
    const oneSided = compareIn(
      trunk()
        .user("u2", "a1", "go")
        .assistant("a2", "u2", { text: "ok" })
        .user("v2", "a1", "go")
        .assistant("b2", "v2", { text: "partial", stopReason: "error", errorMessage: "overloaded" })
        .assistant("b3", "b2", { text: "retry" })
        .text(),
      "a2",
      "b3",
    );
    expect(oneSided.divergence).toEqual({
      leftEntryId: "a2",
      rightEntryId: "b2",
      reason: "the answer went on on the left, the answer stopped (error) on the right",
    });
  });

  it("handles one tip above the other, the same tip twice, and tips with no common ancestor", () => {
    const text = trunk()
      .user("u2", "a1", "More")
      .assistant("a2", "u2", { text: "Sure." })
      .user("w1", null, "Another conversation")
      .assistant("w2", "w1", { text: "Hello." })
      .text();
    const above = compareIn(text, "a1", "a2");
    expect(above.ancestorId).toBe("a1");
    expect(above.left.entryIds).toEqual([]);
    expect(above.right.entryIds).toEqual(["u2", "a2"]);
    expect(above.turns).toEqual([{ change: "added", left: [], right: ["u2", "a2"] }]);
    expect(above.context.map((op) => op.op)).toEqual(["same", "same", "added", "added"]);
    expect(above.left.facts.entries).toBe(0);

    const same = compareIn(text, "a2", "a2");
    expect(same).toMatchObject({ ancestorId: "a2", turns: [], divergence: null });
    expect(same.context.every((op) => op.op === "same")).toBe(true);

    const apart = compareIn(text, "a2", "w2");
    expect(apart.ancestorId).toBeNull();
    expect(apart.left.entryIds).toEqual(["u1", "a1", "u2", "a2"]);
    expect(apart.right.entryIds).toEqual(["w1", "w2"]);
    expectTurnsCover(apart);
    expectWalk(apart.context, 4, 2);
  });

  it("falls back to a coarser diff when the time is up, and says so", () => {
    const text = trunk().user("u2", "a1", "alpha beta gamma").user("v2", "a1", "alpha delta gamma").text();
    const comparison = compareIn(text, "u2", "v2", { detail: { from: 0, count: 1 }, diffBudgetMs: 0 });
    const pair = comparison.detail!.turns[0]!.messages[0]!;
    expect(pair.granularity).toBe("whole");
    expect(pair.parts).toEqual([
      { op: "removed", text: "alpha beta gamma" },
      { op: "added", text: "alpha delta gamma" },
    ]);
    expect(comparison.notes).toHaveLength(2);
    // A long text is shown and diffed up to the bound, marked as cut.
    const long = compareIn(
      trunk().user("u2", "a1", "x".repeat(50)).user("v2", "a1", "y".repeat(50)).text(),
      "u2",
      "v2",
      { detail: { from: 0, count: 1 }, maxShownChars: 10 },
    );
    expect(long.detail!.turns[0]!.messages[0]!.left).toEqual({ text: "x".repeat(10), more: true });
  });
});

describe("compareBranches across the files of a lineage", () => {
  it("compares a source with the fork Pi's createBranchedSession wrote, as Pi reads each", () => {
    const dir = mkdtempSync(join(tmpdir(), "arbor-compare-"));
    try {
      const manager = pi16.SessionManager.create("/work/project", dir);
      manager.appendMessage(userMessage("Fix the parser"));
      const a1 = manager.appendMessage(assistantMessage("Looking."));
      manager.appendLabelChange(a1, "start");
      manager.appendMessage(userMessage("Run the tests"));
      manager.appendMessage(assistantMessage("3 passed."));
      const sourceTip = manager.getLeafId()!;
      const source = manager.getSessionFile()!;
      const fork = manager.createBranchedSession(a1)!;
      manager.appendMessage(userMessage("Write the docs instead"));
      manager.appendMessage(assistantMessage("Docs written."));
      const forkTip = manager.getLeafId()!;
      const left = readSession(readFileSync(source));
      const right = readSession(readFileSync(fork));
      expect(right.parentSession).toBe(source);
      const comparison = compareBranches(sideOf(left, sourceTip, source), sideOf(right, forkTip, fork));
      expect(comparison.ancestorId).toBe(a1);
      expect(comparison.left.file).toBe(source);
      expectTurnsCover(comparison);
      const llm = (path: string) => {
        const opened = pi16.SessionManager.open(path);
        return pi16Messages.convertToLlm(opened.buildSessionContext().messages);
      };
      const [leftLlm, rightLlm] = [llm(source), llm(fork)];
      expectWalk(comparison.context, leftLlm.length, rightLlm.length);
      expect(comparison.context.slice(0, 2)).toEqual([
        { op: "same", left: 0, right: 0 },
        { op: "same", left: 1, right: 1 },
      ]);
      for (const op of comparison.context) {
        if (op.op === "same") expect(rightLlm[op.right!]).toEqual(leftLlm[op.left!]);
      }
      // The fork's own label entries (written anew by Pi) are on its side of the ancestor.
      expect(comparison.right.facts.labels).toEqual([]);
      // The labels after the ancestor match (Pi wrote the fork's anew); the prompts after them do not.
      expect(comparison.turns.map((turn) => turn.change)).toEqual(["same", "removed", "added"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("compareBranches on generated sessions", () => {
  it("gives the same answer from a structure-first index, its bodies read from the file", () => {
    for (let seed = 70; seed < 80; seed++) {
      const generated = generateSession({ seed });
      const bytes = new TextEncoder().encode(generated.text);
      const index = buildSessionIndex(parseSessionBytes(bytes, { mode: "structure" }));
      const reader = new FileEntryReader(index, (offset, length) => bytes.subarray(offset, offset + length));
      const [leftId, rightId] = [
        generated.entryIds.at(-1)!,
        generated.entryIds[generated.entryIds.length >> 1]!,
      ];
      const options = { detail: { from: 0, count: 100 } };
      const structured = compareBranches(
        { index, reader, tipId: leftId },
        { index, reader, tipId: rightId },
        options,
      );
      expect(structured, `seed ${seed}`).toEqual(compareIn(generated.text, leftId, rightId, options));
    }
  });

  it("walks exactly Pi's two sequences and covers each path once, for pairs of leaves", () => {
    let pairs = 0;
    for (let seed = 1; seed <= 30; seed++) {
      const generated = generateSession({ seed });
      const index = readSession(generated.text);
      const entries = generated.entries as PiEntry[];
      const leaves = [...index.nodes.values()]
        .filter((node) => node.children.length === 0)
        .map((node) => node.id);
      const rng = new Rng(seed);
      for (let k = 0; k < 4; k++) {
        const [leftId, rightId] = [rng.pick(leaves), rng.pick(generated.entryIds)];
        const comparison = compareIn(generated.text, leftId, rightId, { detail: { from: 0, count: 1000 } });
        expectTurnsCover(comparison);
        const llm = (leaf: string) =>
          pi16Messages.convertToLlm(pi16.buildSessionContext(entries, leaf).messages);
        const [leftLlm, rightLlm] = [llm(leftId), llm(rightId)];
        expectWalk(comparison.context, leftLlm.length, rightLlm.length);
        for (const op of comparison.context) {
          if (op.op !== "same") continue;
          const { timestamp: _l, ...leftSeen } = leftLlm[op.left!] as Record<string, unknown>;
          const { timestamp: _r, ...rightSeen } = rightLlm[op.right!] as Record<string, unknown>;
          expect([leftSeen.role, leftSeen.content]).toEqual([rightSeen.role, rightSeen.content]);
        }
        const detailed = comparison.detail!.turns.flatMap((turn) => turn.messages);
        expect(detailed.flatMap((m) => (m.leftEntryId ? [m.leftEntryId] : []))).toEqual(
          comparison.left.entryIds,
        );
        expect(detailed.flatMap((m) => (m.rightEntryId ? [m.rightEntryId] : []))).toEqual(
          comparison.right.entryIds,
        );
        pairs++;
      }
    }
    expect(pairs).toBe(120);
  });
});
