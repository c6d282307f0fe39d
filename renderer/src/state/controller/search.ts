/**
 * The in-graph search part of the controller: the query, showing only the
 * matches, stepping through them, and the main process's full-text matches
 * that join the graph's own as they come.
 */

import { screenErrors } from "../../../../shared/error-texts.ts";
import { SESSION_SEARCH_MAX_LIMIT } from "../../../../shared/ipc/contract.ts";
import { searchKey } from "../../../../shared/session/entry-search.ts";
import type { Controller } from "./api.ts";
import { type ControllerKit, messageOf, type Timer } from "./kit.ts";
import type { Navigator } from "./navigator.ts";

/** Typing pauses this long before the main process searches the whole text. */
const FULL_TEXT_DEBOUNCE_MS = 150;
/** A growing session's full-text matches are asked again at most this often. */
const FULL_TEXT_REFRESH_MS = 1000;
/** From this many entries on, each search redraws a graph large enough to feel on every key. */
const SEARCH_AS_TYPED_BELOW = 20_000;
const SEARCH_TYPING_PAUSE_MS = 200;

export interface SearchPart {
  readonly actions: Pick<
    Controller,
    "setSearchQuery" | "setSearchFilter" | "clearSearch" | "stepMatch" | "searchPauseMs"
  >;
  /** Follows the query and the session as it grows with full-text searches. */
  subscribe(): void;
}

export function createSearch(
  kit: ControllerKit,
  navigator: Pick<Navigator, "settleCursor" | "moveCursorTo">,
): SearchPart {
  const { session } = kit.stores;
  const { settleCursor, moveCursorTo } = navigator;
  const fullText = createFullTextSearch(kit, settleCursor);

  return {
    actions: {
      setSearchQuery(query) {
        session.setState({ searchQuery: query });
        if (session.getState().searchFilter) settleCursor();
      },
      setSearchFilter(only) {
        session.setState({ searchFilter: only });
        settleCursor();
      },
      clearSearch() {
        // Pi clears the folds with the search.
        session.setState({ searchQuery: "", folded: new Set() });
        settleCursor();
      },
      stepMatch(by) {
        kit.withModel((current, cursor) => {
          const order = current.matchOrder;
          if (order.length === 0) return;
          const at = cursor === null ? -1 : (current.position.get(cursor) ?? -1);
          let next: string | undefined;
          if (by === 1) next = order.find((id) => current.position.get(id)! > at) ?? order[0];
          else
            next =
              [...order].reverse().find((id) => current.position.get(id)! < at) ?? order[order.length - 1];
          moveCursorTo(next ?? null);
        });
      },
      searchPauseMs() {
        const view = session.getState().view;
        const entries = view ? view.nodes.count : 0;
        return entries >= (kit.options.searchAsTypedBelow ?? SEARCH_AS_TYPED_BELOW)
          ? SEARCH_TYPING_PAUSE_MS
          : 0;
      },
    },
    subscribe: fullText.subscribe,
  };
}

/**
 * Asks the main process for the entries whose whole text matches the query
 * (the graph matches previews at once; this adds the rest when it comes).
 * Keyed by the query's words, so a space or a capital asks nothing new; an
 * append asks again, at most every `FULL_TEXT_REFRESH_MS`, keeping what was
 * found meanwhile. An answer counts if it is for the words in the box now
 * and newer than the one shown.
 */
function createFullTextSearch(kit: ControllerKit, settleCursor: () => void): { subscribe(): void } {
  const { client, notify } = kit;
  const { session } = kit.stores;
  let fullTextTimer: Timer | null = null;
  /** The words last asked for (`searchKey`), the requests made, and the newest whose answer is shown. */
  let askedKey = "";
  let fullTextRequests = 0;
  let shownRequest = 0;

  function schedule(why: "query" | "view") {
    const { searchQuery, view, fullText, searching } = session.getState();
    const key = searchKey(searchQuery);
    if (view === null || key === "") {
      cancelTimer();
      askedKey = "";
      if (fullText !== null || searching) session.setState({ fullText: null, searching: false });
      return;
    }
    if (why === "query") {
      if (key === askedKey) return;
      askedKey = key;
      cancelTimer();
      session.setState({ searching: true });
      fullTextTimer = kit.later(FULL_TEXT_DEBOUNCE_MS, () => ask(key));
    } else if (fullTextTimer === null) {
      fullTextTimer = kit.later(FULL_TEXT_REFRESH_MS, () => ask(key));
    }
  }

  function cancelTimer() {
    if (fullTextTimer === null) return;
    kit.cancel(fullTextTimer);
    fullTextTimer = null;
  }

  function ask(key: string) {
    fullTextTimer = null;
    if (searchKey(session.getState().searchQuery) !== key) return;
    const request = ++fullTextRequests;
    client.request("session.search", { query: key, limit: SESSION_SEARCH_MAX_LIMIT }).then(
      (found) => {
        if (kit.isDisposed() || request < shownRequest || searchKey(session.getState().searchQuery) !== key)
          return;
        shownRequest = request;
        session.setState({
          fullText: { query: key, ids: new Set(found.entryIds), truncated: found.truncated },
          searching: false,
        });
        if (session.getState().searchFilter) settleCursor();
      },
      (error: unknown) => {
        if (kit.isDisposed() || searchKey(session.getState().searchQuery) !== key) return;
        session.setState({ searching: false });
        notify("error", screenErrors.searchFailed(messageOf(error)));
      },
    );
  }

  return {
    subscribe() {
      // The full-text matches follow the query, and the session as it grows.
      kit.own(
        session.subscribe((state, previous) => {
          if (state.view?.sessionId !== previous.view?.sessionId) askedKey = "";
          if (
            state.searchQuery !== previous.searchQuery ||
            state.view?.sessionId !== previous.view?.sessionId
          ) {
            schedule("query");
          } else if (state.view !== previous.view && state.fullText !== null) {
            schedule("view");
          }
        }),
      );
    },
  };
}
