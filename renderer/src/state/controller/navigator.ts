/**
 * The navigation part of the controller: the selection and the keyboard
 * cursor (steps, pages, branch steps), folds, the filter, chains, the
 * layout's direction, following the leaf, and what the graph is asked to
 * show (reveal, centre, fit).
 */

import { cycleFilterMode, type FilterMode } from "../../../../shared/graph/index.ts";
import { branchSegmentStart, isFoldable, nearestVisible, pageCursor, stepCursor } from "../navigation.ts";
import type { Controller } from "./api.ts";
import type { ControllerKit } from "./kit.ts";

const PAGE_SIZE = 10;

/** What the other parts ask of navigation. */
export interface Navigator {
  /** Makes an entry visible (unfolding, widening the filter, expanding its chain), puts the cursor on it and centres it. */
  reveal(entryId: string, animate?: boolean): void;
  /** Centres an entry, zooming in to a readable size unless `keepZoom` (a Fit overview stays one). */
  centreOn(entryId: string | null, animate?: boolean, keepZoom?: boolean): void;
  /** After the visible tree changed, keep the cursor on a visible entry (Pi's nearest visible ancestor). */
  settleCursor(): void;
  /** Puts the cursor on an entry and centres it. */
  moveCursorTo(entryId: string | null): void;
  /** Asks the graph to fit the whole session in view. */
  fit(animate: boolean): void;
}

type NavigationActions = Pick<
  Controller,
  | "select"
  | "setCursor"
  | "moveCursor"
  | "pageCursor"
  | "branchStep"
  | "foldOrUp"
  | "unfoldOrDown"
  | "toggleFold"
  | "selectCursor"
  | "setFilterMode"
  | "setShowArchived"
  | "cycleFilter"
  | "expandChain"
  | "collapseChains"
  | "setDirection"
  | "setFollow"
  | "reveal"
  | "centreOn"
  | "fitView"
>;

export interface NavigationPart extends Navigator {
  readonly actions: NavigationActions;
}

export function createNavigator(kit: ControllerKit): NavigationPart {
  const { session } = kit.stores;
  const { model } = kit;
  const navigator = createGraphRequests(kit);
  const { centreOn, settleCursor, moveCursorTo } = navigator;

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

  function toggleFold(entryId: string) {
    const folded = new Set(session.getState().folded);
    if (folded.has(entryId)) folded.delete(entryId);
    else folded.add(entryId);
    session.setState({ folded });
    // Folding an ancestor of the cursor (with the mouse) would hide it: it moves up to the folded entry.
    settleCursor();
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

  const steps = createSteps(kit, { moveCursorTo, toggleFold });

  return {
    actions: {
      select,
      setCursor: (entryId) => session.setState({ cursorId: entryId }),
      ...steps,
      toggleFold,
      selectCursor() {
        const cursor = session.getState().cursorId;
        if (cursor !== null) select(cursor);
      },
      setFilterMode,
      setShowArchived(show) {
        session.setState({ showArchived: show });
        settleCursor();
        // As another filter: the view goes to the cursor, at once and at the zoom the user chose.
        centreOn(session.getState().cursorId, false, true);
      },
      cycleFilter(backwards) {
        setFilterMode(cycleFilterMode(session.getState().filterMode, backwards));
      },
      ...createViewActions(kit, { select, centreOn }),
      reveal: navigator.reveal,
      centreOn,
      fitView: () => navigator.fit(true),
    },
    ...navigator,
  };
}

/** Where the cursor goes and what the graph is asked to show: the part of navigation the other parts use. */
function createGraphRequests(kit: ControllerKit): Navigator {
  const { session } = kit.stores;
  const { model, withModel } = kit;
  let centreSerial = 0;
  let fitSerial = 0;

  function centreOn(entryId: string | null, animate = true, keepZoom = false) {
    if (entryId === null) return;
    session.setState({ centreRequest: { entryId, serial: ++centreSerial, animate, keepZoom } });
  }

  function fit(animate: boolean) {
    session.setState({ fitRequest: { serial: ++fitSerial, animate } });
  }

  function moveCursorTo(entryId: string | null, centre = true, animate = true) {
    if (entryId === null) return;
    // A cursor inside a folded chain would not be seen: the chain opens to it.
    const chain = model()?.graph.nodeOfEntry.get(entryId);
    if (chain !== undefined && chain !== entryId) {
      session.setState({ expandedChains: new Set([...session.getState().expandedChains, chain]) });
    }
    session.setState({ cursorId: entryId });
    if (centre) centreOn(entryId, animate);
  }

  function settleCursor() {
    withModel((current, cursor) => {
      const next = nearestVisible(current.nodesById, current.position, current.visible, cursor);
      if (next !== cursor) session.setState({ cursorId: next });
    });
  }

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
      const archived = byId.get(entryId)?.archived === true;
      session.setState({
        filterMode: "all",
        searchFilter: false,
        ...(archived ? { showArchived: true } : {}),
      });
      current = model()!;
    }
    const chain = current.graph.nodeOfEntry.get(entryId);
    if (chain !== undefined && chain !== entryId) {
      session.setState({ expandedChains: new Set([...session.getState().expandedChains, chain]) });
    }
    moveCursorTo(entryId, true, animate);
  }

  return { reveal, centreOn, settleCursor, moveCursorTo, fit };
}

/** The cursor's keyboard steps: by entry, by page, by branch, and the folds on the way. */
function createSteps(
  kit: ControllerKit,
  navigation: { moveCursorTo(entryId: string | null): void; toggleFold(entryId: string): void },
): Pick<Controller, "moveCursor" | "pageCursor" | "branchStep" | "foldOrUp" | "unfoldOrDown"> {
  const { session } = kit.stores;
  const { withModel } = kit;
  const { moveCursorTo, toggleFold } = navigation;
  return {
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
  };
}

/** Chains, the layout's direction and following the leaf: how the graph is drawn rather than where the cursor is. */
function createViewActions(
  kit: ControllerKit,
  navigation: { select(entryId: string): void; centreOn(entryId: string | null): void },
): Pick<Controller, "expandChain" | "collapseChains" | "setDirection" | "setFollow"> {
  const { session } = kit.stores;
  const { select, centreOn } = navigation;
  return {
    expandChain(chainId) {
      // Its first entry takes the chain's place, and stays where it was clicked.
      const chain = kit.model()?.graph.byId.get(chainId);
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
  };
}
