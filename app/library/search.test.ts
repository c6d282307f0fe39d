import { appendFileSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openIndexedFile } from "../store/open-indexed-file.ts";
import type { SearchHit } from "./search-file.ts";
import { createSessionLibrary, type SessionLibrary } from "./session-library.ts";
import { matchText, queryTerms, TermSet, termsOf } from "./tokenize.ts";
import { SessionBuilder, tempFolder, writeLines } from "./testing.ts";

let folder: ReturnType<typeof tempFolder>;
let dir: string;
let cacheDir: string;
let lib: SessionLibrary;
const ids: Record<string, string> = {};
let mainPath: string;
let otherPath: string;

beforeEach(async () => {
  folder = tempFolder();
  dir = join(folder.path, "sessions");
  cacheDir = join(folder.path, "cache");
  mkdirSync(dir);
  const s = new SessionBuilder("019e-main", "/home/u/alpha");
  ids.name = s.name("Refactor the zebra module");
  ids.user = s.user("Please migrate the SQLite database, then check the Größe of テスト files");
  ids.assistant = s.assistant("I will start with the migration plan.", [
    { name: "read", arguments: { path: "src/parser/widget.ts", offset: 10 } },
    { name: "bash", arguments: { command: "npm run frobnicate -- --fast", timeout: 60 } },
  ]);
  ids.result = s.toolResult("read", "secretoutput of the widget file");
  ids.bash = s.message({
    role: "bashExecution",
    command: "git bisect start",
    output: "bisecting",
    exitCode: 0,
    cancelled: false,
    truncated: false,
  });
  ids.custom = s.entry({
    type: "custom_message",
    customType: "reminder",
    content: "remember the quokka",
    display: true,
  });
  mainPath = s.write(join(dir, "main.jsonl"));
  const other = new SessionBuilder("019e-other", "/home/u/beta");
  ids.otherUser = other.user("Another sqlite question about the widget");
  otherPath = other.write(join(dir, "other.jsonl"));
  lib = createSessionLibrary({ roots: [dir], cacheDir });
  await lib.scan();
});
afterEach(async () => {
  await lib.dispose();
  folder.cleanup();
});

const brief = (hits: SearchHit[]) => hits.map((hit) => [hit.sessionId, hit.entryId, hit.field, hit.toolName]);

describe("search", () => {
  it("finds names, message texts, tool-call arguments and bash commands, pointing at the entry", async () => {
    expect(brief(await lib.search("zebra"))).toEqual([["019e-main", ids.name, "name", undefined]]);
    expect(brief(await lib.search("migrate database"))).toEqual([["019e-main", ids.user, "user", undefined]]);
    expect(brief(await lib.search("migration plan"))).toEqual([
      ["019e-main", ids.assistant, "assistant", undefined],
    ]);
    expect(brief(await lib.search("parser/widget.ts"))).toEqual([
      ["019e-main", ids.assistant, "tool", "read"],
    ]);
    expect(brief(await lib.search("frobnicate"))).toEqual([["019e-main", ids.assistant, "bash", "bash"]]);
    expect(brief(await lib.search("bisect"))).toEqual([["019e-main", ids.bash, "bash", undefined]]);
    expect(brief(await lib.search("quokka"))).toEqual([["019e-main", ids.custom, "custom", undefined]]);
  });

  it("matches words as prefixes, ignoring case, in any script", async () => {
    expect(brief(await lib.search("FROBN"))).toEqual([["019e-main", ids.assistant, "bash", "bash"]]);
    expect(brief(await lib.search("größe"))).toEqual([["019e-main", ids.user, "user", undefined]]);
    expect(brief(await lib.search("テスト"))).toEqual([["019e-main", ids.user, "user", undefined]]);
    expect(await lib.search("zebr mod")).toHaveLength(1);
    expect(await lib.search("ebra")).toEqual([]);
  });

  it("needs every word in one text of one entry", async () => {
    // Both sessions mention sqlite; only one user message also mentions the widget.
    expect(brief(await lib.search("sqlite widget"))).toEqual([
      ["019e-other", ids.otherUser, "user", undefined],
    ]);
    expect(await lib.search("zebra frobnicate")).toEqual([]);
    expect(new Set((await lib.search("sqlite")).map((hit) => hit.sessionPath))).toEqual(
      new Set([mainPath, otherPath]),
    );
    expect(await lib.search("")).toEqual([]);
    expect(await lib.search("a ! ?")).toEqual([]);
  });

  it("leaves tool output out", async () => {
    expect(await lib.search("secretoutput")).toEqual([]);
  });

  it("gives a snippet around the match with the matched words marked", async () => {
    const [hit] = await lib.search("sqlite");
    const mainHit = (await lib.search("migrate")).at(0)!;
    expect(hit?.snippet).toMatch(/sqlite/i);
    expect(mainHit.snippet).toBe("Please migrate the SQLite database, then check the Größe of テスト files");
    expect(mainHit.highlights.map(([start, end]) => mainHit.snippet.slice(start, end))).toEqual(["migrate"]);
    const long = new SessionBuilder("019e-long", "/home/u/gamma");
    long.user(
      `${"filler words here ".repeat(40)}the needle sits in the middle ${"and more after it ".repeat(40)}`,
    );
    long.write(join(dir, "long.jsonl"));
    await lib.scan();
    const [needle] = await lib.search("needle");
    expect(needle?.snippet.startsWith("…")).toBe(true);
    expect(needle?.snippet.endsWith("…")).toBe(true);
    expect(needle?.snippet.length).toBeLessThanOrEqual(204);
    expect(needle?.highlights.map(([start, end]) => needle.snippet.slice(start, end))).toEqual(["needle"]);
  });

  it("delivers hits as it finds them, up to the limit", async () => {
    const many = new SessionBuilder("019e-many", "/home/u/gamma");
    for (let n = 0; n < 50; n++) many.user(`haystack message ${n}`);
    many.write(join(dir, "many.jsonl"));
    await lib.scan();
    const delivered: SearchHit[] = [];
    const hits = await lib.search("haystack", { limit: 10, onHit: (hit) => delivered.push(hit) });
    expect(hits).toHaveLength(10);
    expect(delivered).toEqual(hits);
    expect(hits.map((hit) => hit.line)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    const controller = new AbortController();
    controller.abort();
    await expect(lib.search("haystack", { signal: controller.signal })).rejects.toMatchObject({
      name: "AbortError",
    });
  });

  it("ranks by recency when asked", async () => {
    const hits = await lib.search("sqlite", { order: "recent" });
    const modified = hits.map((hit) => lib.session(hit.sessionPath)!.modified);
    expect(modified).toEqual([...modified].sort((a, b) => b - a));
  });

  it("follows the files: appended, removed, and after a restart from the cache", async () => {
    appendFileSync(
      mainPath,
      `${JSON.stringify({ type: "message", id: "late0001", parentId: ids.custom, timestamp: "2026-01-02T00:00:00.000Z", message: { role: "user", content: "a newword arrives", timestamp: 1 } })}\n`,
    );
    expect(await lib.search("newword")).toEqual([]);
    await lib.scan();
    expect(brief(await lib.search("newword"))).toEqual([["019e-main", "late0001", "user", undefined]]);
    rmSync(otherPath);
    await lib.scan();
    expect((await lib.search("sqlite")).map((hit) => hit.sessionPath)).toEqual([mainPath]);

    const restarted = createSessionLibrary({ roots: [dir], cacheDir });
    expect(await restarted.scan()).toMatchObject({ read: 0, cache: "loaded" });
    expect(brief(await restarted.search("newword"))).toEqual([["019e-main", "late0001", "user", undefined]]);
    expect(await restarted.search("another")).toEqual([]);
    await restarted.dispose();
  });

  it("searches while a scan is still going, over the files read so far", async () => {
    for (let n = 0; n < 8; n++) {
      const s = new SessionBuilder(`019e-s${n}`, "/home/u/delta", { start: Date.UTC(2026, 0, 1) + n * 1000 });
      s.user(`progressive ${n}`);
      s.write(join(dir, `p${n}.jsonl`));
    }
    const fresh = createSessionLibrary({ roots: [dir], cacheDir: null, concurrency: 1 });
    const searches: Promise<number>[] = [];
    await fresh.scan({
      onProgress: () => searches.push(fresh.search("progressive").then((hits) => hits.length)),
    });
    // One search per progress event (11: the start and 10 files), each over the files indexed by then.
    const counts = await Promise.all(searches);
    expect(counts).toHaveLength(11);
    expect(counts[0]).toBe(0);
    expect(counts.at(-1)).toBe(8);
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    expect(new Set(counts).size).toBe(9);
    await fresh.dispose();
  });

  it("gives entries of a version 1 file the ids Arbor's session view gives them", async () => {
    const v1 = writeLines(join(dir, "v1.jsonl"), [
      { type: "session", id: "019e-v1", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/home/u/old" },
      {
        type: "message",
        timestamp: "2026-01-01T00:01:00.000Z",
        message: { role: "user", content: "legacy wombat" },
      },
      {
        type: "message",
        timestamp: "2026-01-01T00:02:00.000Z",
        message: { role: "assistant", content: [{ type: "text", text: "a wombat indeed" }] },
      },
    ]);
    await lib.scan();
    const hits = await lib.search("wombat");
    const opened = openIndexedFile(v1);
    const expected = opened.index.entries.map((entry) => entry.id);
    opened.close();
    expect(hits.map((hit) => hit.entryId)).toEqual(expected);
    expect(hits.every((hit) => /^[0-9a-f]{8}$/.test(hit.entryId))).toBe(true);
  });
});

describe("terms", () => {
  it("cuts letters and digits, lowercased, two to forty characters", () => {
    expect(termsOf("Hello, wörld! x foo_bar-baz 42 日本語 🎉ok")).toEqual([
      "hello",
      "wörld",
      "foo",
      "bar",
      "baz",
      "42",
      "日本語",
      "ok",
    ]);
    expect(termsOf(`${"a".repeat(41)} ${"b".repeat(40)}`)).toEqual(["b".repeat(40)]);
    expect(queryTerms("Foo foo FOO bar")).toEqual(["foo", "bar"]);
  });

  it("keeps each distinct term of a session once", () => {
    const set = new TermSet();
    set.add("alpha beta ALPHA gamma");
    set.add("beta delta alphabet");
    expect(set.terms).toEqual(["alpha", "beta", "gamma", "delta", "alphabet"]);
    const big = new TermSet();
    for (let n = 0; n < 5000; n++) big.add(`word${n} common`);
    expect(big.size).toBe(5001);
    expect(new Set(big.terms).size).toBe(5001);
  });

  it("matches when every query term starts a term of the text", () => {
    expect(matchText("The quick brown fox", ["qui", "fox"])).toEqual({ index: 4, length: 5 });
    expect(matchText("The quick brown fox", ["uick"])).toBeNull();
    expect(matchText("The quick brown fox", ["quick", "dog"])).toBeNull();
  });
});
