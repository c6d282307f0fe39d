/**
 * Opens a session file for viewing. Large files are read structure first:
 * one pass validates every line and keeps only what the tree needs; message
 * bodies are read from the file by offset when they are looked at. The descriptor stays open (read
 * only) until `close()`; a store that follows the file replaces the session
 * when the file is truncated or replaced.
 */

import { createHash, type Hash } from "node:crypto";
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { type ParsedSession, type ParseMode, SessionParser } from "../../shared/session/parse.ts";
import {
  buildSessionIndex,
  extendSessionIndex,
  resumePoint,
  type SessionIndex,
} from "../../shared/session/tree-index.ts";
import type { ParseCache } from "./parse-cache.ts";
import { READ_CHUNK_BYTES } from "./read-session-file.ts";

export interface OpenedSession {
  index: SessionIndex;
  size: number;
  mtimeMs: number;
  ino: number;
  /** How the file was read: from a saved parse (`saved`, plus `tailBytes` parsed after it) or parsed whole. */
  read: { from: "saved"; tailBytes: number } | { from: "file" };
  /**
   * Saves what was parsed to the parse cache, for the next open; undefined when
   * there is nothing new worth saving. The caller picks the moment: it costs
   * about a tenth of the parse, on the main thread.
   */
  saveParse: (() => void) | undefined;
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
  /**
   * Saved parses of large files (`structure-with-facts` only): one made from
   * exactly the file's first bytes replaces parsing them; otherwise the parse
   * is offered back through `saveParse`.
   */
  parseCache?: ParseCache | undefined;
}

/** A saved parse is saved again once this many bytes were appended after it. */
const RESAVE_AFTER_BYTES = 1024 * 1024;

export function openSessionFile(path: string, options: OpenSessionFileOptions = {}): OpenedSession {
  const fd = openSync(path, "r");
  let open = true;
  try {
    const stats = fstatSync(fd);
    const mode = options.mode ?? defaultMode(stats.size, options.withFacts ?? false);
    const cache =
      mode === "structure-with-facts" && stats.size >= (options.parseCache?.minBytes ?? Infinity)
        ? options.parseCache
        : undefined;
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
    const read =
      (cache && readFromSaved(fd, stats.size, cache.load(path), mode, readBody)) ||
      readWhole(fd, mode, cache !== undefined, readBody);
    let saveParse: (() => void) | undefined;
    if (cache && read.toSave) {
      const { parsed, digest } = read.toSave;
      saveParse = () => {
        cache.save(path, parsed, digest);
      };
    }
    return {
      index: read.index,
      size: stats.size,
      mtimeMs: stats.mtimeMs,
      ino: stats.ino,
      read: read.from,
      saveParse,
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

interface FileRead {
  index: SessionIndex;
  from: OpenedSession["read"];
  /** The parse of the bytes read and their digest, when it should be saved. */
  toSave: { parsed: ParsedSession; digest: string } | undefined;
}

/** Parses the whole file (hashing it on the way when a parse cache wants it). */
function readWhole(
  fd: number,
  mode: ParseMode,
  hashed: boolean,
  readBody: (offset: number, length: number) => Uint8Array,
): FileRead {
  const parser = new SessionParser({ mode });
  const hash = hashed ? createHash("sha1") : undefined;
  // A plain Uint8Array, not a Buffer: the scanner's loops stay monomorphic.
  const buffer = new Uint8Array(READ_CHUNK_BYTES);
  for (let position = 0; ; ) {
    const bytesRead = readSync(fd, buffer, 0, buffer.length, position);
    if (bytesRead === 0) break;
    const chunk = buffer.subarray(0, bytesRead);
    hash?.update(chunk);
    parser.push(chunk);
    position += bytesRead;
  }
  const parsed = parser.end();
  // Taken before the index is built: building adds the index's own problems to `parsed.problems`.
  const snapshot = hash ? snapshotOf(parsed) : undefined;
  return {
    index: buildSessionIndex(parsed, readBody),
    from: { from: "file" },
    toSave: snapshot && hash ? { parsed: snapshot, digest: hash.digest("hex") } : undefined,
  };
}

/**
 * The index from a saved parse, when it was made from exactly the file's
 * first bytes; lines appended since are parsed on top, as a follower would.
 * Undefined when the saved parse does not fit the file.
 */
function readFromSaved(
  fd: number,
  size: number,
  saved: ReturnType<ParseCache["load"]>,
  mode: ParseMode,
  readBody: (offset: number, length: number) => Uint8Array,
): FileRead | undefined {
  if (!saved || saved.parsed.byteLength > size) return undefined;
  const buffer = new Uint8Array(READ_CHUNK_BYTES);
  const hash = createHash("sha1");
  const savedEnd = saved.parsed.byteLength;
  if (!hashRange(fd, 0, savedEnd, buffer, hash) || hash.copy().digest("hex") !== saved.digest)
    return undefined;
  let index = buildSessionIndex(saved.parsed, readBody);
  if (size === savedEnd) return { index, from: { from: "saved", tailBytes: 0 }, toSave: undefined };
  const parser = new SessionParser({ mode, start: resumePoint(index) });
  let position = savedEnd;
  for (; position < size; ) {
    const bytesRead = readSync(fd, buffer, 0, Math.min(buffer.length, size - position), position);
    if (bytesRead === 0) break;
    const chunk = buffer.subarray(0, bytesRead);
    hash.update(chunk);
    parser.push(chunk);
    position += bytesRead;
  }
  index = extendSessionIndex(index, parser.end()).index;
  const tailBytes = position - savedEnd;
  let toSave: FileRead["toSave"];
  if (tailBytes >= RESAVE_AFTER_BYTES) {
    toSave = { parsed: snapshotOfIndex(index), digest: hash.digest("hex") };
  }
  return { index, from: { from: "saved", tailBytes }, toSave };
}

/** Feeds bytes `[from, to)` of the file to `hash`; false if the file ends first. */
function hashRange(fd: number, from: number, to: number, buffer: Uint8Array, hash: Hash): boolean {
  for (let position = from; position < to; ) {
    const bytesRead = readSync(fd, buffer, 0, Math.min(buffer.length, to - position), position);
    if (bytesRead === 0) return false;
    hash.update(buffer.subarray(0, bytesRead));
    position += bytesRead;
  }
  return true;
}

/** The parser's output as it is now (the index goes on to add to its lists). */
function snapshotOf(parsed: ParsedSession): ParsedSession {
  return { ...parsed, records: parsed.records.slice(), problems: parsed.problems.slice() };
}

/** What a parse of the index's bytes yields: the records and parse problems it was built from. */
function snapshotOfIndex(index: SessionIndex): ParsedSession {
  const source = index.source;
  return {
    header: source.header,
    headerLine: source.headerLine,
    records: source.records.slice(),
    problems: source.parseProblems.slice(),
    byteLength: index.byteLength,
    lineCount: index.lineCount,
    unterminatedLastLine: index.unterminatedLastLine,
    trailingNonEntryLine: index.trailingNonEntryLine,
  };
}

/** The parse mode for a file of `size` bytes when none is asked for. */
export function defaultMode(size: number, withFacts: boolean): ParseMode {
  if (size < STRUCTURE_FIRST_MIN_BYTES) return "full";
  return withFacts ? "structure-with-facts" : "structure";
}
