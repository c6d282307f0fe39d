/** The graph panel's "Map | Entries" switch, and the status line the map shows. */

import { useController, usePathSet, useSession } from "../state/hooks.tsx";
import { count } from "./figures.ts";
import { currentShownMap } from "./map-selection.ts";
import { useBranches } from "./use-branches.ts";

/** The key that switches between the map and the entry graph (free in Pi's `/tree`). */
export const VIEW_KEY = "m";

export function ViewSwitch() {
  const controller = useController();
  const view = useBranches((s) => s.view);
  return (
    <fieldset className="segmented view-switch" aria-label="View">
      <button
        type="button"
        aria-pressed={view === "map"}
        title="The branch map: one row per segment, short side branches folded (M)"
        onClick={() => controller.branches.setView("map")}
      >
        Map
      </button>
      <button
        type="button"
        aria-pressed={view === "entries"}
        title="The entry graph: one node per entry (M)"
        onClick={() => controller.branches.setView("entries")}
      >
        Entries
      </button>
    </fieldset>
  );
}

export function MapStatus() {
  const map = useBranches((s) => s.map);
  const expanded = useBranches((s) => s.expanded);
  const budget = useBranches((s) => s.mapBudget);
  const path = usePathSet();
  const fileLeafId = useSession((s) => s.view?.leafId ?? null);
  const entries = useSession((s) => s.view?.nodes.count ?? 0);
  const showArchived = useSession((s) => s.showArchived);
  if (!map) return <div className="graph-status" aria-live="polite" />;
  const shown = currentShownMap(map, path, fileLeafId, expanded, budget, showArchived);
  const { layout } = shown;
  const hidden = map.leaves.length - shown.map.leaves.length;
  const archived = hidden > 0 ? `; ${count(hidden, "archived branch", "archived branches")} hidden` : "";
  const folded = layout.folded > 0 ? `; ${count(layout.folded, "branch", "branches")} folded into marks` : "";
  return (
    <div
      className="graph-status"
      aria-live="polite"
      data-branches={map.leaves.length}
      data-segments={map.segments.length}
      data-rows={layout.rows.length}
    >
      {`Branch map: ${count(map.leaves.length, "branch", "branches")}, ${count(map.segments.length, "segment")}, ${count(entries, "entry", "entries")} in ${count(layout.rows.length, "row")}${folded}${archived}`}
    </div>
  );
}
