/**
 * The branches part of the controller: which view the graph panel shows
 * (the branch map or the entry graph), the open session's branch map
 * (`session.branches`, asked for once something shows it: the map view, the
 * tip picker; the main process builds its branch model on the first ask,
 * seconds for 100k entries, so a session only looked at as entries never
 * pays for it; a large session's comes with its view), kept fresh while
 * entries are appended, while something shows it, by asking again at
 * most every 500 ms (the main process updates its model incrementally, so
 * that is cheap there, and the renderer keeps no second model), the map's
 * folds and keyboard cursor, and the compare pane (`session.compare`).
 */

import { createStore, type StoreApi } from "zustand/vanilla";
import type { BranchMap } from "../../../shared/branches/index.ts";
import type { CompareRequest, CompareView, ContextView } from "../../../shared/ipc/contract.ts";
import { screenErrors } from "../../../shared/error-texts.ts";
import { createCompareActions } from "../compare/compare-actions.ts";
import type { ControllerKit } from "../state/controller/kit.ts";
import { messageOf } from "../state/controller/kit.ts";
import type { Navigator } from "../state/controller/navigator.ts";
import type { LoadStatus } from "../state/stores.ts";
import { chooseDefaultView, type GraphView, laneTips, leastExtentOfTips } from "./default-view.ts";
import { MAP_ROW_HEIGHT, ROW_BUDGET } from "./map-layout.ts";
import { MAP_DATA_MARK, VIEW_ARRIVED_MARK } from "./marks.ts";

/** While entries are appended, the map is asked for again at most this often. */
export const MAP_REFRESH_MS = 500;

/**
 * From this many entries on, the map is asked for as soon as a session's view arrives: at this size the
 * entry graph is rarely readable at Fit, and the map is ready (saved with the view, or quick to build).
 */
const MAP_LIKELY_MIN_ENTRIES = 5_000;

export type CompareMode = "entries" | "context";

export interface CompareState {
  status: LoadStatus;
  error: string | null;
  request: CompareRequest;
  view: CompareView | null;
  mode: CompareMode;
  /** Show the shared prefix's entries (collapsed by default). */
  sharedShown: boolean;
}

export interface BranchesState {
  view: GraphView;
  /** The user chose the view for this session: the default rule no longer decides it. */
  chosen: boolean;
  sessionId: string | null;
  map: BranchMap | null;
  mapStatus: LoadStatus;
  mapError: string | null;
  /** Segments whose retries are shown (folded runs the user opened). */
  expanded: ReadonlySet<string>;
  /** The map's keyboard cursor: a row's key (its first segment). */
  mapCursor: string | null;
  compare: CompareState | null;
  /** The tip picker ("Compare with…"): the tip the comparison starts from. */
  picker: { leftId: string } | null;
  /** Library sessions marked (Ctrl/Cmd-click) to compare, at most two, the first the left side. */
  marked: readonly string[];
  /** Rows the map shows on one screen (its folds open up to that many): measured by the map view. */
  mapBudget: number;
}

export const initialBranchesState: BranchesState = {
  view: "entries",
  chosen: false,
  sessionId: null,
  map: null,
  mapStatus: "idle",
  mapError: null,
  expanded: new Set(),
  mapCursor: null,
  compare: null,
  picker: null,
  marked: [],
  mapBudget: ROW_BUDGET,
};

/** The size the entry graph would have on screen (0 by 0 when it is not laid out: a test's DOM). */
export type ViewportSize = () => { width: number; height: number };

export interface Branches {
  readonly store: StoreApi<BranchesState>;
  setView(view: GraphView): void;
  toggleView(): void;
  /** Shows or folds the retries of a map row's segments. */
  toggleRow(segmentIds: readonly string[]): void;
  setMapCursor(key: string | null): void;
  setMapBudget(rows: number): void;
  /** Opens an entry in the entry graph: selects it and centres it there. */
  openInGraph(entryId: string): void;
  /** Compares two tips (the right one of another session when `sessionId` is given). */
  compare(leftId: string, right: { leafId: string; sessionId?: string }): Promise<void>;
  /** Asks for more turns of message detail from `fromTurn`. */
  loadTurns(fromTurn: number, turns: number): Promise<void>;
  swapSides(): void;
  setCompareMode(mode: CompareMode): void;
  showShared(shown: boolean): void;
  closeCompare(): void;
  openPicker(leftId: string): void;
  closePicker(): void;
  /** Marks a library session for comparing, or unmarks it (null clears the marks). */
  markForCompare(sessionId: string | null): void;
  /** Closes the compare pane and shows an entry of the open session in the graph. */
  revealFromCompare(entryId: string): void;
  copyComparison(markdown: string): Promise<void>;
  /** The whole text of an entry of the open session (a compared text cut short), or null. */
  entryText(entryId: string): Promise<string | null>;
  /** "What the model sees" from an entry of the open session, or null when it cannot be read. */
  modelContext(leafId: string): Promise<ContextView | null>;
}

export interface BranchesNeeds {
  navigator: Pick<Navigator, "reveal">;
  select(entryId: string): void;
  viewport: ViewportSize;
}

function mark(name: string): void {
  if (typeof performance !== "undefined" && typeof performance.mark === "function") performance.mark(name);
}

/**
 * The view the page's address asks for (`?view=map` or `?view=entries`): it holds for every session the
 * window opens, instead of the default rule (a bookmark, a test that measures one view).
 */
export function viewInAddress(search: string): GraphView | null {
  const view = new URLSearchParams(search).get("view");
  return view === "map" || view === "entries" ? view : null;
}

export function createBranches(kit: ControllerKit, needs: BranchesNeeds): Branches {
  const store = createStore<BranchesState>()(() => ({ ...initialBranchesState }));
  const map = createMapActions(kit, store, needs);
  return {
    store,
    ...map,
    openPicker(leftId) {
      store.setState({ picker: { leftId } });
      map.ensureMap();
    },
    closePicker: () => store.setState({ picker: null }),
    ...createCompareActions(kit, store, needs),
  };
}

type MapActions = Pick<
  Branches,
  "setView" | "toggleView" | "toggleRow" | "setMapCursor" | "setMapBudget" | "openInGraph"
> & { ensureMap(): void };

/** Asking for the map: once something shows it, and again at most every MAP_REFRESH_MS while entries arrive. */
function createMapLoader(kit: ControllerKit, store: StoreApi<BranchesState>) {
  const { session } = kit.stores;
  let mapSerial = 0;
  let refresh: ReturnType<typeof setTimeout> | null = null;

  async function loadMap() {
    const serial = ++mapSerial;
    if (store.getState().map === null) store.setState({ mapStatus: "loading", mapError: null });
    try {
      const map = await kit.client.request("session.branches", {});
      if (serial !== mapSerial || kit.isDisposed()) return;
      mark(MAP_DATA_MARK);
      store.setState({ map, mapStatus: "ready", mapError: null });
    } catch (error) {
      if (serial !== mapSerial || kit.isDisposed()) return;
      store.setState({ mapStatus: "error", mapError: screenErrors.branchMapNotBuilt(messageOf(error)) });
    }
  }

  /** Asks for the map unless it is here or on its way. */
  function ensureMap() {
    const state = store.getState();
    const view = session.getState().view;
    if (view === null || view.nodes.count === 0 || state.map !== null || state.mapStatus === "loading")
      return;
    void loadMap();
  }

  return {
    ensureMap,
    /** Asks again soon (entries were appended): only a map asked for is kept fresh. */
    refreshSoon() {
      const state = store.getState();
      if (refresh !== null || state.mapStatus === "idle") return;
      if (state.view !== "map" && state.picker === null) {
        // Nothing shows it: dropped, and asked for again when something does (`ensureMap`), not at every
        // append of a live session (a large session's map is megabytes).
        mapSerial++;
        store.setState({ map: null, mapStatus: "idle", mapError: null });
        return;
      }
      refresh = kit.later(MAP_REFRESH_MS, () => {
        refresh = null;
        void loadMap();
      });
    },
    cancelRefresh() {
      if (refresh !== null) kit.cancel(refresh);
      refresh = null;
    },
  };
}

/** The view shown, the map asked for (and kept fresh), its folds and cursor. */
function createMapActions(
  kit: ControllerKit,
  store: StoreApi<BranchesState>,
  needs: BranchesNeeds,
): MapActions {
  const { session } = kit.stores;
  const loader = createMapLoader(kit, store);
  const { ensureMap } = loader;

  const viewShown = createViewShown(kit, store, needs, loader);

  kit.own(
    session.subscribe((state, previous) => {
      if (state.view === previous.view) return;
      if (state.view === null) store.setState({ ...initialBranchesState, marked: store.getState().marked });
      else if (
        state.layoutEpoch !== previous.layoutEpoch ||
        state.view.sessionId !== previous.view?.sessionId
      )
        viewShown();
      else loader.refreshSoon();
    }),
  );

  function setView(view: GraphView) {
    store.setState({ view, chosen: true });
    if (view === "map") ensureMap();
  }

  return {
    ensureMap,
    setView,
    toggleView: () => setView(store.getState().view === "map" ? "entries" : "map"),
    toggleRow(segmentIds) {
      const expanded = new Set(store.getState().expanded);
      const open = segmentIds.some((id) => expanded.has(id));
      for (const id of segmentIds) {
        if (open) expanded.delete(id);
        else expanded.add(id);
      }
      store.setState({ expanded });
    },
    setMapCursor: (key) => store.setState({ mapCursor: key }),
    setMapBudget(rows) {
      // A row's worth of difference (a scroll bar, the placeholder's height against the map's) is not worth
      // laying the map out again.
      if (Math.abs(rows - store.getState().mapBudget) >= 2) store.setState({ mapBudget: rows });
    },
    openInGraph(entryId) {
      setView("entries");
      needs.select(entryId);
      needs.navigator.reveal(entryId, false);
    },
  };
}

/**
 * What happens when a view is shown whole (an open, a reload): a new map (the one that came with the view,
 * or asked for), and the default view for it (`?view=` in the address, else the readable one).
 */
function createViewShown(
  kit: ControllerKit,
  store: StoreApi<BranchesState>,
  needs: BranchesNeeds,
  loader: ReturnType<typeof createMapLoader>,
): () => void {
  const { session } = kit.stores;
  const { ensureMap } = loader;
  const addressView = viewInAddress(
    kit.options.location?.search ?? (typeof window === "undefined" ? "" : window.location.search),
  );

  /** A view shown whole (an open, a reload): a new map, and the default view for it. */
  function viewShown() {
    const view = session.getState().view;
    mark(VIEW_ARRIVED_MARK);
    loader.cancelRefresh();
    const before = store.getState();
    const same = view !== null && view.sessionId === before.sessionId;
    const given = same ? undefined : view?.branchMap;
    if (!same)
      store.setState({ ...initialBranchesState, marked: before.marked, sessionId: view?.sessionId ?? null });
    if (given) {
      // A large session's map came with its view (saved with it): nothing to ask for.
      mark(MAP_DATA_MARK);
      store.setState({ map: given, mapStatus: "ready", mapError: null });
    } else if (!same && (view?.nodes.count ?? 0) >= MAP_LIKELY_MIN_ENTRIES) {
      // A session this large most likely opens in the map: asked for now, while the graph model below is
      // laid out (a second of work at 100k entries), not after it.
      ensureMap();
    }
    const defaultView = addressView ?? defaultViewOf(given);
    const { map, mapStatus, mapError } = store.getState();
    store.setState({
      ...initialBranchesState,
      ...(same ? {} : { map, mapStatus, mapError }),
      marked: before.marked,
      mapBudget: budgetFor(needs.viewport().height, before.mapBudget),
      sessionId: view?.sessionId ?? null,
      view: same && before.chosen ? before.view : defaultView,
      chosen: same && before.chosen,
      expanded: same ? before.expanded : new Set(),
    });
    if (store.getState().view === "map") ensureMap();
  }

  /** The map when the entry graph would be unreadable at Fit: told by the map's tips when it can be, else by the layout. */
  function defaultViewOf(map: BranchMap | undefined): GraphView {
    const viewport = needs.viewport();
    const state = session.getState();
    const tips = map ? laneTips(map, state) : null;
    if (tips !== null && chooseDefaultView(leastExtentOfTips(tips, state.direction), viewport) === "map")
      return "map";
    const model = kit.model();
    return model === null ? "entries" : chooseDefaultView(model.layout, viewport);
  }

  return viewShown;
}

/** Rows of the map that fit a height (the graph panel's, before the map is drawn); `otherwise` when unknown. */
function budgetFor(height: number, otherwise: number): number {
  return height > 0 ? Math.max(6, Math.floor(height / MAP_ROW_HEIGHT)) : otherwise;
}
