/**
 * The library's search index as the library holds it: in memory, or, after a
 * warm start, still on disk until a search or a change needs it, so the list
 * is ready without parsing the index. Documents changed while it is on disk
 * wait in `pending` and are applied when it loads. It knows whether it
 * differs from the index file the cache names (`changed`), so a scan writes
 * a new index file only when it must.
 */

import { loadSearchIndexText, type SearchIndexFile } from "./cache.ts";
import { SessionSearchIndex } from "./search-index.ts";

export class LazySearchIndex {
  /** Null while the index is still on disk (`file`). */
  private index: SessionSearchIndex | null = SessionSearchIndex.create();
  private file: SearchIndexFile | null = null;
  /** True while the index (or `file` plus `pending`) differs from `file` on disk. */
  private unsaved = false;
  private readonly pending = new Map<number, readonly string[] | null>();
  private loading: Promise<SessionSearchIndex> | null = null;

  /**
   * `onLost`: the index file proved damaged when loaded; the files whose
   * documents it held (all but the pending ones) must be read again for their terms.
   */
  constructor(
    private readonly cacheDir: string | null,
    private readonly onLost: (isPending: (docId: number) => boolean) => void,
  ) {}

  /** Whether the index differs from the index file on disk (a scan then writes a new one). */
  get changed(): boolean {
    return this.unsaved;
  }

  /** The index file on disk that the index matches, unless `changed`. */
  get savedFile(): SearchIndexFile | null {
    return this.file;
  }

  /** Sets the terms of document `docId`; null removes it. */
  set(docId: number, terms: readonly string[] | null): void {
    this.unsaved = true;
    if (this.index) {
      if (terms) this.index.set(docId, terms);
      else this.index.remove(docId);
    } else {
      this.pending.set(docId, terms);
    }
  }

  /** Warm start: the index is `file`, left on disk until needed. */
  leaveOnDisk(file: SearchIndexFile | null): void {
    this.index = null;
    this.file = file;
  }

  /** The cache named no usable index file: the index must be written with the next cache. */
  markUnsaved(): void {
    this.unsaved = true;
  }

  /** The index was written to `file`. */
  saved(file: SearchIndexFile | null): void {
    this.file = file;
    this.unsaved = false;
  }

  /** The index in memory, loading it first if it is still on disk. */
  loaded(): Promise<SessionSearchIndex> {
    if (this.index) return Promise.resolve(this.index);
    this.loading ??= this.load();
    return this.loading;
  }

  /** Empties the index (the library was disposed). */
  clear(): void {
    this.pending.clear();
    this.index = SessionSearchIndex.create();
  }

  private async load(): Promise<SessionSearchIndex> {
    const text =
      this.cacheDir !== null && this.file ? await loadSearchIndexText(this.cacheDir, this.file) : null;
    let loaded = text === null ? null : SessionSearchIndex.load(text);
    if (!loaded) {
      // Lost after all (damaged in place): the files it covered are read again for their terms.
      loaded = SessionSearchIndex.create();
      this.file = null;
      this.unsaved = true;
      this.onLost((docId) => this.pending.has(docId));
    }
    for (const [docId, terms] of this.pending) {
      if (terms) loaded.set(docId, terms);
      else loaded.remove(docId);
    }
    this.pending.clear();
    this.index = loaded;
    this.loading = null;
    return loaded;
  }
}
