/**
 * The sessions opened most recently, newest first, kept in
 * `<dataDir>/recent-sessions.json` across launches. A session counts as
 * opened when it starts in a window (opened, created, forked or cloned).
 * A missing or unreadable list starts empty; it is Arbor's own file, rewritten
 * whole (temp file, then rename) on every change.
 */

import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Disposable, DisposableObject } from "../../../shared/lifecycle/disposable.ts";
import { Emitter, type Event } from "../../../shared/lifecycle/event.ts";
import type { ArborExtension } from "../extension.ts";

export const RECENT_SESSIONS_EXTENSION_ID = "arbor.recent-sessions";
export const RECENT_SESSIONS_FILE = "recent-sessions.json";
const FORMAT_VERSION = 1;

export interface RecentSession {
  path: string;
  /** ISO time it was last opened. */
  openedAt: string;
}

export interface RecentSessions extends Disposable {
  readonly extension: ArborExtension;
  list(): RecentSession[];
  forget(path: string): void;
  readonly onDidChange: Event<readonly RecentSession[]>;
  /** Why the last write failed, if it did (the list in memory is still right). */
  readonly writeError: string | undefined;
}

export interface RecentSessionsOptions {
  dataDir: string;
  /** Kept at most (default 20). */
  limit?: number;
  now?: () => Date;
}

export function createRecentSessions(options: RecentSessionsOptions): RecentSessions {
  return new PersistedRecentSessions(options);
}

class PersistedRecentSessions extends DisposableObject implements RecentSessions {
  private readonly file: string;
  private readonly limit: number;
  private readonly now: () => Date;
  private sessions: RecentSession[];
  private lastWriteError: string | undefined;
  private readonly changed = this.register(new Emitter<readonly RecentSession[]>());
  readonly onDidChange = this.changed.event;
  readonly extension: ArborExtension = {
    id: RECENT_SESSIONS_EXTENSION_ID,
    activate: (context) => {
      context.on("session_start", () => this.opened(context.session.path));
    },
  };

  constructor(private readonly options: RecentSessionsOptions) {
    super();
    this.file = join(options.dataDir, RECENT_SESSIONS_FILE);
    this.limit = options.limit ?? 20;
    this.now = options.now ?? (() => new Date());
    this.sessions = loadRecent(this.file).slice(0, this.limit);
  }

  get writeError(): string | undefined {
    return this.lastWriteError;
  }

  list(): RecentSession[] {
    return this.sessions.map((session) => ({ ...session }));
  }

  forget(path: string): void {
    const before = this.sessions.length;
    this.sessions = this.sessions.filter((session) => session.path !== path);
    if (this.sessions.length !== before) this.save();
  }

  private opened(path: string): void {
    const entry = { path, openedAt: this.now().toISOString() };
    this.sessions = [entry, ...this.sessions.filter((session) => session.path !== path)].slice(0, this.limit);
    this.save();
  }

  private save(): void {
    try {
      mkdirSync(this.options.dataDir, { recursive: true });
      const temp = `${this.file}.${randomBytes(4).toString("hex")}.tmp`;
      try {
        writeFileSync(
          temp,
          `${JSON.stringify({ version: FORMAT_VERSION, sessions: this.sessions }, null, 2)}\n`,
        );
        renameSync(temp, this.file);
      } catch (error) {
        rmSync(temp, { force: true });
        throw error;
      }
      this.lastWriteError = undefined;
    } catch (error) {
      this.lastWriteError = error instanceof Error ? error.message : String(error);
    }
    this.changed.fire(this.list());
  }
}

function loadRecent(file: string): RecentSession[] {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return [];
  }
  if (typeof value !== "object" || value === null) return [];
  const list = (value as { version?: unknown; sessions?: unknown }).sessions;
  if ((value as { version?: unknown }).version !== FORMAT_VERSION || !Array.isArray(list)) return [];
  const seen = new Set<string>();
  const sessions: RecentSession[] = [];
  for (const item of list) {
    if (typeof item !== "object" || item === null) continue;
    const { path, openedAt } = item as { path?: unknown; openedAt?: unknown };
    if (typeof path !== "string" || typeof openedAt !== "string" || seen.has(path)) continue;
    seen.add(path);
    sessions.push({ path, openedAt });
  }
  return sessions;
}
