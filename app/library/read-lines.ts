/**
 * Streams the lines of a file: Buffer chunks read through one FileHandle,
 * split at "\n", each line decoded as UTF-8 (invalid bytes as U+FFFD, as Pi's
 * stream decoder reads them). Nothing but the line being assembled is kept.
 * Every chunk read is an `await`, so a long file never holds the event loop.
 */

import type { FileHandle } from "node:fs/promises";

export const READ_CHUNK_BYTES = 1 << 20;
/** Longer lines cannot become one JS string; they are reported, not decoded. */
export const MAX_LINE_BYTES = 2 ** 29 - 24;

export interface LineSink {
  /** Offered every chunk as it is read, before its lines (the buffer is reused afterwards). */
  chunk?: ((bytes: Uint8Array) => void) | undefined;
  /** Offered each line's bytes first (`[start, end)` of `bytes`); true when it needs no decoding. */
  rawLine?(bytes: Uint8Array, start: number, end: number, lineNumber: number): boolean;
  /** One line, without its "\n" (a "\r" before it stays: JSON.parse takes it as white space). */
  line(text: string, lineNumber: number): void;
  /** A line longer than `MAX_LINE_BYTES`. */
  oversizedLine(lineNumber: number): void;
  /** True when the rest of the file is not needed. */
  readonly done: boolean;
}

/**
 * Reads bytes `[from, size)` of `handle` (size: as stat saw it, so the result
 * matches that signature); `from` must start a line, numbered `from.line`.
 */
export async function readLines(
  handle: FileHandle,
  size: number,
  sink: LineSink,
  buffer: Buffer,
  signal?: AbortSignal,
  from: { offset: number; line: number } = { offset: 0, line: 1 },
): Promise<void> {
  let position = from.offset;
  let lineNumber = from.line;
  // The start of a line that crosses chunk boundaries.
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let oversized = false;
  while (position < size && !sink.done) {
    signal?.throwIfAborted();
    const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, size - position), position);
    if (bytesRead === 0) break;
    position += bytesRead;
    const chunk = bytesRead === buffer.length ? buffer : buffer.subarray(0, bytesRead);
    sink.chunk?.(chunk);
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(10, start);
      if (newline === -1) break;
      if (pendingBytes === 0) {
        if (!sink.rawLine?.(chunk, start, newline, lineNumber)) {
          sink.line(chunk.toString("utf8", start, newline), lineNumber);
        }
      } else if (oversized || pendingBytes + newline - start > MAX_LINE_BYTES) {
        sink.oversizedLine(lineNumber);
      } else {
        pending.push(chunk.subarray(start, newline));
        const line = Buffer.concat(pending);
        if (!sink.rawLine?.(line, 0, line.length, lineNumber)) sink.line(line.toString("utf8"), lineNumber);
      }
      pending = [];
      pendingBytes = 0;
      oversized = false;
      lineNumber++;
      start = newline + 1;
      if (sink.done) return;
    }
    if (start < bytesRead) {
      const rest = bytesRead - start;
      if (pendingBytes + rest > MAX_LINE_BYTES) {
        oversized = true;
        pending = [];
      } else if (!oversized) {
        // Copied: the buffer is reused for the next chunk.
        pending.push(Buffer.from(chunk.subarray(start)));
      }
      pendingBytes += rest;
    }
  }
  if (pendingBytes > 0 && !sink.done) {
    if (oversized) {
      sink.oversizedLine(lineNumber);
    } else {
      const line = Buffer.concat(pending);
      if (!sink.rawLine?.(line, 0, line.length, lineNumber)) sink.line(line.toString("utf8"), lineNumber);
    }
  }
}
