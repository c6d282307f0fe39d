/**
 * Saved parses (parse-cache.ts) against fresh reads of the same real files:
 * an index built from a saved parse, with or without lines appended after
 * it, must be the index a parse of the file gives, for Pi's recorded
 * sessions and for generated files with every kind of damage. A saved parse
 * that does not fit the file (other bytes, shorter file, damaged cache file,
 * another format version) is never used.
 */

import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  appendFileSync,
  existsSync,
  readdirSync,
  readFileSync,
  statSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SessionParser } from "../../shared/session/parse.ts";
import { generateSession } from "../../shared/session/testing/generate-session.ts";
import type { EntryReader } from "../../shared/session/entry-reader.ts";
import type { SessionIndex } from "../../shared/session/tree-index.ts";
import { writeDemoLibrary } from "../demo/demo-library.ts";
import { openIndexedFile } from "./open-indexed-file.ts";
import { createParseCache, encodeSavedParse, PARSE_CACHE_VERSION, type ParseCache } from "./parse-cache.ts";
import { SessionStore } from "./session-store.ts";
import { chainLines, fileText, headerLine, snapshot, tempDirs, userLine, waitFor } from "./testing/files.ts";
import { ensureNoLeaks } from "../../shared/lifecycle/testing.ts";

ensureNoLeaks();

const dirs = tempDirs("parse-cache");
afterAll(() => dirs.cleanup());

const FIXTURES = join(import.meta.dirname, "..", "..", "..", "shared", "fixtures", "pi-recorded");

/** A cache in a fresh folder that takes files of any size. */
function freshCache(): { cache: ParseCache; dir: string } {
  const dir = join(dirs.make(), "open-cache");
  return { cache: createParseCache(dir, { minBytes: 0 }), dir };
}

/** Everything a reader of the index sees, facts and entry stubs included. */
function observed({ index, reader }: { index: SessionIndex; reader: EntryReader }) {
  return {
    ...snapshot(index),
    problemTexts: index.problems.map((p) => `${p.line} ${p.kind} ${p.severity} ${p.message}`),
    stubs: [...index.nodes.values()].map((node) => node.entry),
    facts: [...index.nodes.values()].map((node) => reader.factsOfNode(node)),
    records: [...index.source.records],
    parseProblems: index.source.parseProblems,
    headerLine: index.source.headerLine,
    trailingNonEntryLine: index.trailingNonEntryLine,
  };
}

function fresh(path: string) {
  const opened = openIndexedFile(path, { mode: "structure-with-facts" });
  try {
    return observed(opened);
  } finally {
    opened.close();
  }
}

/**
 * Opens with the cache, saves what it learned (as the store does, later),
 * returns how it read, what it saw, whether it saved the parse, and the view.
 */
function openCached(path: string, cache: ParseCache) {
  let saved = false;
  const recording: ParseCache = {
    ...cache,
    save: (...args) => {
      saved = true;
      return cache.save(...args);
    },
  };
  const opened = openIndexedFile(path, { mode: "structure-with-facts", parseCache: recording });
  try {
    opened.saveForNextOpen?.();
    return { read: opened.read, seen: observed(opened), saved, savedView: opened.savedView };
  } finally {
    opened.close();
  }
}

/** For each tail: saves the parse of `lines`, appends the tail, and expects the open from the saved parse to equal a fresh one. */
function expectAppendsReadAsFresh(lines: string[], tails: readonly string[]): void {
  for (const tail of tails) {
    const path = writeFile(fileText(lines));
    const { cache } = freshCache();
    openCached(path, cache);
    appendFileSync(path, tail);
    const grown = openCached(path, cache);
    expect(grown.read.from, tail).toBe("saved");
    expect(grown.seen, tail).toEqual(fresh(path));
  }
}

/** A saved-parse file holding `body`, with its checksum line. */
function savedFileText(body: string): string {
  return `${createHash("sha256").update(body).digest("hex")}\n${body}`;
}

function writeFile(text: string | Uint8Array, name = "session.jsonl"): string {
  const path = join(dirs.make(), name);
  writeFileSync(path, text);
  return path;
}

describe("a saved parse reads back as the parse of the file", () => {
  it("Pi's recorded sessions (version 1: read whole, never saved) and the demo library's (version 3)", () => {
    const recorded = readdirSync(FIXTURES)
      .filter((name) => name.endsWith(".jsonl"))
      .map((name) => join(FIXTURES, name));
    expect(recorded.length, `fixtures in ${FIXTURES}`).toBeGreaterThan(0);
    const demoRoot = dirs.make();
    const demo = writeDemoLibrary(demoRoot).filter((path) => path.endsWith(".jsonl"));
    expect(demo.length).toBeGreaterThan(3);
    let saved = 0;
    for (const path of [...recorded, ...demo]) {
      const { cache } = freshCache();
      const first = openCached(path, cache);
      expect(first.read, path).toEqual({ from: "file" });
      const second = openCached(path, cache);
      const version = JSON.parse(readFileSync(path, "utf8").split("\n")[0]!).version ?? 1;
      const whole = version >= 3 && readFileSync(path, "utf8").endsWith("\n");
      expect(second.read, path).toEqual(whole ? { from: "saved", tailBytes: 0 } : { from: "file" });
      expect(second.seen, path).toEqual(fresh(path));
      // Nothing new was read: nothing to save again.
      if (whole) expect(second.saved, path).toBe(false);
      if (whole) saved++;
    }
    expect(saved).toBeGreaterThanOrEqual(3);
  });

  it("generated sessions with every kind of damage (60 seeds)", () => {
    let fromSaved = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const generated = generateSession({ seed, damage: seed % 4 !== 0 });
      const path = writeFile(generated.text);
      const { cache } = freshCache();
      openCached(path, cache);
      const second = openCached(path, cache);
      expect(second.seen, `seed ${seed}`).toEqual(fresh(path));
      // A file that ends inside a line is not saved (the line may still be being written).
      const whole = generated.text.endsWith("\n");
      expect(second.read, `seed ${seed}`).toEqual(whole ? { from: "saved", tailBytes: 0 } : { from: "file" });
      if (whole) fromSaved++;
    }
    expect(fromSaved).toBeGreaterThan(20);
  });

  it("lines appended after the save are parsed on top of it, as a follower reads them", () => {
    for (let seed = 100; seed < 130; seed++) {
      const generated = generateSession({
        seed,
        damage: { duplicateIds: seed % 2 === 0, orphans: seed % 3 === 0 },
      });
      const lines = generated.text.split("\n").filter((line) => line !== "");
      const cut = Math.max(2, Math.floor(lines.length * 0.6));
      const path = writeFile(fileText(lines.slice(0, cut)));
      const { cache } = freshCache();
      openCached(path, cache);
      appendFileSync(path, fileText(lines.slice(cut)));
      const grown = openCached(path, cache);
      expect(grown.read, `seed ${seed}`).toEqual({
        from: "saved",
        tailBytes: statSync(path).size - Buffer.byteLength(fileText(lines.slice(0, cut))),
      });
      expect(grown.seen, `seed ${seed}`).toEqual(fresh(path));
    }
  });

  it("an appended damaged line, extra header or half-written line reads as in a fresh parse", () => {
    const tails = [
      "{not json\n",
      `${headerLine({ id: "other" })}\n`,
      '{"type":"message","id":"late","parentId":"e3","timestamp":"2026-01-01T00:00:09.000Z","message":{"role":"us',
      "42\n",
      `${userLine("e2", "e4", "same id again", 9)}\n`,
    ];
    expectAppendsReadAsFresh(chainLines(4), tails);
  });

  it("a saved file that ends in a non-entry value (Pi resumes with an empty context) keeps it after appends", () => {
    // An entry appended after such a value is left out: a resumed parser numbers it (`piIndex`, used only by
    // version-1 compactions, never saved) without the value, as the follower always has.
    expectAppendsReadAsFresh(
      [...chainLines(4), "42"],
      ["\n", "{bad\n", "null\n", `${headerLine({ id: "other" })}\n`],
    );
  });

  it("a megabyte appended makes the open save the parse again; less does not", () => {
    const path = writeFile(fileText(chainLines(10)));
    const { cache } = freshCache();
    openCached(path, cache);
    appendFileSync(path, fileText([userLine("small", "e10", "a little more", 11)]));
    expect(openCached(path, cache).saved).toBe(false);
    const big = "x".repeat(1024);
    const more: string[] = [];
    for (let i = 0; i < 1100; i++) more.push(userLine(`m${i}`, i === 0 ? "small" : `m${i - 1}`, big, 12));
    appendFileSync(path, fileText(more));
    const grown = openCached(path, cache);
    expect(grown.saved).toBe(true);
    // The saved parse now covers the whole file.
    expect(openCached(path, cache).read).toEqual({ from: "saved", tailBytes: 0 });
  });
});

describe("a saved parse that does not fit the file is not used", () => {
  it("one byte changed in the middle, same size: parsed again, and the new parse is what shows", () => {
    const path = writeFile(fileText(chainLines(20)));
    const { cache } = freshCache();
    openCached(path, cache);
    const bytes = readFileSync(path);
    const at = bytes.indexOf("question 7");
    bytes[at] = "Q".charCodeAt(0);
    writeFileSync(path, bytes);
    const reread = openCached(path, cache);
    expect(reread.read).toEqual({ from: "file" });
    expect(reread.seen).toEqual(fresh(path));
    expect(reread.seen.facts.some((facts) => facts.preview === "Question 7")).toBe(true);
  });

  it("a file shorter than the saved parse, or cut and regrown: parsed again", () => {
    const path = writeFile(fileText(chainLines(20)));
    const { cache } = freshCache();
    openCached(path, cache);
    const size = statSync(path).size;
    truncateSync(path, size - 10);
    expect(openCached(path, cache).read).toEqual({ from: "file" });
    // Regrown past the old size with other bytes than before.
    writeFileSync(path, fileText([...chainLines(12), userLine("x", "e12", "other", 40), ...[]]));
    appendFileSync(path, fileText(chainLines(30).slice(13)));
    const reread = openCached(path, cache);
    expect(reread.seen).toEqual(fresh(path));
  });

  it("a damaged, truncated, foreign or other-version cache file: parsed again, no error", () => {
    const path = writeFile(fileText(chainLines(20)));
    const { cache, dir } = freshCache();
    openCached(path, cache);
    const [name] = readdirSync(dir).filter((file) => file.endsWith(".json"));
    const file = join(dir, name!);
    const good = readFileSync(file, "utf8");
    const form = JSON.parse(good.slice(good.indexOf("\n") + 1));
    // The checksum line is right for each of these: the saved form itself is what is wrong.
    const checked = (value: unknown) => savedFileText(JSON.stringify(value));
    const damaged = [
      good.slice(0, good.length / 2),
      "",
      "null",
      savedFileText("null"),
      // A digit changed on disk: the checksum no longer matches.
      good.replace('"lineStep":[2', '"lineStep":[3'),
      checked({ ...form, version: PARSE_CACHE_VERSION + 1 }),
      checked({ ...form, path: "/somewhere/else.jsonl" }),
      checked({ ...form, records: { ...form.records, count: form.records.count + 1 } }),
      checked({ ...form, records: { ...form.records, shape: form.records.shape.map(() => 99) } }),
      checked({ ...form, records: { ...form.records, values: form.records.values.slice(1) } }),
      checked({ ...form, problems: [{ nonsense: true }] }),
      checked({ ...form, shapes: [[["__proto__", 0]]] }),
      checked({ ...form, records: { ...form.records, lineStep: form.records.lineStep.map(() => 0) } }),
      checked({ ...form, records: { ...form.records, offsetGap: form.records.offsetGap.map(() => -1) } }),
      checked({ ...form, header: { ...form.header, version: 2 } }),
    ];
    expect(damaged[4]).not.toBe(good);
    for (const text of damaged) {
      writeFileSync(file, text);
      const reread = openCached(path, createParseCache(dir, { minBytes: 0 }));
      expect(reread.read, text.slice(0, 60)).toEqual({ from: "file" });
      expect(reread.seen).toEqual(fresh(path));
    }
  });

  it("a cache of another file under this file's name is refused by its digest", () => {
    const a = writeFile(fileText(chainLines(20)), "a.jsonl");
    const b = writeFile(fileText(chainLines(20)).replace("question 3", "question 9"), "b.jsonl");
    const { cache, dir } = freshCache();
    openCached(a, cache);
    const [name] = readdirSync(dir).filter((file) => file.endsWith(".json"));
    const text = readFileSync(join(dir, name!), "utf8");
    const form = JSON.parse(text.slice(text.indexOf("\n") + 1));
    const bName = `${createHash("sha1").update(b).digest("hex")}.json`;
    writeFileSync(join(dir, bName), savedFileText(JSON.stringify({ ...form, path: b })));
    expect(openCached(b, cache).read).toEqual({ from: "file" });
  });
});

describe("what is not saved", () => {
  it("files below the cache's size, legacy versions, structure-only reads, a last line without newline", () => {
    const small = writeFile(fileText(chainLines(3)));
    const { dir } = freshCache();
    const sized = createParseCache(dir, { minBytes: 1024 * 1024 });
    expect(openCached(small, sized).saved).toBe(false);

    const { cache } = freshCache();
    const legacy = writeFile(
      fileText([
        '{"type":"session","id":"old","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/tmp"}',
        '{"type":"message","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"hi"}}',
      ]),
    );
    openCached(legacy, cache);
    expect(openCached(legacy, cache).read).toEqual({ from: "file" });

    const structureOnly = openIndexedFile(small, { mode: "structure", parseCache: cache });
    expect(structureOnly.saveForNextOpen).toBeUndefined();
    structureOnly.close();

    const unterminated = writeFile(fileText(chainLines(4)) + userLine("e5", "e4", "still writing", 5));
    openCached(unterminated, cache);
    expect(openCached(unterminated, cache).read).toEqual({ from: "file" });
  });

  it("values JSON cannot write back as they are (a number too large, -0) keep the file from being saved", () => {
    const lines = chainLines(4);
    lines.push(
      '{"type":"custom","customType":"x","id":"big","parentId":"e4","timestamp":"2026-01-01T00:00:09.000Z","n":1e400}',
    );
    const path = writeFile(fileText(lines));
    const { cache } = freshCache();
    openCached(path, cache);
    const reread = openCached(path, cache);
    expect(reread.read).toEqual({ from: "file" });
    expect(reread.seen.stubs.at(-1)).toMatchObject({ n: Number.POSITIVE_INFINITY });
  });
});

describe("the folder", () => {
  it("keeps the 64 most recently used saved parses (a session's own mtime until opened) and drops stale temporary files", () => {
    const { cache, dir } = freshCache();
    const paths: string[] = [];
    for (let i = 0; i < 66; i++) {
      const path = writeFile(fileText(chainLines(2)), `s${i}.jsonl`);
      // Session i was last changed i minutes after the first: 0 and 1 are the oldest.
      const time = new Date(Date.UTC(2026, 0, 1, 0, i));
      utimesSync(path, time, time);
      paths.push(path);
    }
    openCached(paths[5]!, cache);
    // Left by a writer that has exited (its pid is in the name).
    const stale = join(dir, `${"0".repeat(40)}.json.${spawnSync(process.execPath, ["-e", ""]).pid}.tmp`);
    writeFileSync(stale, "{");
    utimesSync(stale, new Date(2020, 0, 1), new Date(2020, 0, 1));
    // Saved newest first, as a scan does; session 5 was opened (read from its saved parse) on the way.
    for (let i = 65; i >= 0; i--) openCached(paths[i]!, cache);
    // A parse and a view for each session kept.
    expect(readdirSync(dir).filter((name) => name.endsWith(".json"))).toHaveLength(64);
    expect(readdirSync(dir).filter((name) => name.endsWith(".view"))).toHaveLength(64);
    expect(cache.has(paths[0]!)).toBe(false);
    expect(cache.has(paths[1]!)).toBe(false);
    expect(cache.has(paths[2]!)).toBe(true);
    expect(cache.has(paths[5]!)).toBe(true);
    expect(cache.has(paths[65]!)).toBe(true);
    expect(existsSync(stale)).toBe(false);
  });
});

describe("the store", () => {
  it("saves a fresh parse after its delay and opens from it next time; a closed store saves nothing", async () => {
    const path = writeFile(fileText(chainLines(30)));
    const { cache, dir } = freshCache();
    const first = SessionStore.open(path, {
      mode: "structure-with-facts",
      parseCache: cache,
      parseSaveDelayMs: 0,
    });
    await waitFor(() => existsSync(dir) && readdirSync(dir).length === 2, "the saved parse and view");
    first.dispose();

    const other = writeFile(fileText(chainLines(8)));
    const closed = SessionStore.open(other, {
      mode: "structure-with-facts",
      parseCache: cache,
      parseSaveDelayMs: 20,
    });
    closed.dispose();
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(readdirSync(dir)).toHaveLength(2);

    const second = SessionStore.open(path, { mode: "structure-with-facts", parseCache: cache });
    expect(observed(second)).toEqual(fresh(path));
    second.dispose();
  });
});

describe("the saved form's version", () => {
  /**
   * A digest of the saved form of a fixed generated file. When this fails,
   * what the parser keeps has changed: saved parses of the old parser must
   * not be read as the new one's. Bump PARSE_CACHE_VERSION, then update both values here.
   */
  const EXPECTED = { version: 4, digest: "eca899d4a7feaa05cf4799531a2be783f03c1a70" };

  it("changes with what the parser keeps", () => {
    const generated = generateSession({
      seed: 7,
      entryCount: 300,
      damage: { duplicateIds: true, orphans: true },
    });
    const last = generated.entryIds.at(-1)!;
    // Lines the generator does not write: one over EAGER_LINE_MAX_BYTES (skimmed, no facts), long strings
    // in fields a stub keeps or drops by length, odd roles and types.
    const at = (second: number) => `2026-01-01T00:15:0${second}.000Z`;
    const extra = [
      userLine("long-line", last, "word ".repeat(70_000), 900),
      JSON.stringify({
        type: "custom",
        customType: "c".repeat(600),
        id: "long-field",
        parentId: "long-line",
        timestamp: at(1),
        note: "n".repeat(513),
        short: "s".repeat(512),
      }),
      JSON.stringify({
        type: "message",
        id: "odd-role",
        parentId: "long-field",
        timestamp: at(2),
        message: { role: { nested: true }, content: "x" },
      }),
      JSON.stringify({ type: 7, id: "odd-type", parentId: "odd-role", timestamp: at(3) }),
      JSON.stringify({
        type: "label",
        id: "lbl",
        parentId: "odd-type",
        timestamp: at(4),
        targetId: "odd-role",
        label: "l".repeat(700),
      }),
      // Nested too deep: a note replaces its data, and a too-deep problem is kept.
      `{"type":"custom","id":"deep","parentId":"lbl","timestamp":"${at(5)}","data":${"[".repeat(600)}${"]".repeat(600)}}`,
    ];
    const parser = new SessionParser({ mode: "structure-with-facts" });
    parser.push(new TextEncoder().encode(generated.text + fileText(extra)));
    const form = encodeSavedParse("/fixed/path.jsonl", parser.end(), "digest");
    expect(form).not.toBeNull();
    const digest = createHash("sha1").update(JSON.stringify(form)).digest("hex");
    expect({ version: PARSE_CACHE_VERSION, digest }).toEqual(EXPECTED);
  });
});
