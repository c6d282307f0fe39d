/**
 * Opens a session file for viewing. Large files are read structure first:
 * one pass validates every line and keeps only what the tree needs; message
 * bodies are read from the file by offset when they are looked at. The descriptor stays open (read
 * only) until `close()`; a store that follows the file replaces the session
 * when the file is truncated or replaced.
 */

import type { Hash } from "node:crypto";
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { extendSessionIndex, resumePoint } from "../../shared/session/extend-index.ts";
import { type ParsedSession, type ParseMode, SessionParser } from "../../shared/session/parse.ts";
import { buildSessionIndex, type SessionIndex } from "../../shared/session/tree-index.ts";
import { contentHash } from "./content-hash.ts";
import { type BodyReader, FileEntryReader } from "./entry-reader.ts";
import type { ParseCache } from "./parse-cache.ts";
import { READ_CHUNK_BYTES } from "./read-whole-session-file.ts";
import { type Pause, type SavedView, savedViewInSteps, savedViewOf } from "./saved-view.ts";

export interface IndexedFile {
  /**
   * The index of the file's bytes. With a saved view (see `savedView`) it is
   * built when first read (from the saved parse, or by parsing the file up to
   * the size it had at the open): whoever only needs the view never waits.
   */
  readonly index: SessionIndex;
  /** The whole entries of `index`, read from the file (built with it). */
  readonly reader: FileEntryReader;
  size: number;
  mtimeMs: number;
  ino: number;
  /** How the file was read: from a saved parse (`saved`, plus `tailBytes` parsed after it) or parsed whole. */
  readonly read: { from: "saved"; tailBytes: number } | { from: "file" };
  /**
   * The saved view of exactly the file's bytes at the open (see
   * `saved-view.ts`), when the parse cache had one: the explorer sends it
   * instead of building the view, and the index waits until it is needed.
   * Nothing else here holds it: a store takes it (and sets this to
   * undefined), and lets it go once the index has moved on.
   */
  savedView: SavedView | undefined;
  /**
   * False when the index, built after an open with a saved view, found other
   * bytes than the view's (the file was rewritten in between): the file
   * should be read again. True otherwise.
   */
  readonly matchesSavedView: boolean;
  /**
   * Saves what this open learned to the parse cache, for the next open: the
   * parse, the view, or both; undefined when there is nothing new worth
   * saving. The caller picks the moment: the parse costs about a tenth of
   * parsing, the view as much again (node views, their wire form, the
   * leaf's context), on the main thread. With `pause`, the view is built in
   * steps with pauses between them; without, at once. Nothing is saved once
   * the index has grown past the bytes read here (its view would not be
   * theirs).
   */
  saveForNextOpen: ((pause?: Pause) => Promise<void>) | undefined;
  close(): void;
}

/**
 * Below this size the whole file is parsed: V8's JSON.parse is fastest on
 * small inputs, before the skim's loops are optimised, and memory is no issue.
 */
export const STRUCTURE_FIRST_MIN_BYTES = 8 * 1024 * 1024;

export interface OpenIndexedFileOptions {
  /** How to parse; by default `full` below `STRUCTURE_FIRST_MIN_BYTES`, structure-first from there. */
  mode?: ParseMode;
  /**
   * Structure-first reads keep each entry's facts too (`structure-with-facts`):
   * for a caller that views every node (the explorer), which would otherwise
   * read every body a second time for them.
   */
  withFacts?: boolean;
  /**
   * Saved parses and views of large files (`structure-with-facts` only): a
   * view of exactly the file's bytes is handed on (`savedView`), the index
   * then built only when asked for; a parse made from exactly the file's
   * first bytes replaces parsing them; what is missing is offered back
   * through `saveForNextOpen`.
   */
  parseCache?: ParseCache | undefined;
}

/** A saved parse is saved again once this many bytes were appended after it. */
const RESAVE_AFTER_BYTES = 1024 * 1024;

export function openIndexedFile(path: string, options: OpenIndexedFileOptions = {}): IndexedFile {
  const fd = openSync(path, "r");
  let open = true;
  try {
    const stats = fstatSync(fd);
    const size = stats.size;
    const mode = options.mode ?? defaultMode(size, options.withFacts ?? false);
    const cache =
      mode === "structure-with-facts" && size >= (options.parseCache?.minBytes ?? Infinity)
        ? options.parseCache
        : undefined;
    const readBody = bodyReaderOf(fd, path, () => open);
    const opened = { size, mtimeMs: stats.mtimeMs, ino: stats.ino };
    const close = () => {
      if (open) closeSync(fd);
      open = false;
    };
    const view = cache?.loadView(path);
    if (cache && view && view.content.bytes === size && digestOf(fd, size) === view.digest) {
      // Only the digest is kept here: the view itself goes with `savedView`, to whoever takes it.
      const digest = view.digest;
      let read: FileRead | undefined;
      const load = (): FileRead => {
        if (!open) throw new Error(`${path} is closed`);
        read ??=
          readFromSaved(fd, size, cache.load(path), mode, readBody) ?? readWhole(fd, mode, size, readBody);
        return read;
      };
      return {
        ...opened,
        get index() {
          return load().index;
        },
        get reader() {
          return load().reader;
        },
        get read() {
          return load().from;
        },
        savedView: view,
        get matchesSavedView() {
          return read === undefined || read.digest === digest;
        },
        saveForNextOpen: async () => {
          // The parse, if this open had to make one (there is no saved parse of these bytes).
          if (read?.toSave && read.digest === digest) cache.save(path, read.toSave, digest);
        },
        close,
      };
    }
    const read =
      (cache && readFromSaved(fd, size, cache.load(path), mode, readBody)) ||
      readWhole(fd, mode, cache ? Infinity : undefined, readBody);
    return {
      ...opened,
      index: read.index,
      reader: read.reader,
      read: read.from,
      savedView: undefined,
      matchesSavedView: true,
      saveForNextOpen: cache ? saverOf(cache, path, read) : undefined,
      close,
    };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** Reads bytes of the open file by offset; throws once it is closed, or where it has become shorter. */
function bodyReaderOf(fd: number, path: string, isOpen: () => boolean): BodyReader {
  return (offset, length) => {
    if (!isOpen()) throw new Error(`${path} is closed`);
    const body = Buffer.allocUnsafe(length);
    let done = 0;
    while (done < length) {
      const n = readSync(fd, body, done, length - done, offset + done);
      if (n === 0) throw new Error(`${path} is shorter than when it was read`);
      done += n;
    }
    return body;
  };
}

/** Saves a read's parse (when made) and view for the next open (see `IndexedFile.saveForNextOpen`). */
function saverOf(cache: ParseCache, path: string, read: FileRead): IndexedFile["saveForNextOpen"] {
  if (read.digest === undefined) return undefined;
  const { index, reader, digest, toSave } = read;
  const entryCount = index.entries.length;
  const byteLength = index.byteLength;
  // An index extended in place since (a follower read an append) has moved past these bytes.
  const unchanged = () => index.entries.length === entryCount && index.byteLength === byteLength;
  return async (pause) => {
    if (toSave) cache.save(path, toSave, digest);
    if (!unchanged()) return;
    const view = pause
      ? await savedViewInSteps(index, reader, digest, pause, unchanged)
      : savedViewOf(index, reader, digest);
    if (view && unchanged()) cache.saveView(path, view);
  };
}

/** The SHA-256 (hex) of the file's first `size` bytes; undefined if it is shorter. */
function digestOf(fd: number, size: number): string | undefined {
  const hash = contentHash();
  return hashRange(fd, 0, size, new Uint8Array(READ_CHUNK_BYTES), hash) ? hash.digest("hex") : undefined;
}

interface FileRead {
  index: SessionIndex;
  reader: FileEntryReader;
  from: IndexedFile["read"];
  /** The SHA-256 (hex) of the bytes read, when they were hashed (a parse cache is in use). */
  digest: string | undefined;
  /** The parse of the bytes read, when it should be saved. */
  toSave: ParsedSession | undefined;
}

/**
 * Parses the file, up to `hashedUpTo` bytes when a parse cache wants them
 * hashed (`Infinity`: all of them), else to its end without hashing.
 */
function readWhole(
  fd: number,
  mode: ParseMode,
  hashedUpTo: number | undefined,
  readBody: BodyReader,
): FileRead {
  const parser = new SessionParser({ mode });
  const hash = hashedUpTo !== undefined ? contentHash() : undefined;
  const end = hashedUpTo ?? Infinity;
  // A Buffer for its fast `indexOf` (the line splitter hands the scanner plain arrays all the same).
  const buffer = Buffer.allocUnsafeSlow(READ_CHUNK_BYTES);
  for (let position = 0; position < end; ) {
    const bytesRead = readSync(fd, buffer, 0, Math.min(buffer.length, end - position), position);
    if (bytesRead === 0) break;
    const chunk = buffer.subarray(0, bytesRead);
    hash?.update(chunk);
    parser.push(chunk);
    position += bytesRead;
  }
  const parsed = parser.end();
  // Taken before the index is built: building adds the index's own problems to `parsed.problems`.
  const snapshot = hash ? snapshotOf(parsed) : undefined;
  const index = buildSessionIndex(parsed);
  return {
    index,
    reader: new FileEntryReader(index, readBody),
    from: { from: "file" },
    digest: hash?.digest("hex"),
    toSave: snapshot,
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
  readBody: BodyReader,
): FileRead | undefined {
  if (!saved || saved.parsed.byteLength > size) return undefined;
  const buffer = Buffer.allocUnsafeSlow(READ_CHUNK_BYTES);
  const hash = contentHash();
  const savedEnd = saved.parsed.byteLength;
  if (!hashRange(fd, 0, savedEnd, buffer, hash) || hash.copy().digest("hex") !== saved.digest)
    return undefined;
  let index = buildSessionIndex(saved.parsed);
  if (size === savedEnd) {
    const reader = new FileEntryReader(index, readBody);
    return { index, reader, from: { from: "saved", tailBytes: 0 }, digest: saved.digest, toSave: undefined };
  }
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
  const toSave = tailBytes >= RESAVE_AFTER_BYTES ? snapshotOfIndex(index) : undefined;
  const reader = new FileEntryReader(index, readBody);
  return { index, reader, from: { from: "saved", tailBytes }, digest: hash.digest("hex"), toSave };
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
  return { ...parsed, records: parsed.records.snapshot(), problems: parsed.problems.slice() };
}

/** What a parse of the index's bytes yields: the records and parse problems it was built from. */
function snapshotOfIndex(index: SessionIndex): ParsedSession {
  const source = index.source;
  return {
    header: source.header,
    headerLine: source.headerLine,
    records: source.records.snapshot(),
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
