/**
 * Deltas of a session's view: a file read in pieces (as a follower reads
 * what Pi appends, even mid-line) gives, piece by piece, deltas whose
 * application equals the whole view built fresh; the node view cache builds
 * only what an append adds or changes; and `diffSessionViews` is undone by
 * `applySessionDelta` for any two views.
 */

import { describe, expect, it } from "vitest";
import { FileEntryReader } from "../../app/store/entry-reader.ts";
import type { EntryReader } from "../session/entry-reader.ts";
import type { ParseMode } from "../session/parse.ts";
import { generateSession, Rng } from "../session/testing/generate-session.ts";
import { type EntryReaderFactory, readInPieces } from "../session/testing/read-in-pieces.ts";
import type { SessionIndex } from "../session/tree-index.ts";
import type { SessionDelta, SessionView } from "./contract.ts";
import {
  applyListPatch,
  applySessionDelta,
  diffSessionViews,
  listPatch,
  sameProblem,
} from "./session-delta.ts";
import { decodeNodes } from "./node-table.ts";
import { plainView, sessionViewOf } from "./testing/session-view.ts";
import { type NodeViewChanges, TreeNodeViewCache } from "./views.ts";
import { encodeNodes } from "./wire-nodes.ts";
import { inMemoryEntryReader, readSession } from "../session/index.ts";

const fileReader: EntryReaderFactory = (index, readBody) => new FileEntryReader(index, readBody);

function viewFields(index: SessionIndex) {
  return {
    headerId: index.header?.id ?? null,
    cwd: index.header?.cwd ?? null,
    name: index.sessionName ?? null,
    version: index.version,
    parentSessionId: null,
    leafId: index.leafId,
    bytes: index.byteLength,
    live: false,
  };
}

/** The delta from `view` to `index` with the node changes a cache found, as the main process sends it. */
function deltaOf(view: SessionView, index: SessionIndex, changes: NodeViewChanges): SessionDelta {
  return {
    baseBytes: view.bytes,
    ...viewFields(index),
    ...changes,
    roots: listPatch(view.roots, index.roots),
    problems: listPatch(view.problems, index.problems, sameProblem),
  };
}

/** The view built from scratch, as the main process did before deltas. */
function freshView(index: SessionIndex, reader: EntryReader): SessionView {
  return sessionViewOf("s", index, { path: "/s.jsonl", reader });
}

/** A file read in pieces: after each piece, the index and what the follower would do with it. */
function randomCuts(rng: Rng, length: number, count: number): number[] {
  const cuts = new Set<number>();
  while (cuts.size < count) cuts.add(rng.int(1, length - 1));
  return [...cuts].sort((a, b) => a - b);
}

describe("the node view cache and deltas", () => {
  it("piece by piece, the delta applied to the view before equals the view built fresh", () => {
    let inPlace = 0;
    let rebuilt = 0;
    for (let seed = 1; seed <= 80; seed++) {
      const rng = new Rng(seed * 31);
      const text = generateSession({ seed, damage: seed % 2 === 0 }).text;
      const bytes = new TextEncoder().encode(text);
      const cuts = randomCuts(rng, bytes.length, rng.int(2, 12));
      const mode: ParseMode = seed % 3 === 0 ? "structure" : "full";
      const cache = new TreeNodeViewCache();
      let view: SessionView | null = null;
      for (const step of readInPieces(bytes, cuts, mode, fileReader)) {
        const { index, reader } = step;
        if (view === null) {
          expect(cache.update(index, reader)).toEqual({ added: [], changed: [], removed: [] });
          view = freshView(index, reader);
          expect(cache.nodes()).toEqual(view.nodes.toArray());
          continue;
        }
        const before = new Map(cache.nodes().map((node) => [node.id, node]));
        const changes = cache.update(index, reader);
        const delta = deltaOf(view, index, changes);
        const previous = new Map(view.nodes.toArray().map((node) => [node.id, node]));
        view = applySessionDelta(view, delta);
        const fresh = freshView(index, reader);
        expect(plainView(view), `seed ${seed}`).toEqual(plainView(fresh));
        expect(cache.nodes(), `seed ${seed}`).toEqual(fresh.nodes.toArray());
        expect(cache.roots()).toEqual(index.roots);
        // Nodes the delta does not name are the very objects they were.
        const named = new Set([...changes.added, ...changes.changed].map((node) => node.id));
        for (const node of cache.nodes()) {
          if (!named.has(node.id)) expect(node).toBe(before.get(node.id));
        }
        for (const node of view.nodes.toArray()) {
          if (!named.has(node.id)) expect(node).toBe(previous.get(node.id));
        }
        if (step.rebuilt) rebuilt++;
        else inPlace++;
        // Asking again without a change changes nothing.
        expect(cache.update(index, reader)).toEqual({ added: [], changed: [], removed: [] });
      }
    }
    expect(inPlace).toBeGreaterThan(100);
    expect(rebuilt).toBeGreaterThan(10);
  });

  it("archive markers appended piece by piece: the archived flags of the delta's views equal a fresh read, from known views too", () => {
    let decodedOnMarkers = 0;
    for (let seed = 1; seed <= 24; seed++) {
      const rng = new Rng(seed * 7);
      const generated = generateSession({ seed, entryCount: 60 }).text;
      const index = readSession(generated);
      const ids = index.entries.map((entry) => entry.id);
      let parentId = index.leafId;
      let n = 0;
      const lines: string[] = [];
      const add = (entry: Record<string, unknown>) => {
        const id = `ar${seed.toString(16)}${(n++).toString(16).padStart(4, "0")}`;
        lines.push(JSON.stringify({ ...entry, id, parentId, timestamp: "2027-01-01T00:00:00.000Z" }));
        parentId = id;
        return id;
      };
      // A few entries before the first marker: known views may be followed undecoded until it comes.
      for (let i = 0; i < 3; i++) add({ type: "custom", customType: "other", data: {} });
      for (let i = 0; i < 8; i++) {
        const targetId = rng.chance(0.3) && i > 0 ? parentId : rng.pick(ids);
        add({ type: "custom", customType: "arbor.archive", data: { targetId, archived: rng.chance(0.7) } });
        // Now and then an entry below an archived one: it is archived as it arrives.
        if (rng.chance(0.4)) {
          parentId = rng.pick(ids);
          add({ type: "custom", customType: "other", data: {} });
        }
      }
      const bytes = new TextEncoder().encode(`${generated}${lines.join("\n")}\n`);
      const cuts = randomCuts(rng, bytes.length, 10).filter((cut) => cut > generated.length);
      const mode: ParseMode = seed % 2 === 0 ? "structure" : "full";
      for (const known of [false, true]) {
        let cache = new TreeNodeViewCache();
        let first: SessionIndex | null = null;
        let view: SessionView | null = null;
        let archived = 0;
        for (const { index: stepIndex, reader } of readInPieces(
          bytes,
          [generated.length, ...cuts],
          mode,
          fileReader,
        )) {
          if (known && view === null) {
            // As after an open from a saved view: the views of the first bytes, told their index once it grew.
            const saved = JSON.stringify(encodeNodes(freshView(stepIndex, reader).nodes.toArray()));
            cache = TreeNodeViewCache.fromKnown({
              entryCount: stepIndex.entries.length,
              byteLength: stepIndex.byteLength,
              roots: stepIndex.roots,
              nodes: () => {
                decodedOnMarkers++;
                return decodeNodes(saved);
              },
            });
            first = stepIndex;
          } else if (stepIndex === first) {
            cache.adopt(stepIndex);
            first = null;
          }
          const changes = cache.update(stepIndex, reader);
          const fresh = freshView(stepIndex, reader);
          view = view === null ? fresh : applySessionDelta(view, deltaOf(view, stepIndex, changes));
          expect(plainView(view), `seed ${seed}`).toEqual(plainView(fresh));
          archived = fresh.nodes.toArray().filter((node) => node.archived).length;
        }
        // The whole list, the known views decoded under those built since.
        expect(cache.nodes(), `seed ${seed}`).toEqual(view!.nodes.toArray());
        if (seed === 1) expect(archived).toBeGreaterThan(0);
      }
    }
    expect(decodedOnMarkers).toBeGreaterThan(10);
  });

  it("an append in place builds the new entries' views and the ones they change, no other", () => {
    const text = generateSession({ seed: 17, entryCount: 200 }).text;
    const bytes = new TextEncoder().encode(text);
    const lineEnds: number[] = [];
    for (let i = 0; i < bytes.length; i++) if (bytes[i] === 10) lineEnds.push(i + 1);
    const cuts = [lineEnds[100]!, lineEnds[150]!, lineEnds[151]!];
    const cache = new TreeNodeViewCache();
    for (const step of readInPieces(bytes, cuts, "full", fileReader)) {
      const changes = cache.update(step.index, step.reader);
      if (step.rebuilt) continue;
      const touched = new Set<unknown>();
      for (const added of changes.added) {
        touched.add(added.parentId);
        const entry = step.reader.entry(added.id)!;
        if (entry.type === "label") touched.add(entry.targetId);
      }
      for (const node of changes.changed) expect(touched.has(node.id), node.id).toBe(true);
      expect(changes.added.length).toBeGreaterThan(0);
      expect(changes.removed).toEqual([]);
    }
  });

  it("diffSessionViews is undone by applySessionDelta, for any two views of a session", () => {
    const rng = new Rng(99);
    for (let seed = 400; seed < 430; seed++) {
      const text = generateSession({ seed, damage: true }).text;
      const bytes = new TextEncoder().encode(text);
      const views = [...readInPieces(bytes, randomCuts(rng, bytes.length, 5), "full", fileReader)].map(
        (step) => freshView(step.index, step.reader),
      );
      for (let k = 0; k < 6; k++) {
        const a = rng.pick(views);
        const b = rng.pick(views);
        expect(plainView(applySessionDelta(a, diffSessionViews(a, b)))).toEqual(plainView(b));
      }
    }
  });

  it("a cache that starts from known views (a saved view) decodes them only once the index moves on, then gives the same deltas, told its index (before or after it grew in place) or not", () => {
    let decodedAtStart = 0;
    let stepsChecked = 0;
    let toldAfterGrowing = 0;
    for (let seed = 500; seed < 560; seed++) {
      const rng = new Rng(seed);
      const text = generateSession({ seed, damage: seed % 2 === 0 }).text;
      const bytes = new TextEncoder().encode(text);
      const cuts = randomCuts(rng, bytes.length, rng.int(2, 6));
      let cache: TreeNodeViewCache | null = null;
      let decoded = 0;
      let view: SessionView | null = null;
      let first: SessionIndex | null = null;
      for (const step of readInPieces(bytes, cuts, seed % 3 === 0 ? "structure" : "full", fileReader)) {
        const { index, reader } = step;
        if (view === null) {
          view = freshView(index, reader);
          first = index;
          const saved = JSON.stringify(encodeNodes(view.nodes.toArray()));
          cache = TreeNodeViewCache.fromKnown({
            entryCount: index.entries.length,
            byteLength: index.byteLength,
            roots: index.roots,
            nodes: () => {
              decoded++;
              return decodeNodes(saved);
            },
          });
          // A third of the time the views are told their index at once (the index built after an open).
          if (seed % 3 === 1) cache.adopt(index);
          // The same index (or one just like it): nothing to build, nothing to tell.
          expect(cache.isCurrent(index)).toBe(true);
          expect(cache.update(index, reader)).toEqual({ added: [], changed: [], removed: [] });
          expect(cache.roots()).toEqual(index.roots);
          decodedAtStart += decoded;
          continue;
        }
        // Another third, once the first appends extended it in place (the index built at the first append).
        if (seed % 3 === 2 && index === first) {
          cache!.adopt(index);
          toldAfterGrowing++;
          first = null;
        }
        const changes = cache!.update(index, reader);
        const delta = deltaOf(view, index, changes);
        view = applySessionDelta(view, delta);
        const fresh = freshView(index, reader);
        expect(plainView(view), `seed ${seed}`).toEqual(plainView(fresh));
        expect(cache!.nodes(), `seed ${seed}`).toEqual(fresh.nodes.toArray());
        stepsChecked++;
      }
      expect(decoded, `seed ${seed}`).toBeLessThanOrEqual(1);
    }
    expect(decodedAtStart).toBe(0);
    expect(stepsChecked).toBeGreaterThan(120);
    expect(toldAfterGrowing).toBeGreaterThan(10);
  });

  it("known views told the index they grew from build only what the appends added and changed, none decoded", () => {
    const text = generateSession({ seed: 7, entryCount: 300 }).text;
    const ids = text
      .trimEnd()
      .split("\n")
      .map((line) => (JSON.parse(line) as { id: string }).id);
    const [firstId, lastId] = [ids[1]!, ids.at(-1)!];
    const appended = [
      {
        type: "message",
        id: "appended1",
        parentId: lastId,
        timestamp: "2026-06-01T00:00:00.000Z",
        message: { role: "user", content: "one more", timestamp: 0 },
      },
      {
        type: "label",
        id: "appended2",
        parentId: "appended1",
        timestamp: "2026-06-01T00:00:01.000Z",
        targetId: firstId,
        label: "marked",
      },
    ];
    const bytes = new TextEncoder().encode(
      text + appended.map((entry) => `${JSON.stringify(entry)}\n`).join(""),
    );
    const cut = new TextEncoder().encode(text).length;
    for (const told of [true, false]) {
      const built: string[] = [];
      const counting: EntryReaderFactory = (index, readBody) => {
        const reader = new FileEntryReader(index, readBody);
        const factsOfNode = reader.factsOfNode.bind(reader);
        reader.factsOfNode = (node) => {
          built.push(node.id);
          return factsOfNode(node);
        };
        return reader;
      };
      const steps = readInPieces(bytes, [cut], "full", counting);
      const before = steps.next().value!;
      // The view as saved from the index before the append (the next step extends that index in place).
      const view = freshView(before.index, before.reader);
      const saved = JSON.stringify(encodeNodes(view.nodes.toArray()));
      let decoded = 0;
      const cache = TreeNodeViewCache.fromKnown({
        entryCount: before.index.entries.length,
        byteLength: cut,
        roots: view.roots,
        nodes: () => {
          decoded++;
          return decodeNodes(saved);
        },
      });
      const after = steps.next().value!;
      expect(after.index).toBe(before.index);
      if (told) cache.adopt(after.index);
      built.length = 0;
      const changes = cache.update(after.index, after.reader);
      const builtByUpdate = new Set(built);
      const fresh = freshView(after.index, after.reader);
      expect(plainView(applySessionDelta(view, deltaOf(view, after.index, changes)))).toEqual(
        plainView(fresh),
      );
      expect(changes.changed.map((node) => node.id).sort()).toEqual([firstId, lastId].sort());
      if (told) {
        expect(builtByUpdate).toEqual(new Set(["appended1", "appended2", firstId, lastId]));
        // Nothing needed the known views: they are decoded only when the whole list is asked for.
        expect(decoded).toBe(0);
      } else {
        expect(builtByUpdate.size).toBeGreaterThan(300);
      }
      expect(cache.nodes()).toEqual(fresh.nodes.toArray());
      expect(decoded).toBe(1);
    }
  });

  it("known views are decoded when asked for before any change", () => {
    const index = readSession(generateSession({ seed: 3 }).text);
    const reader = inMemoryEntryReader(index);
    const nodes = freshView(index, reader).nodes.toArray();
    const cache = TreeNodeViewCache.fromKnown({
      entryCount: index.entries.length,
      byteLength: index.byteLength,
      roots: index.roots,
      nodes: () => decodeNodes(JSON.stringify(encodeNodes(nodes))),
    });
    expect(cache.nodes()).toEqual(nodes);
    expect(cache.update(index, reader)).toEqual({ added: [], changed: [], removed: [] });
  });

  it("list patches keep a common prefix", () => {
    expect(listPatch(["a", "b", "c"], ["a", "b", "d", "e"])).toEqual({ keep: 2, add: ["d", "e"] });
    expect(applyListPatch(["a", "b", "c"], { keep: 2, add: ["d", "e"] })).toEqual(["a", "b", "d", "e"]);
    expect(() => applyListPatch(["a"], { keep: 2, add: [] })).toThrow(RangeError);
    // A list the patch leaves as it was is the same object (what watches it sees no change).
    const list = ["a", "b"];
    expect(applyListPatch(list, { keep: 2, add: [] })).toBe(list);
    expect(applyListPatch(list, { keep: 1, add: [] })).toEqual(["a"]);
  });
});
