/**
 * Reads a session's bytes the way a follower does: the bytes up to the first
 * cut, then each further piece appended to the index (cuts may fall mid-line).
 * Yields the first index and then each `extendSessionIndex` result, each with
 * its entry reader: kept while the index is extended in place, made anew for a
 * rebuilt one, as a store does.
 */

import type { EntryReader } from "../entry-reader.ts";
import { extendSessionIndex, resumePoint } from "../extend-index.ts";
import { type ParseMode, SessionParser } from "../parse.ts";
import { buildSessionIndex, type SessionIndex } from "../tree-index.ts";

/**
 * Makes the reader of an index of the bytes `readBody` reads: tests pass
 * app/store's `FileEntryReader` (shared code cannot import it).
 */
export type EntryReaderFactory = (
  index: SessionIndex,
  readBody: (offset: number, length: number) => Uint8Array,
) => EntryReader;

export function* readInPieces(
  bytes: Uint8Array,
  cuts: readonly number[],
  mode: ParseMode,
  readerOf: EntryReaderFactory,
): Generator<{ index: SessionIndex; reader: EntryReader; rebuilt: boolean }> {
  const readBody = (offset: number, length: number) => bytes.subarray(offset, offset + length);
  const first = new SessionParser({ mode });
  first.push(bytes.subarray(0, cuts[0]));
  let index = buildSessionIndex(first.end());
  let reader = readerOf(index, readBody);
  yield { index, reader, rebuilt: true };
  for (let k = 0; k < cuts.length; k++) {
    const available = k + 1 < cuts.length ? cuts[k + 1]! : bytes.length;
    const start = resumePoint(index);
    const parser = new SessionParser({ mode, start });
    parser.push(bytes.subarray(start.offset, available));
    const result = extendSessionIndex(index, parser.end());
    if (result.rebuilt) reader = readerOf(result.index, readBody);
    index = result.index;
    yield { ...result, reader };
  }
}

/** The index after every piece, and how many appends rebuilt it instead of extending it in place. */
export function readAllPieces(
  bytes: Uint8Array,
  cuts: readonly number[],
  mode: ParseMode,
  readerOf: EntryReaderFactory,
): { index: SessionIndex; reader: EntryReader; rebuilds: number } {
  let last: { index: SessionIndex; reader: EntryReader } | null = null;
  let rebuilds = 0;
  let first = true;
  for (const step of readInPieces(bytes, cuts, mode, readerOf)) {
    if (!first && step.rebuilt) rebuilds++;
    first = false;
    last = step;
  }
  return { index: last!.index, reader: last!.reader, rebuilds };
}
