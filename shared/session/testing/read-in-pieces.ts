/**
 * Reads a session's bytes the way a follower does: the bytes up to the first
 * cut, then each further piece appended to the index (cuts may fall mid-line).
 * Yields the first index and then each `extendSessionIndex` result.
 */

import { type ParseMode, SessionParser } from "../parse.ts";
import { buildSessionIndex, extendSessionIndex, resumePoint, type SessionIndex } from "../tree-index.ts";

export function* readInPieces(
  bytes: Uint8Array,
  cuts: readonly number[],
  mode: ParseMode,
): Generator<{ index: SessionIndex; rebuilt: boolean }> {
  const readBody = (offset: number, length: number) => bytes.subarray(offset, offset + length);
  const first = new SessionParser({ mode });
  first.push(bytes.subarray(0, cuts[0]));
  let index = buildSessionIndex(first.end(), readBody);
  yield { index, rebuilt: true };
  for (let k = 0; k < cuts.length; k++) {
    const available = k + 1 < cuts.length ? cuts[k + 1]! : bytes.length;
    const start = resumePoint(index);
    const parser = new SessionParser({ mode, start });
    parser.push(bytes.subarray(start.offset, available));
    const result = extendSessionIndex(index, parser.end());
    index = result.index;
    yield result;
  }
}

/** The index after every piece, and how many appends rebuilt it instead of extending it in place. */
export function readAllPieces(
  bytes: Uint8Array,
  cuts: readonly number[],
  mode: ParseMode,
): { index: SessionIndex; rebuilds: number } {
  let last: SessionIndex | null = null;
  let rebuilds = 0;
  let first = true;
  for (const step of readInPieces(bytes, cuts, mode)) {
    if (!first && step.rebuilt) rebuilds++;
    first = false;
    last = step.index;
  }
  return { index: last!, rebuilds };
}
