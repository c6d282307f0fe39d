/**
 * Full-text search over the library: the index says which sessions hold all
 * the query's terms; those files are then read for the matching entries,
 * best session first, delivering each hit as it is found.
 */

import type { KnownFile, KnownFiles } from "./known-files.ts";
import type { LazySearchIndex } from "./lazy-search-index.ts";
import { newestFirst } from "./library-listing.ts";
import { type SearchHit, searchSessionFile } from "./search-file.ts";
import { queryTerms } from "./tokenize.ts";

export interface SearchOptions {
  /** At most this many hits (default 100). */
  limit?: number | undefined;
  /** Sessions in index rank order (default), or the most recently active first. */
  order?: "relevance" | "recent" | undefined;
  signal?: AbortSignal | undefined;
  /** Called with each hit as soon as it is found. */
  onHit?: ((hit: SearchHit) => void) | undefined;
}

const DEFAULT_SEARCH_LIMIT = 100;

/** What a search reads: the library's files and index, and a scan to rebuild a lost index with. */
export interface SearchSource {
  known: KnownFiles;
  index: LazySearchIndex;
  rescan(signal: AbortSignal): Promise<unknown>;
}

/** Entries matching all the query's words (each word matches as a prefix); `signal` includes the library's. */
export async function searchLibrary(
  source: SearchSource,
  query: string,
  options: SearchOptions,
  signal: AbortSignal,
): Promise<SearchHit[]> {
  const terms = queryTerms(query);
  const limit = options.limit ?? DEFAULT_SEARCH_LIMIT;
  if (terms.length === 0) return [];
  let current = await source.index.loaded();
  // The index file proved damaged: rebuild it (reading the files it covered) before searching.
  if (source.known.anyNeedsTerms()) {
    await source.rescan(signal);
    current = await source.index.loaded();
  }
  const candidates: KnownFile[] = [];
  for (const match of current.match(terms)) {
    const entry = source.known.withDocument(match.docId);
    if (entry) candidates.push(entry);
  }
  if (options.order === "recent") candidates.sort((a, b) => newestFirst(a.summary, b.summary));
  const hits: SearchHit[] = [];
  for (const entry of candidates) {
    if (hits.length >= limit) break;
    signal.throwIfAborted();
    const found = await searchSessionFile(entry.summary.path, terms, {
      sessionId: entry.summary.id,
      limit: limit - hits.length,
      signal,
      onHit: options.onHit,
    });
    hits.push(...found);
  }
  return hits;
}
