/**
 * The branch views' keys: M switches map and entry graph; C opens "Compare
 * with…" for the selected entry; in the map, Up/Down move between rows,
 * Left/Right to the parent row / first child row, Enter opens the row in the
 * entry graph, Space shows or folds its retries; Escape closes a comparison.
 */

import { compareWithPicker } from "../compare/start-compare.ts";
import type { Controller } from "../state/controller.ts";
import { currentShownMap, rowEntry } from "./map-selection.ts";

function plain(event: KeyboardEvent): boolean {
  return !event.ctrlKey && !event.metaKey && !event.altKey;
}

/** Handles one key press; returns whether it was one of the branch views' keys (and so prevented). */
export function handleBranchKey(controller: Controller, event: KeyboardEvent): boolean {
  const { branches } = controller;
  const state = branches.store.getState();
  const run = (action: () => void) => {
    event.preventDefault();
    action();
    return true;
  };
  if (state.compare !== null) {
    if (event.key === "Escape") return run(() => branches.closeCompare());
    // The graph's keys would move a cursor nobody sees behind the comparison: the pane's own scroll takes them.
    return true;
  }
  if (plain(event) && (event.key === "m" || event.key === "M") && !event.shiftKey)
    return run(() => branches.toggleView());
  if (plain(event) && (event.key === "c" || event.key === "C") && !event.shiftKey)
    return run(() => compareWithPicker(controller));
  if (state.view !== "map" || !state.map || !plain(event)) return false;
  const session = controller.stores.session.getState();
  const shown = currentShownMap(
    state.map,
    controller.selectors.pathSet(session),
    session.view?.leafId ?? null,
    state.expanded,
    state.mapBudget,
    session.showArchived,
  );
  const rows = shown.layout.rows;
  if (rows.length === 0) return false;
  const at = rows.findIndex((row) => row.key === state.mapCursor);
  const current = at >= 0 ? at : (shown.selectedRow ?? 0);
  const moveTo = (row: number | undefined | null) => {
    if (row === undefined || row === null || !rows[row]) return;
    branches.setMapCursor(rows[row]!.key);
  };
  switch (event.key) {
    case "ArrowUp":
      return run(() => moveTo(current > 0 ? current - 1 : rows.length - 1));
    case "ArrowDown":
      return run(() => moveTo(current < rows.length - 1 ? current + 1 : 0));
    case "ArrowLeft":
      return run(() => moveTo(rows[current]!.parentRow));
    case "ArrowRight":
      return run(() => moveTo(rows.findIndex((row) => row.parentRow === current)));
    case "Enter":
      if (event.target instanceof HTMLButtonElement || event.target instanceof HTMLAnchorElement)
        return false;
      return run(() => branches.openInGraph(rowEntry(rows[current]!)));
    case " ":
      return run(() => branches.toggleRow(rows[current]!.segments.map((segment) => segment.id)));
    default:
      return false;
  }
}
