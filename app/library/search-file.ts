/**
 * Finds the entries of one session file that match a query: every query term
 * starts a term of one searchable text of the entry (a name, a message's
 * text, one tool call's arguments, a bash command). Streams the file once and
 * stops as soon as the caller has enough.
 */

import { open } from "node:fs/promises";
import { entryLineAt } from "../../shared/session/tree-index.ts";
import { openIndexedFile } from "../store/open-indexed-file.ts";
import { READ_CHUNK_BYTES, readLines } from "./read-lines.ts";
import { forEachSearchText, isPiToolResultLine, type SearchField } from "./session-summary.ts";
import { matchRanges, matchText } from "./tokenize.ts";

export interface SearchHit {
  sessionPath: string;
  sessionId: string;
  /** The entry's id, as Arbor's session view knows it. */
  entryId: string;
  /** 1-based line of the entry in the file. */
  line: number;
  field: SearchField;
  /** The tool whose call's arguments matched (`tool` and `bash` fields). */
  toolName: string | undefined;
  /** A line of text around the first match. */
  snippet: string;
  /** `[start, end)` of the matched terms in `snippet`. */
  highlights: [number, number][];
}

export interface FileSearchOptions {
  sessionId: string;
  /** Stop after this many hits. */
  limit: number;
  signal?: AbortSignal | undefined;
  onHit?: ((hit: SearchHit) => void) | undefined;
}

/** Little before the match: the sidebar shows the snippet's start, and the match must be in it. */
const SNIPPET_BEFORE = 24;
const SNIPPET_LENGTH = 200;

export async function searchSessionFile(
  path: string,
  terms: readonly string[],
  options: FileSearchOptions,
): Promise<SearchHit[]> {
  const hits: SearchHit[] = [];
  /** Hits whose entry has no id in the file (version 1), resolved below. */
  const withoutId: SearchHit[] = [];
  let headerSeen = false;
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(path, "r");
    const { size } = await handle.stat();
    await readLines(
      handle,
      size,
      {
        // Tool results hold no searchable text.
        rawLine: (bytes, start, end) => headerSeen && isPiToolResultLine(bytes, start, end),
        line(text, lineNumber) {
          if (hits.length >= options.limit || !text.trim()) return;
          let entry: unknown;
          try {
            entry = JSON.parse(text);
          } catch {
            return;
          }
          if (!headerSeen) {
            headerSeen = !!entry;
            return;
          }
          const seen = new Set<SearchField>();
          forEachSearchText(entry, (field, value, toolName) => {
            if (hits.length >= options.limit || seen.has(field)) return;
            const match = matchText(value, terms);
            if (!match) return;
            seen.add(field);
            const id = (entry as { id?: unknown }).id;
            const hit: SearchHit = {
              sessionPath: path,
              sessionId: options.sessionId,
              entryId: typeof id === "string" && id ? id : "",
              line: lineNumber,
              field,
              toolName,
              ...snippetOf(value, match.index, terms),
            };
            hits.push(hit);
            if (hit.entryId) options.onHit?.(hit);
            else withoutId.push(hit);
          });
        },
        oversizedLine() {},
        get done() {
          return hits.length >= options.limit;
        },
      },
      Buffer.allocUnsafe(READ_CHUNK_BYTES),
      options.signal,
    );
  } catch {
    options.signal?.throwIfAborted();
    // A file that vanished or cannot be read has no hits now.
    return hits.filter((hit) => hit.entryId);
  } finally {
    await handle?.close().catch(() => {});
  }
  if (withoutId.length > 0) {
    resolveEntryIds(path, withoutId);
    for (const hit of withoutId) options.onHit?.(hit);
  }
  return hits;
}

/**
 * Entries without an id get one from the session model (version 1 files are
 * migrated in memory with ids derived from their lines; a damaged entry is
 * shown as `line-N`), so a hit opens the entry the view shows.
 */
function resolveEntryIds(path: string, hits: SearchHit[]): void {
  try {
    const session = openIndexedFile(path);
    try {
      const idOfLine = new Map<number, string>();
      const index = session.index;
      index.entries.forEach((entry, at) => {
        idOfLine.set(entryLineAt(index, at), entry.id);
      });
      for (const hit of hits) hit.entryId = idOfLine.get(hit.line) ?? `line-${hit.line}`;
    } finally {
      session.close();
    }
  } catch {
    for (const hit of hits) hit.entryId = `line-${hit.line}`;
  }
}

function snippetOf(
  text: string,
  index: number,
  terms: readonly string[],
): Pick<SearchHit, "snippet" | "highlights"> {
  let start = Math.max(0, index - SNIPPET_BEFORE);
  // Start at a word boundary when one is near.
  if (start > 0) {
    const space = text.lastIndexOf(" ", start);
    if (space >= 0 && start - space < 20) start = space + 1;
  }
  const end = Math.min(text.length, start + SNIPPET_LENGTH);
  let snippet = text.slice(start, end).replace(/\s+/g, " ").trim();
  if (start > 0) snippet = `…${snippet}`;
  if (end < text.length) snippet = `${snippet}…`;
  return { snippet, highlights: matchRanges(snippet, terms) };
}
