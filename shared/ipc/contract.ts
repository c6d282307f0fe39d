/**
 * The typed contract between the renderer and the main process: every
 * request (each answered with a promise) and every one-way event, with their
 * types. Both transports bind the same handler object to it: Electron's
 * `ipcMain.handle` behind a preload bridge, and the WebSocket of
 * `arbor serve`. Request parameters are validated with `requestSchemas`
 * before any handler runs.
 *
 * Paths never travel from the renderer: sessions and projects are named by
 * ids the main process issued (`sessionId`, `projectId`), or chosen in the
 * main process's own open dialog.
 */

import type { BranchMap } from "../branches/branch-map.ts";
import type { RunFacts } from "../branches/run-facts.ts";
import type { TextCut, TextPath } from "./text-pages.ts";
import type { ContextPage, ContextPageRequest, ContextView } from "./context-view.ts";
import type { CompareRequest, CompareView } from "./compare-view.ts";

export { COMPARE_DETAIL_MAX_TURNS, type CompareRequest, type CompareView } from "./compare-view.ts";
import type { MenuCommand } from "./menu-commands.ts";
export { MENU_COMMANDS, type MenuCommand } from "./menu-commands.ts";
export {
  CONTEXT_ANSWER_BUDGET_BYTES,
  CONTEXT_FIRST_WINDOW_MESSAGES,
  CONTEXT_PAGE_MAX_MESSAGES,
  type ContextMessageView,
  type ContextPage,
  type ContextPageRequest,
  type ContextView,
} from "./context-view.ts";

export type { TextCut, TextPath };
import type { Problem } from "../session/problems.ts";
import type { SessionEntry } from "../session/types.ts";
import type {
  ContextReplacement,
  ExportFormat,
  ExportResult,
  ForkFields,
  ImportResult,
  OpenInPiResult,
  RestoreResult,
  TrashResult,
  WriteResult,
} from "./session-management.ts";
import type { SessionNodes } from "./session-nodes.ts";

export * from "./session-management.ts";

/** A session as the library lists it. `sessionId` is the main process's handle for it. */
export interface SessionListItem {
  sessionId: string;
  /** The header's id (a UUID). */
  headerId: string;
  /** For display only: never sent back. */
  path: string;
  projectId: string;
  cwd: string;
  name: string | null;
  firstMessage: string;
  /** Messages outside archived branches (Pi's count, less `archivedMessageCount`). */
  messageCount: number;
  /** Messages in branches archived in Arbor. */
  archivedMessageCount: number;
  created: string;
  modified: string;
  bytes: number;
  /** The session this one was forked from, when it is in the library. */
  parentSessionId: string | null;
  /** Why the file could not be read as a session, if it could not. */
  error: string | null;
  /** Lines that are not JSON (Pi skips them without a word); 0 for a clean file. */
  damagedLines: number;
  /** Another window (or this one) has it open. */
  open: boolean;
}

export interface ProjectGroup {
  projectId: string;
  cwd: string;
  sessions: SessionListItem[];
}

/** A file or folder the library's scan passed over, and why. */
export interface SkippedLibraryFile {
  /** For display only: never sent back. */
  path: string;
  reason: string;
}

export interface LibraryListing {
  projects: ProjectGroup[];
  /** What the last scan passed over (a FIFO named like a session, a link out of the session folders...). */
  skipped: SkippedLibraryFile[];
  /** True while a scan is still running: more may come with `library.changed`. */
  scanning: boolean;
  /** True when the listing is the bundled demo library (no Pi sessions were found). */
  demo: boolean;
}

export interface SearchHit {
  sessionId: string;
  entryId: string | null;
  field: string;
  snippet: string;
  /** `[start, end)` of the matched words in `snippet`. */
  highlights: [number, number][];
}

/** One tree node as the renderer draws it: small, no message bodies. */
export interface TreeNodeView {
  id: string;
  parentId: string | null;
  children: string[];
  type: string;
  role: string | null;
  /** The message role for messages, the entry type otherwise. */
  kind: string;
  preview: string;
  label: string | null;
  depth: number;
  line: number;
  timestamp: string;
  toolNames: string[];
  tokenEstimate: number;
  isError: boolean;
  toolCallsOnly: boolean;
  /** Message content has non-blank text (Pi's `/tree` filter needs it). */
  hasText: boolean;
  stopReason: string | null;
  /** Compaction entries: tokens before. */
  tokensBefore: number | null;
  /** context_edit entries: the entry they edit. */
  targetId: string | null;
  /**
   * Hidden by default as archived (Arbor's archive marker): the marker's
   * target, or an entry below one (shared/session/arbor-entries.ts).
   */
  archived: boolean;
}

export interface SessionView {
  sessionId: string;
  path: string;
  headerId: string | null;
  cwd: string | null;
  name: string | null;
  version: number;
  parentSessionId: string | null;
  /** The file's leaf: its last entry. */
  leafId: string | null;
  roots: string[];
  /** Depth-first, children in Pi's order (see session-nodes.ts). */
  nodes: SessionNodes;
  problems: Problem[];
  bytes: number;
  /** The file changed within the last few seconds: a Pi is probably writing it. */
  live: boolean;
  /**
   * The session's branch map, when it came with the view: a large session's,
   * saved with its view (app/store/saved-view.ts), so the window can draw
   * the map as it opens without asking `session.branches` (a 3 MB answer at
   * 1,000 tips). Absent otherwise.
   */
  branchMap?: BranchMap;
}

/** A change to a list that mostly grows at its end: keep the first `keep` items, then add `add`. */
export interface ListPatch<T> {
  keep: number;
  add: T[];
}

/**
 * What an append changed in the open session's view (see `applySessionDelta`
 * in views.ts): the nodes of the new entries, the nodes they changed (a
 * parent's `children`, a label's target), and the view's own fields as they
 * are now. Small, whatever the size of the session.
 */
export interface SessionDelta
  extends Pick<
    SessionView,
    "headerId" | "cwd" | "name" | "version" | "parentSessionId" | "leafId" | "bytes" | "live"
  > {
  /**
   * `bytes` of the view this applies to. A view with other bytes missed a
   * change: it is newer (nothing to do) or older (ask `session.current`).
   */
  baseBytes: number;
  /** Nodes of the new entries, in file order. */
  added: TreeNodeView[];
  /** Nodes already in the view whose view changed, as they are now. */
  changed: TreeNodeView[];
  /** Ids no longer in the view (only when the file's index had to be rebuilt). */
  removed: string[];
  roots: ListPatch<string>;
  problems: ListPatch<Problem>;
}

export interface EntryDetail {
  entry: SessionEntry;
  /** Strings of `entry` cut short (paths from `entry`); absent when none was. */
  cuts?: TextCut[];
  line: number;
  problems: Problem[];
  /** The entry's label and when it was set (the label entry's timestamp); null without one. */
  label: { label: string; timestamp: string } | null;
  /** The entry is archived (its own marker or one above it). */
  archived: boolean;
}

/** The most ids one `session.search` answer carries (about 1 MB of them): every entry of a 100k session. */
export const SESSION_SEARCH_MAX_LIMIT = 100_000;

/** What `session.search` found in the open session (see shared/session/entry-search.ts). */
export interface SessionSearchResult {
  /** The query as asked, so a late answer can be told from the current one. */
  query: string;
  entryIds: string[];
  /** More entries matched than the limit let through. */
  truncated: boolean;
}

/** The window's colours: the operating system's choice, or always light, or always dark. */
export type ThemePreference = "system" | "light" | "dark";

export const THEME_PREFERENCES: readonly ThemePreference[] = ["system", "light", "dark"];

export interface AppInfo {
  version: string;
  transport: "electron" | "serve";
  /** The theme chosen in this data folder (every window of the process shares it). */
  theme: ThemePreference;
}

/** Every request: parameters and result. All return promises on the calling side. */
export interface ArborRequests {
  "app.info": { params: Record<string, never>; result: AppInfo };
  "app.setTheme": { params: { theme: ThemePreference }; result: { theme: ThemePreference } };
  "library.list": { params: Record<string, never>; result: LibraryListing };
  "library.rescan": { params: Record<string, never>; result: LibraryListing };
  "library.search": { params: { query: string; limit?: number }; result: SearchHit[] };
  "session.open": { params: { sessionId: string }; result: SessionView };
  "session.current": { params: Record<string, never>; result: SessionView | null };
  /** The context from `leafId`: its figures, and its messages whole or (past one answer's budget) its last page. */
  "session.context": { params: { leafId: string | null; llm?: boolean }; result: ContextView };
  /** Another page of the messages of the context `session.context` answered. */
  "session.contextPage": { params: ContextPageRequest; result: ContextPage };
  "session.entry": { params: { entryId: string }; result: EntryDetail };
  /** A page of a string `session.entry` (`path` in the entry) or `session.context` (from the view) cut short. */
  "session.text": {
    params: {
      of: { entryId: string } | { leafId: string | null; llm: boolean };
      path: TextPath;
      offset: number;
      length: number;
    };
    result: { text: string; length: number };
  };
  "session.search": { params: { query: string; limit?: number }; result: SessionSearchResult };
  "session.new": { params: { projectId: string }; result: SessionView };

  // Managing sessions (issue 19; types and rules in session-management.ts).
  // Writes into the open session, by entry id: one appended entry each. Without `confirmLive`,
  // a live file is refused ("conflict") with nothing written.
  /** Sets (a non-empty label) or clears (null or "") an entry's label. Pi's context and resume point stay. */
  "session.setLabel": {
    params: { targetId: string; label: string | null; confirmLive?: boolean };
    result: WriteResult;
  };
  /** Names the session; "" clears the name (Pi's rule). Pi's context and resume point stay. */
  "session.rename": { params: { name: string; confirmLive?: boolean }; result: WriteResult };
  /**
   * Makes `entryId` where Pi resumes next time it opens the file: a marker Pi
   * leaves out of the context, or with `summary` Pi's branch summary of the
   * branch left (then in the context), as the entry's child.
   */
  "session.continueFrom": {
    params: { entryId: string; summary?: string; confirmLive?: boolean };
    result: WriteResult;
  };
  /** Hides the branch below `entryId` (the entry included) from the default views. Pi sees no change. */
  "session.archive": { params: { entryId: string; confirmLive?: boolean }; result: WriteResult };
  "session.unarchive": { params: { entryId: string; confirmLive?: boolean }; result: WriteResult };
  /**
   * Adds a note to the model's context (a custom message) after `at`
   * (default the file's leaf: away from it, Pi then resumes at the note).
   */
  "session.addNote": {
    params: { text: string; at?: string; confirmLive?: boolean };
    result: WriteResult;
  };
  /**
   * Replaces (or with `replacement: null` drops) a message's contribution to
   * the context from `at` (default the file's leaf; the target must be on the
   * branch ending there). Only Pi 1.x honours it: Pi 0.73 ignores the entry.
   * `session.context` before and after shows the effect.
   */
  "session.editContext": {
    params: { targetId: string; replacement: ContextReplacement | null; at?: string; confirmLive?: boolean };
    result: WriteResult;
  };
  /**
   * Reverses the last label, name, archive or continue (or `entryId`, one of
   * those) by appending the entry that restores what was before it.
   */
  "session.undo": { params: { entryId?: string; confirmLive?: boolean }; result: WriteResult };
  // New files from the open session, switched to (`session.switched` follows).
  /** A fork at any entry (`at`), or before a user message (`before`: Pi's /fork, its text returned). */
  "session.fork": {
    params: { entryId: string; position: "before" | "at" };
    result: SessionView & ForkFields;
  };
  /** A copy of the branch ending at `leafId` (default the file's leaf: Pi's /clone). */
  "session.clone": { params: { leafId?: string }; result: SessionView };
  // Library sessions, by the ids Arbor issued (`sessionId` omitted: the open session).
  /** Moves the session's file to the system's trash; the window's open session is closed first. */
  "session.trash": { params: { sessionId: string; confirmLive?: boolean }; result: TrashResult };
  /** Moves a file `session.trash` trashed (while Arbor runs) back where it was, never over a file. */
  "session.restore": { params: { trashId: string }; result: RestoreResult };
  /** The branch ending at `leafId` (default the file's leaf) as a file's content to save. */
  "session.export": {
    params: { sessionId?: string; leafId?: string | null; format: ExportFormat };
    result: ExportResult;
  };
  /** Runs `pi --session <file>` in the user's terminal, or says what to run. */
  "session.openInPi": { params: { sessionId?: string }; result: OpenInPiResult };
  /**
   * Checks a session file (as `arbor check`) and copies it, unchanged, into
   * the project's session folder under a new Pi-style name. Under `arbor
   * serve` the window sends the file's `content` (at most `MAX_IMPORT_BYTES`);
   * in the desktop app, without `content`, the main process asks with its
   * own open dialog (null: the user chose nothing).
   */
  "session.import": {
    params: { projectId: string; content?: string; fileName?: string };
    result: ImportResult | null;
  };
  /** The open session's branch map: segments with their facts and children, one leaf per branch tip. */
  "session.branches": { params: Record<string, never>; result: BranchMap };
  /** All the facts (tool calls, files, labels too) of a branch of the map, by its tip, or of one segment. */
  "session.branchFacts": { params: { leafId: string } | { segmentId: string }; result: RunFacts };
  "session.compare": { params: CompareRequest; result: CompareView };
}

export type RequestName = keyof ArborRequests;
export type RequestParams<N extends RequestName> = ArborRequests[N]["params"];
export type RequestResult<N extends RequestName> = ArborRequests[N]["result"];

/** Every one-way event from the main process. */
export interface ArborEvents {
  /** The theme was chosen anew (in this window, another, or the desktop app's menu). */
  "app.themeChanged": { theme: ThemePreference };
  /** The desktop app's Session or Entry menu was used with this window in front. */
  "app.menuCommand": { command: MenuCommand };
  "library.progress": { loaded: number; total: number };
  "library.changed": LibraryListing;
  /** One listed session's row changed between scans (the open session grew): the row as it reads now. */
  "library.sessionChanged": SessionListItem;
  /** New entries were appended to the open session (by Pi or by Arbor): what changed in its view. */
  "session.appended": { sessionId: string; delta: SessionDelta };
  /** The open file was truncated, replaced or deleted: the view was reloaded (or closed). */
  "session.reloaded": {
    sessionId: string;
    reason: "truncated" | "replaced" | "deleted" | "recreated" | "rewritten";
    view: SessionView | null;
  };
  /**
   * The runtime now holds another session (switch, new, fork, clone). The
   * view is not in the event: a request that switched answers with it, and
   * a window that asked for nothing (the switch came from the menu, the
   * command line, another client) asks `session.current`.
   */
  "session.switched": {
    sessionId: string;
    /** For display only (the Electron shell tracks which file a window shows). */
    path: string;
    reason: "open" | "new" | "fork" | "clone";
  };
  /** The window's session was closed without another opened (its file was moved to the trash). */
  "session.closed": { sessionId: string; reason: "trashed" };
}

export type EventName = keyof ArborEvents;

/** The object both transports bind: one async function per request. */
export type ArborHandlers = {
  [N in RequestName]: (params: RequestParams<N>) => Promise<RequestResult<N>>;
};

/** What the renderer holds: the same requests, plus event subscriptions that return their unsubscribe. */
export interface ArborClient {
  request<N extends RequestName>(name: N, params: RequestParams<N>): Promise<RequestResult<N>>;
  on<E extends EventName>(name: E, listener: (payload: ArborEvents[E]) => void): () => void;
}

export type ErrorCode =
  | "invalid-request"
  | "not-found"
  | "refused"
  | "conflict"
  | "stale"
  | "io"
  | "internal";

/** How errors cross either transport. */
export interface ArborErrorPayload {
  code: ErrorCode;
  message: string;
}

export class ArborError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string) {
    super(message);
    this.name = "ArborError";
    this.code = code;
  }

  toPayload(): ArborErrorPayload {
    return { code: this.code, message: this.message };
  }

  static from(payload: ArborErrorPayload): ArborError {
    return new ArborError(payload.code, payload.message);
  }
}

export const REQUEST_NAMES: readonly RequestName[] = [
  "app.info",
  "app.setTheme",
  "library.list",
  "library.rescan",
  "library.search",
  "session.open",
  "session.current",
  "session.context",
  "session.contextPage",
  "session.entry",
  "session.text",
  "session.search",
  "session.new",
  // Managing sessions (issue 19)
  "session.setLabel",
  "session.rename",
  "session.continueFrom",
  "session.archive",
  "session.unarchive",
  "session.addNote",
  "session.editContext",
  "session.undo",
  "session.fork",
  "session.clone",
  "session.trash",
  "session.restore",
  "session.export",
  "session.openInPi",
  "session.import",
  "session.branches",
  "session.branchFacts",
  "session.compare",
];

export const EVENT_NAMES: readonly EventName[] = [
  "app.themeChanged",
  "app.menuCommand",
  "library.progress",
  "library.changed",
  "library.sessionChanged",
  "session.appended",
  "session.reloaded",
  "session.switched",
  "session.closed",
];
