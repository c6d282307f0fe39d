/**
 * The saved-view shortcut: a session opened from a saved view
 * (app/store/saved-view.ts) answers its first requests, the view itself
 * (with the branch map), the context and entry of its leaf, from what was
 * saved, without building its index.
 */

import type { BranchMap } from "../../shared/branches/index.ts";
import type { ContextView, EntryDetail, SessionView } from "../../shared/ipc/contract.ts";
import { encodedNodes } from "../../shared/ipc/encoded-nodes.ts";
import type { SessionNodes } from "../../shared/ipc/session-nodes.ts";
import type { SavedView } from "../store/saved-view.ts";

/**
 * A saved view with its nodes as the wire text saved: decoded (once) only if
 * something reads them; the view and the node-view cache share them.
 */
export interface SavedViewNodes {
  view: SavedView;
  nodes: SessionNodes;
}

export function savedViewNodes(view: SavedView): SavedViewNodes {
  return { view, nodes: encodedNodes(view.nodesJson) };
}

/**
 * The session view of a saved view: its nodes are sent as the wire text saved, none of them built, and the
 * branch map saved with it comes along (read once per saved view).
 */
export function sessionViewFromSaved(fields: Omit<SessionView, "nodes">, saved: SavedViewNodes): SessionView {
  const view: SessionView = { ...fields, nodes: saved.nodes };
  const map = savedBranchMap(saved.view);
  if (map) view.branchMap = map;
  return view;
}

const savedMaps = new WeakMap<SavedView, BranchMap>();

/** The branch map saved with a view, read once per saved view (undefined when none was kept). */
export function savedBranchMap(saved: SavedView): BranchMap | undefined {
  if (saved.branchMapJson === null) return undefined;
  let map = savedMaps.get(saved);
  if (!map) {
    map = JSON.parse(saved.branchMapJson) as BranchMap;
    savedMaps.set(saved, map);
  }
  return map;
}

/** The context from the saved view's leaf, when that is what is asked for and it was saved. */
export function savedLeafContext(
  saved: SavedView | undefined,
  leafId: string | null,
  llm: boolean,
): ContextView | undefined {
  if (!saved?.leafContextJson || leafId !== saved.content.leafId || llm) return undefined;
  return JSON.parse(saved.leafContextJson) as ContextView;
}

/** The saved view's leaf entry, when that is what is asked for and it was saved. */
export function savedLeafEntry(saved: SavedView | undefined, entryId: string): EntryDetail | undefined {
  if (!saved?.leafEntry || entryId !== saved.content.leafId) return undefined;
  return structuredClone(saved.leafEntry);
}
