/**
 * The renderer's state: zustand vanilla stores, one per concern, so IPC
 * events can call `setState` from outside React and tests build a fresh set
 * each time (`createStores()`): nothing is global, nothing leaks between
 * tests. Components read them through the thin hooks in `hooks.ts`.
 */

import { createStore, type StoreApi } from "zustand/vanilla";
import type {
  ContextPage,
  ContextView,
  EntryDetail,
  LibraryListing,
  SearchHit,
  SessionView,
  ThemePreference,
} from "../../../shared/ipc/contract.ts";
import type { FilterMode, LayoutDirection } from "../../../shared/graph/index.ts";
import { initialManageState, type ManageState } from "./manage-state.ts";

export type LoadStatus = "idle" | "loading" | "ready" | "error";

export type LibrarySort = "recent" | "name" | "size" | "messages";

export interface LibraryState {
  status: LoadStatus;
  error: string | null;
  listing: LibraryListing | null;
  progress: { loaded: number; total: number } | null;
  sort: LibrarySort;
  namedOnly: boolean;
  searchText: string;
  /** Full-text hits from `library.search` for `searchText` (null while none were asked for). */
  searchHits: SearchHit[] | null;
  searching: boolean;
}

export const initialLibraryState: LibraryState = {
  status: "idle",
  error: null,
  listing: null,
  progress: null,
  sort: "recent",
  namedOnly: false,
  searchText: "",
  searchHits: null,
  searching: false,
};

export interface LabelEditor {
  targetId: string;
  label: string;
}

export interface SessionState {
  status: LoadStatus;
  error: string | null;
  /** The session being opened (before its view arrives). */
  openingId: string | null;
  /** The entry that open asked to show (a deep link's), so that "Try again" asks for it again. */
  openingLeafId: string | null;
  view: SessionView | null;
  /** The entry taken as leaf: the context preview and the highlighted path are its. */
  selectedId: string | null;
  /** The keyboard cursor, moved by the arrow keys; Enter makes it the selection. */
  cursorId: string | null;
  filterMode: FilterMode;
  /** Entries whose descendants are hidden (Pi's fold). */
  folded: ReadonlySet<string>;
  /** Chain ids the user expanded. */
  expandedChains: ReadonlySet<string>;
  direction: LayoutDirection;
  /** Keep the file's leaf selected and in view as entries are appended. */
  follow: boolean;
  searchQuery: string;
  /**
   * What the main process's full-text search (`session.search`) found for a
   * query: entries whose whole text matches where the preview the renderer
   * holds does not. Counts for the query it was asked for only.
   */
  fullText: FullTextMatches | null;
  /** A full-text search for the current query is on its way. */
  searching: boolean;
  /** Show only matching entries (Pi's /tree search) instead of highlighting them. */
  searchFilter: boolean;
  /** Show archived branches (dimmed) instead of hiding them. */
  showArchived: boolean;
  /** The entry that keeps its place on screen when the layout next changes (a chain just expanded); else the cursor does. */
  anchorId: string | null;
  /** Counts the views shown whole (an open, a reload): each is laid out afresh, then keeps its rows. */
  layoutEpoch: number;
  /** A fit is taking the view into the overview: the overview draws from now, before the zoom is there. */
  overviewAhead: boolean;
  /**
   * Ask the graph to centre an entry: a new serial each time. Animated, except
   * when a session opens: it appears in place, not moving from another's viewport.
   */
  centreRequest: { entryId: string; serial: number; animate: boolean; keepZoom?: boolean } | null;
  /** Ask the graph to fit the whole session in view; animated likewise. */
  fitRequest: { serial: number; animate: boolean } | null;
  labelEditor: LabelEditor | null;
}

export interface FullTextMatches {
  /** The query's words, lowercased and joined by one space (`searchKey`). */
  query: string;
  ids: ReadonlySet<string>;
  /** More entries matched than one answer carries. */
  truncated: boolean;
}

export const initialSessionState: SessionState = {
  status: "idle",
  error: null,
  openingId: null,
  openingLeafId: null,
  view: null,
  selectedId: null,
  cursorId: null,
  filterMode: "default",
  folded: new Set(),
  expandedChains: new Set(),
  direction: "TB",
  follow: true,
  searchQuery: "",
  fullText: null,
  searching: false,
  searchFilter: false,
  showArchived: false,
  anchorId: null,
  layoutEpoch: 0,
  overviewAhead: false,
  centreRequest: null,
  fitRequest: null,
  labelEditor: null,
};

export type ContextMode = "agent" | "llm";

/** How an entry stands in the selected leaf's context. */
export type ContextShade = "context" | "summarised" | "edited" | "dropped" | "path" | "off-path";

/** Each path entry's shade in a context (`undefined` off the path); see context-shades.ts. */
export interface ShadeLookup {
  get(entryId: string): ContextShade | undefined;
}

export interface ContextState {
  status: LoadStatus;
  error: string | null;
  mode: ContextMode;
  /** The selection and mode the view was asked for. */
  forId: string | null;
  forMode: ContextMode;
  view: ContextView | null;
  /**
   * The pages of `view`'s messages held (its own window first, then those
   * fetched as the preview scrolled), sorted, none overlapping: a new view
   * starts again from its window.
   */
  pages: readonly ContextPage[];
  /** Each path entry's shade in `view` (entries off the path are absent). */
  shades: ShadeLookup;
  detailStatus: LoadStatus;
  detailError: string | null;
  detail: EntryDetail | null;
  /** The long texts shown whole in this session's previews (see `ShownWhole` in preview/message-view.tsx). */
  shownWhole: ReadonlySet<string>;
}

export const initialContextState: ContextState = {
  status: "idle",
  error: null,
  mode: "agent",
  forId: null,
  forMode: "agent",
  view: null,
  pages: [],
  shades: new Map(),
  detailStatus: "idle",
  detailError: null,
  detail: null,
  shownWhole: new Set(),
};

export interface Notice {
  kind: "info" | "error";
  text: string;
  serial: number;
}

export interface AppearanceState {
  /** The theme chosen (shared by every window of the main process), as last heard of it. */
  theme: ThemePreference;
  /** Whether the operating system asks for dark colours (what "system" follows). */
  systemDark: boolean;
}

export const initialAppearanceState: AppearanceState = { theme: "system", systemDark: false };

/** The colours the window shows now: the chosen theme, or the system's for "system". */
export function effectiveTheme(state: AppearanceState): "light" | "dark" {
  if (state.theme === "system") return state.systemDark ? "dark" : "light";
  return state.theme;
}

export interface LiveState {
  /** Entries appended in the last few seconds: drawn with a brief highlight. */
  recent: ReadonlySet<string>;
  /** Why the open file was reloaded, until dismissed. */
  reloadNotice: string | null;
  /** A short message (copied, label saved, request failed). */
  notice: Notice | null;
}

export const initialLiveState: LiveState = { recent: new Set(), reloadNotice: null, notice: null };

export interface Stores {
  library: StoreApi<LibraryState>;
  session: StoreApi<SessionState>;
  context: StoreApi<ContextState>;
  live: StoreApi<LiveState>;
  appearance: StoreApi<AppearanceState>;
  /** Context menus, dialogs and the undo toast of managing sessions (manage-state.ts). */
  manage: StoreApi<ManageState>;
}

export function createStores(): Stores {
  return {
    library: createStore<LibraryState>()(() => ({ ...initialLibraryState })),
    session: createStore<SessionState>()(() => ({ ...initialSessionState })),
    context: createStore<ContextState>()(() => ({ ...initialContextState })),
    live: createStore<LiveState>()(() => ({ ...initialLiveState })),
    appearance: createStore<AppearanceState>()(() => ({ ...initialAppearanceState })),
    manage: createStore<ManageState>()(() => ({ ...initialManageState })),
  };
}
