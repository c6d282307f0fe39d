/**
 * The readers of large files hand the line splitter Node Buffers (for their
 * fast `indexOf`); the lines must still come as ranges of plain `Uint8Array`s
 * (the skim's loops see one kind of array), and a line cut across two reads
 * must survive the reader reusing its buffer.
 */

import { describe, expect, it } from "vitest";
import { type LineHandler, LineSplitter } from "../../shared/session/line-splitter.ts";

interface SplitLine {
  bytes: Uint8Array;
  lineNumber: number;
  offset: number;
  terminated: boolean;
}

function splitAll(text: string, chunkSize: number, asBuffer: boolean): SplitLine[] {
  const bytes = new TextEncoder().encode(text);
  const splitter = new LineSplitter();
  const lines: SplitLine[] = [];
  const seen: Uint8Array[] = [];
  // A copy of each line as it is handed over: the bytes are valid during the call only.
  const onLine: LineHandler = (line, start, end, terminated) => {
    seen.push(line);
    lines.push({
      bytes: line.slice(start, end),
      lineNumber: splitter.lineNumber,
      offset: splitter.lineOffset,
      terminated,
    });
  };
  // One buffer, reused for every read, as the readers do.
  const buffer = asBuffer ? Buffer.allocUnsafeSlow(chunkSize) : new Uint8Array(chunkSize);
  for (let at = 0; at < bytes.length; at += chunkSize) {
    const piece = bytes.subarray(at, at + chunkSize);
    buffer.set(piece);
    splitter.push(buffer.subarray(0, piece.length), onLine);
    buffer.fill(0x21); // what the next read would overwrite
  }
  splitter.end(onLine);
  for (const line of seen) expect(Object.getPrototypeOf(line)).toBe(Uint8Array.prototype);
  return lines;
}

describe("LineSplitter with Buffer chunks", () => {
  it("gives plain Uint8Array lines, the same as from plain chunks, across reads of any size", () => {
    const text = `${['{"a":1}', "", "  x é 🌳", "a".repeat(70), "{}"].join("\n")}\nlast without newline`;
    const expected = splitAll(text, 1 << 16, false);
    expect(expected.map((line) => new TextDecoder().decode(line.bytes))).toEqual(text.split("\n"));
    for (const size of [1, 2, 3, 7, 64, 1 << 16]) {
      const lines = splitAll(text, size, true);
      expect(lines.map((line) => [line.lineNumber, line.offset, line.terminated])).toEqual(
        expected.map((line) => [line.lineNumber, line.offset, line.terminated]),
      );
      expect(lines.map((line) => [...line.bytes])).toEqual(expected.map((line) => [...line.bytes]));
    }
  });
});
