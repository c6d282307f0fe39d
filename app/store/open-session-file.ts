/**
 * Opens a session file for viewing. Large files are read structure first:
 * one pass validates every line and keeps only what the tree needs; message
 * bodies are read from the file by offset when they are looked at. The descriptor stays open (read
 * only) until `close()`; a store that follows the file replaces the session
 * when the file is truncated or replaced.
 */

import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { type ParseMode, SessionParser } from "../../shared/session/parse.ts";
import { buildSessionIndex, type SessionIndex } from "../../shared/session/tree-index.ts";
import { READ_CHUNK_BYTES } from "./read-session-file.ts";

export interface OpenedSession {
  index: SessionIndex;
  size: number;
  mtimeMs: number;
  ino: number;
  close(): void;
}

/**
 * Below this size the whole file is parsed: V8's JSON.parse is fastest on
 * small inputs, before the skim's loops are optimised, and memory is no issue.
 */
export const STRUCTURE_FIRST_MIN_BYTES = 8 * 1024 * 1024;

export interface OpenSessionFileOptions {
  /** How to parse; by default `full` below `STRUCTURE_FIRST_MIN_BYTES`, structure-first from there. */
  mode?: ParseMode;
  /**
   * Structure-first reads keep each entry's facts too (`structure-with-facts`):
   * for a caller that views every node (the explorer), which would otherwise
   * read every body a second time for them.
   */
  withFacts?: boolean;
}

export function openSessionFile(path: string, options: OpenSessionFileOptions = {}): OpenedSession {
  const fd = openSync(path, "r");
  let open = true;
  try {
    const stats = fstatSync(fd);
    const mode = options.mode ?? defaultMode(stats.size, options.withFacts ?? false);
    const parser = new SessionParser({ mode });
    // A plain Uint8Array, not a Buffer: the scanner's loops stay monomorphic.
    const buffer = new Uint8Array(READ_CHUNK_BYTES);
    for (;;) {
      const bytesRead = readSync(fd, buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      parser.push(buffer.subarray(0, bytesRead));
    }
    const readBody = (offset: number, length: number): Uint8Array => {
      if (!open) throw new Error(`${path} is closed`);
      const body = Buffer.allocUnsafe(length);
      let done = 0;
      while (done < length) {
        const n = readSync(fd, body, done, length - done, offset + done);
        if (n === 0) throw new Error(`${path} is shorter than when it was read`);
        done += n;
      }
      return body;
    };
    return {
      index: buildSessionIndex(parser.end(), readBody),
      size: stats.size,
      mtimeMs: stats.mtimeMs,
      ino: stats.ino,
      close() {
        if (open) closeSync(fd);
        open = false;
      },
    };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** The parse mode for a file of `size` bytes when none is asked for. */
export function defaultMode(size: number, withFacts: boolean): ParseMode {
  if (size < STRUCTURE_FIRST_MIN_BYTES) return "full";
  return withFacts ? "structure-with-facts" : "structure";
}
