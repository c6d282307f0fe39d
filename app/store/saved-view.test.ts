/**
 * Saved views (saved-view.ts) against what the explorer would build from a
 * fresh read of the same real files: the nodes, the view's fields, the
 * leaf's context and entry, the branch map. An open that finds a saved view of exactly the
 * file's bytes hands it on and builds no index until the index is asked
 * for; the index it then builds is the one of the bytes at the open. A view
 * of other bytes, or a damaged view file, is never used.
 */

import { createHash } from "node:crypto";
import { appendFileSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BranchModel } from "../../shared/branches/index.ts";
import { contextView, entryDetail, sessionViewContent, treeNodeViews } from "../../shared/ipc/views.ts";
import { decodeNodes } from "../../shared/ipc/node-table.ts";
import { inMemoryEntryReader, readSession } from "../../shared/session/index.ts";
import { generateSession } from "../../shared/session/testing/generate-session.ts";
import type { SessionIndex } from "../../shared/session/tree-index.ts";
import { writeDemoLibrary } from "../demo/demo-library.ts";
import { openIndexedFile } from "./open-indexed-file.ts";
import { createParseCache, type ParseCache } from "./parse-cache.ts";
import { SAVED_VIEW_VERSION, type SavedView, savedViewOf } from "./saved-view.ts";
import { SessionStore } from "./session-store.ts";
import { countingLoads } from "./testing/counting-cache.ts";
import { assistantLine, chainLines, fileText, snapshot, tempDirs, userLine } from "./testing/files.ts";
import { ensureNoLeaks } from "../../shared/lifecycle/testing.ts";

ensureNoLeaks();

const dirs = tempDirs("saved-view");
afterAll(() => dirs.cleanup());

function freshCache(): { cache: ParseCache; dir: string } {
  const dir = join(dirs.make(), "open-cache");
  return { cache: createParseCache(dir, { minBytes: 0 }), dir };
}

function writeFile(text: string, name = "session.jsonl"): string {
  const path = join(dirs.make(), name);
  writeFileSync(path, text);
  return path;
}

/** The sessions of these tests: a chain of questions and answers in /work/saved. */
function sessionLines(count: number, prefix = "e"): string[] {
  return chainLines(count, { prefix, cwd: "/work/saved" });
}

/** What an open without any cache reads. */
function freshIndex(path: string): SessionIndex {
  const opened = openIndexedFile(path, { mode: "structure-with-facts" });
  const { index, reader } = opened;
  // Facts and bodies are read while the file is open.
  for (const node of index.nodes.values()) reader.factsOfNode(node);
  return index;
}

/** Opens with the cache and saves what the open learned, as the store does later. */
function openAndSave(path: string, cache: ParseCache): void {
  const opened = openIndexedFile(path, { mode: "structure-with-facts", parseCache: cache });
  opened.saveForNextOpen?.();
  opened.close();
}

/** The saved view an open of `path` finds now (the cache is filled by a first open). */
function savedViewOfFile(path: string, cache: ParseCache): SavedView | undefined {
  const opened = openIndexedFile(path, { mode: "structure-with-facts", parseCache: cache });
  const view = opened.savedView;
  opened.close();
  return view;
}

/** Every part of a saved view equals what is built from the fresh index (through JSON, as it travels). */
function expectViewOf(view: SavedView | undefined, path: string): void {
  expect(view, path).toBeDefined();
  const opened = openIndexedFile(path, { mode: "structure-with-facts" });
  try {
    const { index, reader } = opened;
    const json = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
    expect(view!.content).toEqual(json(sessionViewContent(index, reader)));
    expect(view!.entryCount).toBe(index.entries.length);
    expect(decodeNodes(view!.nodesJson)).toEqual(treeNodeViews(index, reader));
    expect(JSON.parse(view!.leafContextJson!)).toEqual(json(contextView(index, reader, index.leafId, false)));
    expect(view!.leafEntry).toEqual(
      index.leafId === null ? null : json(entryDetail(index, reader, index.leafId)),
    );
    expect(JSON.parse(view!.branchMapJson!)).toEqual(json(BranchModel.build(index, reader).branchMap()));
  } finally {
    opened.close();
  }
}

describe("a saved view is the view the explorer builds from the file", () => {
  it("generated sessions, clean and damaged (30 seeds)", () => {
    for (let seed = 1; seed <= 30; seed++) {
      const path = writeFile(generateSession({ seed, damage: seed % 2 === 0 }).text);
      const { cache } = freshCache();
      openAndSave(path, cache);
      expectViewOf(savedViewOfFile(path, cache), path);
    }
  });

  it("the demo library's sessions", () => {
    const root = dirs.make();
    writeDemoLibrary(root);
    const paths: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (entry.isDirectory()) walk(join(dir, entry.name));
        else if (entry.name.endsWith(".jsonl")) paths.push(join(dir, entry.name));
      }
    };
    walk(root);
    expect(paths.length).toBeGreaterThan(3);
    for (const path of paths) {
      const { cache } = freshCache();
      openAndSave(path, cache);
      expectViewOf(savedViewOfFile(path, cache), path);
    }
  });

  it("a leaf context of more than 4 MB is not kept: it is built from the index when asked for", () => {
    const lines = sessionLines(4);
    const long = "long line ".repeat(450_000);
    lines.push(userLine("big", "e4", long, 9));
    const path = writeFile(fileText(lines));
    const { cache } = freshCache();
    openAndSave(path, cache);
    const view = savedViewOfFile(path, cache)!;
    expect(view.leafContextJson).toBeNull();
    expect(view.leafEntry).toBeNull();
    expect(decodeNodes(view.nodesJson).map((node) => node.id)).toContain("big");
  });
});

describe("an open with a saved view", () => {
  it("builds no index until it is asked for, then the index of the file as it was at the open", () => {
    const path = writeFile(fileText(sessionLines(40)));
    const { cache } = freshCache();
    openAndSave(path, cache);
    const expected = snapshot(freshIndex(path));
    const loads = countingLoads(cache);
    const opened = openIndexedFile(path, { mode: "structure-with-facts", parseCache: loads });
    expect(opened.savedView).toBeDefined();
    expect(loads.loads).toBe(0);
    // Pi appends while the window reads the view: those lines are the follower's to read.
    appendFileSync(path, fileText([userLine("later", "e40", "after the open", 50)]));
    expect(snapshot(opened.index)).toEqual(expected);
    expect(opened.read).toEqual({ from: "saved", tailBytes: 0 });
    expect(loads.loads).toBe(1);
    expect(opened.matchesSavedView).toBe(true);
    opened.close();
  });

  it("without a saved parse, parses the file up to its size at the open", () => {
    const path = writeFile(fileText(sessionLines(20)));
    const { cache, dir } = freshCache();
    openAndSave(path, cache);
    for (const name of readdirSync(dir))
      if (name.endsWith(".json")) writeFileSync(join(dir, name), "damaged");
    const expected = snapshot(freshIndex(path));
    const opened = openIndexedFile(path, { mode: "structure-with-facts", parseCache: cache });
    expect(opened.savedView).toBeDefined();
    appendFileSync(path, fileText([userLine("later", "e20", "after the open", 50)]));
    expect(snapshot(opened.index)).toEqual(expected);
    expect(opened.read).toEqual({ from: "file" });
    // The parse it had to make is saved for the next open.
    opened.saveForNextOpen?.();
    opened.close();
    const again = openIndexedFile(path, { mode: "structure-with-facts", parseCache: cache });
    expect(again.read).toMatchObject({ from: "saved" });
    again.close();
  });

  it("says so when the file was rewritten between the open and the index", () => {
    const path = writeFile(fileText(sessionLines(20)));
    const { cache } = freshCache();
    openAndSave(path, cache);
    const opened = openIndexedFile(path, { mode: "structure-with-facts", parseCache: cache });
    expect(opened.savedView).toBeDefined();
    writeFileSync(path, readFileSync(path, "utf8").replace("question 7", "Question 7"));
    expect(opened.index.byteLength).toBe(opened.savedView!.content.bytes);
    expect(opened.matchesSavedView).toBe(false);
    opened.close();
  });
});

describe("a saved view that does not fit the file is not used", () => {
  it("other bytes of the same size, bytes appended, a shorter file: the view is built again and saved", () => {
    const path = writeFile(fileText(sessionLines(20)));
    const { cache } = freshCache();
    openAndSave(path, cache);
    const changes = [
      () => writeFileSync(path, readFileSync(path, "utf8").replace("answer 8", "Answer 8")),
      () => appendFileSync(path, fileText([userLine("e21", "e20", "one more", 30)])),
      () => writeFileSync(path, fileText(sessionLines(12))),
    ];
    for (const change of changes) {
      change();
      expect(savedViewOfFile(path, cache)).toBeUndefined();
      openAndSave(path, cache);
      expectViewOf(savedViewOfFile(path, cache), path);
    }
  });

  it("a damaged, truncated, foreign or other-version view file: not used, no error", () => {
    const path = writeFile(fileText(sessionLines(20)));
    const other = writeFile(fileText(sessionLines(20, "o")), "other.jsonl");
    const { cache, dir } = freshCache();
    openAndSave(path, cache);
    openAndSave(other, cache);
    const viewFile = (of: string) =>
      join(
        dir,
        readdirSync(dir).find(
          (name) => name.endsWith(".view") && readFileSync(join(dir, name), "utf8").includes(of),
        )!,
      );
    const file = viewFile(path);
    const good = readFileSync(file, "utf8");
    const [, meta, ...rest] = good.split("\n");
    const rehashed = (...lines: string[]) => {
      const body = lines.join("\n");
      return `${createHashHex(body)}\n${body}`;
    };
    const metaWith = (change: Record<string, unknown>) => JSON.stringify({ ...JSON.parse(meta!), ...change });
    const damaged = [
      good.slice(0, good.length / 2),
      "",
      good.replace('"question 3', '"question 4'),
      rehashed(metaWith({ version: SAVED_VIEW_VERSION + 1 }), ...rest),
      rehashed(metaWith({ path: "/somewhere/else.jsonl" }), ...rest),
      rehashed(metaWith({ content: { roots: "nope" } }), ...rest),
      rehashed(meta!, ...rest.slice(1)),
      rehashed(meta!, rest[0]!, rest[1]!, '{"entry":1}'),
      // Another session's view under this one's name: refused by its path.
      readFileSync(viewFile(other), "utf8"),
    ];
    for (const text of damaged) {
      writeFileSync(file, text);
      expect(savedViewOfFile(path, cache), text.slice(0, 80)).toBeUndefined();
    }
  });
});

describe("the store, opened from a saved view", () => {
  it("builds its index when the file is looked at, then reads what was appended; the view goes with the change", () => {
    const path = writeFile(fileText(sessionLines(30)));
    const { cache } = freshCache();
    openAndSave(path, cache);
    const loads = countingLoads(cache);
    const store = SessionStore.open(path, { mode: "structure-with-facts", parseCache: loads });
    expect(store.savedView).toBeDefined();
    expect(store.cwd).toBe("/work/saved");
    expect(loads.loads).toBe(0);
    appendFileSync(path, fileText([userLine("e31", "e30", "Pi goes on", 40)]));
    const result = store.sync();
    expect(result.kind).toBe("appended");
    expect(loads.loads).toBe(1);
    expect(store.savedView).toBeUndefined();
    expect(snapshot(store.index)).toEqual(snapshot(freshIndex(path)));
    store.dispose();
  });

  it("says its index grew from the view while appends extend it in place; not after a rebuild or a reload", () => {
    const path = writeFile(fileText(sessionLines(30)));
    const { cache } = freshCache();
    openAndSave(path, cache);
    const store = SessionStore.open(path, { mode: "structure-with-facts", parseCache: cache });
    const view = store.savedView!;
    expect(view).toBeDefined();
    // Not built yet: nothing grew from the view.
    expect(store.indexGrewFrom(view)).toBe(false);
    appendFileSync(path, fileText([userLine("e31", "e30", "Pi goes on", 40)]));
    expect(store.sync().kind).toBe("appended");
    expect(store.savedView).toBeUndefined();
    expect(store.indexGrewFrom(view)).toBe(true);
    const grown = store.index;
    appendFileSync(path, fileText([assistantLine("e32", "e31", "and on", 41)]));
    store.sync();
    expect(store.index).toBe(grown);
    expect(store.indexGrewFrom(view)).toBe(true);
    // An id used again rebuilds the index: its first entries may no longer be the view's.
    appendFileSync(path, fileText([userLine("e5", "e32", "again", 42)]));
    expect(store.sync()).toMatchObject({ kind: "appended", event: { rebuilt: true } });
    expect(store.indexGrewFrom(view)).toBe(false);
    store.dispose();

    // Another open from a view of other bytes than the file's (rewritten before the index was built).
    const other = writeFile(fileText(sessionLines(30)));
    openAndSave(other, cache);
    const reopened = SessionStore.open(other, { mode: "structure-with-facts", parseCache: cache });
    const otherView = reopened.savedView!;
    writeFileSync(other, readFileSync(other, "utf8").replace("question 9", "Question 9"));
    appendFileSync(other, fileText([userLine("e31", "e30", "Pi goes on", 40)]));
    expect(reopened.sync().kind).toBe("reloaded");
    expect(reopened.indexGrewFrom(otherView)).toBe(false);
    reopened.dispose();
  });

  it("reloads the file when the index, built after the open, found other bytes than the view's", () => {
    const path = writeFile(fileText(sessionLines(30)));
    const { cache } = freshCache();
    openAndSave(path, cache);
    const store = SessionStore.open(path, { mode: "structure-with-facts", parseCache: cache });
    expect(store.savedView).toBeDefined();
    // Rewritten before anything asked for the index: the first look at the file builds it, and sees.
    writeFileSync(path, readFileSync(path, "utf8").replace("question 9", "Question 9"));
    const result = store.sync();
    expect(store.savedView).toBeUndefined();
    expect(result).toMatchObject({ kind: "reloaded", event: { reason: "rewritten" } });
    expect(snapshot(store.index)).toEqual(snapshot(freshIndex(path)));
    expect(store.sync().kind).toBe("unchanged");
    store.dispose();
  });

  it("an index built from other bytes than the view's lets the view go before the file is looked at again", () => {
    const path = writeFile(fileText(sessionLines(30)));
    const { cache } = freshCache();
    openAndSave(path, cache);
    const store = SessionStore.open(path, { mode: "structure-with-facts", parseCache: cache });
    writeFileSync(path, readFileSync(path, "utf8").replace("answer 12", "Answer 12"));
    void store.index;
    expect(store.savedView).toBeUndefined();
    expect(store.sync()).toMatchObject({ kind: "reloaded", event: { reason: "rewritten" } });
    store.dispose();
  });

  it("a rewrite after the index was built is seen as one", () => {
    const path = writeFile(fileText(sessionLines(30)));
    const { cache } = freshCache();
    openAndSave(path, cache);
    const store = SessionStore.open(path, { mode: "structure-with-facts", parseCache: cache });
    void store.index;
    writeFileSync(path, readFileSync(path, "utf8").replace("answer 30", "Answer 30"));
    expect(store.sync()).toMatchObject({ kind: "reloaded", event: { reason: "rewritten" } });
    store.dispose();
  });
});

function createHashHex(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

describe("the saved view's version", () => {
  /**
   * A digest of the saved view of a fixed generated file. When this fails,
   * what a view holds has changed (node views, the view's fields, contexts, the branch map):
   * views saved by the old code must not be sent as the new one's. Bump
   * SAVED_VIEW_VERSION, then update both values here.
   */
  const EXPECTED = { version: 5, digest: "a6dc3c57a37856bd22ff1e0b65decb1a4a54d119" };

  it("changes with what a view holds", () => {
    const generated = generateSession({
      seed: 7,
      entryCount: 300,
      damage: { duplicateIds: true, orphans: true },
    });
    const index = readSession(generated.text);
    const view = savedViewOf(index, inMemoryEntryReader(index), "digest");
    const digest = createHash("sha1").update(JSON.stringify(view)).digest("hex");
    expect({ version: SAVED_VIEW_VERSION, digest }).toEqual(EXPECTED);
  });
});
