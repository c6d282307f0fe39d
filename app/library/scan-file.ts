/**
 * Summarizes one session file in a single streaming pass: its summary and,
 * when asked, the distinct search terms of its texts. An unreadable file is
 * summarized with an error rather than thrown; only an abort throws.
 */

import { closeSync, openSync, statSync } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { libraryErrors } from "../../shared/error-texts.ts";
import { SessionParser } from "../../shared/session/parse.ts";
import { archivedMessageCount } from "../../shared/session/arbor-entries.ts";
import { buildSessionIndex } from "../../shared/session/tree-index.ts";
import { contentHash } from "../store/content-hash.ts";
import { FileEntryReader } from "../store/entry-reader.ts";
import { readAt } from "../store/follower.ts";
import { type IndexedFile, openIndexedFile } from "../store/open-indexed-file.ts";
import type { ParseCache } from "../store/parse-cache.ts";
import { savedViewInSteps } from "../store/saved-view.ts";
import { READ_CHUNK_BYTES, readLines } from "./read-lines.ts";
import { SessionSummarizer, type SessionSummary } from "./session-summary.ts";
import { TermSet } from "./tokenize.ts";

export interface ScannedFile {
  summary: SessionSummary;
  /** Distinct search terms, when asked for (none for a file with an error). */
  terms: string[] | null;
}

export interface ScanFileOptions {
  withTerms: boolean;
  /**
   * Saved parses and views: a large file without them gets them from this
   * read (it is parsed as the explorer parses it), so its first open needs
   * no parse and builds no view.
   */
  parseCache?: ParseCache | undefined;
  signal?: AbortSignal | undefined;
  /** A reusable read buffer (one per concurrent scan). */
  buffer?: Buffer;
}

export async function scanSessionFile(path: string, options: ScanFileOptions): Promise<ScannedFile> {
  const termSet = options.withTerms ? new TermSet() : null;
  const summarizer = new SessionSummarizer(termSet);
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(path, "r");
    const stats = await handle.stat();
    const signature = { size: stats.size, mtimeMs: stats.mtimeMs, ino: stats.ino };
    const cache = options.parseCache;
    const saving = cache && stats.size >= cache.minBytes && !cache.has(path) ? new ParseSaver() : undefined;
    await readLines(
      handle,
      stats.size,
      {
        chunk: saving && ((bytes) => saving.push(bytes)),
        rawLine: (bytes, start, end) => summarizer.rawLine(bytes, start, end),
        line: (text, lineNumber) => summarizer.line(text, lineNumber),
        oversizedLine: (lineNumber) => summarizer.badLine(lineNumber),
        get done() {
          return summarizer.done;
        },
      },
      options.buffer ?? Buffer.allocUnsafe(READ_CHUNK_BYTES),
      options.signal,
    );
    const summary = withArchivedCount(summarizer.finish(path, signature), summarizer.archiveMarkers > 0);
    if (saving && !summary.error) await saving.saveAs(cache!, path, signature, options.signal);
    return { summary, terms: summary.error || !termSet ? null : termSet.terms };
  } catch (error) {
    options.signal?.throwIfAborted();
    return { summary: unreadableSummary(path, error), terms: null };
  } finally {
    await handle?.close().catch(() => {});
  }
}

/**
 * `summary` brought up to the end of its file's last whole line by reading
 * only the lines appended after the ones it was made of (a line still being
 * written waits for its newline). `summary` itself when nothing whole was
 * appended; undefined when the file is no longer the one summarized (another
 * inode, shorter than it was, unreadable). Where the summary cannot be
 * continued exactly (it ended inside a line, or the first damaged line is
 * among the new ones and its number is unknown) the file is read whole.
 */
export async function summaryGrownFrom(
  summary: SessionSummary,
  signal?: AbortSignal,
): Promise<SessionSummary | undefined> {
  const summarizer = SessionSummarizer.continuing(summary, null);
  if (!summarizer) return undefined;
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(summary.path, "r");
    const stats = await handle.stat();
    if (stats.ino !== summary.ino || stats.size < summary.size) return undefined;
    if (stats.size === summary.size) return summary;
    const readWhole = async () => (await scanSessionFile(summary.path, { withTerms: false, signal })).summary;
    if (summary.size > 0 && (await byteAt(handle, summary.size - 1)) !== NEWLINE) return await readWhole();
    const end = await endOfLastWholeLine(handle, summary.size, stats.size);
    if (end === summary.size) return summary;
    await readLines(
      handle,
      end,
      {
        rawLine: (bytes, start, lineEnd) => summarizer.rawLine(bytes, start, lineEnd),
        line: (text, lineNumber) => summarizer.line(text, lineNumber),
        oversizedLine: (lineNumber) => summarizer.badLine(lineNumber),
        done: false,
      },
      Buffer.allocUnsafe(READ_CHUNK_BYTES),
      signal,
      // The line numbers of the new lines are not known; they only matter for a first damaged line (read whole then).
      { offset: summary.size, line: 0 },
    );
    const grown = withArchivedCount(
      summarizer.finish(summary.path, { size: end, mtimeMs: stats.mtimeMs, ino: stats.ino }),
      // New markers change what is archived; new entries may land in an archived branch.
      summarizer.archiveMarkers > 0 || summary.archivedMessageCount > 0,
    );
    if (grown.badLines > summary.badLines && summary.firstBadLine === undefined) return await readWhole();
    return grown;
  } catch {
    signal?.throwIfAborted();
    return undefined;
  } finally {
    await handle?.close().catch(() => {});
  }
}

/**
 * The summary with the messages of archived branches counted, when the file
 * has archive markers (`needed`): that takes the tree, so the file is opened
 * as the explorer opens it. Rare (only files Arbor archived in), so the
 * streaming pass stays as it is for all others.
 */
function withArchivedCount(summary: SessionSummary, needed: boolean): SessionSummary {
  if (!needed || summary.error) return summary;
  let opened: IndexedFile | undefined;
  try {
    opened = openIndexedFile(summary.path);
    // The tree read may hold a few more lines than the summary did (a writer); the count is of what is archived now.
    return { ...summary, archivedMessageCount: archivedMessageCount(opened.index, opened.reader) };
  } catch {
    return summary;
  } finally {
    opened?.close();
  }
}

const NEWLINE = 0x0a;
const BACKWARD_STEP = 64 * 1024;

async function byteAt(handle: FileHandle, position: number): Promise<number> {
  const one = Buffer.alloc(1);
  const { bytesRead } = await handle.read(one, 0, 1, position);
  return bytesRead === 1 ? one[0]! : -1;
}

/** The offset just past the last "\n" in `[from, size)`, or `from` when there is none. */
async function endOfLastWholeLine(handle: FileHandle, from: number, size: number): Promise<number> {
  const buffer = Buffer.allocUnsafe(BACKWARD_STEP);
  for (let stop = size; stop > from; ) {
    const start = Math.max(from, stop - BACKWARD_STEP);
    const { bytesRead } = await handle.read(buffer, 0, stop - start, start);
    const newline = buffer.subarray(0, bytesRead).lastIndexOf(NEWLINE);
    if (newline !== -1) return start + newline + 1;
    stop = start;
  }
  return from;
}

/**
 * Parses the bytes a scan reads as the explorer would, to save the parse and
 * the view (see `app/store/parse-cache.ts`, `saved-view.ts`). Only a version-3
 * file whose first line is its header can be saved; for any other, parsing
 * stops at the first chunk (a legacy file would be held whole in memory, for
 * nothing).
 */
class ParseSaver {
  private readonly parser = new SessionParser({ mode: "structure-with-facts" });
  private readonly hash = contentHash();
  private bytes = 0;
  private given = false;

  push(chunk: Uint8Array): void {
    if (this.given) return;
    if (this.bytes === 0 && !startsWithCurrentHeader(chunk)) {
      this.given = true;
      return;
    }
    this.hash.update(chunk);
    // A plain Uint8Array view: the skim's loops stay monomorphic.
    this.parser.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length));
    this.bytes += chunk.length;
  }

  /**
   * Saves the parse and the view if the whole file was read, letting other
   * work run between the steps. The view reads the few bodies whose lines
   * were too long to parse in the scan from the file: it is saved only if
   * the file is still the one read (`read`: its size, time and inode then).
   */
  async saveAs(cache: ParseCache, path: string, read: FileSignature, signal?: AbortSignal): Promise<void> {
    if (this.given || this.bytes !== read.size) return;
    const parsed = this.parser.end();
    const digest = this.hash.digest("hex");
    await yieldToOtherWork();
    // Saved before the index is built from it: building adds the index's own problems to `parsed`.
    cache.save(path, parsed, digest);
    await yieldToOtherWork();
    const bytes = new FileBytes(path);
    try {
      const index = buildSessionIndex(parsed);
      const reader = new FileEntryReader(index, (offset, length) => bytes.read(offset, length));
      const view = await savedViewInSteps(index, reader, digest, yieldToOtherWork, () => !signal?.aborted);
      if (view && sameFile(path, read)) cache.saveView(path, view);
    } catch {
      // The file changed under the reads (or went away): the first open saves its view instead.
    } finally {
      bytes.close();
    }
  }
}

interface FileSignature {
  size: number;
  mtimeMs: number;
  ino: number;
}

function yieldToOtherWork(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

function sameFile(path: string, read: FileSignature): boolean {
  try {
    const now = statSync(path);
    return now.size === read.size && now.mtimeMs === read.mtimeMs && now.ino === read.ino;
  } catch {
    return false;
  }
}

/** Reads byte ranges of a file, opened on the first read. */
class FileBytes {
  private fd: number | null = null;

  constructor(private readonly path: string) {}

  read(offset: number, length: number): Uint8Array {
    this.fd ??= openSync(this.path, "r");
    const body = readAt(this.fd, offset, length);
    if (body.length !== length) throw new Error(`${this.path} is shorter than when it was scanned`);
    return body;
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}

/** Whether the chunk's first line is a session header of version 3 or later. */
function startsWithCurrentHeader(chunk: Uint8Array): boolean {
  const newline = chunk.indexOf(0x0a);
  if (newline === -1) return false;
  try {
    const header = JSON.parse(Buffer.from(chunk.buffer, chunk.byteOffset, newline).toString("utf8"));
    return header?.type === "session" && typeof header.version === "number" && header.version >= 3;
  } catch {
    return false;
  }
}

export function unreadableSummary(path: string, error: unknown): SessionSummary {
  const summary = new SessionSummarizer(null).finish(path, { size: 0, mtimeMs: 0, ino: 0 });
  const reason = error instanceof Error ? error.message : String(error);
  return { ...summary, error: { code: "unreadable", message: libraryErrors.unreadableFile(reason) } };
}
