/**
 * The renderer's imperative shell: every user action and every IPC event
 * goes through here and ends as `setState` on the vanilla stores. It owns
 * its subscriptions and timers and lets go of all of them in `dispose()`.
 * Requests carry a serial so an answer that arrives after a newer request
 * was made (a slow context, a session opened twice) is dropped.
 */

import {
  type ArborClient,
  type ContextView,
  SESSION_SEARCH_MAX_LIMIT,
  type SessionView,
  type SessionListItem,
} from "../../../shared/ipc/contract.ts";
import { applySessionDelta } from "../../../shared/ipc/session-delta.ts";
import { cycleFilterMode, type FilterMode, type LayoutDirection } from "../../../shared/graph/index.ts";
import { buildDeepLink, parseDeepLink } from "../api/deep-link.ts";
import { contextAsJson, contextAsMarkdown } from "../preview/export.ts";
import { contextShades, NO_SHADES } from "./context-shades.ts";
import { searchKey } from "../../../shared/session/entry-search.ts";
import { createGraphSelectors, type GraphModel, type GraphSelectors } from "./graph-model.ts";
import { branchSegmentStart, isFoldable, nearestVisible, pageCursor, stepCursor } from "./navigation.ts";
import {
  type ContextMode,
  initialContextState,
  initialSessionState,
  type LibrarySort,
  type Stores,
} from "./stores.ts";

/** How long appended entries stay highlighted. */
export const RECENT_HIGHLIGHT_MS = 4000;
const SEARCH_DEBOUNCE_MS = 250;
/** Typing pauses this long before the main process searches the whole text. */
const FULL_TEXT_DEBOUNCE_MS = 150;
/** A growing session's full-text matches are asked again at most this often. */
const FULL_TEXT_REFRESH_MS = 1000;
const PAGE_SIZE = 10;

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
}

/** From this many entries on, each search redraws a graph large enough to feel on every key. */
const SEARCH_AS_TYPED_BELOW = 20_000;
const SEARCH_TYPING_PAUSE_MS = 200;

export interface Controller {
  readonly stores: Stores;
  readonly selectors: GraphSelectors;
  start(): Promise<void>;
  dispose(): void;
  model(): GraphModel | null;
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
  dismissReloadNotice(): void;
  notify(kind: "info" | "error", text: string): void;
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Entries about the session rather than in its conversation: follow mode does not move for them. */
const METADATA_TYPES: ReadonlySet<string> = new Set(["label", "session_info"]);

export function createController(
  client: ArborClient,
  stores: Stores,
  options: ControllerOptions = {},
): Controller {
  const selectors = createGraphSelectors();
  const disposers: (() => void)[] = [];
  const timers = new Set<ReturnType<typeof setTimeout>>();
  let disposed = false;
  let openSerial = 0;
  let contextSerial = 0;
  let detailSerial = 0;
  let searchSerial = 0;
  let noticeSerial = 0;
  let centreSerial = 0;
  let fitSerial = 0;
  /** The session a deletion closed, until another opens: it comes back if its file is written again. */
  let closedByDeletion: string | null = null;
  let searchTimer: ReturnType<typeof setTimeout> | null = null;
  let fullTextTimer: ReturnType<typeof setTimeout> | null = null;
  /** The words last asked for (`searchKey`), the requests made, and the newest whose answer is shown. */
  let askedKey = "";
  let fullTextRequests = 0;
  let shownRequest = 0;
  /** The open asked for last: its `session.switched` comes before its answer, which brings the view. */
  let pendingOpen: { sessionId: string; leafId: string | null } | null = null;

  const { library, session, context, live } = stores;
  const model = () => selectors.model(session.getState());

  const later = (ms: number, run: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!disposed) run();
    }, ms);
    timers.add(timer);
    return timer;
  };

  function notify(kind: "info" | "error", text: string) {
    live.setState({ notice: { kind, text, serial: ++noticeSerial } });
    const serial = noticeSerial;
    later(kind === "error" ? 8000 : 3000, () => {
      if (live.getState().notice?.serial === serial) live.setState({ notice: null });
    });
  }

  const writeClipboard =
    options.writeClipboard ??
    (async (text: string) => {
      if (!navigator.clipboard) throw new Error("The clipboard is not available here.");
      await navigator.clipboard.writeText(text);
    });

  // ---------------------------------------------------------------- library

  async function loadLibrary(rescan = false) {
    library.setState({ status: "loading", error: null });
    try {
      const listing = await client.request(rescan ? "library.rescan" : "library.list", {});
      if (disposed) return;
      library.setState({
        status: "ready",
        listing,
        progress: listing.scanning ? library.getState().progress : null,
      });
    } catch (error) {
      if (!disposed) library.setState({ status: "error", error: messageOf(error) });
    }
  }

  function setLibrarySearch(text: string) {
    library.setState({ searchText: text });
    if (searchTimer !== null) {
      clearTimeout(searchTimer);
      timers.delete(searchTimer);
      searchTimer = null;
    }
    const query = text.trim();
    const serial = ++searchSerial;
    if (query.length < 2) {
      library.setState({ searchHits: null, searching: false });
      return;
    }
    library.setState({ searching: true });
    searchTimer = later(SEARCH_DEBOUNCE_MS, () => {
      searchTimer = null;
      client.request("library.search", { query, limit: 200 }).then(
        (hits) => {
          if (serial === searchSerial && !disposed) library.setState({ searchHits: hits, searching: false });
        },
        (error: unknown) => {
          if (serial !== searchSerial || disposed) return;
          library.setState({ searching: false });
          notify("error", `Full-text search failed: ${messageOf(error)}`);
        },
      );
    });
  }

  // ---------------------------------------------------------------- session

  /** Whether the view holds `entryId` (looked up in the graph's index of it, built once per view anyway). */
  function holds(view: SessionView, entryId: string | null): entryId is string {
    return entryId !== null && selectors.indexed(view).indexOf.has(entryId);
  }

  function showView(view: SessionView, leafId: string | null) {
    const known = holds(view, leafId);
    const wanted = known ? leafId : view.leafId;
    session.setState({
      ...initialSessionState,
      direction: session.getState().direction,
      follow: session.getState().follow,
      status: "ready",
      view,
      selectedId: wanted,
      cursorId: wanted,
      layoutEpoch: session.getState().layoutEpoch + 1,
    });
    live.setState({ recent: new Set(), reloadNotice: null });
    if (wanted === null) session.setState({ fitRequest: { serial: ++fitSerial, animate: false } });
    else if (wanted === leafId) reveal(wanted, false);
    else {
      // The file's leaf may be hidden by the filter (a label, say): the cursor starts on its nearest visible ancestor, as in Pi.
      settleCursor();
      centreOn(session.getState().cursorId, false);
    }
    if (leafId !== null && !known) {
      notify("error", `Entry ${leafId} is not in this session; showing its leaf instead.`);
    }
  }

  async function openSession(sessionId: string, leafId: string | null = null) {
    const serial = ++openSerial;
    const pending = { sessionId, leafId };
    pendingOpen = pending;
    session.setState({ status: "loading", error: null, openingId: sessionId, openingLeafId: leafId });
    try {
      const view = await client.request("session.open", { sessionId }).finally(() => {
        if (pendingOpen === pending) pendingOpen = null;
      });
      if (serial !== openSerial || disposed) return;
      closedByDeletion = null;
      showView(view, leafId);
      markOpen(view.sessionId);
    } catch (error) {
      if (serial !== openSerial || disposed) return;
      if (session.getState().view === null) {
        session.setState({ status: "error", error: messageOf(error) });
        return;
      }
      // The session on view stays open (the main process keeps it when a switch fails): it stays on view, whole.
      session.setState({ status: "ready", error: null, openingId: null });
      notify("error", `The session could not be opened: ${messageOf(error)}`);
    }
  }

  /** Replaces library rows: `update` returns the row as it should be (the same object when unchanged). */
  function updateRows(update: (item: SessionListItem) => SessionListItem) {
    const listing = library.getState().listing;
    if (!listing) return;
    library.setState({
      listing: {
        ...listing,
        projects: listing.projects.map((project) => ({ ...project, sessions: project.sessions.map(update) })),
      },
    });
  }

  function markOpen(sessionId: string) {
    updateRows((item) =>
      item.open === (item.sessionId === sessionId) ? item : { ...item, open: item.sessionId === sessionId },
    );
  }

  /** Selects an entry as the context's leaf; a folded chain holding it opens, so the selection has a node of its own. */
  function select(entryId: string) {
    const chain = model()?.graph.nodeOfEntry.get(entryId);
    const opensChain = chain !== undefined && chain !== entryId;
    if (opensChain) {
      session.setState({ expandedChains: new Set([...session.getState().expandedChains, chain]) });
    }
    session.setState({ selectedId: entryId, cursorId: entryId });
    // The opened chain's entries push the graph apart: the selection's new node may be out of view.
    if (opensChain) centreOn(entryId);
  }

  function setCursor(entryId: string) {
    session.setState({ cursorId: entryId });
  }

  function moveCursorTo(entryId: string | null, centre = true, animate = true) {
    if (entryId === null) return;
    session.setState({ cursorId: entryId });
    if (centre) centreOn(entryId, animate);
  }

  function withModel(run: (graph: GraphModel, cursor: string | null) => void) {
    const current = model();
    if (current) run(current, session.getState().cursorId);
  }

  function toggleFold(entryId: string) {
    const folded = new Set(session.getState().folded);
    if (folded.has(entryId)) folded.delete(entryId);
    else folded.add(entryId);
    session.setState({ folded });
    // Folding an ancestor of the cursor (with the mouse) would hide it: it moves up to the folded entry.
    settleCursor();
  }

  /** After the visible tree changed, keep the cursor on a visible entry (Pi's nearest visible ancestor). */
  function settleCursor() {
    withModel((current, cursor) => {
      const next = nearestVisible(current.nodesById, current.position, current.visible, cursor);
      if (next !== cursor) session.setState({ cursorId: next });
    });
  }

  function setFilterMode(mode: FilterMode) {
    // Pi clears folds whenever the filter changes.
    session.setState({ filterMode: mode, folded: new Set() });
    settleCursor();
    // Another filter lays out other nodes: the view goes to the cursor rather than staying on empty space;
    // at once, since the whole layout changed (and a Fit right after must not be undone by a late animation),
    // and at the zoom the user chose.
    centreOn(session.getState().cursorId, false, true);
  }

  function setSearchQuery(query: string) {
    session.setState({ searchQuery: query });
    if (session.getState().searchFilter) settleCursor();
  }

  /**
   * Asks the main process for the entries whose whole text matches the query
   * (the graph matches previews at once; this adds the rest when it comes).
   * Keyed by the query's words, so a space or a capital asks nothing new; an
   * append asks again, at most every `FULL_TEXT_REFRESH_MS`, keeping what was
   * found meanwhile. An answer counts if it is for the words in the box now
   * and newer than the one shown.
   */
  function scheduleFullText(why: "query" | "view") {
    const { searchQuery, view, fullText, searching } = session.getState();
    const key = searchKey(searchQuery);
    if (view === null || key === "") {
      cancelFullTextTimer();
      askedKey = "";
      if (fullText !== null || searching) session.setState({ fullText: null, searching: false });
      return;
    }
    if (why === "query") {
      if (key === askedKey) return;
      askedKey = key;
      cancelFullTextTimer();
      session.setState({ searching: true });
      fullTextTimer = later(FULL_TEXT_DEBOUNCE_MS, () => askFullText(key));
    } else if (fullTextTimer === null) {
      fullTextTimer = later(FULL_TEXT_REFRESH_MS, () => askFullText(key));
    }
  }

  function cancelFullTextTimer() {
    if (fullTextTimer === null) return;
    clearTimeout(fullTextTimer);
    timers.delete(fullTextTimer);
    fullTextTimer = null;
  }

  function askFullText(key: string) {
    fullTextTimer = null;
    if (searchKey(session.getState().searchQuery) !== key) return;
    const request = ++fullTextRequests;
    client.request("session.search", { query: key, limit: SESSION_SEARCH_MAX_LIMIT }).then(
      (found) => {
        if (disposed || request < shownRequest || searchKey(session.getState().searchQuery) !== key) return;
        shownRequest = request;
        session.setState({
          fullText: { query: key, ids: new Set(found.entryIds), truncated: found.truncated },
          searching: false,
        });
        if (session.getState().searchFilter) settleCursor();
      },
      (error: unknown) => {
        if (disposed || searchKey(session.getState().searchQuery) !== key) return;
        session.setState({ searching: false });
        notify("error", `Full-text search failed: ${messageOf(error)}`);
      },
    );
  }

  function stepMatch(by: -1 | 1) {
    withModel((current, cursor) => {
      const order = current.matchOrder;
      if (order.length === 0) return;
      const at = cursor === null ? -1 : (current.position.get(cursor) ?? -1);
      let next: string | undefined;
      if (by === 1) next = order.find((id) => current.position.get(id)! > at) ?? order[0];
      else
        next = [...order].reverse().find((id) => current.position.get(id)! < at) ?? order[order.length - 1];
      moveCursorTo(next ?? null);
    });
  }

  /** Centres an entry, zooming in to a readable size unless `keepZoom` (a Fit overview stays one). */
  function centreOn(entryId: string | null, animate = true, keepZoom = false) {
    if (entryId === null) return;
    session.setState({ centreRequest: { entryId, serial: ++centreSerial, animate, keepZoom } });
  }

  /** Makes an entry visible (unfolding, widening the filter, expanding its chain), puts the cursor on it and centres it. */
  function reveal(entryId: string, animate = true) {
    const state = session.getState();
    const byId = model()?.nodesById;
    if (!byId?.has(entryId)) return;
    const folded = new Set(state.folded);
    let unfolded = false;
    for (let id = byId.get(entryId)?.parentId ?? null; id !== null; id = byId.get(id)?.parentId ?? null) {
      if (folded.delete(id)) unfolded = true;
    }
    if (unfolded) session.setState({ folded });
    let current = model()!;
    if (!current.position.has(entryId)) {
      session.setState({ filterMode: "all", searchFilter: false });
      current = model()!;
    }
    const chain = current.graph.nodeOfEntry.get(entryId);
    if (chain !== undefined && chain !== entryId) {
      session.setState({ expandedChains: new Set([...session.getState().expandedChains, chain]) });
    }
    moveCursorTo(entryId, true, animate);
  }

  // ---------------------------------------------------------------- labels, links

  function beginLabel(entryId: string | null) {
    if (entryId === null) return;
    const node = model()?.nodesById.get(entryId);
    if (!node) return;
    session.setState({ labelEditor: { targetId: entryId, label: node.label ?? "" } });
  }

  async function submitLabel() {
    const editor = session.getState().labelEditor;
    if (!editor) return;
    const label = editor.label.trim();
    session.setState({ labelEditor: null });
    try {
      await client.request("session.setLabel", {
        targetId: editor.targetId,
        label: label === "" ? null : label,
      });
      notify("info", label === "" ? "Label cleared." : `Labelled “${label}”.`);
    } catch (error) {
      notify("error", `The label was not saved: ${messageOf(error)}`);
    }
  }

  async function copyLink(entryId: string | null) {
    const view = session.getState().view;
    if (!view) return;
    const href = options.location?.href ?? window.location.href;
    try {
      await writeClipboard(buildDeepLink(href, view.sessionId, entryId));
      notify("info", "Link copied.");
    } catch (error) {
      notify("error", `The link was not copied: ${messageOf(error)}`);
    }
  }

  // ---------------------------------------------------------------- context

  async function loadContext() {
    const { view, selectedId } = session.getState();
    const mode = context.getState().mode;
    const serial = ++contextSerial;
    if (!view || selectedId === null) {
      context.setState({ ...initialContextState, mode });
      return;
    }
    context.setState({ status: "loading", error: null, forId: selectedId, forMode: mode, shades: NO_SHADES });
    try {
      const result: ContextView = await client.request("session.context", {
        leafId: selectedId,
        llm: mode === "llm",
      });
      if (serial !== contextSerial || disposed) return;
      // Shaded along the view as it is now (an append may have come meanwhile): its index is the graph's.
      const now = session.getState().view;
      const shades = now ? contextShades(result, selectors.indexed(now)) : NO_SHADES;
      context.setState({ status: "ready", view: result, shades });
    } catch (error) {
      if (serial !== contextSerial || disposed) return;
      context.setState({ status: "error", error: messageOf(error), view: null });
    }
  }

  async function loadDetail() {
    const { view, selectedId } = session.getState();
    const serial = ++detailSerial;
    if (!view || selectedId === null) {
      context.setState({ detailStatus: "idle", detail: null, detailError: null });
      return;
    }
    context.setState({ detailStatus: "loading", detailError: null });
    try {
      const detail = await client.request("session.entry", { entryId: selectedId });
      if (serial !== detailSerial || disposed) return;
      context.setState({ detailStatus: "ready", detail });
    } catch (error) {
      if (serial !== detailSerial || disposed) return;
      context.setState({ detailStatus: "error", detailError: messageOf(error), detail: null });
    }
  }

  async function copyContext(format: "json" | "markdown") {
    const current = context.getState().view;
    if (!current) return;
    const mode = context.getState().mode;
    const text = format === "json" ? contextAsJson(current, mode) : contextAsMarkdown(current, mode);
    try {
      await writeClipboard(text);
      notify("info", format === "json" ? "Context copied as JSON." : "Context copied as Markdown.");
    } catch (error) {
      notify("error", `The context was not copied: ${messageOf(error)}`);
    }
  }

  // ---------------------------------------------------------------- events

  function markRecent(ids: readonly string[]) {
    if (ids.length === 0) return;
    live.setState({ recent: new Set([...live.getState().recent, ...ids]) });
    later(RECENT_HIGHLIGHT_MS, () => {
      const recent = new Set(live.getState().recent);
      for (const id of ids) recent.delete(id);
      live.setState({ recent });
    });
  }

  function subscribeEvents() {
    /** Fetches of `session.current`: only the latest one's answer is used. */
    let fetchSerial = 0;

    /**
     * Fetches the view of the session the main process holds now: after a
     * switch this window did not ask for (the menu, the command line,
     * another client), or after a delta this view cannot take. An open
     * started meanwhile wins over it.
     */
    async function fetchCurrent(show: (view: SessionView | null) => void, onError: (error: unknown) => void) {
      const serial = ++fetchSerial;
      const opening = openSerial;
      const stale = () => serial !== fetchSerial || opening !== openSerial || disposed;
      try {
        const view = await client.request("session.current", {});
        if (!stale()) show(view);
      } catch (error) {
        if (!stale()) onError(error);
      }
    }

    function showSwitched(sessionId: string) {
      session.setState({ status: "loading", error: null, openingId: sessionId });
      void fetchCurrent(
        (view) => {
          const state = session.getState();
          if (view === null) {
            // Closed again meanwhile: whatever was on view stays.
            session.setState({ status: state.view ? "ready" : "idle", openingId: null });
            return;
          }
          const selected = state.view?.sessionId === view.sessionId ? state.selectedId : null;
          showView(view, holds(view, selected) ? selected : null);
          markOpen(view.sessionId);
        },
        (error) => session.setState({ status: "error", error: messageOf(error) }),
      );
    }

    /** A delta for a newer view than this one arrived: one was missed, so the whole view is fetched. */
    function resync(sessionId: string) {
      void fetchCurrent(
        (view) => {
          const state = session.getState();
          if (state.view?.sessionId !== sessionId || view?.sessionId !== sessionId) return;
          const follow = state.follow && view.leafId !== null && view.leafId !== state.view.leafId;
          session.setState(follow ? { view, selectedId: view.leafId, cursorId: view.leafId } : { view });
          settleCursor();
          if (follow) centreOn(session.getState().cursorId);
        },
        (error) => notify("error", `The session could not be brought up to date: ${messageOf(error)}`),
      );
    }

    disposers.push(
      client.on("library.progress", (progress) => library.setState({ progress })),
      client.on("library.changed", (listing) => {
        library.setState({
          listing,
          status: "ready",
          error: null,
          progress: listing.scanning ? library.getState().progress : null,
        });
        const open = session.getState().view?.sessionId;
        if (open) markOpen(open);
      }),
      client.on("library.sessionChanged", (changed) =>
        // The row stays marked as this window's open session.
        updateRows((item) => (item.sessionId === changed.sessionId ? { ...changed, open: item.open } : item)),
      ),
      client.on("session.appended", ({ sessionId, delta }) => {
        const state = session.getState();
        const current = state.view;
        // Another session's, or the one an open is waiting for: its answer holds this append already.
        if (current?.sessionId !== sessionId) return;
        if (delta.baseBytes !== current.bytes) {
          // A delta of another version of the view: an older one is in it already, a newer one means one was missed.
          if (delta.bytes > current.bytes) resync(sessionId);
          return;
        }
        const view = applySessionDelta(current, delta);
        const next: Partial<typeof state> = { view };
        // A label or a name (this window's own, often) moves the file's leaf but not the conversation: the cursor stays.
        // A rebuilt index (a repeated id, say) may move the leaf with nothing new: that is followed too.
        const leafType =
          view.leafId === null
            ? undefined
            : (delta.added.find((node) => node.id === view.leafId) ?? model()?.nodesById.get(view.leafId))
                ?.type;
        const follow =
          state.follow &&
          view.leafId !== null &&
          (delta.added.some((node) => !METADATA_TYPES.has(node.type)) ||
            (view.leafId !== current.leafId && leafType !== undefined && !METADATA_TYPES.has(leafType)));
        if (follow) {
          next.selectedId = view.leafId;
          next.cursorId = view.leafId;
        }
        session.setState(next);
        // The new leaf may be an entry the filter hides (a label, a usage entry): the cursor goes to the nearest visible one.
        settleCursor();
        markRecent(delta.added.map((node) => node.id));
        if (follow) centreOn(session.getState().cursorId);
      }),
      client.on("session.reloaded", ({ sessionId, reason, view }) => {
        const state = session.getState();
        // A file deleted and written again (an editor's save, a copy over it) comes back if nothing else was opened.
        const back = state.view === null && closedByDeletion === sessionId && view !== null;
        if (state.view?.sessionId !== sessionId && !back) return;
        closedByDeletion = null;
        const why = {
          truncated: "The file got shorter",
          replaced: "The file was replaced",
          deleted: "The file was deleted",
          recreated: "The file was deleted and created again",
          rewritten: "The file was rewritten",
        }[reason];
        if (view === null) {
          session.setState({ ...initialSessionState, direction: state.direction, follow: state.follow });
          live.setState({ reloadNotice: `${why}: the session was closed.` });
          closedByDeletion = sessionId;
          return;
        }
        // Following the leaf, the view goes to the file's leaf as read now; otherwise the selection stays if it can.
        const selected = state.follow ? null : state.selectedId;
        showView(view, holds(view, selected) ? selected : null);
        live.setState({ reloadNotice: `${why}: Arbor read it again.` });
      }),
      client.on("session.switched", ({ sessionId }) => {
        // An open this window asked for answers with the view (and selects its deep link's entry); it may
        // have named the session by its header id, which the event does not use.
        if (pendingOpen !== null) return;
        showSwitched(sessionId);
      }),
    );
    disposers.push(
      // What was shown whole belongs to the session it was shown in.
      session.subscribe((state, previous) => {
        if (state.view?.sessionId !== previous.view?.sessionId) context.setState({ shownWhole: new Set() });
      }),
      session.subscribe((state, previous) => {
        const view = state.view;
        if (!view || !options.showInAddress) return;
        const leaf = state.selectedId === view.leafId ? null : state.selectedId;
        const before = previous.view;
        const leafBefore = before && previous.selectedId !== before.leafId ? previous.selectedId : null;
        if (view.sessionId !== before?.sessionId || leaf !== leafBefore)
          options.showInAddress(view.sessionId, leaf);
      }),
    );
    // The context and the inspector follow the selection (and the agent/llm toggle).
    disposers.push(
      session.subscribe((state, previous) => {
        if (state.selectedId !== previous.selectedId || state.view?.sessionId !== previous.view?.sessionId) {
          void loadContext();
          void loadDetail();
        } else if (state.view !== previous.view && state.view && context.getState().status === "error") {
          void loadContext();
        }
      }),
      context.subscribe((state, previous) => {
        if (state.mode !== previous.mode) void loadContext();
      }),
      // The full-text matches follow the query, and the session as it grows.
      session.subscribe((state, previous) => {
        if (state.view?.sessionId !== previous.view?.sessionId) askedKey = "";
        if (
          state.searchQuery !== previous.searchQuery ||
          state.view?.sessionId !== previous.view?.sessionId
        ) {
          scheduleFullText("query");
        } else if (state.view !== previous.view && state.fullText !== null) {
          scheduleFullText("view");
        }
      }),
    );
  }

  const controller: Controller = {
    stores,
    selectors,
    model,
    async start() {
      subscribeEvents();
      const link = parseDeepLink(options.location?.search ?? window.location.search);
      const libraryLoaded = loadLibrary();
      if (link) {
        await Promise.all([libraryLoaded, openSession(link.sessionId, link.leafId)]);
        return;
      }
      try {
        const current = await client.request("session.current", {});
        if (current && !disposed && session.getState().view === null) {
          showView(current, null);
        }
      } catch {
        // No session open yet: the library is the way in.
      }
      await libraryLoaded;
    },
    dispose() {
      disposed = true;
      for (const dispose of disposers.splice(0)) dispose();
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
    loadLibrary: () => loadLibrary(false),
    rescan: () => loadLibrary(true),
    setSort: (sort) => library.setState({ sort }),
    setNamedOnly: (namedOnly) => library.setState({ namedOnly }),
    setLibrarySearch,
    openSession,
    select,
    setCursor,
    moveCursor(by) {
      withModel((current, cursor) => moveCursorTo(stepCursor(current.visible, current.position, cursor, by)));
    },
    pageCursor(by) {
      withModel((current, cursor) =>
        moveCursorTo(pageCursor(current.visible, current.position, cursor, by * PAGE_SIZE)),
      );
    },
    branchStep(direction) {
      withModel((current, cursor) => {
        if (cursor !== null)
          moveCursorTo(branchSegmentStart(current.visible, current.position, cursor, direction));
      });
    },
    foldOrUp() {
      withModel((current, cursor) => {
        if (cursor === null) return;
        if (isFoldable(current.visible, cursor) && !session.getState().folded.has(cursor)) toggleFold(cursor);
        else moveCursorTo(branchSegmentStart(current.visible, current.position, cursor, "up"));
      });
    },
    unfoldOrDown() {
      withModel((current, cursor) => {
        if (cursor === null) return;
        if (session.getState().folded.has(cursor)) toggleFold(cursor);
        else moveCursorTo(branchSegmentStart(current.visible, current.position, cursor, "down"));
      });
    },
    toggleFold,
    selectCursor() {
      const cursor = session.getState().cursorId;
      if (cursor !== null) select(cursor);
    },
    setFilterMode,
    cycleFilter(backwards) {
      setFilterMode(cycleFilterMode(session.getState().filterMode, backwards));
    },
    expandChain(chainId) {
      // Its first entry takes the chain's place, and stays where it was clicked.
      const chain = model()?.graph.byId.get(chainId);
      session.setState({
        expandedChains: new Set([...session.getState().expandedChains, chainId]),
        anchorId: chain?.kind === "chain" ? (chain.entryIds[0] ?? null) : null,
      });
    },
    collapseChains() {
      session.setState({ expandedChains: new Set() });
    },
    setDirection(direction) {
      session.setState({ direction });
      centreOn(session.getState().cursorId);
    },
    setFollow(follow) {
      session.setState({ follow });
      const leaf = session.getState().view?.leafId ?? null;
      if (follow && leaf !== null) {
        select(leaf);
        centreOn(leaf);
      }
    },
    setSearchQuery,
    setSearchFilter(only) {
      session.setState({ searchFilter: only });
      settleCursor();
    },
    clearSearch() {
      // Pi clears the folds with the search.
      session.setState({ searchQuery: "", folded: new Set() });
      settleCursor();
    },
    stepMatch,
    reveal,
    centreOn,
    searchPauseMs() {
      const view = session.getState().view;
      const entries = view ? view.nodes.count : 0;
      return entries >= (options.searchAsTypedBelow ?? SEARCH_AS_TYPED_BELOW) ? SEARCH_TYPING_PAUSE_MS : 0;
    },
    fitView() {
      session.setState({ fitRequest: { serial: ++fitSerial, animate: true } });
    },
    beginLabel,
    setLabelText(label) {
      const editor = session.getState().labelEditor;
      if (editor) session.setState({ labelEditor: { ...editor, label } });
    },
    submitLabel,
    cancelLabel: () => session.setState({ labelEditor: null }),
    copyLink,
    setContextMode: (mode) => context.setState({ mode }),
    showWhole(key, shown) {
      const now = context.getState().shownWhole;
      if (now.has(key) === shown) return;
      const next = new Set(now);
      if (shown) next.add(key);
      else next.delete(key);
      context.setState({ shownWhole: next });
    },
    copyContext,
    dismissReloadNotice: () => live.setState({ reloadNotice: null }),
    notify,
  };
  return controller;
}
