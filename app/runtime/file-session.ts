/**
 * `OpenSession` over `app/store`'s `SessionStore`: the store reads the file,
 * follows it and reloads it when it is truncated, replaced, deleted,
 * re-created or rewritten; `append.ts` makes the only writes into it. This
 * wrapper owns the store and only translates: the store's events into the
 * session's (node ids instead of nodes), `follow()` into a disposable, and
 * the user's writes into `store.append` (app/store/write-entry.ts).
 */

import type { EntryReader } from "../../shared/session/entry-reader.ts";
import type { ParseMode } from "../../shared/session/parse.ts";
import type { SessionIndex } from "../../shared/session/tree-index.ts";
import { AppendError } from "../store/append.ts";
import type { FollowOptions } from "../store/follower.ts";
import { requireConfirmedIfLive } from "../store/live-file.ts";
import type { ParseCache } from "../store/parse-cache.ts";
import type { SavedView } from "../store/saved-view.ts";
import { SessionStore } from "../store/session-store.ts";
import { type SessionWrite, type WriteOutcome, writeSessionEntry } from "../store/write-entry.ts";
import {
  type Disposable,
  DisposableObject,
  DisposableStore,
  toDisposable,
} from "../../shared/lifecycle/disposable.ts";
import { Emitter } from "../../shared/lifecycle/event.ts";
import type {
  AppendOutcome,
  OpenSession,
  OpenSessionFactory,
  SessionAppendEvent,
  SessionReloadEvent,
  WriteOptions,
} from "./open-session.ts";

export interface FileSessionOptions {
  /** How to parse (default: the store's choice, structure-first for large files). */
  mode?: ParseMode | undefined;
  /** How the store follows the file while `follow()` is held (default: the store's). */
  follow?: FollowOptions | undefined;
  /** Errors while following (a read that failed); default: ignored, the next check tries again. */
  onFollowError?: ((error: unknown) => void) | undefined;
  /** Saved parses of large files, read instead of parsing them (see `app/store/parse-cache.ts`). */
  parseCache?: ParseCache | undefined;
}

/**
 * How often an append is tried again when another writer appended between
 * reading the file and writing to it (each try reads the new bytes first).
 */
const APPEND_ATTEMPTS = 5;

export class FileSession extends DisposableObject implements OpenSession {
  private readonly appended = this.register(new Emitter<SessionAppendEvent>());
  private readonly reloaded = this.register(new Emitter<SessionReloadEvent>());
  readonly onDidAppend = this.appended.event;
  readonly onDidReload = this.reloaded.event;
  private followers = 0;
  private lastMtimeMs: number;
  private lastForeignChangeMs: number;
  /** The file's state when this process wrote it whole (`markWrittenHere`). */
  private writtenHere: { size: number; mtimeMs: number } | undefined;

  /** Takes ownership of `store`: disposing the session disposes it. */
  constructor(
    readonly store: SessionStore,
    private readonly options: FileSessionOptions = {},
  ) {
    super();
    // Registered before the subscriptions, so it is disposed after them.
    this.register(store);
    this.lastMtimeMs = store.fileState?.mtimeMs ?? 0;
    this.lastForeignChangeMs = this.lastMtimeMs;
    this.register(
      store.onDidAppend((event) =>
        this.appended.fire({ added: event.added.map((node) => node.id), rebuilt: event.rebuilt }),
      ),
    );
    this.register(store.onDidReload((event) => this.reloaded.fire({ reason: event.reason })));
    this.register(store.onDidFail((error) => this.options.onFollowError?.(error)));
  }

  get path(): string {
    return this.store.path;
  }

  get index(): SessionIndex {
    this.assertOpen();
    return this.store.index;
  }

  get reader(): EntryReader {
    this.assertOpen();
    return this.store.reader;
  }

  get savedView(): SavedView | undefined {
    this.assertOpen();
    return this.store.savedView;
  }

  indexGrewFrom(view: SavedView): boolean {
    this.assertOpen();
    return this.store.indexGrewFrom(view);
  }

  get cwd(): string {
    this.assertOpen();
    return this.store.cwd;
  }

  get mtimeMs(): number {
    this.assertOpen();
    const state = this.store.fileState;
    // While the file is deleted, the time of the last read.
    if (state) this.lastMtimeMs = state.mtimeMs;
    return this.lastMtimeMs;
  }

  get foreignChangeMs(): number {
    this.assertOpen();
    return this.noteForeignChange();
  }

  markWrittenHere(): void {
    this.assertOpen();
    const state = this.store.fileState;
    this.writtenHere = state ? { size: state.size, mtimeMs: state.mtimeMs } : undefined;
    this.lastForeignChangeMs = 0;
  }

  /** Takes the file's time as someone else's change unless it is this session's own writing. */
  private noteForeignChange(): number {
    const state = this.store.fileState;
    const same = (own: { size: number; mtimeMs: number } | undefined) =>
      own !== undefined && own.size === state?.size && own.mtimeMs === state.mtimeMs;
    if (state && !same(this.store.ownWrite) && !same(this.writtenHere))
      this.lastForeignChangeMs = state.mtimeMs;
    return this.lastForeignChangeMs;
  }

  get exists(): boolean {
    this.assertOpen();
    return !this.store.deleted;
  }

  /** The store has one follower: it runs while any `follow()` result is held. */
  follow(): Disposable {
    this.assertOpen();
    this.store.follow(this.options.follow);
    this.followers++;
    const following = new DisposableStore();
    following.add(
      toDisposable(() => {
        this.disposables.release(following);
        this.followers--;
        if (this.followers === 0) this.store.unfollow();
      }),
    );
    // Owned by the caller, and by the session too, so it cannot outlive the session.
    return this.register(following);
  }

  refresh(): void {
    this.assertOpen();
    this.store.sync();
  }

  /** Extensions write as before, live file or not (the user did not ask for these writes). */
  async appendLabel(targetId: string, label: string | null): Promise<AppendOutcome> {
    const { entryId, wasLive } = await this.write({ kind: "label", targetId, label }, { confirmLive: true });
    return { entryId, wasLive };
  }

  async appendSessionName(name: string): Promise<AppendOutcome> {
    const { entryId, wasLive } = await this.write({ kind: "name", name }, { confirmLive: true });
    return { entryId, wasLive };
  }

  /**
   * Reads what changed first, then appends (see `app/store/write-entry.ts`
   * for where each entry goes). A live file is refused unless confirmed,
   * once the request is known to be otherwise valid. A
   * conflict (another writer appended in between) is tried again on the new
   * bytes, which then count as live; every other refusal is the store's `AppendError`.
   */
  async write(write: SessionWrite, options: WriteOptions = {}): Promise<WriteOutcome> {
    this.assertOpen();
    for (let attempt = 1; ; attempt++) {
      this.store.sync();
      // Noted before the write: afterwards the file's time is this session's own.
      const foreignChangeMs = this.noteForeignChange();
      // Asked only of a request that is otherwise fine: an unknown entry is said first.
      const beforeWrite = () => requireConfirmedIfLive(this.path, options.confirmLive, { foreignChangeMs });
      try {
        return this.store.append(writeSessionEntry, { write, reader: this.store.reader, beforeWrite });
      } catch (error) {
        const retry =
          error instanceof AppendError && error.reason === "changed-on-disk" && attempt < APPEND_ATTEMPTS;
        if (!retry) throw error;
      }
    }
  }

  private assertOpen(): void {
    if (this.isDisposed) throw new Error(`The session ${this.path} was closed; open it again to use it.`);
  }
}

/** Opens `path` (made absolute) with a `SessionStore`; throws the file system's error if it cannot. */
export const openFileSession: OpenSessionFactory = async (path) => new FileSession(SessionStore.open(path));

/** `openFileSession` with options (how to parse, how to follow). */
export function fileSessionFactory(options: FileSessionOptions): OpenSessionFactory {
  return async (path) =>
    new FileSession(
      SessionStore.open(path, {
        ...(options.mode ? { mode: options.mode } : {}),
        parseCache: options.parseCache,
      }),
      options,
    );
}
