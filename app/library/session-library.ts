/**
 * The session library: every Pi session on the machine (Pi's session folder
 * plus the folders the user adds), grouped by project, with fork lineage and
 * full-text search.
 *
 *   const library = createSessionLibrary({ extraFolders, cacheDir });
 *   await library.scan({ onProgress, signal });
 *   library.list();                      // projects, sessions, failed files
 *   await library.search("sqlite migration", { onHit });
 *   await library.dispose();
 *
 * A scan stats every file and reads only those whose path, size, mtime or
 * inode changed since the cache was written; a changed file is read once,
 * streaming, for its summary and its search terms at the same time. Search
 * asks the index which sessions hold all the query's terms, then reads those
 * files for the matching entries, best session first, delivering each hit
 * as it is found.
 *
 * This module ties the parts together and owns the library's lifetime: the
 * files known and their index documents (`known-files.ts`), the search index
 * left on disk until needed (`lazy-search-index.ts`), the scan
 * (`library-scan.ts`), the listing (`library-listing.ts`) and the search
 * (`library-search.ts`).
 */

import { resolve } from "node:path";
import type { ParseCache } from "../store/parse-cache.ts";
import { oncePerProcess, removeStaleSessionTemporaries } from "../store/stale-temporaries.ts";
import type { SkippedFile } from "./discover.ts";
import { KnownFiles } from "./known-files.ts";
import { LazySearchIndex } from "./lazy-search-index.ts";
import type { LibraryListing, LibrarySession } from "./library-listing.ts";
import { LibraryScanner, type ScanOptions, type ScanReport } from "./library-scan.ts";
import { type SearchOptions, searchLibrary } from "./library-search.ts";
import { type RootEnvironment, resolveSessionRoots, type SessionRoot } from "./roots.ts";
import { summaryGrownFrom } from "./scan-file.ts";
import type { SearchHit } from "./search-file.ts";

export type { LibraryListing, LibrarySession, ProjectGroup } from "./library-listing.ts";
export type { ScanOptions, ScanProgress, ScanReport } from "./library-scan.ts";
export type { SearchOptions } from "./library-search.ts";
export type { SearchHit } from "./search-file.ts";

export interface SessionLibraryOptions {
  /** Folders to use instead of Pi's session folder (Pi's is found from `env` otherwise). */
  roots?: readonly string[] | undefined;
  /** Folders the user added, scanned as well. */
  extraFolders?: readonly string[] | undefined;
  /** The app's data folder for the cache; `null` keeps nothing on disk. */
  cacheDir: string | null;
  /** Environment to find Pi's folders in (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>> | undefined;
  homeDir?: string | undefined;
  /** Files read at once during a scan (default 4). */
  concurrency?: number | undefined;
  /**
   * Saved parses for the explorer: a scan that reads a large session without
   * one saves one (most recent first, up to `PARSE_SAVE_BUDGET_BYTES` a
   * scan), so the session's first open needs no parse; a session gone from
   * disk loses its saved parse.
   */
  parseCache?: ParseCache | undefined;
}

export interface SessionLibrary {
  /** The roots of the last scan (before any: as they resolve now). */
  roots(): SessionRoot[];
  /** Replaces the user's folders; the next scan reads them. */
  setExtraFolders(folders: readonly string[]): void;
  /** Brings the library up to date with the disk. Scans run one at a time. */
  scan(options?: ScanOptions): Promise<ScanReport>;
  /** What the library holds now (during a scan: what is loaded so far). */
  list(): LibraryListing;
  /** What the last scan passed over, and why (empty before the first scan). */
  skipped(): readonly SkippedFile[];
  session(path: string): LibrarySession | undefined;
  /**
   * Brings one listed file's summary up to its end by reading only what was
   * appended since (for a file the caller follows and knows to have only
   * grown, such as the session open in a window). Its search terms wait for
   * the next scan, which reads the file whole. Undefined when the file is not
   * listed, or is no longer the file that was read.
   */
  refresh(path: string): Promise<LibrarySession | undefined>;
  /** Entries matching all the query's words (each word matches as a prefix). */
  search(query: string, options?: SearchOptions): Promise<SearchHit[]>;
  /** Aborts a running scan and releases the library; any later call throws. */
  dispose(): Promise<void>;
}

const DEFAULT_CONCURRENCY = 4;

export function createSessionLibrary(options: SessionLibraryOptions): SessionLibrary {
  let extraFolders = [...(options.extraFolders ?? [])];
  let lastRoots: SessionRoot[] | null = null;
  let lastSkipped: readonly SkippedFile[] = [];
  let running: Promise<unknown> = Promise.resolve();
  const lifetime = new AbortController();
  const index = new LazySearchIndex(options.cacheDir, (isPending) => known.termsLost(isPending));
  const known = new KnownFiles(index);
  const scanner = new LibraryScanner(
    {
      cacheDir: options.cacheDir,
      concurrency: Math.max(1, options.concurrency ?? DEFAULT_CONCURRENCY),
      parseCache: options.parseCache,
    },
    known,
    index,
  );
  const environment = environmentOf(options);
  const currentRoots = () => rootsToScan(options.roots, extraFolders, environment);
  const assertLive = () => {
    if (lifetime.signal.aborted) throw new Error("This session library was disposed; create a new one.");
  };
  /** The caller's signal, aborted as well when the library is disposed. */
  const untilDisposed = (signal: AbortSignal | undefined) =>
    signal ? AbortSignal.any([signal, lifetime.signal]) : lifetime.signal;

  const runScan = (scanOptions: ScanOptions): Promise<ScanReport> => {
    const signal = untilDisposed(scanOptions.signal);
    signal.throwIfAborted();
    const roots = currentRoots();
    lastRoots = roots;
    return sweepOnce(roots)
      .then(() => scanner.scan(roots, scanOptions.onProgress, signal))
      .then((report) => {
        lastSkipped = report.skipped;
        return report;
      });
  };

  const scan = (scanOptions: ScanOptions = {}): Promise<ScanReport> => {
    assertLive();
    const result = running.then(() => runScan(scanOptions));
    running = result.catch(() => {});
    return result;
  };

  return {
    roots: () => lastRoots ?? currentRoots(),
    skipped: () => lastSkipped,
    setExtraFolders(folders) {
      assertLive();
      extraFolders = [...folders];
    },
    scan,
    list: () => known.list(),
    session: (path) => known.session(path),
    async refresh(path) {
      assertLive();
      const entry = known.get(path);
      if (!entry) return undefined;
      const base = known.latestSummary(entry);
      const extended = await summaryGrownFrom(base, lifetime.signal);
      // A scan read the file meanwhile: its summary is the newer one.
      if (known.get(path) !== entry || known.latestSummary(entry) !== base) return known.session(path);
      if (extended === undefined) return undefined;
      if (extended !== base) known.setGrown(path, extended);
      return known.session(path);
    },
    async search(query, searchOptions = {}) {
      assertLive();
      const source = { known, index, rescan: (signal: AbortSignal) => scan({ signal }) };
      return searchLibrary(source, query, searchOptions, untilDisposed(searchOptions.signal));
    },
    async dispose() {
      if (lifetime.signal.aborted) return;
      lifetime.abort(new Error("The session library was disposed."));
      await running;
      known.clear();
      index.clear();
    },
  };
}

/** What a crash of an earlier Arbor left in the roots goes, the first time this process sees each. */
function sweepOnce(roots: readonly SessionRoot[]): Promise<unknown> {
  return Promise.all(roots.map((root) => oncePerProcess(root.path, removeStaleSessionTemporaries)));
}

function environmentOf(options: SessionLibraryOptions): RootEnvironment {
  const environment: RootEnvironment = {};
  if (options.env) environment.env = options.env;
  if (options.homeDir) environment.homeDir = options.homeDir;
  return environment;
}

/** The folders a scan reads: the given roots (else Pi's session folder), then the user's folders. */
function rootsToScan(
  given: readonly string[] | undefined,
  extraFolders: readonly string[],
  environment: RootEnvironment,
): SessionRoot[] {
  if (!given) return resolveSessionRoots(extraFolders, environment);
  return [
    ...given.map((path): SessionRoot => ({ path: resolve(path), source: "given", note: undefined })),
    ...extraFolders
      .map((path): SessionRoot => ({ path: resolve(path), source: "folder", note: undefined }))
      .filter((root) => !given.some((path) => resolve(path) === root.path)),
  ];
}
