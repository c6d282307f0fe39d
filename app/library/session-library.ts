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
 */

import { basename, resolve } from "node:path";
import {
  type CachedFile,
  loadLibraryCache,
  loadSearchIndexText,
  type SearchIndexFile,
  saveLibraryCache,
  searchIndexPresent,
} from "./cache.ts";
import { type DiscoveredFile, discoverSessionFiles, type RootStatus } from "./discover.ts";
import { READ_CHUNK_BYTES } from "./read-lines.ts";
import { type RootEnvironment, resolveSessionRoots, type SessionRoot } from "./roots.ts";
import { scanSessionFile, summaryGrownFrom } from "./scan-file.ts";
import { type SearchHit, searchSessionFile } from "./search-file.ts";
import { SessionSearchIndex } from "./search-index.ts";
import type { SessionSummary } from "./session-summary.ts";
import { queryTerms } from "./tokenize.ts";
import type { ParseCache } from "../store/parse-cache.ts";

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

/**
 * Bytes of large sessions a scan parses for saved parses, at most: each costs
 * about 2x its read, and its save holds the process for ~0.5 s per 40 MB.
 */
const PARSE_SAVE_BUDGET_BYTES = 256 * 1024 * 1024;

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

export interface LibrarySession extends SessionSummary {
  /** The root folder the file was found under. */
  root: string;
  /** The file `parentSession` names, when the library has it. */
  parentPath: string | undefined;
  /** Sessions forked from this one (their paths, oldest first). */
  children: string[];
}

export interface ProjectGroup {
  /** The header's `cwd` ("" for sessions that name none). */
  cwd: string;
  /** Newest first, by `modified` (Pi's order). */
  sessions: LibrarySession[];
  /** The newest session's `modified`. */
  modified: number;
}

export interface LibraryListing {
  /** Projects, the most recently active first. */
  projects: ProjectGroup[];
  /** Every session that could be read, newest first. */
  sessions: LibrarySession[];
  /** Files that are not readable sessions, with their error. */
  failed: LibrarySession[];
}

export interface SearchOptions {
  /** At most this many hits (default 100). */
  limit?: number | undefined;
  /** Sessions in index rank order (default), or the most recently active first. */
  order?: "relevance" | "recent" | undefined;
  signal?: AbortSignal | undefined;
  /** Called with each hit as soon as it is found. */
  onHit?: ((hit: SearchHit) => void) | undefined;
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

export type { SearchHit } from "./search-file.ts";

interface Known extends CachedFile {
  root: string;
  /** False for an unreadable file: it is tried again next time and never cached. */
  cacheable: boolean;
  /** Its index document was lost with the index file: the file is read again for its terms. */
  needsTerms: boolean;
}

const DEFAULT_CONCURRENCY = 4;
const DEFAULT_SEARCH_LIMIT = 100;

export function createSessionLibrary(options: SessionLibraryOptions): SessionLibrary {
  const environment: RootEnvironment = {};
  if (options.env) environment.env = options.env;
  if (options.homeDir) environment.homeDir = options.homeDir;
  let extraFolders = [...(options.extraFolders ?? [])];
  const concurrency = Math.max(1, options.concurrency ?? DEFAULT_CONCURRENCY);
  const cacheDir = options.cacheDir;

  const known = new Map<string, Known>();
  /** Summaries `refresh` extended past the last scan's, by path; a scan that reads the file drops its own. */
  const grown = new Map<string, SessionSummary>();
  const pathOfDoc = new Map<number, string>();
  let nextDocId = 0;
  let cacheLoaded = false;
  let listing: LibraryListing | null = null;
  let lastRoots: SessionRoot[] | null = null;
  let running: Promise<unknown> = Promise.resolve();
  const lifetime = new AbortController();

  // The search index. A warm start leaves it on disk (`indexFile`) until a
  // search or a change needs it, so the list is ready without parsing it;
  // documents changed meanwhile wait in `pendingDocs`.
  let index: SessionSearchIndex | null = SessionSearchIndex.create();
  let indexFile: SearchIndexFile | null = null;
  /** True while `index` (or `indexFile` plus `pendingDocs`) differs from `indexFile` on disk. */
  let indexDirty = false;
  const pendingDocs = new Map<number, readonly string[] | null>();
  let indexLoading: Promise<SessionSearchIndex> | null = null;

  const setDocument = (docId: number, terms: readonly string[] | null) => {
    indexDirty = true;
    if (index) {
      if (terms) index.set(docId, terms);
      else index.remove(docId);
    } else {
      pendingDocs.set(docId, terms);
    }
  };

  /** The index in memory, loading it first if it is still on disk. */
  const loadedIndex = (): Promise<SessionSearchIndex> => {
    if (index) return Promise.resolve(index);
    indexLoading ??= (async () => {
      const text = cacheDir !== null && indexFile ? await loadSearchIndexText(cacheDir, indexFile) : null;
      let loaded = text === null ? null : SessionSearchIndex.load(text);
      if (!loaded) {
        // Lost after all (damaged in place): the files it covered are read again for their terms.
        loaded = SessionSearchIndex.create();
        indexFile = null;
        indexDirty = true;
        for (const entry of known.values()) {
          if (entry.docId !== null && !pendingDocs.has(entry.docId)) entry.needsTerms = true;
        }
      }
      for (const [docId, terms] of pendingDocs) {
        if (terms) loaded.set(docId, terms);
        else loaded.remove(docId);
      }
      pendingDocs.clear();
      index = loaded;
      indexLoading = null;
      return loaded;
    })();
    return indexLoading;
  };

  const currentRoots = (): SessionRoot[] =>
    options.roots
      ? [
          ...options.roots.map(
            (path): SessionRoot => ({ path: resolve(path), source: "given", note: undefined }),
          ),
          ...extraFolders
            .map((path): SessionRoot => ({ path: resolve(path), source: "folder", note: undefined }))
            .filter((root) => !options.roots?.some((given) => resolve(given) === root.path)),
        ]
      : resolveSessionRoots(extraFolders, environment);

  const assertLive = () => {
    if (lifetime.signal.aborted) throw new Error("This session library was disposed; create a new one.");
  };

  const forget = (path: string) => {
    const entry = known.get(path);
    if (!entry) return;
    if (entry.docId !== null) {
      setDocument(entry.docId, null);
      pathOfDoc.delete(entry.docId);
    }
    known.delete(path);
    grown.delete(path);
  };

  /** Reads the on-disk cache into `known` (first scan only); the search index stays on disk. */
  const loadCache = async (): Promise<ScanReport["cache"]> => {
    if (cacheLoaded) return "in-memory";
    cacheLoaded = true;
    if (cacheDir === null) return "disabled";
    const cache = await loadLibraryCache(cacheDir);
    if (typeof cache === "string") return cache;
    // An index file that is gone or of another size: the summaries stand, the terms are read again.
    const haveIndex = cache.searchIndex !== null && (await searchIndexPresent(cacheDir, cache.searchIndex));
    for (const [path, file] of cache.files) {
      // Two records claiming one document (a cache damaged in a way JSON cannot tell): the second is read again.
      if (file.docId !== null && pathOfDoc.has(file.docId)) continue;
      known.set(path, { ...file, root: "", cacheable: true, needsTerms: file.docId !== null && !haveIndex });
      if (file.docId !== null) {
        pathOfDoc.set(file.docId, path);
        nextDocId = Math.max(nextDocId, file.docId + 1);
      }
    }
    if (haveIndex) {
      index = null;
      indexFile = cache.searchIndex;
    } else {
      indexDirty = true;
    }
    return "loaded";
  };

  /** Reads files for their summaries and terms, `concurrency` at a time, the most recently written first. */
  const readFiles = async (files: DiscoveredFile[], signal: AbortSignal, onRead: () => void) => {
    files.sort((a, b) => b.mtimeMs - a.mtimeMs);
    let next = 0;
    let parseBudget = PARSE_SAVE_BUDGET_BYTES;
    const read = async () => {
      const buffer = Buffer.allocUnsafe(READ_CHUNK_BYTES);
      while (next < files.length) {
        signal.throwIfAborted();
        const file = files[next++]!;
        const cache = options.parseCache;
        const saveParse =
          cache !== undefined &&
          file.size >= cache.minBytes &&
          parseBudget >= file.size &&
          !cache.has(file.path);
        if (saveParse) parseBudget -= file.size;
        const parseCache = saveParse ? cache : undefined;
        const { summary, terms } = await scanSessionFile(file.path, {
          withTerms: true,
          signal,
          buffer,
          parseCache,
        });
        const unreadable = summary.error?.code === "unreadable";
        let docId = known.get(file.path)?.docId ?? null;
        if (terms && terms.length > 0) {
          docId ??= nextDocId++;
          setDocument(docId, terms);
          pathOfDoc.set(docId, file.path);
        } else if (docId !== null) {
          setDocument(docId, null);
          pathOfDoc.delete(docId);
          docId = null;
        }
        grown.delete(file.path);
        known.set(file.path, {
          // An unreadable file shows what the directory listing saw.
          summary: unreadable ? { ...summary, ...signatureOf(file) } : summary,
          docId,
          root: file.root,
          cacheable: !unreadable,
          needsTerms: false,
        });
        listing = null;
        onRead();
      }
    };
    // Settled, not raced: after an abort no reader may still be changing the library.
    const readers = await Promise.allSettled(
      Array.from({ length: Math.min(concurrency, files.length) }, read),
    );
    for (const reader of readers) if (reader.status === "rejected") throw reader.reason;
  };

  const runScan = async (scanOptions: ScanOptions): Promise<ScanReport> => {
    const started = performance.now();
    const signal = scanOptions.signal
      ? AbortSignal.any([scanOptions.signal, lifetime.signal])
      : lifetime.signal;
    signal.throwIfAborted();
    const roots = currentRoots();
    lastRoots = roots;
    const cacheState = await loadCache();
    const discovery = await discoverSessionFiles(roots, signal);
    const present = new Map(discovery.files.map((file) => [file.path, file]));
    let removed = 0;
    for (const path of [...known.keys()]) {
      if (!present.has(path)) {
        forget(path);
        options.parseCache?.remove(path);
        removed++;
      }
    }
    let changed = removed > 0 || cacheState === "absent" || cacheState === "ignored";
    const total = discovery.files.length;
    let loaded = 0;
    const progress = () => scanOptions.onProgress?.({ loaded, total });
    progress();

    const toRead: DiscoveredFile[] = [];
    for (const file of discovery.files) {
      const entry = known.get(file.path);
      if (entry?.cacheable && !entry.needsTerms && sameSignature(entry.summary, file)) {
        entry.root = file.root;
        loaded++;
      } else {
        toRead.push(file);
      }
    }
    listing = null;
    if (loaded > 0) progress();
    let read = toRead.length;
    await readFiles(toRead, signal, () => {
      loaded++;
      progress();
    });
    if (toRead.length > 0) changed = true;

    let cacheWriteError: string | undefined;
    if (cacheDir !== null && (changed || indexDirty)) {
      try {
        if (indexDirty) {
          const current = await loadedIndex();
          // The index file proved damaged while loading: read what it covered again.
          const again = [...known.values()].filter((entry) => entry.needsTerms);
          if (again.length > 0) {
            read += again.length;
            await readFiles(
              again.map((entry) => present.get(entry.summary.path)!).filter(Boolean),
              signal,
              () => {},
            );
          }
          signal.throwIfAborted();
          const cacheable = [...known.values()].filter((entry) => entry.cacheable);
          indexFile = await saveLibraryCache(cacheDir, cacheable, { json: current.toJSON() });
          indexDirty = false;
        } else {
          signal.throwIfAborted();
          const cacheable = [...known.values()].filter((entry) => entry.cacheable);
          await saveLibraryCache(cacheDir, cacheable, { keep: indexFile });
        }
      } catch (error) {
        signal.throwIfAborted();
        cacheWriteError = error instanceof Error ? error.message : String(error);
      }
    }
    let failed = 0;
    for (const entry of known.values()) if (entry.summary.error) failed++;
    return {
      roots: discovery.roots,
      total,
      read,
      fromCache: total - toRead.length,
      removed,
      failed,
      cache: cacheState,
      cacheWriteError,
      durationMs: performance.now() - started,
    };
  };

  const scan = (scanOptions: ScanOptions = {}): Promise<ScanReport> => {
    assertLive();
    const result = running.then(() => runScan(scanOptions));
    running = result.catch(() => {});
    return result;
  };

  const buildListing = (): LibraryListing => {
    const all = [...known.values()].map(
      (entry): LibrarySession => ({
        ...(grown.get(entry.summary.path) ?? entry.summary),
        root: entry.root,
        parentPath: undefined,
        children: [],
      }),
    );
    const byPath = new Map<string, LibrarySession>();
    const byName = new Map<string, LibrarySession | null>();
    for (const session of all) {
      byPath.set(session.path, session);
      const name = basename(session.path);
      byName.set(name, byName.has(name) ? null : session);
    }
    const sessions = all.filter((session) => !session.error);
    for (const session of sessions) {
      if (!session.parentSession) continue;
      // Pi writes the parent's absolute path; a library copied elsewhere still has the file name.
      const parent =
        byPath.get(resolve(session.parentSession)) ?? byName.get(basename(session.parentSession));
      if (!parent || parent === session || parent.error) continue;
      session.parentPath = parent.path;
      parent.children.push(session.path);
    }
    for (const session of sessions) {
      if (session.children.length > 1) {
        session.children.sort(
          (a, b) => (byPath.get(a)?.created ?? 0) - (byPath.get(b)?.created ?? 0) || a.localeCompare(b),
        );
      }
    }
    sessions.sort(newestFirst);
    const groups = new Map<string, ProjectGroup>();
    for (const session of sessions) {
      let group = groups.get(session.cwd);
      if (!group) {
        group = { cwd: session.cwd, sessions: [], modified: session.modified };
        groups.set(session.cwd, group);
      }
      group.sessions.push(session);
    }
    const failed = all.filter((session) => session.error).sort((a, b) => a.path.localeCompare(b.path));
    return { projects: [...groups.values()], sessions, failed };
  };

  const sessionAt = (path: string): LibrarySession | undefined => {
    listing ??= buildListing();
    const { sessions, failed } = listing;
    return (
      sessions.find((session) => session.path === path) ?? failed.find((session) => session.path === path)
    );
  };

  return {
    roots() {
      return lastRoots ?? currentRoots();
    },

    setExtraFolders(folders) {
      assertLive();
      extraFolders = [...folders];
    },

    scan,

    list() {
      listing ??= buildListing();
      return listing;
    },

    session: sessionAt,

    async refresh(path) {
      assertLive();
      const entry = known.get(path);
      if (!entry) return undefined;
      const base = grown.get(path) ?? entry.summary;
      const extended = await summaryGrownFrom(base, lifetime.signal);
      // A scan read the file meanwhile: its summary is the newer one.
      if (known.get(path) !== entry || (grown.get(path) ?? entry.summary) !== base) {
        return sessionAt(path);
      }
      if (extended === undefined) return undefined;
      if (extended !== base) {
        grown.set(path, extended);
        listing = null;
      }
      return sessionAt(path);
    },

    async search(query, searchOptions = {}) {
      assertLive();
      const terms = queryTerms(query);
      const limit = searchOptions.limit ?? DEFAULT_SEARCH_LIMIT;
      const signal = searchOptions.signal
        ? AbortSignal.any([searchOptions.signal, lifetime.signal])
        : lifetime.signal;
      if (terms.length === 0) return [];
      let current = await loadedIndex();
      // The index file proved damaged: rebuild it (reading the files it covered) before searching.
      if ([...known.values()].some((entry) => entry.needsTerms)) {
        await scan({ signal });
        current = await loadedIndex();
      }
      const candidates: Known[] = [];
      for (const match of current.match(terms)) {
        const path = pathOfDoc.get(match.docId);
        const entry = path === undefined ? undefined : known.get(path);
        if (entry) candidates.push(entry);
      }
      if (searchOptions.order === "recent") candidates.sort((a, b) => newestFirst(a.summary, b.summary));
      const hits: SearchHit[] = [];
      for (const entry of candidates) {
        if (hits.length >= limit) break;
        signal.throwIfAborted();
        const found = await searchSessionFile(entry.summary.path, terms, {
          sessionId: entry.summary.id,
          limit: limit - hits.length,
          signal,
          onHit: searchOptions.onHit,
        });
        hits.push(...found);
      }
      return hits;
    },

    async dispose() {
      if (lifetime.signal.aborted) return;
      lifetime.abort(new Error("The session library was disposed."));
      await running;
      known.clear();
      grown.clear();
      pathOfDoc.clear();
      pendingDocs.clear();
      index = SessionSearchIndex.create();
      listing = null;
    },
  };
}

function sameSignature(summary: SessionSummary, file: DiscoveredFile): boolean {
  return summary.size === file.size && summary.mtimeMs === file.mtimeMs && summary.ino === file.ino;
}

function signatureOf(file: DiscoveredFile): Pick<SessionSummary, "size" | "mtimeMs" | "ino" | "modified"> {
  return { size: file.size, mtimeMs: file.mtimeMs, ino: file.ino, modified: file.mtimeMs };
}

function newestFirst(a: SessionSummary, b: SessionSummary): number {
  return b.modified - a.modified || a.path.localeCompare(b.path);
}
