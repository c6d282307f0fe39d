/**
 * The explorer's keys, like Pi's /tree: Up/Down move the cursor along the
 * visible order (wrapping); Ctrl/Alt+Left fold or jump up to the branch
 * segment start, Ctrl/Alt+Right unfold or jump down to the next branch
 * point; Left/Right make those jumps without folding; PageUp/PageDown page
 * (Pi's plain Left/Right); Enter selects the cursor as leaf; Shift+L edits
 * its label; Ctrl+O cycles the filter (Shift+Ctrl+O back); `/` focuses the
 * search and Escape clears it.
 */

import { handleBranchKey } from "../branch-map/map-keys.ts";
import type { Controller } from "../state/controller.ts";

function isEditable(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  if (tag === "TEXTAREA" || tag === "SELECT") return true;
  if (tag === "INPUT") {
    const type = (target as HTMLInputElement).type;
    return type !== "checkbox" && type !== "radio" && type !== "button";
  }
  return false;
}

/** Handles one key press; returns whether it was an explorer key (and so prevented). */
export function handleExplorerKey(
  controller: Controller,
  event: KeyboardEvent,
  focusSearch: () => void,
): boolean {
  if (event.defaultPrevented) return false;
  const state = controller.stores.session.getState();
  if (!state.view || state.labelEditor || controller.branches.store.getState().picker) return false;
  const ctrl = event.ctrlKey || event.metaKey;
  const run = (action: () => void) => {
    event.preventDefault();
    action();
    return true;
  };
  // Ctrl+O edits no text: it cycles the filter wherever the focus is (right after typing a search, say),
  // and the browser's Open File never sees it.
  if (ctrl && !event.altKey && (event.key === "o" || event.key === "O"))
    return run(() => controller.cycleFilter(event.shiftKey));
  if (isEditable(event.target)) return false;
  if (event.target instanceof Element && event.target.closest(".preview-scroll, .raw-entry")) return false;
  // The map's keys, the view switch (M), Compare (C), Escape out of a comparison.
  if (handleBranchKey(controller, event)) return true;
  switch (event.key) {
    case "/":
      return run(focusSearch);
    case "ArrowUp":
      return run(() => controller.moveCursor(-1));
    case "ArrowDown":
      return run(() => controller.moveCursor(1));
    case "ArrowLeft":
      return run(() => (ctrl || event.altKey ? controller.foldOrUp() : controller.branchStep("up")));
    case "ArrowRight":
      return run(() => (ctrl || event.altKey ? controller.unfoldOrDown() : controller.branchStep("down")));
    case "PageUp":
      return run(() => controller.pageCursor(-1));
    case "PageDown":
      return run(() => controller.pageCursor(1));
    case "Enter":
      if (event.target instanceof HTMLButtonElement || event.target instanceof HTMLAnchorElement)
        return false;
      return run(() => controller.selectCursor());
    case "L":
      if (!event.shiftKey || ctrl || event.altKey) return false;
      return run(() => controller.beginLabel(controller.stores.session.getState().cursorId));
    case "Escape":
      if (!state.searchQuery) return false;
      return run(() => controller.clearSearch());
    default:
      return false;
  }
}
