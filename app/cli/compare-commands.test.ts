/**
 * `arbor branches` and `arbor diff` through `runCli` on real files in a temp
 * directory, and `diff` against a fork Pi's own SessionManager wrote. The
 * `context` ops of `diff` must walk exactly Pi's two "what the model sees"
 * sequences (`buildSessionContext`, then `convertToLlm`).
 */

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BranchMap } from "../../shared/branches/index.ts";
import { SessionBuilder } from "../../shared/branches/testing/session-builder.ts";
import type { BranchComparison, ContextOp } from "../../shared/compare/index.ts";
import { assistantMessage, type PiEntry, pi16, pi16Messages, userMessage } from "../store/testing/pi.ts";
import { runCli } from "./main.ts";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "arbor-compare-cli-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(...argv: string[]): { code: number; stdout: string; stderr: string } {
  let stdout = "";
  let stderr = "";
  const code = runCli(argv, { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) });
  if (typeof code !== "number") throw new Error(`arbor ${argv[0]} answered with a promise`);
  return { code, stdout, stderr };
}

function write(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/**
 * u1 → a1 → t1, then
 *   a2 "Done." (labelled "good") → label l1
 *   a2b (bash) → t2b (error)
 */
const SESSION = new SessionBuilder()
  .user("u1", null, "Fix the bug in parse.ts")
  .assistant("a1", "u1", {
    tools: [{ name: "read", args: { path: "src/parse.ts" } }],
    model: "claude-x",
    usage: { input: 100, output: 10, cost: 0.01 },
  })
  .toolResult("t1", "a1", { toolName: "read", text: "export function parse() {}" })
  .assistant("a2", "t1", { text: "Done.", model: "claude-x", usage: { input: 200, output: 20, cost: 0.02 } })
  .label("l1", "a2", "a2", "good")
  .assistant("a2b", "t1", {
    tools: [{ name: "bash", args: { command: "npm test" } }],
    model: "claude-y",
    usage: { input: 300, output: 30, cost: 0.03 },
  })
  .toolResult("t2b", "a2b", { toolName: "bash", text: "1 failed", isError: true })
  .text();

/** Pi 1.6's "what the model sees" at a leaf of a file. */
function piSees(path: string, leafId: string): unknown[] {
  const entries = pi16.SessionManager.open(path).getEntries() as PiEntry[];
  return pi16Messages.convertToLlm(pi16.buildSessionContext(entries, leafId).messages);
}

function expectWalksPi(ops: readonly ContextOp[], left: unknown[], right: unknown[]): void {
  expect(ops.flatMap((op) => (op.left === undefined ? [] : [op.left]))).toEqual([...left.keys()]);
  expect(ops.flatMap((op) => (op.right === undefined ? [] : [op.right]))).toEqual([...right.keys()]);
  for (const op of ops) if (op.op === "same") expect(right[op.right!]).toEqual(left[op.left!]);
}

describe("arbor branches", () => {
  it("prints one leaf per branch tip and every segment as JSON", () => {
    const path = write("branchy.jsonl", SESSION);
    const { code, stdout } = run("branches", path, "--json");
    expect(code).toBe(0);
    const map = JSON.parse(stdout) as BranchMap;
    expect(
      map.leaves.map((leaf) => [leaf.leafId, leaf.archived, leaf.label, leaf.entries, leaf.turns]),
    ).toEqual([
      ["a2", false, "good", 5, 1],
      ["t2b", false, null, 5, 1],
    ]);
    expect(map.leaves[0]!.fileLeafIds).toEqual(["l1"]);
    expect(map.leaves[0]!.cost).toBeCloseTo(0.03, 10);
    expect(map.leaves[1]).toMatchObject({
      tokens: { input: 400, output: 40, cacheRead: 0, cacheWrite: 0 },
      errors: 1,
      endsInError: true,
      models: ["claude-x", "claude-y"],
      lastPrompt: { entryId: "u1", text: "Fix the bug in parse.ts" },
    });
    expect(map.segments.map((segment) => [segment.id, segment.lastId, segment.children])).toEqual([
      ["u1", "t1", ["a2", "a2b"]],
      ["a2", "l1", []],
      ["a2b", "t2b", []],
    ]);
    expect(map.segments[0]!.facts).toMatchObject({ entries: 3, models: ["claude-x"], errors: 0 });
  });

  it("reports a branch archived by `arbor archive` (and shown again by `arbor unarchive`)", () => {
    const path = write("archived.jsonl", SESSION);
    const archivedOf = () =>
      (JSON.parse(run("branches", path, "--json").stdout) as BranchMap).leaves.map((leaf) => [
        leaf.leafId,
        leaf.archived,
      ]);
    // --force: the file was written a moment ago, which the write commands take for a live one.
    expect(run("archive", path, "a2b", "--force").code).toBe(0);
    expect(archivedOf()).toEqual([
      ["a2", false],
      ["t2b", true],
    ]);
    expect(run("branches", path).stdout).toContain("error, archived");
    expect(run("unarchive", path, "a2b", "--force").code).toBe(0);
    expect(archivedOf()).toEqual([
      ["a2", false],
      ["t2b", false],
    ]);
  });

  it("prints a table as text", () => {
    const path = write("table.jsonl", SESSION);
    const { code, stdout } = run("branches", path);
    expect(code).toBe(0);
    expect(stdout.split("\n")).toEqual([
      `${path}: 2 branches, 3 segments`,
      "  tip  label  entries  turns   cost  tokens  errors  ends   last prompt",
      "  a2   good         5      1  $0.03     330       0         Fix the bug in parse.ts",
      "  t2b               5      1  $0.04     440       1  error  Fix the bug in parse.ts",
      "",
    ]);
  });
});

describe("arbor diff", () => {
  it("prints the comparison as JSON, its context ops walking Pi's two sequences", () => {
    const path = write("diff.jsonl", SESSION);
    const { code, stdout } = run("diff", path, "a2", "t2b", "--json");
    expect(code).toBe(0);
    const comparison = JSON.parse(stdout) as BranchComparison;
    expect(comparison.ancestorId).toBe("t1");
    expect(comparison.left).toMatchObject({ file: path, leafId: "a2", entryIds: ["a2"] });
    expect(comparison.right).toMatchObject({ file: path, leafId: "t2b", entryIds: ["a2b", "t2b"] });
    expect(comparison.left.facts).toMatchObject({
      entries: 1,
      turns: 0,
      tokens: { input: 200, output: 20 },
      models: ["claude-x"],
      toolCalls: {},
      errors: 0,
    });
    expect(comparison.right.facts).toMatchObject({ entries: 2, toolCalls: { bash: 1 }, errors: 1 });
    expect(comparison.turns).toEqual([{ change: "changed", left: ["a2"], right: ["a2b", "t2b"] }]);
    expectWalksPi(comparison.context, piSees(path, "a2"), piSees(path, "t2b"));
    expect(comparison.divergence).toEqual({
      leftEntryId: null,
      rightEntryId: "t2b",
      reason: "the bash call failed on the right only",
    });
  });

  it("prints a summary as text", () => {
    const path = write("summary.jsonl", SESSION);
    const { code, stdout } = run("diff", path, "a2", "t2b");
    expect(code).toBe(0);
    expect(stdout.split("\n")).toEqual([
      "common ancestor: t1",
      `left  a2 (${path}): 1 entry, 0 turns, $0.02, 220 tokens, 0 tool errors, claude-x`,
      `right t2b (${path}): 2 entries, 0 turns, $0.03, 330 tokens, 1 tool error, claude-y`,
      "turns: 1 changed",
      `  changed  a2 "Done." ↔ a2b "bash"`,
      "context: 4 messages on the left, 5 on the right: 3 same, 1 changed, 1 added",
      "divergence: the bash call failed on the right only (left -, right t2b)",
      "",
    ]);
  });

  it("compares with a fork Pi wrote (--against), the ancestor found by id across the files", () => {
    const sessions = join(dir, "pi");
    const manager = pi16.SessionManager.create("/work/project", sessions);
    manager.appendMessage(userMessage("Fix the parser"));
    const a1 = manager.appendMessage(assistantMessage("Which file?"));
    manager.appendMessage(userMessage("parse.ts"));
    const sourceTip = manager.appendMessage(assistantMessage("Fixed parse.ts."));
    const source = manager.getSessionFile()!;
    const fork = manager.createBranchedSession(a1)!;
    manager.appendMessage(userMessage("lexer.ts"));
    const forkTip = manager.appendMessage(assistantMessage("Fixed lexer.ts."));
    const { code, stdout } = run("diff", source, sourceTip, forkTip, "--against", fork, "--json");
    expect(code).toBe(0);
    const comparison = JSON.parse(stdout) as BranchComparison;
    expect(comparison.ancestorId).toBe(a1);
    expect(comparison.right.file).toBe(fork);
    expect(comparison.left.entryIds).toHaveLength(2);
    expect(comparison.right.entryIds).toHaveLength(2);
    expectWalksPi(comparison.context, piSees(source, sourceTip), piSees(fork, forkTip));
    expect(comparison.context.map((op) => op.op)).toEqual(["same", "same", "changed", "changed"]);
  });

  it("exits 2 with one line for an unknown id or file, and with the usage for wrong arguments", () => {
    const path = write("ids.jsonl", SESSION);
    const unknown = run("diff", path, "a2", "nope");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(`arbor: no entry with id "nope" in ${path}\n`);
    const unknownLeft = run("diff", path, "nope", "a2", "--against", path);
    expect(unknownLeft.stderr).toBe(`arbor: no entry with id "nope" in ${path}\n`);
    const missing = run("diff", join(dir, "missing.jsonl"), "a", "b");
    expect(missing.code).toBe(2);
    expect(missing.stderr.split("\n")).toHaveLength(2);
    expect(missing.stderr).toMatch(/^arbor: cannot read file \(ENOENT\)/);
    const branchesMissing = run("branches", join(dir, "missing.jsonl"));
    expect(branchesMissing.code).toBe(2);
    const usage = run("diff", path, "a2");
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("expected FILE LEFT RIGHT, got 2 argument(s)");
    expect(usage.stderr).toContain("arbor diff FILE LEFT RIGHT [--against OTHER_FILE] [--json]");
  });
});
