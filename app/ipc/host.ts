/**
 * Everything one window needs, put together: the session library (with the
 * bundled demo library as fallback), a `SessionRuntime` with Arbor's own
 * extensions, the window's services over them (the library as listed, the
 * open session's view, the session actions) and the handler table both
 * transports bind. One per window (an Electron window, a browser tab under
 * `arbor serve`); the windows of one process share one library and one set
 * of open marks (`shared`), so they never write the library's cache over
 * each other.
 */

import { join } from "node:path";
import { writeDemoLibrary } from "../demo/demo-library.ts";
import { createSessionLibrary, type SessionLibrary } from "../library/index.ts";
import { createFollowerExtension } from "../runtime/extensions/follower.ts";
import { createOpenMarks, type OpenMarks } from "../runtime/extensions/open-marks.ts";
import { createRecentSessions, type RecentSessions } from "../runtime/extensions/recent-sessions.ts";
import { createWindowTitleExtension } from "../runtime/extensions/window-title.ts";
import type { OpenSessionFactory, SessionFiles } from "../runtime/open-session.ts";
import { createCwdServicesFactory } from "../runtime/services.ts";
import { SessionRuntime } from "../runtime/session-runtime.ts";
import { fileSessionFactory } from "../runtime/file-session.ts";
import { createParseCache, type ParseCache } from "../store/parse-cache.ts";
import { oncePerProcess, removeStaleTemporaries } from "../store/stale-temporaries.ts";
import type { ArborHandlers } from "../../shared/ipc/contract.ts";
import { type DemoSource, LibraryView } from "../library-view/library-view.ts";
import type { Disposable } from "../../shared/lifecycle/disposable.ts";
import type { Launcher } from "../session-manage/open-in-pi.ts";
import { SessionManagement } from "../session-manage/session-management.ts";
import { type TrashFunction, TrashBin } from "../session-manage/trash-bin.ts";
import { SessionBranches } from "../branches/session-branches.ts";
import { SessionActions } from "../session-view/session-actions.ts";
import { INDEX_BUILD_DELAY_MS } from "../session-view/open-session-view.ts";
import { SessionViews } from "../session-view/session-views.ts";
import { SessionWrites } from "../session-view/session-writes.ts";
import { PreferencesFile } from "../preferences/preferences-file.ts";
import { createEventHub, type EventHub, type EventSink } from "./event-sink.ts";
import { createArborHandlers } from "./handlers.ts";
import { IssuedIds } from "./issued-ids.ts";

export interface ArborHostOptions {
  transport: "electron" | "serve";
  version: string;
  /** Arbor's data folder: library cache, recent sessions, the demo library. */
  dataDir: string;
  /** Session folders to use instead of Pi's (`arbor serve --dir`). */
  roots?: readonly string[] | undefined;
  /** Folders the user added, scanned as well as Pi's. */
  extraFolders?: readonly string[] | undefined;
  /** Environment to find Pi's folders in (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>> | undefined;
  /** List the bundled demo library when no sessions are found (default true). */
  demo?: boolean | undefined;
  setTitle?: ((title: string) => void) | undefined;
  /** Runs work once the answers given so far have left the process (see `WindowServicesOptions.afterReplies`). */
  afterReplies?: ((work: () => void) => void) | undefined;
  /** See `WindowServicesOptions.indexBuildDelayMs`. */
  indexBuildDelayMs?: number | undefined;
  /** Opens session files (default: the runtime's, `openFileSession` over `app/store`). */
  openSession?: OpenSessionFactory | undefined;
  /** Writes new, forked and cloned files (default: the runtime's, over `app/store/new-file.ts`). */
  files?: SessionFiles | undefined;
  onInternalError?: ((error: unknown, request: string) => void) | undefined;
  /** What the process's windows share; this host then leaves them open when it closes. */
  shared?: SharedHostParts | undefined;
  /** The preferences file (default: `preferences.json` in `dataDir`); the desktop app's shell opens it first. */
  preferences?: PreferencesFile | undefined;
  /** Moves a file to the system's trash (default: the npm `trash` library; the desktop app: `shell.trashItem`). */
  trashFile?: TrashFunction | undefined;
  /** Starts the terminal for "Open in Pi" (default: a detached child process). */
  launcher?: Launcher | undefined;
  /** The desktop app's open dialog for `session.import` (none under `arbor serve`). */
  chooseImportFile?: (() => Promise<string | null>) | undefined;
}

/** The parts of a host every window of the process shares. */
export interface SharedHostParts {
  library: SessionLibrary;
  openMarks: OpenMarks;
  recentSessions: RecentSessions;
  preferences: PreferencesFile;
  /** What the process's windows moved to the trash, to restore from any of them. */
  trashBin: TrashBin;
}

/** The library, open marks and preferences for the windows of one process (`ArborHostOptions.shared`). */
export function createSharedHostParts(
  options: Pick<ArborHostOptions, "roots" | "extraFolders" | "dataDir" | "env" | "preferences" | "trashFile">,
): SharedHostParts & { dispose(): Promise<void> } {
  const library = libraryFor(options);
  // Saved parses a crash of an earlier Arbor left half-written (the session roots: on the first scan).
  void oncePerProcess(join(options.dataDir, PARSE_CACHE_FOLDER), (dir) =>
    removeStaleTemporaries(dir, "saved-parse"),
  );
  const openMarks = createOpenMarks();
  const recentSessions = createRecentSessions({ dataDir: options.dataDir });
  const preferences = options.preferences ?? preferencesIn(options.dataDir);
  return {
    library,
    openMarks,
    recentSessions,
    preferences,
    trashBin: new TrashBin({ trash: options.trashFile }),
    async dispose() {
      await library.dispose();
      recentSessions.dispose();
      openMarks.dispose();
      if (preferences !== options.preferences) preferences.dispose();
    },
  };
}

/** Arbor's preferences in its data folder (the desktop app's and `arbor serve`'s alike). */
export function preferencesIn(dataDir: string): PreferencesFile {
  return new PreferencesFile(join(dataDir, "preferences.json"));
}

const PARSE_CACHE_FOLDER = "open-cache";

/** Saved parses of large sessions, in Arbor's data folder: a large session opens again without a parse. */
export function parseCacheIn(dataDir: string): ParseCache {
  return createParseCache(join(dataDir, PARSE_CACHE_FOLDER));
}

function libraryFor(options: Pick<ArborHostOptions, "roots" | "extraFolders" | "dataDir" | "env">) {
  return createSessionLibrary({
    roots: options.roots,
    extraFolders: options.extraFolders,
    cacheDir: join(options.dataDir, "library-cache"),
    env: options.env,
    parseCache: parseCacheIn(options.dataDir),
  });
}

export interface WindowServicesOptions {
  runtime: SessionRuntime;
  library: SessionLibrary;
  events: EventSink;
  transport: "electron" | "serve";
  version: string;
  /** The process's preferences: the theme is read and chosen through them. */
  preferences: PreferencesFile;
  /** The process's record of trashed sessions (default: one for this window). */
  trashBin?: TrashBin | undefined;
  launcher?: Launcher | undefined;
  chooseImportFile?: (() => Promise<string | null>) | undefined;
  /** When the first scan finds no session files, the demo library is listed instead (`demo: true`). */
  demoSource?: DemoSource | undefined;
  /** The process's "open" marks for the listing (default: none are marked). */
  openMarks?: OpenMarks | undefined;
  /** Errors of work in the background (scans, row reads, building an index); a request's go to `dispatch`. */
  onInternalError?: ((error: unknown, request: string) => void) | undefined;
  now?: (() => number) | undefined;
  /** How long the open session's library row waits after an append before it is read again (default 250 ms). */
  rowRefreshDelayMs?: number | undefined;
  /**
   * Runs work once the answers given so far have left the process, so that
   * long work does not hold them back (the WebSocket: its writes drained);
   * default: the next turn of the event loop (Electron's IPC sends at once).
   */
  afterReplies?: ((work: () => void) => void) | undefined;
  /**
   * How long a session opened from a saved view waits after the last answer it read from that view (once
   * it has left) before it builds its index (about a second of work at 100k entries, in one piece): the
   * window draws what it was sent first (default `INDEX_BUILD_DELAY_MS`). A request that needs the index
   * builds it at once.
   */
  indexBuildDelayMs?: number | undefined;
}

/** One window's services over its runtime and the library, and the handler table over them. */
export interface WindowServices extends Disposable {
  readonly handlers: ArborHandlers;
  readonly library: LibraryView;
  readonly sessions: SessionViews;
  readonly actions: SessionActions;
  readonly writes: SessionWrites;
  readonly management: SessionManagement;
  readonly branches: SessionBranches;
}

export function createWindowServices(options: WindowServicesOptions): WindowServices {
  const { runtime, events } = options;
  const ids = new IssuedIds();
  const library = new LibraryView({
    library: options.library,
    ids,
    events,
    demoSource: options.demoSource,
    openMarks: options.openMarks,
    onInternalError: options.onInternalError,
    rowRefreshDelayMs: options.rowRefreshDelayMs,
  });
  const sessions = new SessionViews(runtime, {
    events,
    ids,
    library,
    now: options.now ?? Date.now,
    afterReplies: options.afterReplies ?? ((work) => setImmediate(work)),
    indexBuildDelayMs: options.indexBuildDelayMs ?? INDEX_BUILD_DELAY_MS,
    onInternalError: options.onInternalError,
  });
  const actions = new SessionActions({ runtime, views: sessions, library, ids, events });
  const writes = new SessionWrites(runtime);
  const branches = new SessionBranches({ runtime, library, ids });
  const { preferences } = options;
  const management = new SessionManagement({
    runtime,
    library,
    ids,
    events,
    preferences,
    trashBin: options.trashBin ?? new TrashBin(),
    launcher: options.launcher,
    chooseImportFile: options.chooseImportFile,
  });
  const info = { version: options.version, transport: options.transport };
  // A theme chosen anywhere (this window, another, the desktop app's menu) reaches this window's renderer.
  let theme = preferences.current.theme;
  const themeChanges = preferences.onDidChange((next) => {
    if (next.theme === theme) return;
    theme = next.theme;
    events.emit("app.themeChanged", { theme });
  });
  const services = { library, sessions, actions, writes, management, branches };
  return {
    handlers: createArborHandlers({ info, preferences, ...services }),
    ...services,
    dispose() {
      themeChanges.dispose();
      branches.dispose();
      actions.dispose();
      sessions.dispose();
      library.dispose();
    },
  };
}

export interface ArborHost {
  readonly library: SessionLibrary;
  readonly runtime: SessionRuntime;
  readonly handlers: ArborHandlers;
  /** The window's services the handlers call (the library as listed, the open session's view). */
  readonly windowServices: WindowServices;
  readonly events: EventHub;
  readonly openMarks: OpenMarks;
  readonly recentSessions: RecentSessions;
  /** Shuts the session down, then releases the library and everything else (the events last). */
  close(): Promise<void>;
}

/** Folder of the demo sessions, written there on first use. */
export function demoRoot(dataDir: string): string {
  return join(dataDir, "demo-sessions");
}

export function createArborHost(options: ArborHostOptions): ArborHost {
  const shared = options.shared;
  const library = shared?.library ?? libraryFor(options);
  const demoSource: DemoSource | undefined =
    options.demo === false
      ? undefined
      : () => {
          const root = demoRoot(options.dataDir);
          writeDemoLibrary(root);
          return createSessionLibrary({ roots: [root], cacheDir: null });
        };
  const events = createEventHub();
  const openMarks = shared?.openMarks ?? createOpenMarks();
  const recentSessions = shared?.recentSessions ?? createRecentSessions({ dataDir: options.dataDir });
  const preferences = shared?.preferences ?? options.preferences ?? preferencesIn(options.dataDir);
  const trashBin = shared?.trashBin ?? new TrashBin({ trash: options.trashFile });
  let windowServices: WindowServices | undefined;
  const runtime = new SessionRuntime({
    openSession: options.openSession ?? fileSessionFactory({ parseCache: parseCacheIn(options.dataDir) }),
    files: options.files,
    services: createCwdServicesFactory({
      lookupLibraryEntry: (path) => windowServices?.library.active.session(path),
    }),
    extensions: [
      createFollowerExtension(),
      openMarks.extension,
      recentSessions.extension,
      ...(options.setTitle ? [createWindowTitleExtension(options.setTitle)] : []),
    ],
  });
  windowServices = createWindowServices({
    runtime,
    library,
    events,
    transport: options.transport,
    version: options.version,
    preferences,
    demoSource,
    openMarks,
    onInternalError: options.onInternalError,
    afterReplies: options.afterReplies,
    indexBuildDelayMs: options.indexBuildDelayMs,
    trashBin,
    launcher: options.launcher,
    chooseImportFile: options.chooseImportFile,
  });
  const created = windowServices;
  let closing: Promise<void> | undefined;
  return {
    library,
    runtime,
    handlers: created.handlers,
    windowServices: created,
    events,
    openMarks,
    recentSessions,
    close() {
      closing ??= (async () => {
        await runtime.close();
        created.dispose();
        if (!shared) await library.dispose();
        await created.library.idle().catch(() => {});
        if (!shared) {
          recentSessions.dispose();
          openMarks.dispose();
          if (preferences !== options.preferences) preferences.dispose();
        }
        events.dispose();
      })();
      return closing;
    },
  };
}
