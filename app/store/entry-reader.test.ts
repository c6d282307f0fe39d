/**
 * The file-backed entry reader of a structure-first index: facts read in
 * bulk, and a body cache that may overflow, give what a full read gives.
 * (Moved from shared/session/extend.test.ts with the reader.)
 */

import { describe, expect, it } from "vitest";
import { buildSessionContext, contextGraphOf } from "../../shared/session/context.ts";
import { type EntryReader, inMemoryEntryReader } from "../../shared/session/entry-reader.ts";
import { extendSessionIndex, resumePoint } from "../../shared/session/extend-index.ts";
import { parseSessionBytes, SessionParser } from "../../shared/session/parse.ts";
import { generateSession } from "../../shared/session/testing/generate-session.ts";
import { readAllPieces as readInPieces } from "../../shared/session/testing/read-in-pieces.ts";
import { buildSessionIndex, type SessionIndex } from "../../shared/session/tree-index.ts";
import { FileEntryReader } from "./entry-reader.ts";

const factsOf = (index: SessionIndex, reader: EntryReader) =>
  [...index.nodes.keys()].map((id) => [id, reader.facts(id)]);

describe("the facts of a structure-first index", () => {
  it("are read in bulk, and equal a full read's, before and after appends", () => {
    for (let seed = 1; seed <= 30; seed++) {
      const generated = generateSession({ seed, damage: seed % 4 === 0 });
      const bytes = new TextEncoder().encode(generated.text);
      const full = buildSessionIndex(parseSessionBytes(bytes, { mode: "full" }));
      const fullFacts = factsOf(full, inMemoryEntryReader(full));

      let reads = 0;
      const counted = (offset: number, length: number) => {
        reads++;
        return bytes.subarray(offset, offset + length);
      };
      const read = (index: SessionIndex) => factsOf(index, new FileEntryReader(index, counted));
      const structure = buildSessionIndex(parseSessionBytes(bytes, { mode: "structure" }));
      expect(read(structure), `seed ${seed}`).toEqual(fullFacts);
      // One read for the whole (small) file, not one per deferred line.
      expect(reads, `seed ${seed}`).toBeLessThanOrEqual(1);
      // Kept by the parser: lines parsed whole are not read again; longer ones are, in one run.
      reads = 0;
      const withFacts = buildSessionIndex(
        parseSessionBytes(bytes, { mode: "structure-with-facts", eagerLineMaxBytes: 300 }),
      );
      expect(read(withFacts), `seed ${seed}, with facts`).toEqual(fullFacts);
      expect(reads, `seed ${seed}, with facts`).toBeLessThanOrEqual(1);
      reads = 0;
      const allEager = buildSessionIndex(parseSessionBytes(bytes, { mode: "structure-with-facts" }));
      expect(read(allEager), `seed ${seed}, all parsed whole`).toEqual(fullFacts);
      // A damaged entry without a string type has no facts kept (the index patches its type): read later.
      if (!generated.damage) expect(reads, `seed ${seed}, all parsed whole`).toBe(0);

      // Facts asked between appends: the new entries' facts are read, the old ones kept.
      const cut = generated.text.lastIndexOf("\n", Math.floor(generated.text.length / 2)) + 1;
      const head = new TextEncoder().encode(generated.text.slice(0, cut)).length;
      const pieces = readInPieces(bytes, [head], "structure", (index, readBody) => {
        return new FileEntryReader(index, readBody);
      });
      const halfway = new SessionParser({ mode: "structure" });
      halfway.push(bytes.subarray(0, head));
      const first = buildSessionIndex(halfway.end());
      const firstReader = new FileEntryReader(first, (offset, length) =>
        bytes.subarray(offset, offset + length),
      );
      factsOf(first, firstReader);
      const start = resumePoint(first);
      const rest = new SessionParser({ mode: "structure", start });
      rest.push(bytes.subarray(start.offset));
      const { index: extended, rebuilt } = extendSessionIndex(first, rest.end());
      const extendedReader = rebuilt ? firstReader.forIndex(extended) : firstReader;
      expect(factsOf(extended, extendedReader), `seed ${seed}, extended`).toEqual(fullFacts);
      expect(factsOf(pieces.index, pieces.reader), `seed ${seed}, in pieces`).toEqual(fullFacts);
    }
  });
});

describe("the body cache of a structure-first index", () => {
  it("gives the same entries and contexts when it overflows and drops the oldest bodies", () => {
    for (const seed of [7, 8, 9]) {
      const generated = generateSession({ seed, entryCount: 3_000, damage: seed === 9 });
      const bytes = new TextEncoder().encode(generated.text);
      const full = buildSessionIndex(parseSessionBytes(bytes, { mode: "full" }));
      const fullReader = inMemoryEntryReader(full);
      let reads = 0;
      const counted = (offset: number, length: number) => {
        reads++;
        return bytes.subarray(offset, offset + length);
      };
      // Room for about a tenth of the file: reading everything evicts most of it, many times over.
      const small = buildSessionIndex(parseSessionBytes(bytes, { mode: "structure" }));
      const smallReader = new FileEntryReader(small, counted, Math.floor(bytes.length / 10));
      const ids = [...full.nodes.keys()];
      for (const order of [ids, [...ids].reverse(), ids]) {
        for (const id of order)
          expect(smallReader.entry(id), `seed ${seed}, ${id}`).toEqual(fullReader.entry(id));
      }
      const readsForEntries = reads;
      // Evicted bodies were read again: more reads than entries.
      expect(readsForEntries, `seed ${seed}`).toBeGreaterThan(ids.length);
      // Contexts of leaves all over the tree, each walk reading what the last one dropped.
      for (let i = ids.length - 1; i >= 0; i -= 97) {
        const leaf = ids[i]!;
        expect(
          buildSessionContext(contextGraphOf(small, smallReader), leaf),
          `seed ${seed}, leaf ${leaf}`,
        ).toEqual(buildSessionContext(contextGraphOf(full, fullReader), leaf));
      }
      expect(reads, `seed ${seed}`).toBeGreaterThan(readsForEntries);
    }
  });
});
