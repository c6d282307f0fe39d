/**
 * One open session file: its current index, bodies on demand, and (when
 * following) the file's growth as events. Read-only: the only writes into
 * the file go through `append.ts`, and `append()` here reads its own line
 * back at once, so the index always describes bytes that are on disk.
 *
 * When the file is truncated, replaced, deleted, re-created or rewritten in
 * place, the store does not patch its index: it reloads the whole file and
 * says why (`onDidReload`), so nobody sees stale or mixed data.
 */

import { closeSync, fstatSync, openSync } from "node:fs";
import { resolve } from "node:path";
import { DisposableObject, MutableDisposable, toDisposable } from "../../shared/lifecycle/disposable.ts";
import { Emitter, type Event } from "../../shared/lifecycle/event.ts";
import type { EntryReader } from "../../shared/session/entry-reader.ts";
import type { EntryFacts } from "../../shared/session/facts.ts";
import type { ParseMode } from "../../shared/session/parse.ts";
import type { SessionIndex, TreeNode } from "../../shared/session/tree-index.ts";
import type { SessionEntry } from "../../shared/session/types.ts";
import type { AppendResult, AppendTarget } from "./append.ts";
import type { FileEntryReader } from "./entry-reader.ts";
import {
  type ByteSample,
  type FollowOptions,
  inspectFile,
  isMissing,
  type KnownFile,
  type ReloadReason,
  readAppended,
  SessionFollower,
  sampleFile,
} from "./follower.ts";
import { defaultMode, type IndexedFile, openIndexedFile } from "./open-indexed-file.ts";
import type { ParseCache } from "./parse-cache.ts";
import type { SavedView } from "./saved-view.ts";

/** A store listener that throws is reported, and the other listeners still hear the event. */
function reportListenerError(error: unknown): void {
  console.error("arbor: a session store listener threw:", error);
}

export interface AppendEvent {
  index: SessionIndex;
  /** Nodes of the entries that were not in the index before, in file order. */
  added: readonly TreeNode[];
  /** The index was rebuilt rather than extended (duplicate ids, an orphan's parent arriving, ...). */
  rebuilt: boolean;
}

export interface ReloadEvent {
  reason: ReloadReason;
  /** The index of the file now at the path; `null` when it was deleted. */
  index: SessionIndex | null;
  previous: SessionIndex;
}

export type SyncResult =
  | { kind: "unchanged" }
  /** Bytes were read but no entry was completed yet (a half-written line is held). */
  | { kind: "pending" }
  | { kind: "appended"; event: AppendEvent }
  | { kind: "reloaded"; event: ReloadEvent }
  /** The file is (still) deleted. */
  | { kind: "missing" };

export interface SessionStoreOptions {
  /** How to parse; by default structure-first with facts for files of `STRUCTURE_FIRST_MIN_BYTES` or more. */
  mode?: ParseMode;
  /** Follow the file (watch its directory, poll as a safety net). Default: off; see `follow()`. */
  follow?: boolean | FollowOptions;
  /** Saved parses of large files: read instead of parsing, and saved after a parse (see `parse-cache.ts`). */
  parseCache?: ParseCache | undefined;
  /** How long after an open a new parse is saved (default 1.5 s: after the window has drawn the session). */
  parseSaveDelayMs?: number;
}

const PARSE_SAVE_DELAY_MS = 1500;

export class StoreDisposedError extends Error {
  constructor(path: string) {
    super(`The session store for ${path} was disposed; open the session again to read it.`);
    this.name = "StoreDisposedError";
  }
}

interface OpenFile {
  /** Built when first read, when the open had a saved view (see `IndexedFile.index`). */
  index: SessionIndex;
  /** The whole entries of `index` (made with it; a rebuilt index gets a new one). */
  reader: FileEntryReader;
  mode: ParseMode;
  known: KnownFile;
  /** Taken with the index. */
  samples: ByteSample[];
  /** The saved view of the bytes the index was read from, until the index moves past them. */
  savedView: SavedView | undefined;
  /** False when the index, built after the open, read other bytes than the saved view's (see `IndexedFile`). */
  readonly matchesSavedView: boolean;
  /** The saved view the index was built from, and that index (it stays the same object while appends extend it). */
  readonly builtFromSavedView: { view: SavedView; index: SessionIndex } | undefined;
  /** Saves the parse and view for the next open (see `IndexedFile.saveForNextOpen`). */
  saveForNextOpen: IndexedFile["saveForNextOpen"];
  /** Our own read-only descriptor on the same inode the index was read from. */
  fd: number;
  close(): void;
}

/** Whether `index` holds exactly the entries and bytes `view` was saved from. */
function describes(view: SavedView, index: SessionIndex): boolean {
  return index.entries.length === view.entryCount && index.byteLength === view.content.bytes;
}

/** Opens `path` and a second descriptor on the same inode (retrying if the file is replaced in between). */
function openFollowable(
  path: string,
  requestedMode: ParseMode | undefined,
  parseCache: ParseCache | undefined,
): OpenFile {
  for (let attempt = 0; ; attempt++) {
    // The store serves the explorer, which shows every node's facts.
    const opened = openIndexedFile(
      path,
      requestedMode ? { mode: requestedMode, parseCache } : { withFacts: true, parseCache },
    );
    let fd: number;
    try {
      fd = openSync(path, "r");
    } catch (error) {
      opened.close();
      throw error;
    }
    const stats = fstatSync(fd);
    if (stats.ino !== opened.ino && attempt < 3) {
      closeSync(fd);
      opened.close();
      continue;
    }
    const mode = requestedMode ?? defaultMode(opened.size, true);
    // With a saved view the index is built when first asked for. The samples of its bytes are taken at once
    // with it (the build checked them against the view's digest), so a rewrite after that is still seen.
    let loaded: { index: SessionIndex; reader: FileEntryReader; samples: ByteSample[] } | undefined;
    let builtFromSavedView: OpenFile["builtFromSavedView"];
    const load = () => {
      if (loaded === undefined) {
        const index = opened.index;
        loaded = { index, reader: opened.reader, samples: sampleFile(fd, index) };
        if (savedView && opened.matchesSavedView && describes(savedView, index))
          builtFromSavedView = { view: savedView, index };
      }
      return loaded;
    };
    // Taken: the store holds the saved view only while its index is what the view describes.
    const savedView = opened.savedView;
    opened.savedView = undefined;
    if (!savedView) load();
    const size = savedView ? savedView.content.bytes : opened.index.byteLength;
    return {
      get index() {
        return load().index;
      },
      set index(value) {
        load().index = value;
      },
      get reader() {
        return load().reader;
      },
      set reader(value) {
        load().reader = value;
      },
      get samples() {
        return load().samples;
      },
      set samples(value) {
        load().samples = value;
      },
      mode,
      known: { size, mtimeMs: opened.mtimeMs, ino: opened.ino, dev: stats.dev },
      savedView,
      get matchesSavedView() {
        return opened.matchesSavedView;
      },
      get builtFromSavedView() {
        return builtFromSavedView;
      },
      saveForNextOpen: opened.saveForNextOpen,
      fd,
      close() {
        closeSync(fd);
        opened.close();
      },
    };
  }
}

export class SessionStore extends DisposableObject {
  readonly path: string;
  private file: OpenFile;
  /** Set while the file is missing from disk (the last index stays readable from the old descriptor). */
  private missing = false;
  private readonly follower: MutableDisposable<SessionFollower>;
  private lastOwnWrite: { size: number; mtimeMs: number } | undefined;
  private readonly appended: Emitter<AppendEvent>;
  private readonly reloaded: Emitter<ReloadEvent>;
  private readonly failed: Emitter<unknown>;
  readonly onDidAppend: Event<AppendEvent>;
  readonly onDidReload: Event<ReloadEvent>;
  /** Errors met while following (a read failing, permissions changing...). */
  readonly onDidFail: Event<unknown>;

  private parseSave: ReturnType<typeof setTimeout> | undefined;

  private constructor(
    path: string,
    file: OpenFile,
    private readonly options: SessionStoreOptions,
  ) {
    super();
    this.path = path;
    this.file = file;
    // Disposed newest first: the save and the follower stop, the listeners go, and the file closes last.
    this.register(toDisposable(() => this.file.close()));
    this.appended = this.register(new Emitter<AppendEvent>(reportListenerError));
    this.reloaded = this.register(new Emitter<ReloadEvent>(reportListenerError));
    this.failed = this.register(new Emitter<unknown>(reportListenerError));
    this.onDidAppend = this.appended.event;
    this.onDidReload = this.reloaded.event;
    this.onDidFail = this.failed.event;
    this.follower = this.register(new MutableDisposable<SessionFollower>());
    this.register(toDisposable(() => clearTimeout(this.parseSave)));
    this.scheduleParseSave();
  }

  /** Opens `path` read-only. Throws the file system's error if it cannot be opened. */
  static open(path: string, options: SessionStoreOptions = {}): SessionStore {
    const absolute = resolve(path);
    const store = new SessionStore(
      absolute,
      openFollowable(absolute, options.mode, options.parseCache),
      options,
    );
    if (options.follow) store.follow(options.follow === true ? {} : options.follow);
    return store;
  }

  /**
   * Saves a fresh parse (and view) a little later, so the open itself is not
   * slowed, letting other work run between the view's steps; dropped if the
   * store closes first.
   */
  private scheduleParseSave(): void {
    clearTimeout(this.parseSave);
    const save = this.file.saveForNextOpen;
    if (!save) return;
    // Stops when the store closes, or when the file it is saving for was read again (a reload).
    const pause = () =>
      new Promise<void>((resolve, reject) =>
        setImmediate(() => {
          if (this.isDisposed) reject(new StoreDisposedError(this.path));
          else if (this.file.saveForNextOpen !== save) reject(new Error(`${this.path} was read again`));
          else resolve();
        }),
      );
    this.parseSave = setTimeout(() => {
      save(pause).catch(() => {
        // Closed meanwhile, or the folder cannot be written: the next open parses again.
      });
    }, this.options.parseSaveDelayMs ?? PARSE_SAVE_DELAY_MS);
    this.parseSave.unref?.();
  }

  get index(): SessionIndex {
    return this.file.index;
  }

  /** The whole entries of `index`; replaced with it when an append rebuilds it, or the file is read again. */
  get reader(): EntryReader {
    return this.file.reader;
  }

  get mode(): ParseMode {
    return this.file.mode;
  }

  /**
   * The saved view of the file as the index holds it (see `saved-view.ts`):
   * there while the index is the one read at the open, gone once it changes.
   */
  get savedView(): SavedView | undefined {
    // An index built after the open from other bytes is not the view's (the next sync reloads the file).
    return this.file.matchesSavedView ? this.file.savedView : undefined;
  }

  /**
   * Whether the index was built from the bytes `view` describes (an open
   * from it) and has since only grown in place by appends: its first
   * entries are still the view's, so the view's nodes can be extended by
   * what came after rather than compared with new ones.
   */
  indexGrewFrom(view: SavedView): boolean {
    const built = this.file.builtFromSavedView;
    return built !== undefined && built.view === view && built.index === this.file.index && !this.missing;
  }

  /** The header's `cwd` ("" when it has none), known without the index while there is a saved view. */
  get cwd(): string {
    const cwd = this.file.savedView ? this.file.savedView.content.cwd : this.file.index.header?.cwd;
    return typeof cwd === "string" ? cwd : "";
  }

  /** True while the file is deleted: `index` is then the last one read. */
  get deleted(): boolean {
    return this.missing;
  }

  /** What the index was built from; `null` while the file is deleted. */
  get fileState(): Readonly<KnownFile> | null {
    return this.missing ? null : this.file.known;
  }

  /** Size and time of the file after this store's last append, until the file is read anew. */
  get ownWrite(): Readonly<{ size: number; mtimeMs: number }> | undefined {
    return this.lastOwnWrite;
  }

  get following(): boolean {
    return this.follower.value !== undefined;
  }

  /** The whole entry, its body read from the file if the index was built structure-first. */
  entry(id: string): SessionEntry | undefined {
    this.assertLive();
    return this.file.reader.entry(id);
  }

  facts(id: string): EntryFacts | undefined {
    this.assertLive();
    return this.file.reader.facts(id);
  }

  /** Starts following the file (idempotent). */
  follow(options: FollowOptions = {}): void {
    this.assertLive();
    if (this.follower.value) return;
    this.follower.value = new SessionFollower(
      this.path,
      () => this.sync(),
      options,
      (error) => this.failed.fire(error),
    );
  }

  /** Stops following; the index stays as it is. */
  unfollow(): void {
    this.follower.clear();
  }

  /** Looks at the file now and brings the index up to date (a follower calls this; so can anyone). */
  sync(): SyncResult {
    this.assertLive();
    // Built now if it was not (an open from a saved view): with the samples of the bytes it read.
    const samples = this.file.samples;
    // The index was built after the open from other bytes than the view sent then: read it again, as after a rewrite.
    if (!this.missing && !this.file.matchesSavedView) return this.reload("rewritten");
    const change = inspectFile(this.path, this.file.fd, this.missing ? null : this.file.known, samples);
    switch (change.kind) {
      case "missing":
        return { kind: "missing" };
      case "unchanged":
        this.file.known.mtimeMs = change.stats.mtimeMs;
        return { kind: "unchanged" };
      case "grown": {
        const file = this.file;
        const problemsBefore = settledProblems(file.index);
        const read = readAppended(file.fd, file.index, change.stats.size, file.mode, file.samples);
        if (read.index !== file.index || read.index.byteLength !== file.known.size)
          file.savedView = undefined;
        if (read.index !== file.index) file.reader = file.reader.forIndex(read.index);
        file.index = read.index;
        file.samples = read.samples;
        file.known = { ...file.known, size: read.index.byteLength, mtimeMs: change.stats.mtimeMs };
        // Nothing but a line still being written (or blank ones): nothing to tell. A damaged line is news.
        const newProblems = settledProblems(read.index) !== problemsBefore;
        if (read.added.length === 0 && !read.rebuilt && !newProblems) return { kind: "pending" };
        const event: AppendEvent = { index: read.index, added: read.added, rebuilt: read.rebuilt };
        this.appended.fire(event);
        return { kind: "appended", event };
      }
      case "reload":
        return this.reload(change.reason);
    }
  }

  private reload(reason: ReloadReason): SyncResult {
    const previous = this.file.index;
    if (reason === "deleted") return this.markMissing(previous);
    let next: OpenFile;
    try {
      next = openFollowable(this.path, this.options.mode, this.options.parseCache);
    } catch (error) {
      if (isMissing(error)) return this.markMissing(previous);
      throw error;
    }
    this.file.close();
    this.file = next;
    this.scheduleParseSave();
    this.missing = false;
    this.lastOwnWrite = undefined;
    const event: ReloadEvent = { reason, index: next.index, previous };
    this.reloaded.fire(event);
    return { kind: "reloaded", event };
  }

  private markMissing(previous: SessionIndex): SyncResult {
    if (this.missing) return { kind: "missing" };
    this.missing = true;
    const event: ReloadEvent = { reason: "deleted", index: null, previous };
    this.reloaded.fire(event);
    return { kind: "reloaded", event };
  }

  /** What `append.ts` needs to write into this file safely. */
  appendTarget(): AppendTarget {
    this.assertLive();
    return {
      path: this.path,
      index: this.file.index,
      file: this.missing ? null : { ...this.file.known },
      lastOwnWrite: this.lastOwnWrite,
    };
  }

  /**
   * Appends one entry with one of `append.ts`'s writers, then reads it back,
   * so the index (and an `onDidAppend` event) has it before this returns.
   * Throws the writer's `AppendError` when it refuses.
   */
  append<O, R extends AppendResult = AppendResult>(
    write: (target: AppendTarget, options: O) => R,
    options: O,
  ): R {
    const result = write(this.appendTarget(), options);
    this.lastOwnWrite = { size: result.size, mtimeMs: result.mtimeMs };
    this.sync();
    return result;
  }

  private assertLive(): void {
    if (this.isDisposed) throw new StoreDisposedError(this.path);
  }
}

/** Problems of whole lines: a last line still being written reads as damaged until its newline comes. */
function settledProblems(index: SessionIndex): number {
  const writing = index.unterminatedLastLine?.line;
  let count = 0;
  for (const problem of index.problems) if (problem.line !== writing) count++;
  return count;
}
