/**
 * The files a library knows: each file's summary (as the cache or the last
 * read left it), the root it was found under, and its document in the search
 * index. Every change goes through here, so the index documents follow the
 * files, and the listing built from them is dropped exactly when something it
 * shows has changed.
 */

import type { CachedFile } from "./cache.ts";
import type { DiscoveredFile } from "./discover.ts";
import type { LazySearchIndex } from "./lazy-search-index.ts";
import { buildListing, type LibraryListing, type LibrarySession } from "./library-listing.ts";
import type { SessionSummary } from "./session-summary.ts";

export interface KnownFile extends CachedFile {
  root: string;
  /** False for an unreadable file: it is tried again next time and never cached. */
  cacheable: boolean;
  /** Its index document was lost with the index file: the file is read again for its terms. */
  needsTerms: boolean;
}

export class KnownFiles {
  private readonly byPath = new Map<string, KnownFile>();
  /** Summaries `refresh` extended past the last scan's, by path; a read of the file drops its own. */
  private readonly grown = new Map<string, SessionSummary>();
  private readonly pathOfDocument = new Map<number, string>();
  private nextDocId = 0;
  private listing: LibraryListing | null = null;

  constructor(private readonly index: LazySearchIndex) {}

  get(path: string): KnownFile | undefined {
    return this.byPath.get(path);
  }

  /** The known file whose index document is `docId`. */
  withDocument(docId: number): KnownFile | undefined {
    const path = this.pathOfDocument.get(docId);
    return path === undefined ? undefined : this.byPath.get(path);
  }

  /** The paths known now (a copy: the caller may forget some while going through them). */
  paths(): string[] {
    return [...this.byPath.keys()];
  }

  /** The files the on-disk cache may hold (not the unreadable ones). */
  cacheable(): KnownFile[] {
    return [...this.byPath.values()].filter((entry) => entry.cacheable);
  }

  /** The files to read again because their index documents were lost. */
  needingTerms(): KnownFile[] {
    return [...this.byPath.values()].filter((entry) => entry.needsTerms);
  }

  anyNeedsTerms(): boolean {
    for (const entry of this.byPath.values()) if (entry.needsTerms) return true;
    return false;
  }

  failedCount(): number {
    let failed = 0;
    for (const entry of this.byPath.values()) if (entry.summary.error) failed++;
    return failed;
  }

  /**
   * Takes the files of the on-disk cache (first scan only). `termsLost`: the
   * cache's index file is gone, so files with a document are read again for their terms.
   */
  adoptCache(files: ReadonlyMap<string, CachedFile>, termsLost: boolean): void {
    for (const [path, file] of files) {
      // Two records claiming one document (a cache damaged in a way JSON cannot tell): the second is read again.
      if (file.docId !== null && this.pathOfDocument.has(file.docId)) continue;
      this.byPath.set(path, {
        ...file,
        root: "",
        cacheable: true,
        needsTerms: file.docId !== null && termsLost,
      });
      if (file.docId !== null) {
        this.pathOfDocument.set(file.docId, path);
        this.nextDocId = Math.max(this.nextDocId, file.docId + 1);
      }
    }
    this.listing = null;
  }

  /** Marks every file with a document as needing its terms again, but those `isPending` keeps. */
  termsLost(isPending: (docId: number) => boolean): void {
    for (const entry of this.byPath.values()) {
      if (entry.docId !== null && !isPending(entry.docId)) entry.needsTerms = true;
    }
  }

  /**
   * Keeps the known file unread when it is the file on disk (same size, mtime
   * and inode) and nothing of it needs reading; true if it was kept.
   */
  keepIfUnchanged(file: DiscoveredFile): boolean {
    const entry = this.byPath.get(file.path);
    if (!entry?.cacheable || entry.needsTerms || !sameSignature(entry.summary, file)) return false;
    entry.root = file.root;
    this.listing = null;
    return true;
  }

  /** Records what a read of `file` found: its summary and its search terms. */
  record(file: DiscoveredFile, summary: SessionSummary, terms: readonly string[] | null): void {
    const unreadable = summary.error?.code === "unreadable";
    let docId = this.byPath.get(file.path)?.docId ?? null;
    if (terms && terms.length > 0) {
      docId ??= this.nextDocId++;
      this.index.set(docId, terms);
      this.pathOfDocument.set(docId, file.path);
    } else if (docId !== null) {
      this.index.set(docId, null);
      this.pathOfDocument.delete(docId);
      docId = null;
    }
    this.grown.delete(file.path);
    this.byPath.set(file.path, {
      // An unreadable file shows what the directory listing saw.
      summary: unreadable ? { ...summary, ...signatureOf(file) } : summary,
      docId,
      root: file.root,
      cacheable: !unreadable,
      needsTerms: false,
    });
    this.listing = null;
  }

  /** Forgets a file gone from disk, and its document. */
  forget(path: string): void {
    const entry = this.byPath.get(path);
    if (!entry) return;
    if (entry.docId !== null) {
      this.index.set(entry.docId, null);
      this.pathOfDocument.delete(entry.docId);
    }
    this.byPath.delete(path);
    this.grown.delete(path);
    this.listing = null;
  }

  /** The newest summary of a known file: grown by `refresh`, else the last read's. */
  latestSummary(entry: KnownFile): SessionSummary {
    return this.grown.get(entry.summary.path) ?? entry.summary;
  }

  /** A summary `refresh` read further than the last scan. */
  setGrown(path: string, summary: SessionSummary): void {
    this.grown.set(path, summary);
    this.listing = null;
  }

  list(): LibraryListing {
    this.listing ??= buildListing(this.byPath.values(), this.grown);
    return this.listing;
  }

  session(path: string): LibrarySession | undefined {
    const { sessions, failed } = this.list();
    return (
      sessions.find((session) => session.path === path) ?? failed.find((session) => session.path === path)
    );
  }

  clear(): void {
    this.byPath.clear();
    this.grown.clear();
    this.pathOfDocument.clear();
    this.listing = null;
  }
}

function sameSignature(summary: SessionSummary, file: DiscoveredFile): boolean {
  return summary.size === file.size && summary.mtimeMs === file.mtimeMs && summary.ino === file.ino;
}

function signatureOf(file: DiscoveredFile): Pick<SessionSummary, "size" | "mtimeMs" | "ino" | "modified"> {
  return { size: file.size, mtimeMs: file.mtimeMs, ino: file.ino, modified: file.mtimeMs };
}
