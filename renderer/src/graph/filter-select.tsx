import { FILTER_MODES, type FilterMode } from "../../../shared/graph/index.ts";
import { FILTER_LABELS } from "./session-graph.tsx";
import { useController, useSession } from "../state/hooks.tsx";

/** Pi's /tree filter modes (Ctrl+O cycles them). */
export function FilterSelect() {
  const controller = useController();
  const filterMode = useSession((s) => s.filterMode);
  return (
    <label>
      <span className="visually-hidden">Filter</span>
      <select
        aria-label="Filter"
        value={filterMode}
        title="Ctrl+O / Shift+Ctrl+O"
        onChange={(event) => controller.setFilterMode(event.target.value as FilterMode)}
      >
        {FILTER_MODES.map((mode) => (
          <option key={mode} value={mode}>
            {FILTER_LABELS[mode]}
          </option>
        ))}
      </select>
    </label>
  );
}
