/**
 * The session library as a window lists it: the real library, or the
 * bundled demo library when the real one holds no file at all; its scans
 * (in the background, and one more after a change), its rows in the
 * contract's form, the open session's row kept up to date, and the way from
 * a session id back to its file.
 */

import { dirname, resolve } from "node:path";
import type { LibraryListing, SearchHit } from "../../shared/ipc/contract.ts";
import type { EventSink } from "../ipc/event-sink.ts";
import type { IssuedIds } from "../ipc/issued-ids.ts";
import type { SessionLibrary } from "../library/index.ts";
import { DisposableObject, toDisposable } from "../../shared/lifecycle/disposable.ts";
import type { OpenMarks } from "../runtime/extensions/open-marks.ts";
import { projectGroups, type RowSources } from "./list-items.ts";
import { OpenSessionRow } from "./open-session-row.ts";

/** Supplies the bundled demo library, used when the real library has no sessions at all. */
export type DemoSource = () => SessionLibrary | Promise<SessionLibrary>;

export interface LibraryViewOptions {
  library: SessionLibrary;
  ids: IssuedIds;
  events: EventSink;
  /** When the first scan finds no session files, the demo library is listed instead (`demo: true`). */
  demoSource?: DemoSource | undefined;
  /** The process's "open" marks for the listing (default: none are marked). */
  openMarks?: OpenMarks | undefined;
  /** Errors of work in the background (scans, reading the open session's row). */
  onInternalError?: ((error: unknown, request: string) => void) | undefined;
  /** How long the open session's library row waits after an append before it is read again (default 250 ms). */
  rowRefreshDelayMs?: number | undefined;
}

const DEFAULT_SEARCH_LIMIT = 100;

export class LibraryView extends DisposableObject {
  private listed: SessionLibrary;
  private demo: SessionLibrary | null = null;
  private scanned = false;
  private scanning: Promise<void> | null = null;
  /** The scan after the running one, for changes made while it runs. */
  private scanQueued: Promise<void> | null = null;
  private readonly sources: RowSources;
  private readonly row: OpenSessionRow;

  constructor(private readonly options: LibraryViewOptions) {
    super();
    this.listed = options.library;
    this.sources = { ids: options.ids, isOpen: (path) => options.openMarks?.isOpen(path) ?? false };
    this.row = this.register(
      new OpenSessionRow({
        library: () => this.listed,
        sources: this.sources,
        events: options.events,
        onInternalError: options.onInternalError,
        delayMs: options.rowRefreshDelayMs ?? 250,
      }),
    );
    this.register(
      toDisposable(() => {
        if (this.demo && this.demo !== options.library) void this.demo.dispose();
      }),
    );
  }

  /** The library listed now: the real one, or the demo one. */
  get active(): SessionLibrary {
    return this.listed;
  }

  /** What is listed now; the first call starts the first scan, whose result `library.changed` brings. */
  list(): LibraryListing {
    if (!this.scanned && !this.scanning) this.scanInBackground();
    return this.listing();
  }

  async rescan(): Promise<LibraryListing> {
    // A scan already running may have started before the latest change: run one more after it.
    if (this.scanning) await this.scanning.catch(() => {});
    await this.scan();
    return this.listing();
  }

  async search(query: string, limit = DEFAULT_SEARCH_LIMIT): Promise<SearchHit[]> {
    if (!query.trim()) return [];
    const hits = await this.listed.search(query, { limit });
    return hits.map((hit) => ({
      sessionId: this.options.ids.sessionId(hit.sessionPath),
      entryId: hit.entryId,
      field: hit.field,
      snippet: hit.snippet,
      highlights: hit.highlights,
    }));
  }

  /** After a file changed: a scan running now may have listed its folder before, so one more starts after it. */
  scanAfterChange(): void {
    const running = this.scanning;
    if (!running) {
      this.scanInBackground();
      return;
    }
    // Changes during one scan share the scan after it.
    this.scanQueued ??= running
      .catch(() => {})
      .then(() => {
        this.scanQueued = null;
        if (!this.isDisposed) this.scanInBackground();
      });
  }

  /** The open session's file grew: its row is read again soon (`library.sessionChanged`). */
  refreshRowSoon(path: string): void {
    this.row.refreshSoon(path);
  }

  /**
   * The file a session id names: an id Arbor issued, or the session's own id
   * (its header's UUID, as Pi shows it). A link opened while the first scan
   * runs waits for it: the ids of the files it lists are issued as it goes.
   */
  async sessionPath(sessionId: string): Promise<string | undefined> {
    const { ids } = this.options;
    const byHeaderId = () => {
      const { sessions } = this.listed.list();
      // The newest file with that id: a clone keeps no id, but a copied file would.
      return sessions.find((session) => session.id === sessionId)?.path;
    };
    const issued = () => {
      this.listing(); // issues the ids of every file listed so far
      return ids.pathOf(sessionId) ?? byHeaderId();
    };
    let path = ids.pathOf(sessionId) ?? issued();
    if (path === undefined && (this.scanning || !this.scanned)) {
      if (!this.scanned && !this.scanning) this.scanInBackground();
      await this.scanning?.catch(() => {});
      path = issued();
    }
    return path;
  }

  /** The folder of the project's newest listed session: where a new session of it goes. */
  folderOfProject(cwd: string): string | undefined {
    const newest = this.listed.list().projects.find((project) => project.cwd === cwd)?.sessions[0];
    return newest ? dirname(newest.path) : undefined;
  }

  /** The id of the file a session was forked from (`parentSession`: the header's path for it), if listed. */
  parentSessionId(path: string, parentSession: string | null): string | null {
    const { ids } = this.options;
    const entry = this.listed.session(path);
    if (entry?.parentPath) return ids.sessionId(entry.parentPath);
    if (!parentSession) return null;
    const known = this.listed.session(resolve(parentSession));
    return known && !known.error ? ids.sessionId(known.path) : null;
  }

  /** Resolves when no library scan is running or waiting to run. */
  async idle(): Promise<void> {
    while (this.scanning || this.scanQueued) await (this.scanQueued ?? this.scanning)?.catch(() => {});
  }

  private listing(): LibraryListing {
    return {
      projects: projectGroups(this.listed.list(), this.sources),
      skipped: this.listed.skipped().map(({ path, reason }) => ({ path, reason })),
      scanning: this.scanning !== null,
      demo: this.demo !== null && this.listed === this.demo,
    };
  }

  /** Starts a scan, or joins the one running; `library.changed` follows when it ends. */
  private scan(): Promise<void> {
    if (this.scanning) return this.scanning;
    const running = this.runScan().finally(() => {
      this.scanning = null;
      if (!this.isDisposed) this.options.events.emit("library.changed", this.listing());
    });
    this.scanning = running;
    return running;
  }

  private scanInBackground(): void {
    this.scan().catch((error) => this.options.onInternalError?.(error, "library.scan"));
  }

  private async runScan(): Promise<void> {
    const { library, demoSource, events } = this.options;
    const onProgress = (progress: { loaded: number; total: number }) =>
      events.emit("library.progress", { loaded: progress.loaded, total: progress.total });
    await library.scan({ onProgress });
    if (isEmpty(library) && demoSource) {
      this.demo ??= await demoSource();
      await this.demo.scan({ onProgress });
      this.listed = this.demo;
    } else {
      this.listed = library;
    }
    this.scanned = true;
  }
}

function isEmpty(library: SessionLibrary): boolean {
  const { sessions, failed } = library.list();
  return sessions.length === 0 && failed.length === 0;
}
