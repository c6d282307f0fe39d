/**
 * A library scan: stats every file under the roots and reads only those
 * whose path, size, mtime or inode changed since the cache was written; a
 * changed file is read once, streaming, for its summary and its search terms
 * at the same time. Then the cache is written, if anything changed.
 */

import type { ParseCache } from "../store/parse-cache.ts";
import { loadLibraryCache, saveLibraryCache, searchIndexPresent } from "./cache.ts";
import { type DiscoveredFile, discoverSessionFiles, type RootStatus, type SkippedFile } from "./discover.ts";
import type { KnownFiles } from "./known-files.ts";
import type { LazySearchIndex } from "./lazy-search-index.ts";
import { READ_CHUNK_BYTES } from "./read-lines.ts";
import type { SessionRoot } from "./roots.ts";
import { scanSessionFile } from "./scan-file.ts";

export interface ScanProgress {
  /** Files done, from the cache or read. */
  loaded: number;
  total: number;
}

export interface ScanOptions {
  onProgress?: ((progress: ScanProgress) => void) | undefined;
  signal?: AbortSignal | undefined;
}

export interface ScanReport {
  roots: RootStatus[];
  /** What discovery passed over (special files, links out of the session folders...), and why. */
  skipped: SkippedFile[];
  total: number;
  /** Files read (new or changed since the cache). */
  read: number;
  /** Files taken from the cache unread. */
  fromCache: number;
  /** Files known before that are gone. */
  removed: number;
  /** Files listed with an error. */
  failed: number;
  /** What became of the on-disk cache at the start of the scan. */
  cache: "loaded" | "absent" | "ignored" | "disabled" | "in-memory";
  /** Why the cache could not be written, if it could not. */
  cacheWriteError: string | undefined;
  durationMs: number;
}

export interface ScannerSettings {
  /** The app's data folder for the cache; `null` keeps nothing on disk. */
  cacheDir: string | null;
  /** Files read at once. */
  concurrency: number;
  /** Where a scan saves the parses of large sessions that have none (see `SessionLibraryOptions`). */
  parseCache: ParseCache | undefined;
}

/**
 * Bytes of large sessions a scan parses for saved parses, at most: each costs
 * about 2x its read, and its save holds the process for ~0.5 s per 40 MB.
 */
const PARSE_SAVE_BUDGET_BYTES = 256 * 1024 * 1024;

export class LibraryScanner {
  /** The on-disk cache is read by the first scan only; later ones start from what is in memory. */
  private cacheLoaded = false;

  constructor(
    private readonly settings: ScannerSettings,
    private readonly known: KnownFiles,
    private readonly index: LazySearchIndex,
  ) {}

  /** Brings `known` up to date with the files under `roots`. The caller runs one scan at a time. */
  async scan(
    roots: readonly SessionRoot[],
    onProgress: ScanOptions["onProgress"],
    signal: AbortSignal,
  ): Promise<ScanReport> {
    const started = performance.now();
    const cacheState = await this.loadCache();
    const discovery = await discoverSessionFiles(roots, signal);
    const present = new Map(discovery.files.map((file) => [file.path, file]));
    const removed = this.forgetGone(present);
    const total = discovery.files.length;
    let loaded = 0;
    const progress = () => onProgress?.({ loaded, total });
    progress();
    const toRead = discovery.files.filter((file) => !this.known.keepIfUnchanged(file));
    loaded = total - toRead.length;
    if (loaded > 0) progress();
    await this.readFiles(toRead, signal, () => {
      loaded++;
      progress();
    });
    const changed = removed > 0 || cacheState === "absent" || cacheState === "ignored" || toRead.length > 0;
    const written = await this.saveCache(changed, present, signal);
    return {
      roots: discovery.roots,
      skipped: discovery.skipped,
      total,
      read: toRead.length + written.readAgain,
      fromCache: total - toRead.length,
      removed,
      failed: this.known.failedCount(),
      cache: cacheState,
      cacheWriteError: written.error,
      durationMs: performance.now() - started,
    };
  }

  /** Reads the on-disk cache into `known` (first scan only); the search index stays on disk. */
  private async loadCache(): Promise<ScanReport["cache"]> {
    if (this.cacheLoaded) return "in-memory";
    this.cacheLoaded = true;
    const cacheDir = this.settings.cacheDir;
    if (cacheDir === null) return "disabled";
    const cache = await loadLibraryCache(cacheDir);
    if (typeof cache === "string") return cache;
    // An index file that is gone or of another size: the summaries stand, the terms are read again.
    const haveIndex = cache.searchIndex !== null && (await searchIndexPresent(cacheDir, cache.searchIndex));
    this.known.adoptCache(cache.files, !haveIndex);
    if (haveIndex) this.index.leaveOnDisk(cache.searchIndex);
    else this.index.markUnsaved();
    return "loaded";
  }

  /** Forgets the known files that are no longer on disk, and their saved parses; returns how many. */
  private forgetGone(present: ReadonlyMap<string, DiscoveredFile>): number {
    let removed = 0;
    for (const path of this.known.paths()) {
      if (!present.has(path)) {
        this.known.forget(path);
        this.settings.parseCache?.remove(path);
        removed++;
      }
    }
    return removed;
  }

  /** Reads files for their summaries and terms, `concurrency` at a time, the most recently written first. */
  private async readFiles(files: DiscoveredFile[], signal: AbortSignal, onRead: () => void): Promise<void> {
    files.sort((a, b) => b.mtimeMs - a.mtimeMs);
    let next = 0;
    let parseBudget = PARSE_SAVE_BUDGET_BYTES;
    /** The cache to save `file`'s parse in, while the budget lasts: only for a large file without one. */
    const parseCacheFor = (file: DiscoveredFile): ParseCache | undefined => {
      const cache = this.settings.parseCache;
      if (
        cache === undefined ||
        file.size < cache.minBytes ||
        parseBudget < file.size ||
        cache.has(file.path)
      )
        return undefined;
      parseBudget -= file.size;
      return cache;
    };
    const read = async () => {
      const buffer = Buffer.allocUnsafe(READ_CHUNK_BYTES);
      while (next < files.length) {
        signal.throwIfAborted();
        const file = files[next++]!;
        const parseCache = parseCacheFor(file);
        const { summary, terms } = await scanSessionFile(file.path, {
          withTerms: true,
          signal,
          buffer,
          parseCache,
        });
        this.known.record(file, summary, terms);
        onRead();
      }
    };
    // Settled, not raced: after an abort no reader may still be changing the library.
    const readers = await Promise.allSettled(
      Array.from({ length: Math.min(this.settings.concurrency, files.length) }, read),
    );
    for (const reader of readers) if (reader.status === "rejected") throw reader.reason;
  }

  /**
   * Writes the cache when the files or the index changed (a changed index as
   * a new index file). Returns how many files a lost index file made it read
   * again for their terms, and why the cache could not be written.
   */
  private async saveCache(
    changed: boolean,
    present: ReadonlyMap<string, DiscoveredFile>,
    signal: AbortSignal,
  ): Promise<{ readAgain: number; error: string | undefined }> {
    const cacheDir = this.settings.cacheDir;
    let readAgain = 0;
    if (cacheDir === null || !(changed || this.index.changed)) return { readAgain, error: undefined };
    try {
      if (this.index.changed) {
        const current = await this.index.loaded();
        // The index file proved damaged while loading: read what it covered again.
        const again = this.known.needingTerms();
        if (again.length > 0) {
          readAgain = again.length;
          await this.readFiles(
            again.map((entry) => present.get(entry.summary.path)!).filter(Boolean),
            signal,
            () => {},
          );
        }
        signal.throwIfAborted();
        const file = await saveLibraryCache(cacheDir, this.known.cacheable(), { json: current.toJSON() });
        this.index.saved(file);
      } else {
        signal.throwIfAborted();
        await saveLibraryCache(cacheDir, this.known.cacheable(), { keep: this.index.savedFile });
      }
    } catch (error) {
      signal.throwIfAborted();
      return { readAgain, error: error instanceof Error ? error.message : String(error) };
    }
    return { readAgain, error: undefined };
  }
}
