/**
 * Summarizes one session file in a single streaming pass: its summary and,
 * when asked, the distinct search terms of its texts. An unreadable file is
 * summarized with an error rather than thrown; only an abort throws.
 */

import { open } from "node:fs/promises";
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
    await readLines(
      handle,
      stats.size,
      {
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
    const summary = summarizer.finish(path, signature);
    return { summary, terms: summary.error || !termSet ? null : termSet.terms };
  } catch (error) {
    options.signal?.throwIfAborted();
    return { summary: unreadableSummary(path, error), terms: null };
  } finally {
    await handle?.close().catch(() => {});
  }
}

export function unreadableSummary(path: string, error: unknown): SessionSummary {
  const summary = new SessionSummarizer(null).finish(path, { size: 0, mtimeMs: 0, ino: 0 });
  const reason = error instanceof Error ? error.message : String(error);
  return { ...summary, error: { code: "unreadable", message: `The file cannot be read: ${reason}` } };
}
