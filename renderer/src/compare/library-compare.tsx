/**
 * Compare from the library: Ctrl/Cmd-click marks sessions of one lineage
 * (a session and its forks or clones, which keep the ids of the path they
 * copied), and the bar under the list compares the two marked, each at its
 * tip; a fork's row has a button that compares it with the session it came
 * from.
 */

import type { LibraryListing, SessionListItem } from "../../../shared/ipc/contract.ts";
import { useBranches } from "../branch-map/use-branches.ts";
import { useController, useLibrary } from "../state/hooks.tsx";
import { compareSessions, compareWithSource } from "./start-compare.ts";

/** The first session of an item's lineage (following `parentSessionId` within the library). */
export function lineageRoot(listing: LibraryListing, sessionId: string): string {
  const byId = new Map<string, SessionListItem>();
  for (const project of listing.projects) for (const item of project.sessions) byId.set(item.sessionId, item);
  let at = sessionId;
  const seen = new Set<string>();
  for (let parent = byId.get(at)?.parentSessionId; parent && !seen.has(parent); ) {
    seen.add(parent);
    at = parent;
    parent = byId.get(at)?.parentSessionId;
  }
  return at;
}

export function sameLineage(listing: LibraryListing, left: string, right: string): boolean {
  return lineageRoot(listing, left) === lineageRoot(listing, right);
}

/** "Compare with its source", on the row of a fork whose source is in the library. */
export function CompareWithSourceButton({ item }: { item: SessionListItem }) {
  const controller = useController();
  const source = item.parentSessionId;
  if (source === null || item.error) return null;
  return (
    <button
      type="button"
      className="compare-source"
      aria-label="Compare with its source"
      title="Compare this fork with the session it came from, each at its tip"
      onClick={() => void compareWithSource(controller, item.sessionId, source)}
    >
      ⇄
    </button>
  );
}

/** The two sessions marked with Ctrl/Cmd-click, and the button that compares them. */
export function LibraryCompareBar() {
  const controller = useController();
  const marked = useBranches((s) => s.marked);
  const listing = useLibrary((s) => s.listing);
  if (marked.length === 0 || !listing) return null;
  const [left, right] = marked;
  const related = right !== undefined && left !== undefined && sameLineage(listing, left, right);
  return (
    <div className="library-compare" role="status">
      <span>
        {marked.length === 1
          ? "Ctrl/Cmd-click a second session of its lineage to compare them"
          : related
            ? "Two sessions of one lineage marked"
            : "These two sessions are not of one lineage: nothing to compare them from"}
      </span>
      <button
        type="button"
        className="primary"
        disabled={!related}
        onClick={() => {
          controller.branches.markForCompare(null);
          if (left && right) void compareSessions(controller, left, right);
        }}
      >
        Compare
      </button>
      <button type="button" onClick={() => controller.branches.markForCompare(null)}>
        Clear
      </button>
    </div>
  );
}
