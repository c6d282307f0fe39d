/**
 * Damaged, odd and very large session files, read from real files on disk
 * with `readWholeSessionFile`. Each test writes its own file, checks exactly what
 * was reported (kind, 1-based line, related line), what was still loaded
 * (entries, tree, context) and that the file's bytes and mtime are the same
 * afterwards. Every expected value is written out by hand from the file the
 * test builds, never computed with Arbor.
 */

import { createHash } from "node:crypto";
import {
  closeSync,
  copyFileSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  statfsSync,
  statSync,
  utimesSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildSessionContext,
  buildSessionPath,
  contextGraphOf,
  contextGraphOfEntries,
  convertToLlm,
  entryLinesOf,
  inMemoryEntryReader,
  type ParsedSession,
  type SessionIndex,
  SessionParser,
} from "../../shared/session/index.ts";
import { readWholeSessionFile } from "./read-whole-session-file.ts";

// ---------------------------------------------------------------------------
// Building files

const SESSION_ID = "0193f2a4-7c1e-7000-8000-00000000a1b0";
const HEADER = `{"type":"session","version":3,"id":"${SESSION_ID}","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp"}`;

/** ISO timestamp `second` seconds after 2026-01-01T00:00:00Z. */
function ts(second: number): string {
  return new Date(Date.UTC(2026, 0, 1, 0, 0, 0) + second * 1000).toISOString();
}

/** A user message entry line, timestamped `second` seconds into 2026. */
function user(id: string, parentId: string | null, text: string, second = 1): string {
  return JSON.stringify({
    type: "message",
    id,
    parentId,
    timestamp: ts(second),
    message: { role: "user", content: text, timestamp: 1767225600000 + second * 1000 },
  });
}

function jsonl(lines: string[]): string {
  return `${lines.join("\n")}\n`;
}

let dir: string;
let fileCounter = 0;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "arbor-damaged-"));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Writes a file and backdates its mtime, so a write during reading would show as a changed mtime. */
function writeSession(name: string, content: string | Uint8Array): string {
  const path = join(dir, `${++fileCounter}-${name}.jsonl`);
  writeFileSync(path, content);
  const past = new Date("2025-06-01T12:00:00.000Z");
  utimesSync(path, past, past);
  return path;
}

interface FileState {
  sha256: string;
  size: number;
  mtimeMs: number;
}

/** sha256 (read in 8 MiB pieces, so a 600 MB file needs no 600 MB Buffer), size and mtime. */
function fileState(path: string): FileState {
  const stats = statSync(path);
  const hash = createHash("sha256");
  const buffer = Buffer.allocUnsafe(8 << 20);
  const fd = openSync(path, "r");
  try {
    for (;;) {
      const n = readSync(fd, buffer, 0, buffer.length, null);
      if (n === 0) break;
      hash.update(buffer.subarray(0, n));
    }
  } finally {
    closeSync(fd);
  }
  return { sha256: hash.digest("hex"), size: stats.size, mtimeMs: stats.mtimeMs };
}

/** Reads with `readWholeSessionFile` and asserts the file is byte-for-byte and mtime the same afterwards. */
function readUnchanged(path: string, timing?: { ms: number }): SessionIndex {
  const before = fileState(path);
  const started = performance.now();
  const result = readWholeSessionFile(path);
  if (timing) timing.ms = performance.now() - started;
  expect(fileState(path)).toEqual(before);
  expect(result.size).toBe(before.size);
  return result.index;
}

interface ProblemShape {
  kind: string;
  line: number;
  relatedLine?: number;
}

/** Problems as `{kind, line, relatedLine?}`, ordered by line then kind (order within a line is not part of the contract). */
function problemsOf(index: SessionIndex): ProblemShape[] {
  return index.problems
    .map((p) => {
      const shape: ProblemShape = { kind: p.kind, line: p.line };
      if (p.relatedLine !== undefined) shape.relatedLine = p.relatedLine;
      return shape;
    })
    .sort((a, b) => a.line - b.line || a.kind.localeCompare(b.kind));
}

/** `{id: [parentId, children, depth]}` for every tree node. */
function treeOf(index: SessionIndex): Record<string, [string | null, string[], number]> {
  const out: Record<string, [string | null, string[], number]> = {};
  for (const node of index.nodes.values()) out[node.id] = [node.parentId, [...node.children], node.depth];
  return out;
}

/** Text of each context message from `leaf` (user string content; role for anything else). */
function contextTexts(index: SessionIndex, leaf: string | null | undefined): string[] {
  return buildSessionContext(contextGraphOf(index, inMemoryEntryReader(index)), leaf).messages.map((m) =>
    typeof m.content === "string" ? m.content : `<${m.role}>`,
  );
}

function entryIds(index: SessionIndex): string[] {
  return index.entries.map((entry) => entry.id);
}

// ---------------------------------------------------------------------------
// Encoding and line structure

describe("encoding and line structure", () => {
  it("UTF-8 BOM: reported as info on line 1, the header and entries still read", () => {
    const path = writeSession(
      "bom",
      Buffer.concat([
        Buffer.from([0xef, 0xbb, 0xbf]),
        Buffer.from(jsonl([HEADER, user("aaaa0001", null, "hello"), user("aaaa0002", "aaaa0001", "world")])),
      ]),
    );
    const index = readUnchanged(path);
    expect(problemsOf(index)).toEqual([{ kind: "bom", line: 1 }]);
    expect(index.problems[0]!.severity).toBe("info");
    expect(index.header?.id).toBe(SESSION_ID);
    expect(index.headerLine).toBe(1);
    expect(entryIds(index)).toEqual(["aaaa0001", "aaaa0002"]);
    expect(treeOf(index)).toEqual({
      aaaa0001: [null, ["aaaa0002"], 0],
      aaaa0002: ["aaaa0001", [], 1],
    });
    expect(contextTexts(index, undefined)).toEqual(["hello", "world"]);
  });

  it("CRLF line endings: no problem, no stray \\r in any value", () => {
    const lines = [HEADER, user("aaaa0001", null, "one"), "", user("aaaa0002", "aaaa0001", "two")];
    const path = writeSession("crlf", `${lines.join("\r\n")}\r\n`);
    const index = readUnchanged(path);
    expect(problemsOf(index)).toEqual([]);
    expect(index.lineCount).toBe(4);
    expect(entryIds(index)).toEqual(["aaaa0001", "aaaa0002"]);
    expect(entryLinesOf(index)).toEqual([2, 4]);
    expect(contextTexts(index, "aaaa0002")).toEqual(["one", "two"]);
    expect(index.header?.cwd).toBe("/tmp");
  });

  it("blank lines (before the header, between and after entries) are skipped silently, line numbers kept", () => {
    const path = writeSession(
      "blank",
      jsonl([
        "",
        HEADER,
        "   ",
        user("aaaa0001", null, "one"),
        "\t",
        user("aaaa0002", "aaaa0001", "two"),
        "",
      ]),
    );
    const index = readUnchanged(path);
    expect(problemsOf(index)).toEqual([]);
    expect(index.headerLine).toBe(2);
    expect(index.lineCount).toBe(7);
    expect(entryLinesOf(index)).toEqual([4, 6]);
    expect(index.nodes.get("aaaa0002")!.line).toBe(6);
    expect(treeOf(index)).toEqual({
      aaaa0001: [null, ["aaaa0002"], 0],
      aaaa0002: ["aaaa0001", [], 1],
    });
  });

  it("malformed JSON in the middle and on the last line: each reported with its line, the rest read", () => {
    const path = writeSession(
      "malformed",
      jsonl([
        HEADER,
        user("aaaa0001", null, "one"),
        '{"type":"message","id":"aaaa0009","parentId":',
        user("aaaa0002", "aaaa0001", "two"),
        '{"type":"message" "id":"aaaa0003"}',
      ]),
    );
    const index = readUnchanged(path);
    expect(problemsOf(index)).toEqual([
      { kind: "malformed-json", line: 3 },
      { kind: "malformed-json", line: 5 },
    ]);
    expect(index.problems.every((p) => p.severity === "error")).toBe(true);
    expect(entryIds(index)).toEqual(["aaaa0001", "aaaa0002"]);
    expect(index.byId.has("aaaa0009")).toBe(false);
    expect(index.leafId).toBe("aaaa0002");
    expect(index.unterminatedLastLine).toBeNull();
    expect(contextTexts(index, undefined)).toEqual(["one", "two"]);
  });

  it("non-object JSON lines (number, array, null, string, boolean) are reported and skipped", () => {
    const path = writeSession(
      "not-object",
      jsonl([
        HEADER,
        user("aaaa0001", null, "one"),
        "42",
        "[1,2]",
        "null",
        '"text"',
        "true",
        user("aaaa0002", "aaaa0001", "two"),
      ]),
    );
    const index = readUnchanged(path);
    expect(problemsOf(index)).toEqual([
      { kind: "not-an-object", line: 3 },
      { kind: "not-an-object", line: 4 },
      { kind: "not-an-object", line: 5 },
      { kind: "not-an-object", line: 6 },
      { kind: "not-an-object", line: 7 },
    ]);
    expect(entryIds(index)).toEqual(["aaaa0001", "aaaa0002"]);
    expect(entryLinesOf(index)).toEqual([2, 8]);
    expect(treeOf(index)).toEqual({
      aaaa0001: [null, ["aaaa0002"], 0],
      aaaa0002: ["aaaa0001", [], 1],
    });
  });

  it("invalid UTF-8 bytes: reported with their line, the line still read with U+FFFD", () => {
    const before = Buffer.from(jsonl([HEADER, user("aaaa0001", null, "one")]));
    const broken = Buffer.concat([
      Buffer.from(
        '{"type":"message","id":"aaaa0002","parentId":"aaaa0001","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"a',
      ),
      Buffer.from([0xff, 0xfe]),
      Buffer.from("b"),
      Buffer.from([0xe2, 0x82]), // a truncated three-byte sequence
      Buffer.from('","timestamp":1}}\n'),
    ]);
    const after = Buffer.from(jsonl([user("aaaa0003", "aaaa0002", "three")]));
    const path = writeSession("invalid-utf8", Buffer.concat([before, broken, after]));
    const index = readUnchanged(path);
    expect(problemsOf(index)).toEqual([{ kind: "invalid-utf8", line: 3 }]);
    expect(index.problems[0]!.severity).toBe("warning");
    expect(entryIds(index)).toEqual(["aaaa0001", "aaaa0002", "aaaa0003"]);
    expect(contextTexts(index, undefined)).toEqual(["one", "a\uFFFD\uFFFDb\uFFFD", "three"]);
    expect(index.nodes.get("aaaa0002")!.byteLength).toBe(broken.length - 1);
  });

  it("unterminated last line that is valid JSON: parsed, unterminatedLastLine set with parsed true", () => {
    const head = `${HEADER}\n${user("aaaa0001", null, "one")}\n`;
    const last = user("aaaa0002", "aaaa0001", "two");
    const path = writeSession("unterminated-ok", head + last);
    const index = readUnchanged(path);
    expect(problemsOf(index)).toEqual([{ kind: "unterminated-last-line", line: 3 }]);
    expect(index.unterminatedLastLine).toEqual({ line: 3, offset: Buffer.byteLength(head), parsed: true });
    expect(entryIds(index)).toEqual(["aaaa0001", "aaaa0002"]);
    expect(index.leafId).toBe("aaaa0002");
    expect(index.byteLength).toBe(Buffer.byteLength(head + last));
    expect(contextTexts(index, undefined)).toEqual(["one", "two"]);
  });

  it("unterminated last line that is half-written JSON: reported, parsed false, the rest read", () => {
    const head = `${HEADER}\n${user("aaaa0001", null, "one")}\n${user("aaaa0002", "aaaa0001", "two")}\n`;
    const half = user("aaaa0003", "aaaa0002", "three").slice(0, 45);
    const path = writeSession("unterminated-half", head + half);
    const index = readUnchanged(path);
    expect(problemsOf(index)).toEqual([{ kind: "malformed-json", line: 4 }]);
    expect(index.unterminatedLastLine).toEqual({ line: 4, offset: Buffer.byteLength(head), parsed: false });
    expect(entryIds(index)).toEqual(["aaaa0001", "aaaa0002"]);
    expect(index.leafId).toBe("aaaa0002");
    expect(index.lineCount).toBe(4);
  });
});

// ---------------------------------------------------------------------------
// Headers

describe("headers", () => {
  it("missing header, entries without ids: reported on line 1 (no version note: none was declared), read the version 1 way", () => {
    const path = writeSession(
      "missing-header-v1",
      jsonl([
        '{"type":"message","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"one","timestamp":1}}',
        '{"type":"message","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"two","timestamp":2}}',
      ]),
    );
    const index = readUnchanged(path);
    expect(problemsOf(index)).toEqual([{ kind: "missing-header", line: 1 }]);
    expect(index.problems.find((p) => p.kind === "missing-header")!.severity).toBe("error");
    expect(index.header).toBeNull();
    expect(index.entries).toHaveLength(2);
    const [first, second] = index.entries;
    expect(first!.id).toMatch(/^[0-9a-f]{8}$/);
    expect(second!.parentId).toBe(first!.id);
    expect(contextTexts(index, undefined)).toEqual(["one", "two"]);
  });

  // BUG (shared/session/migrate.ts, `sessionVersion`): with no header at all the
  // version defaults to 1, so the version 1 migration replaces every entry's own
  // id and rewrites parentId to "the previous line". A version 3 file whose
  // header line is missing or corrupted loses its ids (labels, --leaf, fork
  // points no longer match) and its branches are flattened into one chain.
  it("missing header, entries with ids: entries keep their own ids and branches", () => {
    const path = writeSession(
      "missing-header-v3",
      jsonl([
        user("aaaa0001", null, "root", 1),
        user("aaaa0002", "aaaa0001", "left", 2),
        user("aaaa0003", "aaaa0001", "right", 3),
      ]),
    );
    const index = readUnchanged(path);
    expect(entryIds(index)).toEqual(["aaaa0001", "aaaa0002", "aaaa0003"]);
    expect(treeOf(index)).toEqual({
      aaaa0001: [null, ["aaaa0002", "aaaa0003"], 0],
      aaaa0002: ["aaaa0001", [], 1],
      aaaa0003: ["aaaa0001", [], 1],
    });
    expect(contextTexts(index, "aaaa0003")).toEqual(["root", "right"]);
    // Not "a version 1 session": nothing says so, and the entries carry ids.
    expect(problemsOf(index)).toEqual([{ kind: "missing-header", line: 1 }]);
  });

  it("invalid header (id missing): reported on line 1, entries read as version 3", () => {
    const path = writeSession(
      "header-no-id",
      jsonl([
        '{"type":"session","version":3,"timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp"}',
        user("aaaa0001", null, "one"),
        user("aaaa0002", "aaaa0001", "two"),
      ]),
    );
    const index = readUnchanged(path);
    expect(problemsOf(index)).toEqual([{ kind: "invalid-header", line: 1 }]);
    expect(index.problems[0]!.severity).toBe("error");
    expect(index.headerLine).toBe(1);
    expect(index.version).toBe(3);
    expect(entryIds(index)).toEqual(["aaaa0001", "aaaa0002"]);
    expect(contextTexts(index, undefined)).toEqual(["one", "two"]);
  });

  it("invalid header (id a number): reported on line 1, entries read as version 3", () => {
    const path = writeSession(
      "header-number-id",
      jsonl([
        '{"type":"session","version":3,"id":12345,"timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp"}',
        user("aaaa0001", null, "one"),
      ]),
    );
    const index = readUnchanged(path);
    expect(problemsOf(index)).toEqual([{ kind: "invalid-header", line: 1 }]);
    expect(entryIds(index)).toEqual(["aaaa0001"]);
  });

  it("late header (after entries): missing header on line 1 and late header on its line; the header is used", () => {
    const path = writeSession(
      "late-header",
      jsonl([
        user("aaaa0001", null, "one"),
        user("aaaa0002", "aaaa0001", "two"),
        HEADER,
        user("aaaa0003", "aaaa0002", "three"),
      ]),
    );
    const index = readUnchanged(path);
    expect(problemsOf(index)).toEqual([
      { kind: "missing-header", line: 1 },
      { kind: "late-header", line: 3 },
    ]);
    expect(index.header?.id).toBe(SESSION_ID);
    expect(index.headerLine).toBe(3);
    expect(index.version).toBe(3);
    expect(entryIds(index)).toEqual(["aaaa0001", "aaaa0002", "aaaa0003"]);
    expect(entryLinesOf(index)).toEqual([1, 2, 4]);
    expect(treeOf(index)).toEqual({
      aaaa0001: [null, ["aaaa0002"], 0],
      aaaa0002: ["aaaa0001", ["aaaa0003"], 1],
      aaaa0003: ["aaaa0002", [], 2],
    });
  });

  it("extra second header: reported with the first header's line, ignored (its version too)", () => {
    const second =
      '{"type":"session","id":"0193f2a4-7c1e-7000-8000-00000000ffff","timestamp":"2026-02-02T00:00:00.000Z","cwd":"/elsewhere"}';
    const path = writeSession(
      "extra-header",
      jsonl([HEADER, user("aaaa0001", null, "one"), second, user("aaaa0002", "aaaa0001", "two")]),
    );
    const index = readUnchanged(path);
    expect(problemsOf(index)).toEqual([{ kind: "extra-header", line: 3, relatedLine: 1 }]);
    expect(index.header?.id).toBe(SESSION_ID);
    expect(index.header?.cwd).toBe("/tmp");
    expect(index.version).toBe(3);
    // The second header has no version (= 1); had it been used, the ids would have been replaced.
    expect(entryIds(index)).toEqual(["aaaa0001", "aaaa0002"]);
    expect(entryLinesOf(index)).toEqual([2, 4]);
  });
});

// ---------------------------------------------------------------------------
// Entry fields

describe("entry fields", () => {
  it("entry without id: reported, kept as a node under its parent", () => {
    const noId =
      '{"type":"message","parentId":"aaaa0001","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"anonymous","timestamp":2}}';
    const path = writeSession(
      "missing-id",
      jsonl([HEADER, user("aaaa0001", null, "one", 1), noId, user("aaaa0002", "aaaa0001", "two", 3)]),
    );
    const index = readUnchanged(path);
    expect(problemsOf(index)).toEqual([{ kind: "missing-id", line: 3 }]);
    expect(index.problems[0]!.severity).toBe("error");
    expect(index.entries).toHaveLength(3);
    const anonymous = index.entries[1]!.id;
    expect(index.problems[0]!.entryId).toBe(anonymous);
    expect(index.nodes.get(anonymous)!.parentId).toBe("aaaa0001");
    expect(index.nodes.get(anonymous)!.line).toBe(3);
    expect(index.nodes.get("aaaa0001")!.children).toEqual([anonymous, "aaaa0002"]);
    expect(contextTexts(index, anonymous)).toEqual(["one", "anonymous"]);
  });

  it("version 2 file: entries without id or parentId get an id and follow the entry before them, each reported", () => {
    const header = `{"type":"session","version":2,"id":"${SESSION_ID}","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp"}`;
    const bare = (text: string, second: number) =>
      `{"type":"message","timestamp":"${ts(second)}","message":{"role":"user","content":"${text}","timestamp":${second}}}`;
    const noParent = `{"type":"message","id":"aaaa0004","timestamp":"${ts(4)}","message":{"role":"user","content":"four","timestamp":4}}`;
    const noIdWithParent = `{"type":"message","parentId":"aaaa0001","timestamp":"${ts(5)}","message":{"role":"user","content":"five","timestamp":5}}`;
    const path = writeSession(
      "v2-unidentified",
      jsonl([
        header,
        bare("zero", 0),
        user("aaaa0001", null, "one", 1),
        bare("two", 2),
        bare("three", 3),
        noParent,
        noIdWithParent,
      ]),
    );
    const index = readUnchanged(path);
    const [zero, one, two, three, four, five] = index.entries.map((entry) => entry.id);
    expect(one).toBe("aaaa0001");
    expect(four).toBe("aaaa0004");
    for (const id of [zero, two, three, five]) expect(id).toMatch(/^[0-9a-f]{8}$/);
    expect(new Set(index.entries.map((entry) => entry.id)).size).toBe(6);
    // The same ids at every read: they are derived from the lines, not random.
    expect(readUnchanged(path).entries.map((entry) => entry.id)).toEqual(
      index.entries.map((entry) => entry.id),
    );
    expect(treeOf(index)).toEqual({
      [zero!]: [null, [], 0],
      aaaa0001: [null, [two!, five!], 0],
      [two!]: ["aaaa0001", [three!], 1],
      [three!]: [two!, ["aaaa0004"], 2],
      aaaa0004: [three!, [], 3],
      [five!]: ["aaaa0001", [], 1],
    });
    expect(problemsOf(index)).toEqual([
      { kind: "legacy-version", line: 1 },
      { kind: "missing-id", line: 2 },
      { kind: "missing-id", line: 4 },
      { kind: "missing-id", line: 5 },
      { kind: "missing-parent-id", line: 6 },
      { kind: "missing-id", line: 7 },
    ]);
    expect(index.problems.find((problem) => problem.line === 6)!.message).toContain(`follows "${three}"`);
    expect(contextTexts(index, "aaaa0004")).toEqual(["one", "two", "three", "four"]);
    expect(contextTexts(index, five!)).toEqual(["one", "five"]);
  });

  it("entry without type: reported, kept as a node, contributes nothing to context", () => {
    const noType =
      '{"id":"aaaa0002","parentId":"aaaa0001","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"typeless","timestamp":2}}';
    const path = writeSession(
      "missing-type",
      jsonl([HEADER, user("aaaa0001", null, "one", 1), noType, user("aaaa0003", "aaaa0002", "three", 3)]),
    );
    const index = readUnchanged(path);
    expect(problemsOf(index)).toEqual([{ kind: "missing-type", line: 3 }]);
    expect(entryIds(index)).toEqual(["aaaa0001", "aaaa0002", "aaaa0003"]);
    expect(index.nodes.get("aaaa0002")!.entry.type).not.toBe("message");
    expect(treeOf(index)).toEqual({
      aaaa0001: [null, ["aaaa0002"], 0],
      aaaa0002: ["aaaa0001", ["aaaa0003"], 1],
      aaaa0003: ["aaaa0002", [], 2],
    });
    expect(contextTexts(index, "aaaa0003")).toEqual(["one", "three"]);
  });

  it("entry without parentId: reported, shown as a root", () => {
    const noParent =
      '{"type":"message","id":"aaaa0002","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"two","timestamp":2}}';
    const path = writeSession("missing-parent", jsonl([HEADER, user("aaaa0001", null, "one"), noParent]));
    const index = readUnchanged(path);
    expect(problemsOf(index)).toEqual([{ kind: "missing-parent-id", line: 3 }]);
    expect(index.roots).toEqual(["aaaa0001", "aaaa0002"]);
    expect(index.orphans).toEqual([]);
    expect(contextTexts(index, "aaaa0002")).toEqual(["two"]);
  });

  it("parentId a number: reported as an invalid field, shown as a root", () => {
    const numberParent =
      '{"type":"message","id":"aaaa0002","parentId":5,"timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"two","timestamp":2}}';
    const path = writeSession("number-parent", jsonl([HEADER, user("aaaa0001", null, "one"), numberParent]));
    const index = readUnchanged(path);
    expect(problemsOf(index)).toEqual([{ kind: "invalid-field", line: 3 }]);
    expect(index.problems[0]!.entryId).toBe("aaaa0002");
    expect(index.roots).toEqual(["aaaa0001", "aaaa0002"]);
    expect(index.nodes.get("aaaa0002")!.parentId).toBeNull();
    expect(contextTexts(index, "aaaa0002")).toEqual(["two"]);
  });

  it("timestamp not a string: reported, kept under its parent, sorted by Pi's comparator (a number is a time)", () => {
    // Line 3 is at 2026-01-01T00:00:03Z; line 4's timestamp 12345 is 1970-01-01T00:00:12.345Z, so Pi lists it first.
    const numberTime =
      '{"type":"message","id":"aaaa0002","parentId":"aaaa0001","timestamp":12345,"message":{"role":"user","content":"two","timestamp":2}}';
    const path = writeSession(
      "number-timestamp",
      jsonl([HEADER, user("aaaa0001", null, "one", 1), user("aaaa0003", "aaaa0001", "three", 3), numberTime]),
    );
    const index = readUnchanged(path);
    expect(problemsOf(index)).toEqual([{ kind: "invalid-field", line: 4 }]);
    expect(treeOf(index)).toEqual({
      aaaa0001: [null, ["aaaa0002", "aaaa0003"], 0],
      aaaa0003: ["aaaa0001", [], 1],
      aaaa0002: ["aaaa0001", [], 1],
    });
    expect(index.leafId).toBe("aaaa0002");
    expect(contextTexts(index, undefined)).toEqual(["one", "two"]);
  });

  it("message not an object: reported, kept as a node, contributes nothing to context", () => {
    const stringMessage =
      '{"type":"message","id":"aaaa0002","parentId":"aaaa0001","timestamp":"2026-01-01T00:00:02.000Z","message":"hello"}';
    const path = writeSession(
      "string-message",
      jsonl([
        HEADER,
        user("aaaa0001", null, "one", 1),
        stringMessage,
        user("aaaa0003", "aaaa0002", "three", 3),
      ]),
    );
    const index = readUnchanged(path);
    expect(problemsOf(index)).toEqual([{ kind: "invalid-field", line: 3 }]);
    expect(entryIds(index)).toEqual(["aaaa0001", "aaaa0002", "aaaa0003"]);
    expect(index.nodes.get("aaaa0003")!.parentId).toBe("aaaa0002");
    expect(contextTexts(index, "aaaa0003")).toEqual(["one", "three"]);
  });

  it("message without role: reported, kept; not sent to a model", () => {
    const noRole =
      '{"type":"message","id":"aaaa0002","parentId":"aaaa0001","timestamp":"2026-01-01T00:00:02.000Z","message":{"content":"roleless","timestamp":2}}';
    const path = writeSession("no-role", jsonl([HEADER, user("aaaa0001", null, "one", 1), noRole]));
    const index = readUnchanged(path);
    expect(problemsOf(index)).toEqual([{ kind: "invalid-field", line: 3 }]);
    expect(index.nodes.get("aaaa0002")!.parentId).toBe("aaaa0001");
    expect(inMemoryEntryReader(index).facts("aaaa0002")!.role).toBeUndefined();
    const context = buildSessionContext(contextGraphOf(index, inMemoryEntryReader(index)), "aaaa0002");
    // Pi's buildSessionContext passes every message entry's message through; convertToLlm drops the unknown one.
    expect(context.messages).toEqual([
      { role: "user", content: "one", timestamp: 1767225601000 },
      { content: "roleless", timestamp: 2 },
    ]);
    expect(convertToLlm(context.messages)).toEqual([
      { role: "user", content: "one", timestamp: 1767225601000 },
    ]);
  });

  it("unknown entry type: reported as info, kept as a node in the tree, the walk passes through it", () => {
    const unknown =
      '{"type":"frobnicate","id":"aaaa0002","parentId":"aaaa0001","timestamp":"2026-01-01T00:00:02.000Z","payload":{"x":1}}';
    const path = writeSession(
      "unknown-type",
      jsonl([HEADER, user("aaaa0001", null, "one", 1), unknown, user("aaaa0003", "aaaa0002", "three", 3)]),
    );
    const index = readUnchanged(path);
    expect(problemsOf(index)).toEqual([{ kind: "unknown-type", line: 3 }]);
    expect(index.problems[0]!.severity).toBe("info");
    const node = index.nodes.get("aaaa0002")!;
    expect(node.entry.type).toBe("frobnicate");
    expect(node.entry.payload).toEqual({ x: 1 });
    expect(treeOf(index)).toEqual({
      aaaa0001: [null, ["aaaa0002"], 0],
      aaaa0002: ["aaaa0001", ["aaaa0003"], 1],
      aaaa0003: ["aaaa0002", [], 2],
    });
    expect(contextTexts(index, "aaaa0003")).toEqual(["one", "three"]);
  });

  it("unknown message role: reported as info, kept; in Pi's context but never sent to a model", () => {
    const wizard =
      '{"type":"message","id":"aaaa0002","parentId":"aaaa0001","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"wizard","content":"abracadabra","timestamp":2}}';
    const path = writeSession(
      "unknown-role",
      jsonl([HEADER, user("aaaa0001", null, "one", 1), wizard, user("aaaa0003", "aaaa0002", "three", 3)]),
    );
    const index = readUnchanged(path);
    expect(problemsOf(index)).toEqual([{ kind: "unknown-role", line: 3 }]);
    expect(inMemoryEntryReader(index).facts("aaaa0002")!.role).toBe("wizard");
    expect(index.nodes.get("aaaa0003")!.parentId).toBe("aaaa0002");
    const context = buildSessionContext(contextGraphOf(index, inMemoryEntryReader(index)), "aaaa0003");
    expect(context.messages.map((m) => m.role)).toEqual(["user", "wizard", "user"]);
    expect(convertToLlm(context.messages).map((m) => m.content)).toEqual(["one", "three"]);
  });
});

// ---------------------------------------------------------------------------
// Tree damage

describe("tree damage", () => {
  it("duplicate id: both lines reported, pointing at each other; the later line wins", () => {
    const path = writeSession(
      "duplicate",
      jsonl([
        HEADER,
        user("aaaa0001", null, "root", 1),
        user("aaaa0002", "aaaa0001", "first copy", 2),
        user("aaaa0003", "aaaa0001", "three", 3),
        user("aaaa0002", "aaaa0003", "second copy", 4),
      ]),
    );
    const index = readUnchanged(path);
    expect(problemsOf(index)).toEqual([
      { kind: "duplicate-id", line: 3, relatedLine: 5 },
      { kind: "duplicate-id", line: 5, relatedLine: 3 },
    ]);
    expect(index.problems.every((p) => p.entryId === "aaaa0002")).toBe(true);
    // Pi's getEntries() lists both lines; byId and the tree hold the later one.
    expect(entryIds(index)).toEqual(["aaaa0001", "aaaa0002", "aaaa0003", "aaaa0002"]);
    expect(index.nodes.size).toBe(3);
    expect(index.nodes.get("aaaa0002")!.line).toBe(5);
    expect(treeOf(index)).toEqual({
      aaaa0001: [null, ["aaaa0003"], 0],
      aaaa0002: ["aaaa0003", [], 2],
      aaaa0003: ["aaaa0001", ["aaaa0002"], 1],
    });
    expect(index.leafId).toBe("aaaa0002");
    expect(contextTexts(index, undefined)).toEqual(["root", "three", "second copy"]);
  });

  it("orphans: reported, shown as roots with their subtrees", () => {
    const path = writeSession(
      "orphan",
      jsonl([
        HEADER,
        user("aaaa0001", null, "one", 1),
        user("aaaa0002", "deadbeef", "lost", 2),
        user("aaaa0003", "aaaa0002", "below lost", 3),
      ]),
    );
    const index = readUnchanged(path);
    expect(problemsOf(index)).toEqual([{ kind: "orphan", line: 3 }]);
    expect(index.problems[0]!.entryId).toBe("aaaa0002");
    expect(index.roots).toEqual(["aaaa0001", "aaaa0002"]);
    expect(index.orphans).toEqual(["aaaa0002"]);
    expect(treeOf(index)).toEqual({
      aaaa0001: [null, [], 0],
      aaaa0002: [null, ["aaaa0003"], 0],
      aaaa0003: ["aaaa0002", [], 1],
    });
    expect(contextTexts(index, undefined)).toEqual(["lost", "below lost"]);
  });

  it("self-parent: reported, shown as a root; context terminates", () => {
    const path = writeSession(
      "self-parent",
      jsonl([HEADER, user("aaaa0001", null, "one", 1), user("aaaa0002", "aaaa0002", "me", 2)]),
    );
    const index = readUnchanged(path);
    expect(problemsOf(index)).toEqual([{ kind: "self-parent", line: 3 }]);
    expect(index.roots).toEqual(["aaaa0001", "aaaa0002"]);
    expect(contextTexts(index, "aaaa0002")).toEqual(["me"]);
    expect(buildSessionPath(contextGraphOfEntries(index.entries), "aaaa0002").map((e) => e.id)).toEqual([
      "aaaa0002",
    ]);
  });

  it("parent cycle of 2: each member reported and shown as a root, as Pi now shows them", () => {
    const path = writeSession(
      "cycle-2",
      jsonl([
        HEADER,
        user("aaaa0001", null, "one", 1),
        user("aaaa0002", "aaaa0003", "two", 2),
        user("aaaa0003", "aaaa0002", "three", 3),
      ]),
    );
    const index = readUnchanged(path);
    expect(problemsOf(index)).toEqual([
      { kind: "cycle", line: 3, relatedLine: 4 },
      { kind: "cycle", line: 4, relatedLine: 3 },
    ]);
    expect(index.problems.map((problem) => problem.entryId)).toEqual(["aaaa0002", "aaaa0003"]);
    expect(index.roots).toEqual(["aaaa0001", "aaaa0002", "aaaa0003"]);
    expect(treeOf(index)).toEqual({
      aaaa0001: [null, [], 0],
      aaaa0002: [null, [], 0],
      aaaa0003: [null, [], 0],
    });
    expect(contextTexts(index, "aaaa0003")).toEqual(["three"]);
    expect(contextTexts(index, "aaaa0002")).toEqual(["two"]);
  });

  it("parent cycle of 3: every member a root, each problem naming all three lines", () => {
    const path = writeSession(
      "cycle-3",
      jsonl([
        HEADER,
        user("aaaa0001", null, "one", 1),
        user("aaaa0004", "aaaa0005", "four", 4),
        user("aaaa0005", "aaaa0006", "five", 5),
        user("aaaa0006", "aaaa0004", "six", 6),
      ]),
    );
    const index = readUnchanged(path);
    expect(problemsOf(index)).toEqual([
      { kind: "cycle", line: 3, relatedLine: 4 },
      { kind: "cycle", line: 4, relatedLine: 5 },
      { kind: "cycle", line: 5, relatedLine: 3 },
    ]);
    for (const problem of index.problems) expect(problem.message).toContain("3, 4, 5");
    expect(index.roots).toEqual(["aaaa0001", "aaaa0004", "aaaa0005", "aaaa0006"]);
    expect(treeOf(index)).toEqual({
      aaaa0001: [null, [], 0],
      aaaa0004: [null, [], 0],
      aaaa0005: [null, [], 0],
      aaaa0006: [null, [], 0],
    });
    expect(index.leafId).toBe("aaaa0006");
    expect(contextTexts(index, undefined)).toEqual(["six"]);
    expect(contextTexts(index, "aaaa0005")).toEqual(["five"]);
  });

  it("leaf below a cycle: the cycle's members are roots, the leaf stays below its parent; every context terminates", () => {
    // Line 3: the leaf hangs below c2. Lines 4-6: c1 -> c3 -> c2 -> c1.
    const path = writeSession(
      "cycle-leaf",
      jsonl([
        HEADER,
        user("aaaa0001", null, "one", 1),
        user("bbbb0000", "cccc0002", "leaf", 3),
        user("cccc0001", "cccc0003", "c1", 4),
        user("cccc0002", "cccc0001", "c2", 5),
        user("cccc0003", "cccc0002", "c3", 6),
      ]),
    );
    const first = readUnchanged(path);
    const second = readUnchanged(path);
    for (const index of [first, second]) {
      expect(problemsOf(index)).toEqual([
        { kind: "cycle", line: 4, relatedLine: 6 },
        { kind: "cycle", line: 5, relatedLine: 4 },
        { kind: "cycle", line: 6, relatedLine: 5 },
      ]);
      expect(index.problems.map((problem) => problem.entryId)).toEqual(["cccc0001", "cccc0002", "cccc0003"]);
      expect(index.roots).toEqual(["aaaa0001", "cccc0001", "cccc0002", "cccc0003"]);
      expect(treeOf(index)).toEqual({
        aaaa0001: [null, [], 0],
        bbbb0000: ["cccc0002", [], 1],
        cccc0001: [null, [], 0],
        cccc0002: [null, ["bbbb0000"], 0],
        cccc0003: [null, [], 0],
      });
    }
    expect(contextTexts(first, "bbbb0000")).toEqual(["c2", "leaf"]);
    expect(contextTexts(first, "cccc0003")).toEqual(["c3"]);
    expect(contextTexts(first, "cccc0001")).toEqual(["c1"]);
    // Over the raw parent links (Pi's signature, no cut), every walk still ends, visiting each entry once.
    const raw = contextGraphOfEntries(first.entries);
    for (const id of ["bbbb0000", "cccc0001", "cccc0002", "cccc0003"]) {
      const ids = buildSessionPath(raw, id).map((e) => e.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids[ids.length - 1]).toBe(id);
      expect(ids.length).toBe(id === "bbbb0000" ? 4 : 3);
    }
  });
});

// ---------------------------------------------------------------------------
// Old versions

describe("old versions", () => {
  // Pi's v1 list: [header 0, A 1, B 2, C 3, compaction 4, D 5] (blank and malformed lines are not in it),
  // so firstKeptEntryIndex 3 is C.
  const V1 = jsonl([
    '{"type":"session","id":"0193f2a4-7c1e-7000-8000-0000000000v1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp"}',
    '{"type":"message","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"A","timestamp":1}}',
    "",
    '{"type":"message",',
    '{"type":"message","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"B"}],"provider":"p","model":"m","timestamp":2}}',
    '{"type":"message","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"user","content":"C","timestamp":3}}',
    '{"type":"compaction","timestamp":"2026-01-01T00:00:04.000Z","summary":"A and B","firstKeptEntryIndex":3,"tokensBefore":100}',
    '{"type":"message","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":"D","timestamp":5}}',
  ]);

  it("version 1: deterministic ids, a linear chain, firstKeptEntryIndex migrated to firstKeptEntryId, file untouched", () => {
    const path = writeSession("v1", V1);
    const index = readUnchanged(path);
    expect(problemsOf(index)).toEqual([
      { kind: "legacy-version", line: 1 },
      { kind: "malformed-json", line: 4 },
    ]);
    expect(index.version).toBe(1);
    expect(entryLinesOf(index)).toEqual([2, 5, 6, 7, 8]);
    const ids = entryIds(index);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}$/);
    expect(new Set(ids).size).toBe(5);
    expect(index.entries.map((e) => e.parentId)).toEqual([null, ids[0], ids[1], ids[2], ids[3]]);
    const compaction = index.entries[3]!;
    expect(compaction.type).toBe("compaction");
    expect(compaction.firstKeptEntryId).toBe(ids[2]);
    expect("firstKeptEntryIndex" in compaction).toBe(false);
    const context = buildSessionContext(contextGraphOf(index, inMemoryEntryReader(index)), undefined);
    expect(context.messages.map((m) => m.role)).toEqual(["compactionSummary", "user", "user"]);
    expect(context.messages.slice(1).map((m) => m.content)).toEqual(["C", "D"]);
    expect(context.model).toEqual({ provider: "p", modelId: "m" });

    // The same ids on a second read and on a copy at another path.
    expect(entryIds(readUnchanged(path))).toEqual(ids);
    const copy = join(dir, "v1-copy.jsonl");
    copyFileSync(path, copy);
    expect(entryIds(readUnchanged(copy))).toEqual(ids);
    expect(readFileSync(path, "utf8")).toBe(V1);
  });

  it("version 2 with a hookMessage role: read as custom in memory, the file still says hookMessage", () => {
    const content = jsonl([
      '{"type":"session","version":2,"id":"0193f2a4-7c1e-7000-8000-0000000000v2","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp"}',
      user("aaaa0001", null, "one", 1),
      '{"type":"message","id":"aaaa0002","parentId":"aaaa0001","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"hookMessage","customType":"note","content":"remember","display":true,"timestamp":2}}',
    ]);
    const path = writeSession("v2", content);
    const index = readUnchanged(path);
    expect(problemsOf(index)).toEqual([{ kind: "legacy-version", line: 1 }]);
    expect(index.version).toBe(2);
    expect(entryIds(index)).toEqual(["aaaa0001", "aaaa0002"]);
    expect(inMemoryEntryReader(index).facts("aaaa0002")!.role).toBe("custom");
    const context = buildSessionContext(contextGraphOf(index, inMemoryEntryReader(index)), "aaaa0002");
    expect(context.messages[1]).toEqual({
      role: "custom",
      customType: "note",
      content: "remember",
      display: true,
      timestamp: 2,
    });
    expect(convertToLlm(context.messages)[1]).toEqual({
      role: "user",
      content: [{ type: "text", text: "remember" }],
      timestamp: 2,
    });
    expect(readFileSync(path, "utf8")).toBe(content);
  });
});

// ---------------------------------------------------------------------------
// Size

describe("size", () => {
  it("a single line of 100 MiB parses", { timeout: 120_000 }, () => {
    const textBytes = 100 * 1024 * 1024;
    const prefix = `{"type":"message","id":"aaaa0002","parentId":"aaaa0001","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"START`;
    const suffix = `END","timestamp":2}}\n`;
    const path = join(dir, "huge-line.jsonl");
    const fd = openSync(path, "w");
    try {
      writeSync(fd, `${HEADER}\n${user("aaaa0001", null, "one", 1)}\n`);
      writeSync(fd, prefix);
      const piece = Buffer.alloc(1024 * 1024, "abcdefghijklmnop");
      for (let written = 0; written < textBytes; written += piece.length) writeSync(fd, piece);
      writeSync(fd, suffix);
      writeSync(fd, `${user("aaaa0003", "aaaa0002", "three", 3)}\n`);
    } finally {
      closeSync(fd);
    }
    const timing = { ms: 0 };
    const index = readUnchanged(path, timing);
    expect(problemsOf(index)).toEqual([]);
    expect(entryIds(index)).toEqual(["aaaa0001", "aaaa0002", "aaaa0003"]);
    const node = index.nodes.get("aaaa0002")!;
    expect(node.line).toBe(3);
    expect(node.byteLength).toBe(prefix.length + textBytes + suffix.length - 1);
    const content = (node.entry.message as { content: string }).content;
    expect(content.length).toBe(textBytes + "STARTEND".length);
    expect(content.startsWith("STARTabcdefghijklmnopabcd")).toBe(true);
    expect(content.endsWith("mnopEND")).toBe(true);
    // Any view kept of the reused read buffer would corrupt a 1 MiB stretch somewhere; spot-check it.
    for (const at of [5, 1 << 20, 5 + 37 * (1 << 20), textBytes - 11]) {
      expect(content.slice(at, at + 16)).toBe(
        "abcdefghijklmnop".repeat(2).slice((at - 5) % 16, ((at - 5) % 16) + 16),
      );
    }
    expect(index.nodes.get("aaaa0003")!.parentId).toBe("aaaa0002");
    console.info(`100 MiB line: readWholeSessionFile took ${(timing.ms / 1000).toFixed(1)} s`);
    rmSync(path);
  });

  const LARGE_BYTES = 600 * 1000 * 1000;
  const V8_MAX_STRING_LENGTH = 2 ** 29 - 24;

  it("a ~600 MB file (longer than V8's longest string) is read line by line, not decoded whole", {
    timeout: 300_000,
  }, (ctx) => {
    const free = statfsSync(tmpdir());
    const freeBytes = free.bavail * free.bsize;
    ctx.skip(freeBytes < 3 * 1024 ** 3, `needs 3 GB free in ${tmpdir()}, has ${freeBytes} bytes`);
    // Each line is a small entry padded with 60,000 spaces of JSON white space: the file is large,
    // what is parsed stays small, so memory stays modest.
    const padding = Buffer.alloc(60_000, " ");
    const path = join(dir, "large.jsonl");
    const fd = openSync(path, "w");
    let lines = 0;
    try {
      writeSync(fd, `${HEADER}\n`);
      let written = HEADER.length + 1;
      let previous: string | null = null;
      while (written < LARGE_BYTES) {
        const id = lines.toString(16).padStart(8, "0");
        const head = `{"type":"message","id":"${id}","parentId":${previous === null ? "null" : `"${previous}"`},"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"m${lines}","timestamp":1}`;
        written += writeSync(fd, head);
        written += writeSync(fd, padding);
        written += writeSync(fd, "}\n");
        previous = id;
        lines += 1;
      }
    } finally {
      closeSync(fd);
    }
    try {
      const size = statSync(path).size;
      expect(size).toBeGreaterThan(V8_MAX_STRING_LENGTH);
      const timing = { ms: 0 };
      const index = readUnchanged(path, timing);
      expect(problemsOf(index)).toEqual([]);
      expect(index.entries.length).toBe(lines);
      expect(index.byteLength).toBe(size);
      expect(index.lineCount).toBe(lines + 1);
      const lastId = (lines - 1).toString(16).padStart(8, "0");
      expect(index.leafId).toBe(lastId);
      expect(index.nodes.get(lastId)!.depth).toBe(lines - 1);
      expect(index.roots).toEqual(["00000000"]);
      expect((index.byId.get(lastId)!.message as { content: string }).content).toBe(`m${lines - 1}`);
      console.info(
        `600 MB file: ${lines} entries, ${size} bytes, readWholeSessionFile took ${(timing.ms / 1000).toFixed(1)} s`,
      );
    } finally {
      rmSync(path, { force: true });
    }
  });
});

// ---------------------------------------------------------------------------
// Chunking

describe("SessionParser chunking", () => {
  /** A file with something at every awkward place: BOM, CRLF, multi-byte characters, bad bytes, a line across 1 MiB. */
  function awkwardBytes(): Buffer {
    const parts: Buffer[] = [
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from(`${HEADER}\r\n`),
      Buffer.from(`${user("aaaa0001", null, "héllo wörld ✓ 𝄞 😀", 1)}\n`),
      Buffer.from("\n  \n"),
      Buffer.from('{"type":"message","id":\n'),
      Buffer.from("[1,2,3]\n"),
      Buffer.from(`${user("aaaa0002", "aaaa0001", "crlf line", 2)}\r\n`),
    ];
    const badBytes = Buffer.from(`${user("aaaa0003", "aaaa0002", "x@@", 3)}\n`);
    const at = badBytes.indexOf("@@");
    badBytes[at] = 0xc3; // a lead byte followed by "(": invalid
    badBytes[at + 1] = 0x28;
    parts.push(badBytes);
    const filler = "€".repeat(200_000); // 600,000 bytes
    parts.push(Buffer.from(`${user("aaaa0004", "aaaa0003", filler, 4)}\n`));
    const length = parts.reduce((sum, part) => sum + part.length, 0);
    // Pad with an ASCII line so that byte 1 MiB falls inside a 3-byte "€" of the next long line.
    const long = user("aaaa0005", "aaaa0004", "€".repeat(300_000), 5);
    const startOfEuros = long.indexOf("€");
    let pad = 0;
    for (; pad < 3; pad++) {
      const offsetOfMiB = (1 << 20) - (length + pad + 1) - Buffer.byteLength(long.slice(0, startOfEuros));
      if (offsetOfMiB > 0 && offsetOfMiB % 3 === 1) break;
    }
    parts.push(Buffer.from(`${" ".repeat(pad)}\n`));
    parts.push(Buffer.from(`${long}\n`));
    parts.push(Buffer.from(`${user("aaaa0006", "aaaa0005", "tail ✓", 6)}`)); // unterminated
    const bytes = Buffer.concat(parts);
    const boundary = bytes[1 << 20]!;
    expect(boundary & 0xc0, "byte 1 MiB is a UTF-8 continuation byte").toBe(0x80);
    return bytes;
  }

  function parseInChunks(bytes: Uint8Array, size: number, mode: "views" | "reused"): ParsedSession {
    const parser = new SessionParser();
    const reused = Buffer.alloc(size);
    for (let at = 0; at < bytes.length; at += size) {
      const end = Math.min(bytes.length, at + size);
      if (mode === "views") {
        parser.push(bytes.subarray(at, end));
      } else {
        reused.set(bytes.subarray(at, end), 0);
        parser.push(reused.subarray(0, end - at));
        reused.fill(0x7b); // scribble "{" over it, as the next read would
      }
    }
    return parser.end();
  }

  it("1, 7, 4096 bytes and 1 MiB chunks, as views and through a reused Buffer, give identical results", {
    timeout: 120_000,
  }, () => {
    const bytes = awkwardBytes();
    const whole = new SessionParser();
    whole.push(bytes);
    const reference = whole.end();

    // The reference itself, by hand.
    expect(
      reference.problems.map((p) => [p.kind, p.line]).sort((a, b) => (a[1] as number) - (b[1] as number)),
    ).toEqual([
      ["bom", 1],
      ["malformed-json", 5],
      ["not-an-object", 6],
      ["invalid-utf8", 8],
      ["unterminated-last-line", 12],
    ]);
    expect(reference.header?.id).toBe(SESSION_ID);
    expect([...reference.records].map((r) => [r.value.id, r.line])).toEqual([
      ["aaaa0001", 2],
      ["aaaa0002", 7],
      ["aaaa0003", 8],
      ["aaaa0004", 9],
      ["aaaa0005", 11],
      ["aaaa0006", 12],
    ]);
    const contentOf = (i: number) => (reference.records.value(i).message as { content: string }).content;
    expect(contentOf(0)).toBe("héllo wörld ✓ 𝄞 😀");
    expect(contentOf(1)).toBe("crlf line");
    expect(contentOf(2)).toBe("x\uFFFD(");
    expect(contentOf(3)).toBe("€".repeat(200_000));
    expect(contentOf(4)).toBe("€".repeat(300_000));
    expect(contentOf(5)).toBe("tail ✓");
    expect(reference.unterminatedLastLine).toEqual({
      line: 12,
      offset: bytes.lastIndexOf(10) + 1,
      parsed: true,
    });
    expect(reference.byteLength).toBe(bytes.length);
    expect(reference.lineCount).toBe(12);

    const expected = JSON.stringify(reference);
    for (const size of [1, 7, 4096, 1 << 20]) {
      for (const mode of ["views", "reused"] as const) {
        const result = parseInChunks(bytes, size, mode);
        expect(JSON.stringify(result), `${size}-byte chunks, ${mode}`).toBe(expected);
      }
    }
  });
});
