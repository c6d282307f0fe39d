/**
 * Reading a file in pieces, as a follower does (bytes appended at any point,
 * even mid-line), must give exactly the index a fresh read of the whole file
 * gives: tree, problems, labels, leaf, name, context.
 */

import { describe, expect, it } from "vitest";
import { FileEntryReader } from "../../app/store/entry-reader.ts";
import { buildSessionContext, contextGraphOf } from "./context.ts";
import { parseSessionBytes } from "./parse.ts";
import { generateSession, Rng } from "./testing/generate-session.ts";
import { type EntryReaderFactory, readAllPieces as readInPieces } from "./testing/read-in-pieces.ts";
import { buildSessionIndex, type SessionIndex } from "./tree-index.ts";

const fileReader: EntryReaderFactory = (index, readBody) => new FileEntryReader(index, readBody);

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
        const fresh = buildSessionIndex(parseSessionBytes(bytes, { mode }));
        const freshReader = new FileEntryReader(fresh, (offset, length) =>
          bytes.subarray(offset, offset + length),
        );
        const { index, reader, rebuilds } = readInPieces(bytes, cuts, mode, fileReader);
        expect(snapshot(index), `seed ${seed}, cuts ${cuts.join(",")}`).toEqual(snapshot(fresh));
        for (const leaf of [undefined, ...generated.entryIds.filter((_, i) => i % 5 === 0)]) {
          expect(buildSessionContext(contextGraphOf(index, reader), leaf)).toEqual(
            buildSessionContext(contextGraphOf(fresh, freshReader), leaf),
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
    const { index, rebuilds } = readInPieces(bytes, [cut], "full", fileReader);
    expect(rebuilds).toBe(0);
    expect(index.leafId).toBe(generated.entryIds[generated.entryIds.length - 1]);
  });
});
