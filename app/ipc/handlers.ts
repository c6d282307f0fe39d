/**
 * The one object behind the IPC contract: every request, over one window's
 * `SessionRuntime` and the session library. Both transports (Electron's IPC
 * and the WebSocket of `arbor serve`) bind this same object, so they cannot
 * drift. Parameters arrive validated (see `bind.ts`); sessions and projects
 * arrive as ids issued here, never as paths. Every error leaves as an
 * `ArborError`. Events go to an `EventSink`.
 */

import { dirname, resolve } from "node:path";
import {
  type AppendResult,
  ArborError,
  type ContextView,
  type ArborHandlers,
  type LibraryListing as ContractListing,
  type ProjectGroup as ContractProjectGroup,
  SESSION_SEARCH_MAX_LIMIT,
  type SessionDelta,
  type SessionListItem,
  type SessionView,
} from "../../shared/ipc/contract.ts";
import { listPatch, sameProblem } from "../../shared/ipc/session-delta.ts";
import type { Problem } from "../../shared/session/problems.ts";
import type { LibrarySession, SessionLibrary } from "../library/index.ts";
import { type Disposable, DisposableStore, toDisposable } from "../runtime/disposable.ts";
import type { ReplaceResult, StartReason } from "../runtime/extension.ts";
import type { OpenMarks } from "../runtime/extensions/open-marks.ts";
import type { OpenSession } from "../runtime/open-session.ts";
import type { SessionRuntime } from "../runtime/session-runtime.ts";
import { LIVE_WINDOW_MS } from "../store/append.ts";
import type { SavedView } from "../store/saved-view.ts";
import type { EventSink } from "./event-sink.ts";
import { HandleRegistry } from "./handles.ts";
import {
  contextView,
  entryDetail,
  type SessionViewContent,
  sessionViewContent,
  TreeNodeViewCache,
} from "../../shared/ipc/views.ts";
import { encodedNodes } from "../../shared/ipc/encoded-nodes.ts";
import { objectNodes, type SessionNodes } from "../../shared/ipc/session-nodes.ts";
import { EntrySearch } from "../../shared/session/entry-search.ts";
import type { SessionIndex } from "../../shared/session/tree-index.ts";

/** Supplies the bundled demo library, used when the real library has no sessions at all. */
export type DemoSource = () => SessionLibrary | Promise<SessionLibrary>;

export interface ArborHandlersOptions {
  runtime: SessionRuntime;
  library: SessionLibrary;
  events: EventSink;
  transport: "electron" | "serve";
  version: string;
  /** When the first scan finds no session files, the demo library is listed instead (`demo: true`). */
  demoSource?: DemoSource | undefined;
  /** The process's "open" marks for the listing (default: none are marked). */
  openMarks?: OpenMarks | undefined;
  /** Errors that are not `ArborError`s, before they leave as a generic "internal" error. */
  onInternalError?: ((error: unknown, request: string) => void) | undefined;
  now?: () => number;
  /** How long the open session's library row waits after an append before it is read again (default 250 ms). */
  rowRefreshDelayMs?: number;
  /**
   * Runs work once the answers given so far have left the process, so that
   * long work does not hold them back (the WebSocket: its writes drained);
   * default: the next turn of the event loop (Electron's IPC sends at once).
   */
  afterReplies?: ((work: () => void) => void) | undefined;
}

export type ArborHandlerObject = ArborHandlers &
  Disposable & {
    /** The library listed now: the real one, or the demo one. */
    activeLibrary(): SessionLibrary;
    /** Resolves when no library scan is running. */
    idle(): Promise<void>;
  };

const SWITCHED_REASON: Record<StartReason, "open" | "new" | "fork" | "clone"> = {
  startup: "open",
  resume: "open",
  new: "new",
  fork: "fork",
  clone: "clone",
};

export const IPC_EVENTS_EXTENSION_ID = "arbor.ipc-events";

export function createArborHandlers(options: ArborHandlersOptions): ArborHandlerObject {
  const { runtime, events } = options;
  const now = options.now ?? Date.now;
  const handles = new HandleRegistry();
  const lifetime = new DisposableStore();
  let library = options.library;
  let demo: SessionLibrary | null = null;
  let scanned = false;
  let scanning: Promise<void> | null = null;

  // ---------------------------------------------------------------- library

  const listItem = (session: LibrarySession): SessionListItem => ({
    sessionId: handles.sessionId(session.path),
    headerId: session.id,
    path: session.path,
    projectId: handles.projectId(session.cwd),
    cwd: session.cwd,
    name: session.name ?? null,
    firstMessage: session.firstMessage,
    messageCount: session.messageCount,
    created: session.created === null ? "" : new Date(session.created).toISOString(),
    modified: new Date(session.modified).toISOString(),
    bytes: session.size,
    parentSessionId: session.parentPath ? handles.sessionId(session.parentPath) : null,
    error: session.error?.message ?? null,
    damagedLines: session.badLines,
    open: options.openMarks?.isOpen(session.path) ?? false,
  });

  const listing = (): ContractListing => {
    const { projects, failed } = library.list();
    const groups: ContractProjectGroup[] = projects.map((project) => ({
      projectId: handles.projectId(project.cwd),
      cwd: project.cwd,
      sessions: project.sessions.map(listItem),
    }));
    // Files that are not readable sessions are listed too, with their error, under their cwd; without
    // one (no header), under the project of the sessions in their folder, as Pi keeps one folder per project.
    for (const session of failed) {
      const folder = dirname(session.path);
      let group =
        session.cwd === ""
          ? groups.find(
              (candidate) =>
                candidate.cwd !== "" && candidate.sessions.some((item) => dirname(item.path) === folder),
            )
          : undefined;
      group ??= groups.find((candidate) => candidate.cwd === session.cwd);
      if (!group) {
        group = { projectId: handles.projectId(session.cwd), cwd: session.cwd, sessions: [] };
        groups.push(group);
      }
      group.sessions.push(listItem(session));
    }
    return { projects: groups, scanning: scanning !== null, demo: demo !== null && library === demo };
  };

  const isEmpty = (candidate: SessionLibrary) => {
    const { sessions, failed } = candidate.list();
    return sessions.length === 0 && failed.length === 0;
  };

  const runScan = async (): Promise<void> => {
    const onProgress = (progress: { loaded: number; total: number }) =>
      events.emit("library.progress", { loaded: progress.loaded, total: progress.total });
    await options.library.scan({ onProgress });
    if (isEmpty(options.library) && options.demoSource) {
      demo ??= await options.demoSource();
      await demo.scan({ onProgress });
      library = demo;
    } else {
      library = options.library;
    }
    scanned = true;
  };

  /** Starts a scan, or joins the one running; `library.changed` follows when it ends. */
  const scan = (): Promise<void> => {
    if (scanning) return scanning;
    const running = runScan().finally(() => {
      scanning = null;
      if (!lifetime.isDisposed) events.emit("library.changed", listing());
    });
    scanning = running;
    return running;
  };

  const scanInBackground = () => {
    scan().catch((error) => options.onInternalError?.(error, "library.scan"));
  };

  /** After a file changed: a scan running now may have listed its folder before, so one more starts after it. */
  let scanQueued: Promise<void> | null = null;
  const scanAfterChange = () => {
    if (!scanning) {
      scanInBackground();
      return;
    }
    // Changes during one scan share the scan after it.
    scanQueued ??= scanning
      .catch(() => {})
      .then(() => {
        scanQueued = null;
        if (!lifetime.isDisposed) scanInBackground();
      });
  };

  /**
   * The open session's library row follows its appends (Pi's, or Arbor's own
   * label or name) without a rescan: the library reads just what was
   * appended. Appends coming fast are read together; one read at a time.
   */
  const rowRefreshDelayMs = options.rowRefreshDelayMs ?? 250;
  let rowTimer: ReturnType<typeof setTimeout> | null = null;
  let rowRefreshing = false;
  let rowAgain: string | null = null;
  lifetime.add(toDisposable(() => rowTimer !== null && clearTimeout(rowTimer)));
  const refreshRowSoon = (path: string) => {
    if (rowTimer !== null) clearTimeout(rowTimer);
    rowTimer = setTimeout(() => {
      rowTimer = null;
      void refreshRow(path);
    }, rowRefreshDelayMs);
  };
  const refreshRow = async (path: string): Promise<void> => {
    if (rowRefreshing) {
      rowAgain = path;
      return;
    }
    rowRefreshing = true;
    try {
      const listed = library;
      const before = listed.session(path);
      if (!before) return;
      const after = await listed.refresh(path);
      if (lifetime.isDisposed || !after || listed !== library) return;
      const item = listItem(after);
      if (JSON.stringify(item) !== JSON.stringify(listItem(before)))
        events.emit("library.sessionChanged", item);
    } catch (error) {
      // Closing the window aborts the library's reads: not an error.
      if (!lifetime.isDisposed) options.onInternalError?.(error, "library.refresh");
    } finally {
      rowRefreshing = false;
      const again = rowAgain;
      rowAgain = null;
      if (again !== null && !lifetime.isDisposed) void refreshRow(again);
    }
  };

  // ---------------------------------------------------------------- sessions

  /**
   * The file a session id names: an id Arbor issued, or the session's own id
   * (its header's UUID, as Pi shows it). A link opened while the first scan
   * runs waits for it: the ids of the files it lists are issued as it goes.
   */
  let openSerial = 0;
  const pathOfSession = async (sessionId: string): Promise<string | undefined> => {
    const byHeaderId = () => {
      const { sessions } = library.list();
      // The newest file with that id: a clone keeps no id, but a copied file would.
      return sessions.find((session) => session.id === sessionId)?.path;
    };
    const issued = () => {
      listing(); // issues the ids of every file listed so far
      return handles.pathOf(sessionId) ?? byHeaderId();
    };
    let path = handles.pathOf(sessionId) ?? issued();
    if (path === undefined && (scanning || !scanned)) {
      if (!scanned && !scanning) scanInBackground();
      await scanning?.catch(() => {});
      path = issued();
    }
    return path;
  };

  /** One search per index: its texts are built on the first search and kept while the index grows by appends. */
  const searches = new WeakMap<SessionIndex, EntrySearch>();
  const searchOf = (index: SessionIndex): EntrySearch => {
    let search = searches.get(index);
    if (!search) {
      search = new EntrySearch(index);
      searches.set(index, search);
    }
    return search;
  };

  const current = (): OpenSession => {
    const session = runtime.session;
    if (!session)
      throw new ArborError("refused", "No session is open in this window; open one from the library first.");
    return session;
  };

  /** The library's id of the file a session was forked from (`parentSession`: the header's path for it). */
  const parentSessionId = (session: OpenSession, parentSession: string | null): string | null => {
    const entry = library.session(session.path);
    if (entry?.parentPath) return handles.sessionId(entry.parentPath);
    if (!parentSession) return null;
    const known = library.session(resolve(parentSession));
    return known && !known.error ? handles.sessionId(known.path) : null;
  };

  /**
   * The open session's view as every client last heard of it: node views
   * kept up to date with its index (an append builds only what it adds and
   * changes), and the roots and problems as sent, so that only what changes
   * is sent again.
   */
  interface ViewState {
    session: OpenSession;
    nodes: TreeNodeViewCache;
    roots: string[];
    problems: Problem[];
    bytes: number;
    /**
     * The saved view the state started from (app/store/saved-view.ts), while
     * the index is still what it describes: the view is then sent from it,
     * its nodes' wire form as it was saved, none of them built.
     */
    saved: { view: SavedView; nodes: SessionNodes } | undefined;
  }
  let viewState: ViewState | null = null;

  const viewFields = (session: OpenSession, content: SessionViewContent) => ({
    headerId: content.headerId,
    cwd: content.cwd,
    name: content.name,
    version: content.version,
    parentSessionId: parentSessionId(session, content.parentSession),
    leafId: content.leafId,
    bytes: content.bytes,
    live: now() - session.foreignChangeMs < LIVE_WINDOW_MS,
  });

  /**
   * Brings the view state up to the session's index. Whatever changed goes
   * to every client as `session.appended`, whoever asked first, so a client
   * holding the view as last sent can always apply the next delta.
   */
  const advance = (state: ViewState): void => {
    const { session } = state;
    // The session still holds the saved view it was sent: its index has not changed (it may not be built).
    if (state.saved && session.savedView === state.saved.view) return;
    const index = session.index;
    if (state.nodes.isCurrent(index)) return;
    state.saved = undefined;
    const { added, changed, removed } = state.nodes.update(index);
    const content = sessionViewContent(index);
    const delta: SessionDelta = {
      baseBytes: state.bytes,
      ...viewFields(session, content),
      added,
      changed,
      removed,
      roots: listPatch(state.roots, content.roots),
      problems: listPatch(state.problems, content.problems, sameProblem),
    };
    state.roots = content.roots;
    state.problems = content.problems;
    state.bytes = content.bytes;
    events.emit("session.appended", { sessionId: handles.sessionId(session.path), delta });
  };

  const viewStateOf = (session: OpenSession): ViewState => {
    if (viewState?.session === session) {
      advance(viewState);
      return viewState;
    }
    const savedView = session.savedView;
    if (savedView) {
      // Decoded only if the index changes before the nodes were ever built (or something reads them).
      const nodes = encodedNodes(savedView.nodesJson);
      viewState = {
        session,
        nodes: TreeNodeViewCache.fromKnown({
          entryCount: savedView.entryCount,
          byteLength: savedView.content.bytes,
          roots: savedView.content.roots,
          nodes: () => nodes.toArray(),
        }),
        roots: [...savedView.content.roots],
        problems: [...savedView.content.problems],
        bytes: savedView.content.bytes,
        saved: { view: savedView, nodes },
      };
      return viewState;
    }
    const index = session.index;
    const nodes = new TreeNodeViewCache();
    nodes.update(index);
    viewState = {
      session,
      nodes,
      roots: [...index.roots],
      problems: [...index.problems],
      bytes: index.byteLength,
      saved: undefined,
    };
    return viewState;
  };

  const afterReplies = options.afterReplies ?? ((work: () => void) => setImmediate(work));

  /**
   * A session opened from a saved view answers its first requests (the view,
   * the leaf's context and entry) without its index; the index is built once
   * those answers have left, so a click elsewhere need not wait for it.
   */
  const buildIndexSoon = (session: OpenSession) => {
    afterReplies(() => {
      if (runtime.session !== session || lifetime.isDisposed) return;
      try {
        // Reading the index builds it; a look at the file then says whether it read the view's bytes.
        const saved = session.savedView;
        const index = session.index;
        session.refresh();
        const state = viewState;
        const unchanged = saved !== undefined && session.savedView === saved && session.index === index;
        if (unchanged && state?.session === session && state.saved?.view === saved) state.nodes.adopt(index);
      } catch (error) {
        options.onInternalError?.(error, "session.index");
      }
    });
  };

  const sessionView = (session: OpenSession): SessionView => {
    const state = viewStateOf(session);
    const content = state.saved?.view.content ?? sessionViewContent(session.index);
    const fields = {
      sessionId: handles.sessionId(session.path),
      path: session.path,
      ...viewFields(session, content),
      roots: [...state.roots],
      problems: [...state.problems],
    };
    const saved = state.saved;
    if (saved) return { ...fields, nodes: saved.nodes };
    return { ...fields, nodes: objectNodes([...state.nodes.nodes()]) };
  };

  /** The view after a switch; `writtenHere`: Arbor wrote the file just now (a fork, clone, new), so it is not live. */
  const replaced = (result: ReplaceResult, what: string, writtenHere = false): SessionView => {
    if (result.cancelled) {
      throw new ArborError(
        "refused",
        `${what} was cancelled by the extension "${result.cancelledBy}"; the open session is unchanged.`,
      );
    }
    if (writtenHere) current().markWrittenHere();
    return sessionView(current());
  };

  const appendResult = (outcome: { entryId: string; wasLive: boolean }): AppendResult => ({
    entryId: outcome.entryId,
    wasLive: outcome.wasLive,
  });

  lifetime.add(
    runtime.setRebindSession(({ session, reason }) => {
      viewState = null;
      // No view: the request that switched answers with it; any other client asks for it.
      events.emit("session.switched", {
        sessionId: handles.sessionId(session.path),
        path: session.path,
        reason: SWITCHED_REASON[reason],
      });
      // The library lists the new file only after it reads it.
      if (reason === "new" || reason === "fork" || reason === "clone") scanAfterChange();
    }),
  );
  lifetime.add(
    runtime.addExtension({
      id: IPC_EVENTS_EXTENSION_ID,
      activate(context) {
        const session = () => runtime.session;
        context.session.onDidAppend(() => {
          const open = session();
          if (!open || context.isStale) return;
          refreshRowSoon(open.path);
          // Until a view of this session was sent, there is nothing to send a delta of.
          if (viewState?.session !== open) return;
          advance(viewState);
        });
        context.session.onDidReload((event) => {
          const open = session();
          if (!open || context.isStale) return;
          // Not the file the library read any more (or gone): only a scan can say what it holds.
          scanAfterChange();
          // The file was read again: its view is sent whole, and deltas start from it.
          if (viewState?.session === open) viewState = null;
          events.emit("session.reloaded", {
            sessionId: handles.sessionId(open.path),
            reason: event.reason,
            view: open.exists ? sessionView(open) : null,
          });
        });
      },
    }),
  );

  // ---------------------------------------------------------------- requests

  const handlers: ArborHandlers = {
    async "app.info"() {
      return { version: options.version, transport: options.transport };
    },

    async "library.list"() {
      if (!scanned && !scanning) scanInBackground();
      return listing();
    },

    async "library.rescan"() {
      // A scan already running may have started before the latest change: run one more after it.
      if (scanning) await scanning.catch(() => {});
      await scan();
      return listing();
    },

    async "library.search"({ query, limit }) {
      if (!query.trim()) return [];
      const hits = await library.search(query, { limit: limit ?? 100 });
      return hits.map((hit) => ({
        sessionId: handles.sessionId(hit.sessionPath),
        entryId: hit.entryId,
        field: hit.field,
        snippet: hit.snippet,
        highlights: hit.highlights,
      }));
    },

    async "session.open"({ sessionId }) {
      const serial = ++openSerial;
      const path = await pathOfSession(sessionId);
      // It waited for a scan, and another open came meanwhile: that one is what the window shows now.
      if (serial !== openSerial) {
        throw new ArborError("stale", "Another session was opened while this one was being looked for.");
      }
      if (path === undefined) {
        throw new ArborError(
          "not-found",
          "That session is not in the library (the id was not issued by Arbor).",
        );
      }
      const open = runtime.session;
      if (open?.path === path) {
        // What the file holds now, not the last read: it may have been deleted (or recreated) since.
        open.refresh();
        if (!open.exists) {
          throw new ArborError("not-found", "The session file no longer exists; rescan the library.");
        }
        return sessionView(open);
      }
      return replaced(await runtime.switchSession(path), "Opening the session");
    },

    async "session.current"() {
      const session = runtime.session;
      return session ? sessionView(session) : null;
    },

    async "session.context"({ leafId, llm }) {
      const session = current();
      const saved = session.savedView;
      if (saved?.leafContextJson && leafId === saved.content.leafId && !llm) {
        buildIndexSoon(session);
        return JSON.parse(saved.leafContextJson) as ContextView;
      }
      return contextView(session.index, leafId, llm ?? false);
    },

    async "session.entry"({ entryId }) {
      const session = current();
      const saved = session.savedView;
      if (saved?.leafEntry && entryId === saved.content.leafId) return structuredClone(saved.leafEntry);
      return entryDetail(session.index, entryId);
    },

    async "session.search"({ query, limit }) {
      // The first search of a large session reads most of its file: other requests are answered between reads.
      const found = await searchOf(current().index).search(
        query,
        limit ?? SESSION_SEARCH_MAX_LIMIT,
        () => new Promise((resolvePause) => setImmediate(resolvePause)),
      );
      return { query, ...found };
    },

    async "session.setLabel"({ targetId, label }) {
      return appendResult(await current().appendLabel(targetId, label));
    },

    async "session.rename"({ name }) {
      return appendResult(await current().appendSessionName(name));
    },

    async "session.fork"({ entryId, position }) {
      current();
      return replaced(await runtime.fork(entryId, { position }), "The fork", true);
    },

    async "session.clone"() {
      current();
      return replaced(await runtime.clone(), "The clone", true);
    },

    async "session.new"({ projectId }) {
      const cwd = handles.cwdOf(projectId);
      if (cwd === undefined) {
        throw new ArborError(
          "not-found",
          "That project is not in the library (the id was not issued by Arbor).",
        );
      }
      const newest = library.list().projects.find((project) => project.cwd === cwd)?.sessions[0];
      const open = runtime.session;
      const sessionDir = newest
        ? dirname(newest.path)
        : open && runtime.services?.cwd === cwd
          ? dirname(open.path)
          : undefined;
      if (sessionDir === undefined) {
        throw new ArborError(
          "not-found",
          `No session folder is known for ${cwd}; rescan the library and try again.`,
        );
      }
      return replaced(await runtime.newSession(cwd, { sessionDir }), "The new session", true);
    },
  };

  const guarded = {} as Record<string, (params: never) => Promise<unknown>>;
  for (const [name, handler] of Object.entries(handlers) as [
    string,
    (params: unknown) => Promise<unknown>,
  ][]) {
    guarded[name] = async (params: unknown) => {
      try {
        return await handler(params);
      } catch (error) {
        throw toArborError(error, name, options.onInternalError);
      }
    };
  }

  return Object.assign(guarded as unknown as ArborHandlers, {
    activeLibrary: () => library,
    async idle() {
      while (scanning || scanQueued) await (scanQueued ?? scanning)?.catch(() => {});
    },
    dispose() {
      lifetime.dispose();
      viewState = null;
      if (demo && demo !== options.library) void demo.dispose();
    },
  });
}

/** Any error as an `ArborError`: file-system errors by their code, anything else as a generic internal error. */
export function toArborError(
  error: unknown,
  request: string,
  onInternalError?: (error: unknown, request: string) => void,
): ArborError {
  if (error instanceof ArborError) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === "ENOENT")
    return new ArborError("not-found", "The session file no longer exists; rescan the library.");
  if (code === "EACCES" || code === "EPERM") {
    return new ArborError("io", "Arbor is not allowed to read or write that file; check its permissions.");
  }
  if (code === "ENOSPC") return new ArborError("io", "The disk is full; nothing was written.");
  if (typeof code === "string" && /^E[A-Z]+$/.test(code)) {
    return new ArborError("io", `A file operation failed (${code}); try again.`);
  }
  onInternalError?.(error, request);
  return new ArborError(
    "internal",
    `Arbor hit an unexpected error while handling "${request}"; details are in its log.`,
  );
}
