/**
 * "Compare with…": the toolbar's Compare button and the tip picker it opens
 * (the session's branch tips with their label or last prompt and cost,
 * filtered as you type, Up/Down and Enter to choose, Escape to close).
 */

import { useEffect, useMemo, useRef, useState } from "react";
import type { BranchLeaf } from "../../../shared/branches/index.ts";
import { useBranches } from "../branch-map/use-branches.ts";
import { formatCost, shortTime } from "../branch-map/figures.ts";
import { focusGraph } from "../graph/session-graph.tsx";
import { useController, useSession } from "../state/hooks.tsx";
import { UserText } from "../text/user-text.tsx";
import { compareTips, compareWithPicker } from "./start-compare.ts";
import { figure } from "../text/figures.ts";

/** The key that opens the picker for the selected entry (free in Pi's `/tree`). */
export const COMPARE_KEY = "c";

export function CompareButton() {
  const controller = useController();
  const selected = useSession((s) => s.selectedId);
  return (
    <button
      type="button"
      disabled={selected === null}
      title="Compare the selected entry's branch with another tip (C); or Shift-click another entry"
      onClick={() => compareWithPicker(controller)}
    >
      Compare…
    </button>
  );
}

function tipText(leaf: BranchLeaf): string {
  return leaf.label ?? leaf.lastPrompt?.text ?? leaf.lastAnswer?.text ?? leaf.leafId;
}

/** Tips whose label, last prompt or id holds every word of `filter`; archived ones only when shown. */
export function filterTips(
  leaves: readonly BranchLeaf[],
  filter: string,
  except: string,
  showArchived = false,
): BranchLeaf[] {
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  return leaves.filter((leaf) => {
    if (leaf.leafId === except || (leaf.archived && !showArchived)) return false;
    const text = `${leaf.label ?? ""} ${leaf.lastPrompt?.text ?? ""} ${leaf.leafId}`.toLowerCase();
    return words.every((word) => text.includes(word));
  });
}

/** Tips listed at most (the filter finds the others). */
const TIPS_LISTED = 200;

function TipList({
  tips,
  at,
  onChoose,
  onHover,
}: {
  tips: BranchLeaf[];
  at: number;
  onChoose(leaf: BranchLeaf): void;
  onHover(index: number): void;
}) {
  return (
    <div className="tip-list" role="listbox" aria-label="Branch tips">
      {tips.map((leaf, i) => (
        // biome-ignore lint/a11y/useKeyWithClickEvents: the dialog's keys (Up/Down, Enter) choose too.
        <div
          key={leaf.leafId}
          role="option"
          tabIndex={-1}
          aria-selected={i === at}
          data-leaf-id={leaf.leafId}
          onClick={() => onChoose(leaf)}
          onMouseMove={() => onHover(i)}
        >
          {leaf.label ? <span className="badge label">{leaf.label}</span> : null}
          <UserText className="tip-text" text={tipText(leaf)} />
          <span className="muted tip-facts">
            {`${figure(leaf.entries)} entries · ${formatCost(leaf.cost)} · ${shortTime(leaf.lastTimestamp)}`}
          </span>
        </div>
      ))}
    </div>
  );
}

export function TipPicker() {
  const controller = useController();
  const picker = useBranches((s) => s.picker);
  const map = useBranches((s) => s.map);
  const [filter, setFilter] = useState("");
  const [at, setAt] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  const open = picker !== null;
  useEffect(() => {
    if (!open) return;
    setFilter("");
    setAt(0);
    input.current?.focus();
    return () => focusGraph();
  }, [open]);
  const showArchived = useSession((s) => s.showArchived);
  const tips = useMemo(
    () => (map && picker ? filterTips(map.leaves, filter, picker.leftId, showArchived) : []),
    [map, picker, filter, showArchived],
  );
  if (!picker) return null;
  const shown = tips.slice(0, TIPS_LISTED);
  const choose = (leaf: BranchLeaf | undefined) => {
    if (leaf) void compareTips(controller, picker.leftId, leaf.leafId);
  };
  return (
    <div className="dialog-backdrop">
      <div
        className="dialog tip-picker"
        role="dialog"
        aria-modal="true"
        aria-labelledby="tip-picker-title"
        onKeyDown={(event) => {
          if (event.key === "Escape") {
            event.preventDefault();
            controller.branches.closePicker();
          } else if (event.key === "ArrowDown" || event.key === "ArrowUp") {
            event.preventDefault();
            const by = event.key === "ArrowDown" ? 1 : -1;
            setAt((i) => (shown.length === 0 ? 0 : (i + by + shown.length) % shown.length));
          } else if (event.key === "Enter") {
            event.preventDefault();
            choose(shown[at]);
          }
        }}
      >
        <h2 id="tip-picker-title">Compare {picker.leftId} with…</h2>
        <input
          ref={input}
          type="search"
          aria-label="Filter tips"
          placeholder="Filter by label, prompt or id"
          value={filter}
          onChange={(event) => {
            setFilter(event.target.value);
            setAt(0);
          }}
        />
        {map === null ? <p className="muted">Building the branch map…</p> : null}
        <TipList tips={shown} at={at} onChoose={choose} onHover={setAt} />
        {tips.length > shown.length ? (
          <p className="muted">{`${tips.length - shown.length} more: type to narrow the list`}</p>
        ) : null}
        {map !== null && tips.length === 0 ? <p className="muted">No other tip matches.</p> : null}
        <div className="dialog-buttons">
          <button type="button" onClick={() => controller.branches.closePicker()}>
            Cancel
          </button>
        </div>
      </div>
    </div>
  );
}
