/**
 * The library part of the controller: the listing (load, rescan, its live
 * changes), its sort and filters, the full-text library search, and which
 * row is this window's open session.
 */

import { screenErrors } from "../../../../shared/error-texts.ts";
import type { SessionListItem } from "../../../../shared/ipc/contract.ts";
import type { Controller } from "./api.ts";
import { type ControllerKit, messageOf, type Timer } from "./kit.ts";

const SEARCH_DEBOUNCE_MS = 250;

/** What the session part tells the library: which session this window opened. */
export interface LibraryRows {
  markOpen(sessionId: string): void;
}

export interface LibraryPart extends LibraryRows {
  readonly actions: Pick<
    Controller,
    "loadLibrary" | "rescan" | "setSort" | "setNamedOnly" | "setLibrarySearch"
  >;
  /** Follows the main process's library events. */
  subscribe(): void;
}

export function createLibrary(kit: ControllerKit): LibraryPart {
  const { client } = kit;
  const { library, session } = kit.stores;

  async function loadLibrary(rescan: boolean) {
    library.setState({ status: "loading", error: null });
    try {
      const listing = await client.request(rescan ? "library.rescan" : "library.list", {});
      if (kit.isDisposed()) return;
      library.setState({
        status: "ready",
        listing,
        progress: listing.scanning ? library.getState().progress : null,
      });
    } catch (error) {
      if (!kit.isDisposed()) library.setState({ status: "error", error: messageOf(error) });
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

  function subscribe() {
    kit.own(
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
    );
  }

  return {
    actions: {
      loadLibrary: () => loadLibrary(false),
      rescan: () => loadLibrary(true),
      setSort: (sort) => library.setState({ sort }),
      setNamedOnly: (namedOnly) => library.setState({ namedOnly }),
      setLibrarySearch: createLibrarySearch(kit),
    },
    markOpen,
    subscribe,
  };
}

/** The full-text library search: asked once typing pauses, and only the newest answer is shown. */
function createLibrarySearch(kit: ControllerKit): (text: string) => void {
  const { client, notify } = kit;
  const { library } = kit.stores;
  let searchSerial = 0;
  let searchTimer: Timer | null = null;

  function setLibrarySearch(text: string) {
    library.setState({ searchText: text });
    if (searchTimer !== null) {
      kit.cancel(searchTimer);
      searchTimer = null;
    }
    const query = text.trim();
    const serial = ++searchSerial;
    if (query.length < 2) {
      library.setState({ searchHits: null, searching: false });
      return;
    }
    library.setState({ searching: true });
    searchTimer = kit.later(SEARCH_DEBOUNCE_MS, () => {
      searchTimer = null;
      client.request("library.search", { query, limit: 200 }).then(
        (hits) => {
          if (serial === searchSerial && !kit.isDisposed())
            library.setState({ searchHits: hits, searching: false });
        },
        (error: unknown) => {
          if (serial !== searchSerial || kit.isDisposed()) return;
          library.setState({ searching: false });
          notify("error", screenErrors.searchFailed(messageOf(error)));
        },
      );
    });
  }

  return setLibrarySearch;
}
