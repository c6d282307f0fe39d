/**
 * What the renderer's controller offers the components: every user action,
 * by concern. `createController` (../controller.ts) builds it from the parts
 * in this folder; each part implements its own slice of it.
 */

import type { ExportResult, ThemePreference } from "../../../../shared/ipc/contract.ts";
import type { FilterMode, LayoutDirection } from "../../../../shared/graph/index.ts";
import type { Branches, ViewportSize } from "../../branch-map/branches-part.ts";
import type { GraphModel, GraphSelectors } from "../graph-model.ts";
import type { ContextMode, LibrarySort, Stores } from "../stores.ts";
import type { ManageActions } from "./session-manage.ts";

export interface ControllerOptions {
  /** The page's location (deep links come from its query). */
  location?: { search: string; href: string };
  writeClipboard?: (text: string) => Promise<void>;
  /** Sessions with this many entries or more search once typing pauses (`searchPauseMs`). */
  searchAsTypedBelow?: number;
  /**
   * Told each session the window shows, and the entry selected in it when
   * that is not the file's leaf, so the address can name them (a reload in a
   * browser opens them again).
   */
  showInAddress?: ((sessionId: string, leafId: string | null) => void) | undefined;
  /**
   * Runs `run` once, soon after the page's next frame: appends that arrive
   * faster than frames are applied together then, so the graph is computed
   * once a frame. Absent (tests), each append applies as it arrives.
   */
  afterNextFrame?: ((run: () => void) => void) | undefined;
  /**
   * With `afterNextFrame`: appends that come less than this many ms after
   * the last ones were applied wait for the rest of it, then the next frame,
   * so a burst is applied at most this often, a few lines at a time (each
   * application draws the graph, the minimap and the status again, whatever
   * it adds). Absent or 0: once a frame.
   */
  appendPauseMs?: number | undefined;
  /** Runs `run` when the page is idle: work that can be done ahead (absent in tests: it is then not done ahead). */
  whenIdle?: ((run: () => void) => void) | undefined;
  /** How the window reaches the main process: the desktop app imports through its own file dialog. */
  transport?: "electron" | "serve";
  /** Saves an export (default: a download, downloadFile in manage/download.ts). */
  saveFile?: (file: ExportResult) => void;
  /** The entry graph's size on screen (which view a session opens in depends on it); the DOM's by default. */
  graphViewport?: ViewportSize;
}

export interface Controller {
  readonly stores: Stores;
  readonly selectors: GraphSelectors;
  /** How the window reaches the main process (ControllerOptions.transport; "serve" when not said). */
  readonly transport: "electron" | "serve";
  /** Managing sessions: context menus, dialogs, writes, new files, trash, export, import (issue 19). */
  readonly manage: ManageActions;
  start(): Promise<void>;
  dispose(): void;
  model(): GraphModel | null;
  /** The branch map, the view shown (map or entries) and the compare pane (branch-map/branches-part.ts). */
  readonly branches: Branches;
  /** How long the search box waits for typing to pause before searching: 0 (every key) unless the session is large. */
  searchPauseMs(): number;
  // library
  loadLibrary(): Promise<void>;
  rescan(): Promise<void>;
  setSort(sort: LibrarySort): void;
  setNamedOnly(namedOnly: boolean): void;
  setLibrarySearch(text: string): void;
  // session
  openSession(sessionId: string, leafId?: string | null): Promise<void>;
  select(entryId: string): void;
  setCursor(entryId: string): void;
  moveCursor(by: -1 | 1): void;
  pageCursor(by: -1 | 1): void;
  branchStep(direction: "up" | "down"): void;
  foldOrUp(): void;
  unfoldOrDown(): void;
  toggleFold(entryId: string): void;
  selectCursor(): void;
  setFilterMode(mode: FilterMode): void;
  /** Shows archived branches (dimmed), or hides them as by default. */
  setShowArchived(show: boolean): void;
  cycleFilter(backwards: boolean): void;
  expandChain(chainId: string): void;
  collapseChains(): void;
  setDirection(direction: LayoutDirection): void;
  setFollow(follow: boolean): void;
  setSearchQuery(query: string): void;
  setSearchFilter(only: boolean): void;
  clearSearch(): void;
  stepMatch(by: -1 | 1): void;
  reveal(entryId: string): void;
  centreOn(entryId: string | null): void;
  fitView(): void;
  beginLabel(entryId: string | null): void;
  setLabelText(label: string): void;
  submitLabel(): Promise<void>;
  cancelLabel(): void;
  copyLink(entryId: string | null): Promise<void>;
  // context
  setContextMode(mode: ContextMode): void;
  /** Shows a long text of the preview whole, or folds it (kept by key for the session). */
  showWhole(key: string, shown: boolean): void;
  copyContext(format: "json" | "markdown"): Promise<void>;
  /** The preview shows rows `first` to `last` of the context: the pages they are in are fetched if need be. */
  showContextRows(first: number, last: number): void;
  dismissReloadNotice(): void;
  notify(kind: "info" | "error", text: string): void;
  /** Chooses the theme for every window (kept in Arbor's preferences). */
  setTheme(theme: ThemePreference): Promise<void>;
}
