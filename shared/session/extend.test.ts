/**
 * Reading a file in pieces, as a follower does (bytes appended at any point,
 * even mid-line), must give exactly the index a fresh read of the whole file
 * gives: tree, problems, labels, leaf, name, context.
 */

import { describe, expect, it } from "vitest";
import { buildSessionContext, contextGraphOf } from "./context.ts";
import { parseSessionBytes, SessionParser } from "./parse.ts";
import { generateSession, Rng } from "./testing/generate-session.ts";
import { readAllPieces as readInPieces } from "./testing/read-in-pieces.ts";
import { buildSessionIndex, extendSessionIndex, resumePoint, type SessionIndex } from "./tree-index.ts";

function snapshot(index: SessionIndex) {
  return {
    nodes: [...index.nodes.values()]
      .map((node) => [node.id, node.parentId, node.children, node.depth, node.line])
      .sort((a, b) => (a[4] as number) - (b[4] as number)),
    roots: index.roots,
    orphans: [...index.orphans].sort(),
    problems: index.problems.map((p) => [p.line, p.kind, p.relatedLine]).sort(),
    labels: [...index.labels].sort(),
    leafId: index.leafId,
    sessionName: index.sessionName,
    entries: index.entries.length,
    byteLength: index.byteLength,
    lineCount: index.lineCount,
    unterminated: index.unterminatedLastLine,
  };
}

describe("extendSessionIndex", () => {
  for (const mode of ["full", "structure", "structure-with-facts"] as const) {
    it(`gives the index of a fresh read, whatever the cuts (${mode})`, () => {
      let inPlace = 0;
      let rebuilt = 0;
      for (let seed = 1; seed <= 60; seed++) {
        const generated = generateSession({ seed, damage: seed % 3 === 0 });
        const bytes = new TextEncoder().encode(generated.text);
        const rng = new Rng(seed * 7919);
        const cutCount = rng.int(1, 6);
        const cuts = Array.from({ length: cutCount }, () => rng.int(1, bytes.length - 1)).sort(
          (a, b) => a - b,
        );
        const fresh = buildSessionIndex(parseSessionBytes(bytes, { mode }), (offset, length) =>
          bytes.subarray(offset, offset + length),
        );
        const { index, rebuilds } = readInPieces(bytes, cuts, mode);
        expect(snapshot(index), `seed ${seed}, cuts ${cuts.join(",")}`).toEqual(snapshot(fresh));
        for (const leaf of [undefined, ...generated.entryIds.filter((_, i) => i % 5 === 0)]) {
          expect(buildSessionContext(contextGraphOf(index), leaf)).toEqual(
            buildSessionContext(contextGraphOf(fresh), leaf),
          );
        }
        rebuilt += rebuilds;
        inPlace += cuts.length - rebuilds;
      }
      // Most appends of clean files must not rebuild (cost proportional to the new bytes).
      expect(inPlace).toBeGreaterThan(rebuilt);
    });
  }

  it("adds an append of clean lines in place, without rebuilding", () => {
    const generated = generateSession({ seed: 4242 });
    const bytes = new TextEncoder().encode(generated.text);
    // Cut exactly after a line: the tail is whole lines.
    const text = generated.text;
    const cut = new TextEncoder().encode(text.slice(0, text.lastIndexOf("\n", text.length - 2) + 1)).length;
    const { index, rebuilds } = readInPieces(bytes, [cut], "full");
    expect(rebuilds).toBe(0);
    expect(index.leafId).toBe(generated.entryIds[generated.entryIds.length - 1]);
  });
});

describe("the facts of a structure-first index", () => {
  it("are read in bulk, and equal a full read's, before and after appends", () => {
    for (let seed = 1; seed <= 30; seed++) {
      const generated = generateSession({ seed, damage: seed % 4 === 0 });
      const bytes = new TextEncoder().encode(generated.text);
      const full = buildSessionIndex(parseSessionBytes(bytes, { mode: "full" }));
      const factsOf = (index: SessionIndex) => [...index.nodes.keys()].map((id) => [id, index.facts(id)]);

      let reads = 0;
      const counted = (offset: number, length: number) => {
        reads++;
        return bytes.subarray(offset, offset + length);
      };
      const structure = buildSessionIndex(parseSessionBytes(bytes, { mode: "structure" }), counted);
      expect(factsOf(structure), `seed ${seed}`).toEqual(factsOf(full));
      // One read for the whole (small) file, not one per deferred line.
      expect(reads, `seed ${seed}`).toBeLessThanOrEqual(1);
      // Kept by the parser: lines parsed whole are not read again; longer ones are, in one run.
      reads = 0;
      const withFacts = buildSessionIndex(
        parseSessionBytes(bytes, { mode: "structure-with-facts", eagerLineMaxBytes: 300 }),
        counted,
      );
      expect(factsOf(withFacts), `seed ${seed}, with facts`).toEqual(factsOf(full));
      expect(reads, `seed ${seed}, with facts`).toBeLessThanOrEqual(1);
      reads = 0;
      const allEager = buildSessionIndex(parseSessionBytes(bytes, { mode: "structure-with-facts" }), counted);
      expect(factsOf(allEager), `seed ${seed}, all parsed whole`).toEqual(factsOf(full));
      // A damaged entry without a string type has no facts kept (the index patches its type): read later.
      if (!generated.damage) expect(reads, `seed ${seed}, all parsed whole`).toBe(0);

      // Facts asked between appends: the new entries' facts are read, the old ones kept.
      const cut = generated.text.lastIndexOf("\n", Math.floor(generated.text.length / 2)) + 1;
      const head = new TextEncoder().encode(generated.text.slice(0, cut)).length;
      const { index } = readInPieces(bytes, [head], "structure");
      const halfway = new SessionParser({ mode: "structure" });
      halfway.push(bytes.subarray(0, head));
      const first = buildSessionIndex(halfway.end(), (offset, length) =>
        bytes.subarray(offset, offset + length),
      );
      factsOf(first);
      const start = resumePoint(first);
      const rest = new SessionParser({ mode: "structure", start });
      rest.push(bytes.subarray(start.offset));
      const extended = extendSessionIndex(first, rest.end()).index;
      expect(factsOf(extended), `seed ${seed}, extended`).toEqual(factsOf(full));
      expect(factsOf(index), `seed ${seed}, in pieces`).toEqual(factsOf(full));
    }
  });
});

describe("the body cache of a structure-first index", () => {
  it("gives the same entries and contexts when it overflows and drops the oldest bodies", () => {
    for (const seed of [7, 8, 9]) {
      const generated = generateSession({ seed, entryCount: 3_000, damage: seed === 9 });
      const bytes = new TextEncoder().encode(generated.text);
      const full = buildSessionIndex(parseSessionBytes(bytes, { mode: "full" }));
      let reads = 0;
      const counted = (offset: number, length: number) => {
        reads++;
        return bytes.subarray(offset, offset + length);
      };
      // Room for about a tenth of the file: reading everything evicts most of it, many times over.
      const small = buildSessionIndex(
        parseSessionBytes(bytes, { mode: "structure" }),
        counted,
        Math.floor(bytes.length / 10),
      );
      const ids = [...full.nodes.keys()];
      for (const order of [ids, [...ids].reverse(), ids]) {
        for (const id of order) expect(small.entry(id), `seed ${seed}, ${id}`).toEqual(full.entry(id));
      }
      const readsForEntries = reads;
      // Evicted bodies were read again: more reads than entries.
      expect(readsForEntries, `seed ${seed}`).toBeGreaterThan(ids.length);
      // Contexts of leaves all over the tree, each walk reading what the last one dropped.
      for (let i = ids.length - 1; i >= 0; i -= 97) {
        const leaf = ids[i]!;
        expect(buildSessionContext(contextGraphOf(small), leaf), `seed ${seed}, leaf ${leaf}`).toEqual(
          buildSessionContext(contextGraphOf(full), leaf),
        );
      }
      expect(reads, `seed ${seed}`).toBeGreaterThan(readsForEntries);
    }
  });
});
