/**
 * What the runtime needs from one open session file. Small on purpose:
 * `file-session.ts` implements it over `app/store`'s `SessionStore` (its
 * follower and `append.ts`), and a test can swap in another through one
 * factory function (`SessionRuntimeOptions.openSession`).
 */

import type { EntryReader } from "../../shared/session/entry-reader.ts";
import type { SessionIndex } from "../../shared/session/tree-index.ts";
import type { SavedView } from "../store/saved-view.ts";
import type { SessionWrite, WriteOutcome } from "../store/write-entry.ts";
import type { Disposable } from "../../shared/lifecycle/disposable.ts";
import type { Event } from "../../shared/lifecycle/event.ts";

/** Entries were added at the end of the file (by Pi or by Arbor). */
export interface SessionAppendEvent {
  /** Ids of the new entries, in file order. */
  added: readonly string[];
  /** The index had to be rebuilt rather than extended (`index` is a new object). */
  rebuilt: boolean;
}

export type SessionReloadReason = "truncated" | "replaced" | "deleted" | "recreated" | "rewritten";

/** The file changed other than by appending: the index was read again (or, when deleted, kept as it was). */
export interface SessionReloadEvent {
  reason: SessionReloadReason;
}

export interface AppendOutcome {
  entryId: string;
  /**
   * The file had been modified by someone else within the last few seconds
   * before the append (Arbor's own previous append does not count): a Pi is
   * probably writing it.
   */
  wasLive: boolean;
}

export interface OpenSession extends Disposable {
  /** Absolute path of the file. */
  readonly path: string;
  /** The index as of the last read; replaced by a new object on reload or rebuild. */
  readonly index: SessionIndex;
  /** The whole entries of `index` (bodies read from the file on demand); replaced with it. */
  readonly reader: EntryReader;
  /**
   * The saved view of the file's bytes as the index holds them, when the
   * parse cache had one (see `app/store/saved-view.ts`); undefined once the
   * index has changed.
   */
  readonly savedView: SavedView | undefined;
  /**
   * Whether the index was built from `view`'s bytes and has since only grown
   * by appends in place (the same object): its first entries are the view's.
   */
  indexGrewFrom(view: SavedView): boolean;
  /** The header's `cwd` ("" when it has none); read without building the index (see `savedView`). */
  readonly cwd: string;
  /** Modification time of the file at the last read (ms since the epoch). */
  readonly mtimeMs: number;
  /**
   * When someone other than this session last changed the file (ms since the
   * epoch): its own appends (a label, a name) do not count, so they do not
   * make the file look as if a Pi were writing it.
   */
  readonly foreignChangeMs: number;
  /** The file as it is now is this process's own writing (a fork, a clone, a new session): not a foreign change. */
  markWrittenHere(): void;
  /** False after the file was deleted (until it is recreated). */
  readonly exists: boolean;
  readonly onDidAppend: Event<SessionAppendEvent>;
  readonly onDidReload: Event<SessionReloadEvent>;
  /** Watches the file and reads what others write to it, until the result is disposed. */
  follow(): Disposable;
  /** Reads whatever changed on disk now (appended, truncated, replaced, deleted). */
  refresh(): void;
  /** Appends a label entry (`null` clears the label) as a child of the file's leaf. */
  appendLabel(targetId: string, label: string | null): Promise<AppendOutcome>;
  /** Appends a session_info entry with the name (an empty name clears it, Pi's rule). */
  appendSessionName(name: string): Promise<AppendOutcome>;
  /**
   * Appends the entry a user's action stands for (`SessionWrite`). A live
   * file (see app/store/live-file.ts) is refused with "conflict" unless
   * `confirmLive`; `appendLabel` and `appendSessionName` (extensions) always write.
   */
  write(write: SessionWrite, options?: WriteOptions): Promise<WriteOutcome>;
}

export interface WriteOptions {
  /** The user confirmed writing although a Pi may be writing the file. */
  confirmLive?: boolean | undefined;
}

/** Opens one session file; throws (an `ArborError`, or a Node error the caller maps) when it cannot. */
export type OpenSessionFactory = (path: string) => Promise<OpenSession>;

/** Where a fork ends: the entry that becomes the new file's leaf, or `null` for a file with no entries. */
export interface ForkTarget {
  source: OpenSession;
  leafId: string | null;
}

/**
 * Writes new session files: each method returns the path of a complete new
 * file (written to a temp name, then published under its final name, so no
 * reader ever sees half of one). `session-files.ts` implements it over
 * `app/store/new-file.ts`.
 */
export interface SessionFiles {
  /** A header-only session for `cwd` in `sessionDir` (with `parentSession` when given). */
  createNew(options: {
    cwd: string;
    sessionDir: string;
    parentSession?: string | undefined;
  }): Promise<string>;
  /**
   * A fork of `source` ending at `leafId`, in `sessionDir`: Pi's
   * `createBranchedSession` (the root-to-leaf path without label entries,
   * then fresh labels for the path's labelled entries, `parentSession` = the
   * source's path). `leafId: null` writes a header-only file with `parentSession`.
   */
  createFork(options: ForkTarget & { sessionDir: string }): Promise<string>;
}
