/**
 * `OpenSession` over `openSessionFile`: the index of one file, kept up to
 * date with what is appended to it (by Pi or by Arbor), reloaded when the file
 * is truncated or replaced. A stand-in for `app/store`'s `SessionStore`,
 * which does the same with more care; the runtime takes either through
 * `OpenSessionFactory`.
 *
 * Writes are appends of one whole line each, made only when the file ends in
 * a complete line and is still the file that was read.
 */

import { randomUUID } from "node:crypto";
import { closeSync, fstatSync, openSync, readSync, statSync, watch, writeSync } from "node:fs";
import { resolve } from "node:path";
import { ArborError } from "../../shared/ipc/contract.ts";
import { SessionParser } from "../../shared/session/parse.ts";
import { extendSessionIndex, resumePoint, type SessionIndex } from "../../shared/session/tree-index.ts";
import { type OpenedSession, openSessionFile } from "../store/open-session-file.ts";
import { type Disposable, DisposableObject, DisposableStore, toDisposable } from "./disposable.ts";
import { Emitter } from "./event.ts";
import type {
  AppendOutcome,
  OpenSession,
  SessionAppendEvent,
  SessionReloadEvent,
  SessionReloadReason,
} from "./open-session.ts";

/** A file modified this recently is probably being written by a Pi. */
export const LIVE_WINDOW_MS = 3000;

const TAIL_CHUNK_BYTES = 1 << 20;

export interface FileSessionOptions {
  /** How often a followed file is checked besides file-system notifications (default 1000 ms). */
  pollMs?: number;
  /** Errors while following (a read that failed); default: ignored, the next check tries again. */
  onFollowError?: (error: unknown) => void;
}

/** Opens `path` (made absolute) as an `OpenSession`. */
export async function openFileSession(path: string, options: FileSessionOptions = {}): Promise<OpenSession> {
  return new FileSession(resolve(path), options);
}

class FileSession extends DisposableObject implements OpenSession {
  private opened: OpenedSession;
  private current: SessionIndex;
  private ino: number;
  private modified: number;
  private present = true;
  private readonly appended = this.register(new Emitter<SessionAppendEvent>());
  private readonly reloaded = this.register(new Emitter<SessionReloadEvent>());
  readonly onDidAppend = this.appended.event;
  readonly onDidReload = this.reloaded.event;

  constructor(
    readonly path: string,
    private readonly options: FileSessionOptions,
  ) {
    super();
    this.opened = openSessionFile(path);
    this.current = this.opened.index;
    this.ino = this.opened.ino;
    this.modified = this.opened.mtimeMs;
    this.register(toDisposable(() => this.opened.close()));
  }

  get index(): SessionIndex {
    this.assertOpen();
    return this.current;
  }

  get mtimeMs(): number {
    this.assertOpen();
    return this.modified;
  }

  get exists(): boolean {
    this.assertOpen();
    return this.present;
  }

  follow(): Disposable {
    this.assertOpen();
    const following = new DisposableStore();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const check = () => {
      if (this.isDisposed) return;
      try {
        this.refresh();
      } catch (error) {
        this.options.onFollowError?.(error);
      }
    };
    const soon = () => {
      timer ??= setTimeout(() => {
        timer = undefined;
        check();
      }, 25);
    };
    try {
      const watcher = watch(this.path, { persistent: false }, soon);
      watcher.on("error", () => {}); // the poll below still runs
      following.add(toDisposable(() => watcher.close()));
    } catch {
      // Some file systems cannot be watched: polling alone will do.
    }
    const interval = setInterval(check, this.options.pollMs ?? 1000);
    interval.unref();
    following.add(
      toDisposable(() => {
        clearInterval(interval);
        if (timer) clearTimeout(timer);
      }),
    );
    // Owned by the caller, and by the session too, so it cannot outlive the session.
    this.register(following);
    following.add(toDisposable(() => this.disposables.release(following)));
    return following;
  }

  refresh(): void {
    this.assertOpen();
    let stats: ReturnType<typeof statSync>;
    try {
      stats = statSync(this.path);
    } catch (error) {
      if (!isNotFound(error)) throw error;
      if (this.present) {
        this.present = false;
        this.reloaded.fire({ reason: "deleted" });
      }
      return;
    }
    if (!this.present) this.reopen("recreated");
    else if (stats.ino !== this.ino) this.reopen("replaced");
    else if (stats.size < this.current.byteLength) this.reopen("truncated");
    else {
      this.modified = stats.mtimeMs;
      if (stats.size > this.current.byteLength) this.readTail();
    }
  }

  appendLabel(targetId: string, label: string | null): Promise<AppendOutcome> {
    this.assertOpen();
    this.refresh();
    if (!this.current.nodes.has(targetId)) {
      return Promise.reject(
        new ArborError("not-found", `There is no entry "${targetId}" in this session to label.`),
      );
    }
    // Pi's appendLabelChange: a label that is undefined (absent in the JSON) clears it.
    return this.appendEntry("label", { targetId, label: label || undefined });
  }

  appendSessionName(name: string): Promise<AppendOutcome> {
    // Pi's appendSessionInfo: line breaks become spaces, then trimmed.
    return this.appendEntry("session_info", { name: name.replace(/[\r\n]+/g, " ").trim() });
  }

  private async appendEntry(type: string, fields: Record<string, unknown>): Promise<AppendOutcome> {
    this.assertOpen();
    // Another writer may append between reading and writing: read again and retry a few times.
    for (let attempt = 0; attempt < 5; attempt++) {
      this.refresh();
      const outcome = this.tryAppend(type, fields);
      if (outcome) {
        this.refresh();
        return outcome;
      }
    }
    throw new ArborError(
      "conflict",
      "The session file kept changing while Arbor was about to write; nothing was written. Try again.",
    );
  }

  /** Writes the entry if the file is still exactly what was read; `undefined` when it is not. */
  private tryAppend(type: string, fields: Record<string, unknown>): AppendOutcome | undefined {
    if (!this.present) {
      throw new ArborError("not-found", "The session file was deleted; nothing was written.");
    }
    const index = this.current;
    if (index.header === null) {
      throw new ArborError(
        "refused",
        "This file has no valid session header, so Arbor does not write to it; nothing was written.",
      );
    }
    if (index.unterminatedLastLine) {
      throw new ArborError(
        "conflict",
        "The file's last line is incomplete (a Pi may be writing it); nothing was written. Try again in a moment.",
      );
    }
    const wasLive = Date.now() - this.modified < LIVE_WINDOW_MS;
    const entry = {
      type,
      id: newEntryId(index),
      parentId: index.leafId,
      timestamp: new Date().toISOString(),
      ...fields,
    };
    const line = Buffer.from(`${JSON.stringify(entry)}\n`, "utf8");
    const fd = openSync(this.path, "a");
    try {
      const stats = fstatSync(fd);
      if (stats.ino !== this.ino || stats.size !== index.byteLength) return undefined;
      // The whole line in one write where the OS allows; O_APPEND puts it after anything written since.
      let written = 0;
      while (written < line.length) written += writeSync(fd, line, written, line.length - written);
    } finally {
      closeSync(fd);
    }
    return { entryId: entry.id, wasLive };
  }

  private readTail(): void {
    const before = this.current;
    const start = resumePoint(before);
    const parser = new SessionParser({ mode: "full", start });
    const fd = openSync(this.path, "r");
    try {
      if (fstatSync(fd).ino !== this.ino) {
        this.reopen("replaced");
        return;
      }
      const buffer = new Uint8Array(TAIL_CHUNK_BYTES);
      let position = start.offset;
      for (;;) {
        const bytesRead = readSync(fd, buffer, 0, buffer.length, position);
        if (bytesRead === 0) break;
        parser.push(buffer.subarray(0, bytesRead));
        position += bytesRead;
      }
    } finally {
      closeSync(fd);
    }
    const { index, rebuilt } = extendSessionIndex(before, parser.end());
    this.current = index;
    const added: string[] = [];
    for (let i = index.entries.length - 1; i >= 0 && index.entryLines[i]! >= start.lineNumber; i--) {
      added.push(index.entries[i]!.id);
    }
    added.reverse();
    if (added.length > 0 || rebuilt) this.appended.fire({ added, rebuilt });
  }

  private reopen(reason: SessionReloadReason): void {
    let next: OpenedSession;
    try {
      next = openSessionFile(this.path);
    } catch (error) {
      if (!isNotFound(error)) throw error;
      if (this.present) {
        this.present = false;
        this.reloaded.fire({ reason: "deleted" });
      }
      return;
    }
    this.opened.close();
    this.opened = next;
    this.current = next.index;
    this.ino = next.ino;
    this.modified = next.mtimeMs;
    this.present = true;
    this.reloaded.fire({ reason });
  }

  private assertOpen(): void {
    if (this.isDisposed) throw new Error(`The session ${this.path} was closed; open it again to use it.`);
  }
}

/** Pi's `generateId`: 8 hex characters, checked against the ids in use; a full UUID after 100 collisions. */
export function newEntryId(index: SessionIndex): string {
  for (let attempt = 0; attempt < 100; attempt++) {
    const id = randomUUID().slice(0, 8);
    if (!index.nodes.has(id)) return id;
  }
  return randomUUID();
}

function isNotFound(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === "ENOENT";
}
