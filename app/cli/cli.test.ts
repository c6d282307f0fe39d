/**
 * The `arbor` command line, end to end: every command through `runCli` on
 * real files in a temp directory, and the real executable (`bin/arbor.js`,
 * `npm run arbor`) in child processes. Expected output is written out by hand
 * from the sessions built here.
 */

import { type SpawnSyncReturns, spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SERVE_USAGE } from "../serve/main.ts";
import { spawnServe } from "../serve/testing.ts";
import { type CheckReport, runCli } from "./main.ts";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

// ---------------------------------------------------------------------------
// Sessions

const HEADER =
  '{"type":"session","version":3,"id":"0193f2a4-7c1e-7000-8000-00000000c1a0","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp"}';

function ts(second: number): string {
  return new Date(Date.UTC(2026, 0, 1, 0, 0, 0) + second * 1000).toISOString();
}

function messageLine(id: string, parentId: string | null, second: number, message: object): string {
  return JSON.stringify({ type: "message", id, parentId, timestamp: ts(second), message });
}

function userLine(id: string, parentId: string | null, second: number, text: string): string {
  return messageLine(id, parentId, second, { role: "user", content: text, timestamp: second });
}

const ASSISTANT_HELLO = {
  role: "assistant",
  content: [{ type: "text", text: "hello" }],
  api: "anthropic-messages",
  provider: "anthropic",
  model: "claude-y",
  usage: { input: 10, output: 2, cacheRead: 0, cacheWrite: 0 },
  stopReason: "stop",
  timestamp: 4,
};

const BASH_LS = {
  role: "bashExecution",
  command: "ls",
  output: "a.txt",
  exitCode: 0,
  cancelled: false,
  truncated: false,
  timestamp: 7,
};

/**
 * line 2  aaaa0001 user "root"
 * line 3  aaaa0002 model_change anthropic/claude-x
 * line 4  aaaa0003 thinking_level_change high
 * line 5  aaaa0004 assistant "hello" (anthropic/claude-y)
 * line 6  aaaa0005   user "left"             <- labelled "checkpoint"
 * line 7  aaaa0006   user "right"
 * line 8  aaaa0007     bashExecution ls
 * line 9  aaaa0008     label -> aaaa0005    <- the file's leaf
 */
const BRANCHY = `${[
  HEADER,
  userLine("aaaa0001", null, 1, "root"),
  JSON.stringify({
    type: "model_change",
    id: "aaaa0002",
    parentId: "aaaa0001",
    timestamp: ts(2),
    provider: "anthropic",
    modelId: "claude-x",
  }),
  JSON.stringify({
    type: "thinking_level_change",
    id: "aaaa0003",
    parentId: "aaaa0002",
    timestamp: ts(3),
    thinkingLevel: "high",
  }),
  messageLine("aaaa0004", "aaaa0003", 4, ASSISTANT_HELLO),
  userLine("aaaa0005", "aaaa0004", 5, "left"),
  userLine("aaaa0006", "aaaa0004", 6, "right"),
  messageLine("aaaa0007", "aaaa0006", 7, BASH_LS),
  JSON.stringify({
    type: "label",
    id: "aaaa0008",
    parentId: "aaaa0007",
    timestamp: ts(8),
    targetId: "aaaa0005",
    label: "checkpoint",
  }),
].join("\n")}\n`;

/** line 2 aaaa0001 root; line 3 aaaa0002 orphan (parent deadbeef); line 4 its child; line 5 aaaa0004 under the root. */
const ORPHANED = `${[
  HEADER,
  userLine("aaaa0001", null, 1, "one"),
  userLine("aaaa0002", "deadbeef", 2, "lost"),
  userLine("aaaa0003", "aaaa0002", 3, "below lost"),
  userLine("aaaa0004", "aaaa0001", 4, "two"),
].join("\n")}\n`;

/** line 3 malformed, line 4 an orphan, line 5 unknown type (info). */
const DAMAGED = `${[
  HEADER,
  userLine("aaaa0001", null, 1, "one"),
  '{"type":"message","id":',
  userLine("aaaa0002", "deadbeef", 2, "lost"),
  JSON.stringify({ type: "frobnicate", id: "aaaa0003", parentId: "aaaa0001", timestamp: ts(3) }),
].join("\n")}\n`;

/** A version 1 file: only an info note ("legacy version"), which `check` does not count. */
const VERSION_1 = `${[
  '{"type":"session","id":"0193f2a4-7c1e-7000-8000-0000000000v1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp"}',
  '{"type":"message","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"A","timestamp":1}}',
].join("\n")}\n`;

const CHAIN_LENGTH = 100_000;

function chainId(i: number): string {
  return (i + 1).toString(16).padStart(8, "0");
}

function deepChain(): string {
  const lines = [HEADER];
  for (let i = 0; i < CHAIN_LENGTH; i++) {
    lines.push(userLine(chainId(i), i === 0 ? null : chainId(i - 1), 1, `m${i}`));
  }
  return `${lines.join("\n")}\n`;
}

// ---------------------------------------------------------------------------
// Files and running

let dir: string;
const files: Record<string, string> = {};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "arbor-cli-"));
  const write = (name: string, content: string) => {
    const path = join(dir, `${name}.jsonl`);
    writeFileSync(path, content);
    const past = new Date("2025-06-01T12:00:00.000Z");
    utimesSync(path, past, past);
    files[name] = path;
  };
  write("branchy", BRANCHY);
  write("orphaned", ORPHANED);
  write("damaged", DAMAGED);
  write("v1", VERSION_1);
  write("chain", deepChain());
  write("empty", "");
  write("header-only", `${HEADER}\n`);
  write("not-pi", '{"event":"start","at":1}\n{"event":"stop","at":2}\n');
  const binary = join(dir, "binary.jsonl");
  writeFileSync(
    binary,
    Buffer.from([0x00, 0xff, 0xfe, 0x89, 0x50, 0x4e, 0x47, 0x0a, 0xc3, 0x28, 0x7b, 0x00]),
  );
  files.binary = binary;
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function file(name: string): string {
  const path = files[name];
  if (!path) throw new Error(`no fixture ${name}`);
  return path;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(argv: string[]): Run {
  let stdout = "";
  let stderr = "";
  const code = runCli(argv, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
  });
  if (typeof code !== "number") throw new Error(`arbor ${argv[0]} answered with a promise`);
  return { code, stdout, stderr };
}

function lines(text: string): string[] {
  expect(text.endsWith("\n")).toBe(true);
  return text.slice(0, -1).split("\n");
}

function fingerprint(path: string): { sha256: string; size: number; mtimeMs: number } {
  const stats = statSync(path);
  return {
    sha256: createHash("sha256").update(readFileSync(path)).digest("hex"),
    size: stats.size,
    mtimeMs: stats.mtimeMs,
  };
}

/** A usage error: exit 2, nothing on stdout, the reason on stderr's first line. */
function expectUsageError(result: Run, reason: RegExp): void {
  expect(result.code).toBe(2);
  expect(result.stdout).toBe("");
  const [first] = lines(result.stderr);
  expect(first).toMatch(/^arbor: /);
  expect(first).toMatch(reason);
}

// ---------------------------------------------------------------------------
// context

describe("arbor context", () => {
  it("--json, no --leaf: one object for the file's leaf (its last entry)", () => {
    const result = run(["context", file("branchy"), "--json"]);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    const out = lines(result.stdout).map((line) => JSON.parse(line));
    expect(out).toEqual([
      {
        leafId: "aaaa0008",
        messages: [
          { role: "user", content: "root", timestamp: 1 },
          ASSISTANT_HELLO,
          { role: "user", content: "right", timestamp: 6 },
          BASH_LS,
        ],
        thinkingLevel: "high",
        model: { provider: "anthropic", modelId: "claude-y" },
      },
    ]);
    expect(Object.keys(out[0])).toEqual(["leafId", "messages", "thinkingLevel", "model"]);
  });

  it("several --leaf, including none: one JSON line per leaf, in the order asked", () => {
    const result = run([
      "context",
      file("branchy"),
      "--json",
      "--leaf",
      "aaaa0005",
      "--leaf",
      "none",
      "--leaf",
      "aaaa0002",
    ]);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(lines(result.stdout).map((line) => JSON.parse(line))).toEqual([
      {
        leafId: "aaaa0005",
        messages: [
          { role: "user", content: "root", timestamp: 1 },
          ASSISTANT_HELLO,
          { role: "user", content: "left", timestamp: 5 },
        ],
        thinkingLevel: "high",
        model: { provider: "anthropic", modelId: "claude-y" },
      },
      { leafId: null, messages: [], thinkingLevel: "off", model: null },
      {
        leafId: "aaaa0002",
        messages: [{ role: "user", content: "root", timestamp: 1 }],
        thinkingLevel: "off",
        model: { provider: "anthropic", modelId: "claude-x" },
      },
    ]);
  });

  it("--leaf none alone: leafId null and no messages", () => {
    const result = run(["context", file("branchy"), "--leaf", "none", "--json"]);
    expect(result.code).toBe(0);
    expect(lines(result.stdout).map((line) => JSON.parse(line))).toEqual([
      { leafId: null, messages: [], thinkingLevel: "off", model: null },
    ]);
  });

  it("--llm: the provider's view (bash execution as user text)", () => {
    const result = run(["context", file("branchy"), "--llm", "--json"]);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    const [only] = lines(result.stdout).map((line) => JSON.parse(line));
    expect(only.leafId).toBe("aaaa0008");
    expect(only.messages).toEqual([
      { role: "user", content: "root", timestamp: 1 },
      ASSISTANT_HELLO,
      { role: "user", content: "right", timestamp: 6 },
      { role: "user", content: [{ type: "text", text: "Ran `ls`\n```\na.txt\n```" }], timestamp: 7 },
    ]);
  });

  it("text form: a summary line per leaf, then one line per message", () => {
    const result = run(["context", file("branchy"), "--leaf", "aaaa0005", "--leaf", "none"]);
    expect(result.code).toBe(0);
    expect(lines(result.stdout)).toEqual([
      "leaf aaaa0005: 3 messages, model anthropic/claude-y, thinking high",
      "  user: root",
      "  assistant: hello",
      "  user: left",
      "leaf none: 0 messages, model none, thinking off",
    ]);
  });

  it("an unknown --leaf id: exit 2, one line on stderr naming the id, nothing on stdout", () => {
    const result = run(["context", file("branchy"), "--json", "--leaf", "aaaa0005", "--leaf", "feedf00d"]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(lines(result.stderr)).toHaveLength(1);
    expect(result.stderr).toContain('"feedf00d"');
  });

  it("a 100k-deep chain: the whole path, in order", { timeout: 60_000 }, () => {
    const result = run(["context", file("chain"), "--json"]);
    expect(result.code).toBe(0);
    const [only] = lines(result.stdout).map((line) => JSON.parse(line));
    expect(only.leafId).toBe(chainId(CHAIN_LENGTH - 1));
    expect(only.messages).toHaveLength(CHAIN_LENGTH);
    expect(only.messages[0].content).toBe("m0");
    expect(only.messages[CHAIN_LENGTH - 1].content).toBe(`m${CHAIN_LENGTH - 1}`);
  });
});

// ---------------------------------------------------------------------------
// tree

describe("arbor tree", () => {
  it("--json: ids, parents, children in order, depth, line, types, roles, labels, roots, orphans, leaf", () => {
    const result = run(["tree", file("branchy"), "--json"]);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(lines(result.stdout)).toHaveLength(1);
    expect(JSON.parse(result.stdout)).toEqual({
      leafId: "aaaa0008",
      roots: ["aaaa0001"],
      orphans: [],
      sessionName: null,
      parentSession: null,
      nodes: [
        {
          id: "aaaa0001",
          parentId: null,
          children: ["aaaa0002"],
          type: "message",
          role: "user",
          depth: 0,
          line: 2,
        },
        {
          id: "aaaa0002",
          parentId: "aaaa0001",
          children: ["aaaa0003"],
          type: "model_change",
          depth: 1,
          line: 3,
        },
        {
          id: "aaaa0003",
          parentId: "aaaa0002",
          children: ["aaaa0004"],
          type: "thinking_level_change",
          depth: 2,
          line: 4,
        },
        {
          id: "aaaa0004",
          parentId: "aaaa0003",
          children: ["aaaa0005", "aaaa0006"],
          type: "message",
          role: "assistant",
          depth: 3,
          line: 5,
        },
        {
          id: "aaaa0005",
          parentId: "aaaa0004",
          children: [],
          type: "message",
          role: "user",
          label: "checkpoint",
          depth: 4,
          line: 6,
        },
        {
          id: "aaaa0006",
          parentId: "aaaa0004",
          children: ["aaaa0007"],
          type: "message",
          role: "user",
          depth: 4,
          line: 7,
        },
        {
          id: "aaaa0007",
          parentId: "aaaa0006",
          children: ["aaaa0008"],
          type: "message",
          role: "bashExecution",
          depth: 5,
          line: 8,
        },
        { id: "aaaa0008", parentId: "aaaa0007", children: [], type: "label", depth: 6, line: 9 },
      ],
    });
  });

  it("--json with an orphan: both roots, the orphan listed with the parent it names", () => {
    const result = run(["tree", file("orphaned"), "--json"]);
    expect(result.code).toBe(0);
    const tree = JSON.parse(result.stdout);
    expect(tree.leafId).toBe("aaaa0004");
    expect(tree.roots).toEqual(["aaaa0001", "aaaa0002"]);
    expect(tree.orphans).toEqual(["aaaa0002"]);
    expect(tree.nodes.map((n: { id: string }) => n.id)).toEqual([
      "aaaa0001",
      "aaaa0004",
      "aaaa0002",
      "aaaa0003",
    ]);
    expect(tree.nodes[2]).toEqual({
      id: "aaaa0002",
      parentId: null,
      declaredParentId: "deadbeef",
      children: ["aaaa0003"],
      type: "message",
      role: "user",
      depth: 0,
      line: 3,
    });
    expect(tree.nodes[3]).toMatchObject({ id: "aaaa0003", parentId: "aaaa0002", depth: 1 });
  });

  it("text: indented like Pi's /tree (a chain stays flat, a branch's chain steps in), * at the leaf", () => {
    const result = run(["tree", file("branchy")]);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(lines(result.stdout)).toEqual([
      "aaaa0001 user: root",
      "aaaa0002 model_change: anthropic/claude-x",
      "aaaa0003 thinking_level_change: high",
      "aaaa0004 assistant: hello",
      "├─ aaaa0005 user [checkpoint]: left",
      "└─ aaaa0006 user: right",
      "      aaaa0007 bashExecution: ls",
      "      aaaa0008 label *: checkpoint",
    ]);
  });

  it("text: nested branches keep their gutters", () => {
    const nested = `${[
      HEADER,
      userLine("bbbb0001", null, 1, "root"),
      userLine("bbbb0002", "bbbb0001", 2, "a"),
      userLine("bbbb0003", "bbbb0002", 3, "a1"),
      userLine("bbbb0004", "bbbb0003", 4, "a1 child"),
      userLine("bbbb0005", "bbbb0002", 5, "a2"),
      userLine("bbbb0006", "bbbb0001", 6, "b"),
    ].join("\n")}\n`;
    const path = join(dir, "nested.jsonl");
    writeFileSync(path, nested);
    const result = run(["tree", path]);
    expect(result.code).toBe(0);
    expect(lines(result.stdout)).toEqual([
      "bbbb0001 user: root",
      "├─ bbbb0002 user: a",
      "│  ├─ bbbb0003 user: a1",
      "│  │     bbbb0004 user: a1 child",
      "│  └─ bbbb0005 user: a2",
      "└─ bbbb0006 user *: b",
    ]);
  });

  it("text: several roots sit at the left edge, their descendants one level in", () => {
    const result = run(["tree", file("orphaned")]);
    expect(result.code).toBe(0);
    expect(lines(result.stdout)).toEqual([
      "aaaa0001 user: one",
      "   aaaa0004 user *: two",
      "aaaa0002 user: lost",
      "   aaaa0003 user: below lost",
    ]);
  });

  it("a 100k-deep chain: text and JSON without overflowing the stack", { timeout: 60_000 }, () => {
    const text = run(["tree", file("chain")]);
    expect(text).toMatchObject({ code: 0, stderr: "" });
    const out = lines(text.stdout);
    expect(out).toHaveLength(CHAIN_LENGTH);
    expect(out[0]).toBe("00000001 user: m0");
    expect(out[CHAIN_LENGTH - 1]).toBe(`${chainId(CHAIN_LENGTH - 1)} user *: m${CHAIN_LENGTH - 1}`);
    expect(out.every((line) => /^[0-9a-f]{8} /.test(line))).toBe(true);

    const json = run(["tree", file("chain"), "--json"]);
    expect(json.code).toBe(0);
    const tree = JSON.parse(json.stdout);
    expect(tree.nodes).toHaveLength(CHAIN_LENGTH);
    expect(tree.nodes[CHAIN_LENGTH - 1]).toMatchObject({
      id: chainId(CHAIN_LENGTH - 1),
      parentId: chainId(CHAIN_LENGTH - 2),
      depth: CHAIN_LENGTH - 1,
      line: CHAIN_LENGTH + 1,
    });
  });
});

// ---------------------------------------------------------------------------
// check

describe("arbor check", () => {
  it("a clean file: exit 0, one ok line, the file untouched", () => {
    const before = fingerprint(file("branchy"));
    const result = run(["check", file("branchy")]);
    expect(result).toEqual({ code: 0, stdout: `${file("branchy")}: ok (8 entries, 9 lines)\n`, stderr: "" });
    expect(fingerprint(file("branchy"))).toEqual(before);
  });

  it("a damaged file: exit 1, each problem as FILE:LINE: severity: message [kind], the file untouched", () => {
    const path = file("damaged");
    const before = fingerprint(path);
    const result = run(["check", path]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("");
    const out = lines(result.stdout);
    expect(out).toHaveLength(4);
    expect(out[0]!.startsWith(`${path}:3: error: `)).toBe(true);
    expect(out[0]!.endsWith(" [malformed-json]")).toBe(true);
    expect(out[1]!.startsWith(`${path}:4: warning: `)).toBe(true);
    expect(out[1]!.endsWith(" [orphan]")).toBe(true);
    expect(out[2]!.startsWith(`${path}:5: info: `)).toBe(true);
    expect(out[2]!.endsWith(" [unknown-type]")).toBe(true);
    // The info note is listed but not counted.
    expect(out[3]).toBe(`${path}: 2 problems (3 entries, 5 lines)`);
    expect(fingerprint(path)).toEqual(before);
  });

  it("notes only (a version 1 file): listed, exit 0", () => {
    const result = run(["check", file("v1")]);
    expect(result.code).toBe(0);
    const out = lines(result.stdout);
    expect(out).toHaveLength(2);
    expect(out[0]!.startsWith(`${file("v1")}:1: info: `)).toBe(true);
    expect(out[0]!.endsWith(" [legacy-version]")).toBe(true);
    expect(out[1]).toBe(`${file("v1")}: ok (1 entries, 2 lines)`);
  });

  it("several files at once: each reported in order; exit 1 if any has a problem; none changed", () => {
    const paths = [file("branchy"), file("damaged"), file("v1")];
    const before = paths.map(fingerprint);
    const result = run(["check", ...paths]);
    expect(result.code).toBe(1);
    const summaries = lines(result.stdout).filter((line) => !/:\d+: /.test(line));
    expect(summaries).toEqual([
      `${file("branchy")}: ok (8 entries, 9 lines)`,
      `${file("damaged")}: 2 problems (3 entries, 5 lines)`,
      `${file("v1")}: ok (1 entries, 2 lines)`,
    ]);
    expect(paths.map(fingerprint)).toEqual(before);

    const clean = run(["check", file("branchy"), file("v1")]);
    expect(clean.code).toBe(0);
  });
});

describe("arbor check --json", () => {
  const report = (name: string) => {
    const result = run(["check", "--json", file(name)]);
    const [line, ...rest] = lines(result.stdout);
    expect(rest).toEqual([]);
    return { code: result.code, stderr: result.stderr, report: JSON.parse(line!) as CheckReport };
  };

  it("one object per file: its problems with line, severity, code and message; exit codes as without --json", () => {
    const damaged = report("damaged");
    expect(damaged.code).toBe(1);
    expect(damaged.stderr).toBe("");
    expect(damaged.report).toEqual({
      file: file("damaged"),
      ok: false,
      entries: 3,
      lines: 5,
      counts: { errors: 1, warnings: 1, notes: 1 },
      problems: [
        {
          line: 3,
          severity: "error",
          code: "malformed-json",
          message: expect.stringContaining("not valid JSON"),
        },
        {
          line: 4,
          severity: "warning",
          code: "orphan",
          message: expect.stringContaining("not in the file"),
          entryId: expect.any(String),
        },
        {
          line: 5,
          severity: "info",
          code: "unknown-type",
          message: expect.any(String),
          entryId: expect.any(String),
        },
      ],
    });
    expect(report("branchy")).toMatchObject({ code: 0, report: { ok: true, problems: [] } });
    const both = run(["check", "--json", file("branchy"), file("damaged")]);
    expect(lines(both.stdout).map((line) => (JSON.parse(line) as CheckReport).file)).toEqual([
      file("branchy"),
      file("damaged"),
    ]);
    expect(both.code).toBe(1);
  });

  it("an empty file and a file without a header are errors, not ok; a header-only file is a session", () => {
    const empty = report("empty");
    expect(empty.code).toBe(1);
    expect(empty.report.ok).toBe(false);
    expect(empty.report.problems).toEqual([
      { line: 1, severity: "error", code: "missing-header", message: expect.stringContaining("empty") },
    ]);
    const notPi = report("not-pi");
    expect(notPi.code).toBe(1);
    expect(notPi.report.problems.map((p) => p.code)).toEqual([
      "missing-header",
      "missing-type",
      "invalid-field",
      "missing-type",
      "invalid-field",
    ]);
    expect(notPi.report.counts).toEqual({ errors: 3, warnings: 2, notes: 0 });
    const binary = report("binary");
    expect(binary.code).toBe(1);
    expect(binary.report.problems.map((p) => p.code)).toContain("missing-header");
    expect(binary.report.problems.map((p) => p.code)).toContain("malformed-json");
    const headerOnly = report("header-only");
    expect(headerOnly).toMatchObject({ code: 0, report: { ok: true, entries: 0, lines: 1, problems: [] } });
    for (const name of ["empty", "not-pi", "binary", "header-only"]) {
      const before = fingerprint(file(name));
      run(["check", "--json", file(name)]);
      expect(fingerprint(file(name))).toEqual(before);
    }
  });

  it("a file that cannot be read: an object naming the error, exit 2", () => {
    const missing = join(dir, "nowhere.jsonl");
    const result = run(["check", "--json", missing, file("branchy")]);
    expect(result.code).toBe(2);
    const [first, second] = lines(result.stdout).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(first).toEqual({ file: missing, error: expect.stringContaining("ENOENT") });
    expect(second).toMatchObject({ file: file("branchy"), ok: true });
  });
});

// ---------------------------------------------------------------------------
// stats

describe("arbor stats", () => {
  it("--json: counts by type and role, depth, roots, branch points, leaves, size, parse time", () => {
    const result = run(["stats", file("branchy"), "--json"]);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    const stats = JSON.parse(result.stdout);
    expect(stats).toEqual({
      file: file("branchy"),
      bytes: Buffer.byteLength(BRANCHY),
      lines: 9,
      entries: 8,
      version: 3,
      byType: { message: 5, model_change: 1, thinking_level_change: 1, label: 1 },
      byRole: { user: 3, assistant: 1, bashExecution: 1 },
      maxDepth: 6,
      roots: 1,
      branchPoints: 1,
      leaves: 2,
      problems: 0,
      parseMs: expect.any(Number),
    });
    expect(stats.parseMs).toBeGreaterThanOrEqual(0);
    expect(stats.parseMs).toBeLessThan(10_000);
  });

  it("--json on a damaged file: roots include the orphan; the problem count includes notes", () => {
    const result = run(["stats", file("damaged"), "--json"]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      bytes: Buffer.byteLength(DAMAGED),
      lines: 5,
      entries: 3,
      byType: { message: 2, frobnicate: 1 },
      byRole: { user: 2 },
      maxDepth: 1,
      roots: 2,
      branchPoints: 0,
      leaves: 2,
      problems: 3,
    });
  });

  it("--json with a duplicate id: every entry line is counted, so the type counts add up to entries", () => {
    const path = join(dir, "duplicate.jsonl");
    writeFileSync(
      path,
      `${[
        HEADER,
        userLine("aaaa0001", null, 1, "one"),
        userLine("aaaa0002", "aaaa0001", 2, "first"),
        messageLine("aaaa0002", "aaaa0001", 3, { ...ASSISTANT_HELLO, timestamp: 3 }),
      ].join("\n")}\n`,
    );
    const stats = JSON.parse(run(["stats", path, "--json"]).stdout);
    expect(stats).toMatchObject({
      entries: 3,
      byType: { message: 3 },
      byRole: { user: 2, assistant: 1 },
      roots: 1,
      leaves: 1,
      maxDepth: 1,
      problems: 2,
    });
  });

  it("text form names the same numbers", () => {
    const result = run(["stats", file("branchy")]);
    expect(result.code).toBe(0);
    const out = lines(result.stdout);
    expect(out[0]).toBe(file("branchy"));
    expect(out).toContain(`  size        ${Buffer.byteLength(BRANCHY)} bytes, 9 lines, version 3`);
    expect(out).toContain("  entries     8 (message 5, model_change 1, thinking_level_change 1, label 1)");
    expect(out).toContain("  messages    user 3, assistant 1, bashExecution 1");
    expect(out).toContain("  tree        depth 6, 1 root(s), 1 branch point(s), 2 leaves");
    expect(out).toContain("  problems    0");
    expect(out.some((line) => /^ {2}parse time {2}\d+(\.\d)? ms$/.test(line))).toBe(true);
  });
});

// ---------------------------------------------------------------------------
// Errors

describe("usage and I/O errors", () => {
  it("no command: exit 2 with the reason and the usage", () => {
    const result = run([]);
    expectUsageError(result, /no command/);
    expect(result.stderr).toContain("usage:");
  });

  it("unknown command: exit 2 naming it", () => {
    expectUsageError(run(["frobnicate", file("branchy")]), /unknown command "frobnicate"/);
  });

  it("bad option: exit 2 naming it", () => {
    expectUsageError(run(["tree", file("branchy"), "--bogus"]), /--bogus/);
    expectUsageError(run(["check", "--llm", file("branchy")]), /--llm/);
  });

  it("an option missing its value: exit 2", () => {
    expectUsageError(run(["context", file("branchy"), "--leaf"]), /--leaf/);
  });

  it("missing FILE, or too many: exit 2 for every command", () => {
    for (const command of ["context", "tree", "stats"]) {
      expectUsageError(run([command]), /FILE/);
      expectUsageError(run([command, file("branchy"), file("v1")]), /FILE/);
    }
    expectUsageError(run(["check"]), /FILE/);
  });

  it("a file that does not exist: exit 2, exactly one line on stderr naming it, for every command", () => {
    const missing = join(dir, "no-such-session.jsonl");
    for (const argv of [
      ["context", missing],
      ["tree", missing, "--json"],
      ["check", missing],
      ["stats", missing],
    ]) {
      const result = run(argv);
      expect(result.code, argv.join(" ")).toBe(2);
      expect(result.stdout).toBe("");
      expect(lines(result.stderr)).toHaveLength(1);
      expect(result.stderr).toMatch(/^arbor: /);
      expect(result.stderr).toContain(missing);
    }
  });

  it("help: exit 0 with the usage on stdout", () => {
    const result = run(["help"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("arbor context FILE");
    // The same options as `arbor serve --help` lists.
    expect(result.stdout).toContain(`  ${SERVE_USAGE.replace(/^usage: /, "")}\n`);
    expect(result.stderr).toBe("");
  });
});

// ---------------------------------------------------------------------------
// Child processes

describe("the arbor executable", () => {
  let checkout: string;

  beforeAll(() => {
    // A checkout as cloned: the sources and node_modules, no out/ (never built), so bin/arbor.js
    // must take its tsx path. (The working copy may hold an out/ from an earlier build.)
    checkout = mkdtempSync(join(tmpdir(), "arbor-checkout-"));
    mkdirSync(join(checkout, "bin"));
    copyFileSync(join(REPO, "bin", "arbor.js"), join(checkout, "bin", "arbor.js"));
    copyFileSync(join(REPO, "package.json"), join(checkout, "package.json"));
    for (const name of ["app", "shared", "node_modules"]) symlinkSync(join(REPO, name), join(checkout, name));
  });

  afterAll(() => {
    rmSync(checkout, { recursive: true, force: true });
  });

  function arbor(args: string[]): SpawnSyncReturns<string> {
    return spawnSync(process.execPath, [join(checkout, "bin", "arbor.js"), ...args], {
      encoding: "utf8",
      cwd: dir,
      timeout: 60_000,
    });
  }

  it("bin/arbor.js without a build runs the sources through tsx", { timeout: 120_000 }, () => {
    expect(existsSync(join(checkout, "out"))).toBe(false);

    const tree = arbor(["tree", file("branchy"), "--json"]);
    expect(tree.stderr).toBe("");
    expect(tree.status).toBe(0);
    expect(JSON.parse(tree.stdout)).toMatchObject({ leafId: "aaaa0008", roots: ["aaaa0001"] });

    const context = arbor(["context", file("branchy"), "--json", "--leaf", "aaaa0002", "--leaf", "none"]);
    expect(context.status).toBe(0);
    expect(context.stdout).toBe(
      '{"leafId":"aaaa0002","messages":[{"role":"user","content":"root","timestamp":1}],"thinkingLevel":"off","model":{"provider":"anthropic","modelId":"claude-x"}}\n' +
        '{"leafId":null,"messages":[],"thinkingLevel":"off","model":null}\n',
    );

    const check = arbor(["check", file("damaged"), file("branchy")]);
    expect(check.status).toBe(1);
    expect(check.stdout).toContain(`${file("branchy")}: ok (8 entries, 9 lines)\n`);

    const unknown = arbor(["context", file("branchy"), "--leaf", "feedf00d"]);
    expect(unknown.status).toBe(2);
    expect(unknown.stdout).toBe("");
    expect(lines(unknown.stderr)).toHaveLength(1);
    expect(unknown.stderr).toContain("feedf00d");

    const missing = arbor(["stats", join(dir, "nope.jsonl")]);
    expect(missing.status).toBe(2);
    expect(lines(missing.stderr)).toHaveLength(1);
    expect(missing.stderr).toContain("nope.jsonl");

    const usage = arbor([]);
    expect(usage.status).toBe(2);
    expect(usage.stderr).toMatch(/^arbor: no command given\n/);
  });

  it("a reader that stops early (| head): exit 0, nothing on stderr", { timeout: 120_000 }, async () => {
    const child = spawn(process.execPath, [join(checkout, "bin", "arbor.js"), "tree", file("chain")], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (text: string) => {
      stderr += text;
    });
    let first = "";
    child.stdout.setEncoding("utf8");
    child.stdout.once("data", (text: string) => {
      first = text;
      child.stdout.destroy();
    });
    const code = await new Promise<number | null>((resolveExit) => child.on("close", resolveExit));
    expect(first.startsWith("00000001 user: m0\n")).toBe(true);
    expect(stderr).toBe("");
    expect(code).toBe(0);
  });

  it("arbor serve --port 0: prints a URL with a token, stops on SIGTERM with exit 0", {
    timeout: 120_000,
  }, async () => {
    const data = mkdtempSync(join(tmpdir(), "arbor-cli-serve-"));
    try {
      const serve = await spawnServe(["--port", "0", "--dir", dir, "--data-dir", data, "--no-demo"], {}, [
        join(checkout, "bin", "arbor.js"),
        "serve",
      ]);
      expect(serve.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}$/);
      expect(serve.port).toBeGreaterThan(0);
      const page = await fetch(serve.url);
      expect(page.status).toBe(200);
      expect(await serve.stop("SIGTERM")).toBe(0);
      expect(serve.output()).toContain("arbor serve: stopped (SIGTERM)");
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  });

  it("npm run -s arbor -- ... runs the sources", { timeout: 120_000 }, () => {
    const result = spawnSync("npm", ["run", "-s", "arbor", "--", "stats", file("branchy"), "--json"], {
      cwd: REPO,
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ entries: 8, lines: 9, maxDepth: 6, leaves: 2 });
  });

  it("npm run -s arbor -- serve: a SIGTERM to npm stops the server too", { timeout: 120_000 }, async () => {
    // npm passes the signal to its shell, not to the shell's child: the server must notice it was left.
    const data = mkdtempSync(join(tmpdir(), "arbor-cli-npm-serve-"));
    const npm = spawn(
      "npm",
      ["run", "-s", "arbor", "--", "serve", "--port", "0", "--dir", dir, "--data-dir", data],
      {
        cwd: REPO,
        env: { ...process.env, PI_CODING_AGENT_DIR: join(data, "no-pi-agent") },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    try {
      let output = "";
      const port = await new Promise<number>((resolvePort, reject) => {
        const timer = setTimeout(() => reject(new Error(`no URL within 60 s:\n${output}`)), 60_000);
        const look = (chunk: Buffer) => {
          output += chunk.toString();
          const found = /http:\/\/127\.0\.0\.1:(\d+)\/\?token=/.exec(output);
          if (!found) return;
          clearTimeout(timer);
          resolvePort(Number(found[1]));
        };
        npm.stdout.on("data", look);
        npm.stderr.on("data", look);
      });
      expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(200);
      const exited = new Promise<void>((resolveExit) => npm.once("exit", () => resolveExit()));
      npm.kill("SIGTERM");
      await exited;
      await expect.poll(() => processesNaming(data), { timeout: 10_000, interval: 250 }).toEqual([]);
      await expect(fetch(`http://127.0.0.1:${port}/`)).rejects.toThrow();
    } finally {
      for (const line of processesNaming(data)) process.kill(Number(line.split(" ")[0]), "SIGKILL");
      rmSync(data, { recursive: true, force: true });
    }
  });
});

/** The processes (`PID command line`) whose command line names `text`. */
function processesNaming(text: string): string[] {
  const found = spawnSync("pgrep", ["-af", text], { encoding: "utf8" }).stdout;
  return found.split("\n").filter((line) => line.trim() !== "" && !line.includes("pgrep"));
}
