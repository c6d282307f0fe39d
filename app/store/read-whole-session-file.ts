/**
 * Reads a session file from disk into the session core in 1 MiB chunks, so
 * files larger than a JavaScript string can hold still open. Read-only: the
 * file is opened with `r` and never written.
 */

import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { type EntryReader, inMemoryEntryReader } from "../../shared/session/entry-reader.ts";
import { buildSessionIndex, type SessionIndex } from "../../shared/session/index.ts";
import { type ParsedSession, SessionParser } from "../../shared/session/parse.ts";

export const READ_CHUNK_BYTES = 1 << 20;

export interface ReadResult {
  index: SessionIndex;
  /** Its entries, all in memory (the file is parsed whole). */
  reader: EntryReader;
  /** File size and modification time when reading started, to notice later changes. */
  size: number;
  mtimeMs: number;
  ino: number;
}

export function parseWholeSessionFile(path: string): {
  parsed: ParsedSession;
  size: number;
  mtimeMs: number;
  ino: number;
} {
  const fd = openSync(path, "r");
  try {
    const stats = fstatSync(fd);
    const parser = new SessionParser();
    const buffer = Buffer.allocUnsafe(READ_CHUNK_BYTES);
    for (;;) {
      const bytesRead = readSync(fd, buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      parser.push(buffer.subarray(0, bytesRead));
    }
    return { parsed: parser.end(), size: stats.size, mtimeMs: stats.mtimeMs, ino: stats.ino };
  } finally {
    closeSync(fd);
  }
}

export function readWholeSessionFile(path: string): ReadResult {
  const { parsed, ...stats } = parseWholeSessionFile(path);
  const index = buildSessionIndex(parsed);
  return { index, reader: inMemoryEntryReader(index), ...stats };
}
