/**
 * The open-session part of the controller: opening a session (from the
 * library, a deep link, or what the main process holds already), showing a
 * view, following switches this window did not ask for, and naming the
 * session and selection in the address. Appends and reloads are
 * `session-updates.ts`'s.
 */

import { screenErrors } from "../../../../shared/error-texts.ts";
import type { SessionView } from "../../../../shared/ipc/contract.ts";
import { parseDeepLink } from "../../api/deep-link.ts";
import { initialSessionState } from "../stores.ts";
import type { Controller } from "./api.ts";
import { type ControllerKit, messageOf } from "./kit.ts";
import type { LibraryRows } from "./library.ts";
import type { Navigator } from "./navigator.ts";
import { createSessionUpdates } from "./session-updates.ts";

export interface SessionPart {
  readonly actions: Pick<Controller, "openSession">;
  /**
   * Shows the session a request switched to (a fork, a clone, a new session):
   * its `session.switched` is left to the answer, which brings the view. Null
   * when a newer open or switch came meanwhile; the request's error is thrown.
   */
  switchBy<T extends SessionView>(request: () => Promise<T>): Promise<T | null>;
  /** Shows the deep link's session, else the one the main process holds already, if any. */
  showFirst(): Promise<void>;
  /** Follows the main process's session events, and names what is shown in the address. */
  subscribe(): void;
}

/** What the session part asks of the others. */
export interface SessionNeeds {
  navigator: Pick<Navigator, "reveal" | "centreOn" | "settleCursor" | "fit">;
  rows: LibraryRows;
}

/** How a view is put on screen: shared by an open, a switch, a reload. */
export interface ViewShower {
  /** Whether the view holds `entryId` (looked up in the graph's index of it, built once per view anyway). */
  holds(view: SessionView, entryId: string | null): entryId is string;
  /** Shows a view whole, with `leafId` selected if it holds it (else the file's leaf). */
  showView(view: SessionView, leafId: string | null): void;
}

/**
 * Fetches the view of the session the main process holds now: after a
 * switch this window did not ask for (the menu, the command line, another
 * client), or after a delta this view cannot take.
 */
export type FetchCurrent = (
  show: (view: SessionView | null) => void,
  onError: (error: unknown) => void,
) => Promise<void>;

/** What following the main process's session events takes: showing a view, the other parts, a fresh fetch. */
export type FollowNeeds = ViewShower & SessionNeeds & { fetchCurrent: FetchCurrent };

export function createSession(kit: ControllerKit, needs: SessionNeeds): SessionPart {
  const { client } = kit;
  const { session } = kit.stores;
  const shower = createViewShower(kit, needs.navigator);
  const { showView } = shower;
  let openSerial = 0;
  /** The open asked for last: its `session.switched` comes before its answer, which brings the view. */
  let pendingOpen: { sessionId: string; leafId: string | null } | null = null;

  const fetchCurrent = currentFetcher(kit, () => openSerial);
  const following: FollowNeeds = { ...shower, ...needs, fetchCurrent };
  const updates = createSessionUpdates(kit, following);

  /**
   * Shows the view a switching request answers with (an open, a fork...):
   * its `session.switched` is left to the answer. Null when a newer one came.
   */
  async function switched<T extends SessionView>(
    pending: { sessionId: string; leafId: string | null },
    request: () => Promise<T>,
  ): Promise<T | null> {
    const serial = ++openSerial;
    pendingOpen = pending;
    const view = await request().finally(() => {
      if (pendingOpen === pending) pendingOpen = null;
    });
    if (serial !== openSerial || kit.isDisposed()) return null;
    updates.forgetDeleted();
    showView(view, pending.leafId);
    needs.rows.markOpen(view.sessionId);
    return view;
  }

  async function openSession(sessionId: string, leafId: string | null = null) {
    const serial = openSerial + 1;
    session.setState({ status: "loading", error: null, openingId: sessionId, openingLeafId: leafId });
    try {
      await switched({ sessionId, leafId }, () => client.request("session.open", { sessionId }));
    } catch (error) {
      if (serial !== openSerial || kit.isDisposed()) return;
      if (session.getState().view === null) {
        session.setState({ status: "error", error: messageOf(error) });
        return;
      }
      // The session on view stays open (the main process keeps it when a switch fails): it stays on view, whole.
      session.setState({ status: "ready", error: null, openingId: null });
      kit.notify("error", screenErrors.sessionNotOpened(messageOf(error)));
    }
  }

  return {
    actions: { openSession },
    switchBy: (request) => switched({ sessionId: "", leafId: null }, request),
    async showFirst() {
      const link = parseDeepLink(kit.options.location?.search ?? window.location.search);
      if (link) return openSession(link.sessionId, link.leafId);
      try {
        const current = await client.request("session.current", {});
        if (current && !kit.isDisposed() && session.getState().view === null) showView(current, null);
      } catch {
        // No session open yet: the library is the way in.
      }
    },
    subscribe() {
      updates.subscribe();
      kit.own(
        client.on("session.switched", ({ sessionId }) => {
          // An open this window asked for answers with the view (and selects its deep link's entry); it may
          // have named the session by its header id, which the event does not use.
          if (pendingOpen !== null) return;
          showSwitched(kit, following, sessionId);
        }),
      );
      if (kit.options.showInAddress) kit.own(showInAddress(kit, kit.options.showInAddress));
    },
  };
}

/** Fetches of `session.current`: only the latest one's answer is used, and an open started meanwhile wins. */
function currentFetcher(kit: ControllerKit, openSerial: () => number): FetchCurrent {
  let fetchSerial = 0;
  return async (show, onError) => {
    const serial = ++fetchSerial;
    const opening = openSerial();
    const stale = () => serial !== fetchSerial || opening !== openSerial() || kit.isDisposed();
    try {
      const view = await kit.client.request("session.current", {});
      if (!stale()) show(view);
    } catch (error) {
      if (!stale()) onError(error);
    }
  };
}

function createViewShower(kit: ControllerKit, navigator: SessionNeeds["navigator"]): ViewShower {
  const { session, live } = kit.stores;

  function holds(view: SessionView, entryId: string | null): entryId is string {
    return entryId !== null && kit.selectors.indexed(view).indexOf.has(entryId);
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
    if (wanted === null) navigator.fit(false);
    else if (wanted === leafId) navigator.reveal(wanted, false);
    else {
      // The file's leaf may be hidden by the filter (a label, say): the cursor starts on its nearest visible ancestor, as in Pi.
      navigator.settleCursor();
      navigator.centreOn(session.getState().cursorId, false);
    }
    if (leafId !== null && !known) {
      kit.notify("error", screenErrors.entryNotInSession(leafId));
    }
  }

  return { holds, showView };
}

/** Shows the session the main process switched to without this window asking (the menu, another client). */
function showSwitched(kit: ControllerKit, needs: FollowNeeds, sessionId: string) {
  const { session } = kit.stores;
  session.setState({ status: "loading", error: null, openingId: sessionId });
  void needs.fetchCurrent(
    (view) => {
      const state = session.getState();
      if (view === null) {
        // Closed again meanwhile: whatever was on view stays.
        session.setState({ status: state.view ? "ready" : "idle", openingId: null });
        return;
      }
      const selected = state.view?.sessionId === view.sessionId ? state.selectedId : null;
      needs.showView(view, needs.holds(view, selected) ? selected : null);
      needs.rows.markOpen(view.sessionId);
    },
    (error) => session.setState({ status: "error", error: messageOf(error) }),
  );
}

/** Tells `show` the session on view and its selection (null for the file's leaf) each time either changes. */
function showInAddress(
  kit: ControllerKit,
  show: (sessionId: string, leafId: string | null) => void,
): () => void {
  return kit.stores.session.subscribe((state, previous) => {
    const view = state.view;
    if (!view) return;
    const leaf = state.selectedId === view.leafId ? null : state.selectedId;
    const before = previous.view;
    const leafBefore = before && previous.selectedId !== before.leafId ? previous.selectedId : null;
    if (view.sessionId !== before?.sessionId || leaf !== leafBefore) show(view.sessionId, leaf);
  });
}
