/**
 * The compare pane: two branches side by side in place of the graph and the
 * preview. A toolbar (go to the divergence, entries or what the model sees,
 * swap, copy as Markdown, close), each side's facts, the shared prefix
 * collapsed with its length, the degenerate cases said in words, then the
 * turns aligned in two columns.
 */

import { useEffect, useRef, useState } from "react";
import type { RunFacts } from "../../../shared/branches/index.ts";
import { comparisonMarkdown } from "../../../shared/compare/index.ts";
import type { CompareView, ContextView } from "../../../shared/ipc/contract.ts";
import { useBranches } from "../branch-map/use-branches.ts";
import { count, formatCost } from "../branch-map/figures.ts";
import { useController, useGraphModel, useSession } from "../state/hooks.tsx";
import { UserText } from "../text/user-text.tsx";
import { ContextList, TurnList } from "./compare-rows.tsx";
import { figure } from "../text/figures.ts";

export const COMPARE_PANE_ID = "compare-pane";

function toolCallCount(facts: RunFacts): number {
  return Object.values(facts.toolCalls).reduce((sum, n) => sum + n, 0);
}

/** What makes a comparison unusual, in words (null for two branches that part after an ancestor). */
export function degenerateNote(view: CompareView): string | null {
  if (view.left.leafId === view.right.leafId && view.leftSessionId === view.rightSessionId)
    return "These two tips are the same entry.";
  if (view.ancestorId === null) return "These two branches share no entry: there is no common ancestor.";
  if (view.left.entryIds.length === 0 && view.right.entryIds.length === 0)
    return "The two tips are the same point of the conversation: nothing follows the common ancestor on either side.";
  if (view.left.entryIds.length === 0)
    return "The left tip is an ancestor of the right one: everything after it is on the right only.";
  if (view.right.entryIds.length === 0)
    return "The right tip is an ancestor of the left one: everything after it is on the left only.";
  return null;
}

function SideFacts({ side, facts, other }: { side: string; facts: RunFacts; other: RunFacts }) {
  const tools = Object.entries(facts.toolCalls)
    .map(([name, n]) => `${name} ${n}`)
    .join(", ");
  return (
    <div className="compare-facts" data-side={side}>
      <dl className="facts">
        <div>
          <dt title="Sum of usage.cost.total of the assistant messages after the common ancestor, as recorded by Pi">
            Cost
          </dt>
          <dd data-testid={`${side}-cost`}>{formatCost(facts.cost)}</dd>
        </div>
        <div>
          <dt title="Input and output tokens the provider reported for the answers after the common ancestor">
            Tokens
          </dt>
          <dd>
            {figure(facts.tokens.input)} in / {figure(facts.tokens.output)} out
          </dd>
        </div>
        <div>
          <dt>Entries</dt>
          <dd>{`${facts.entries} (${count(facts.turns, "turn")})`}</dd>
        </div>
        <div>
          <dt>Tool calls</dt>
          <dd title={tools}>{toolCallCount(facts)}</dd>
        </div>
        <div>
          <dt title="Tool results with isError, bash commands with a non-zero exit code">Errors</dt>
          <dd className={facts.errors > 0 ? "error-text" : undefined}>{facts.errors}</dd>
        </div>
      </dl>
      {facts.filesModified.length > 0 ? (
        <ul className="compare-files" aria-label={`Files modified on the ${side}`}>
          {facts.filesModified.map((file) => {
            const only = !other.filesModified.includes(file);
            return (
              <li key={file} className={only ? "only-here" : undefined}>
                <UserText text={file} />
                {only ? <span className="badge">only here</span> : null}
              </li>
            );
          })}
        </ul>
      ) : (
        <p className="muted">No files modified.</p>
      )}
    </div>
  );
}

/** The path the two sides share, collapsed to its length; its entries (the last ones) listed when shown. */
function SharedPrefix({ view }: { view: CompareView }) {
  const controller = useController();
  const model = useGraphModel();
  const shown = useBranches((s) => s.compare?.sharedShown ?? false);
  if (view.ancestorId === null) return null;
  const ancestor = model?.nodesById.get(view.ancestorId);
  const length = ancestor ? ancestor.depth + 1 : null;
  const path: { id: string; kind: string; preview: string }[] = [];
  if (shown && model) {
    for (let id: string | null = view.ancestorId; id !== null && path.length < 50; ) {
      const node = model.nodesById.get(id);
      if (!node) break;
      path.push({ id, kind: node.kind, preview: node.preview });
      id = node.parentId;
    }
    path.reverse();
  }
  return (
    <div className="compare-shared">
      <span>
        {length === null ? "Shared: the path up to " : `Shared: ${count(length, "entry", "entries")}, up to `}
        <button
          type="button"
          className="link-button"
          onClick={() => controller.branches.revealFromCompare(view.ancestorId!)}
        >
          {view.ancestorId}
        </button>
      </span>{" "}
      {model ? (
        <button type="button" className="link-button" onClick={() => controller.branches.showShared(!shown)}>
          {shown ? "hide" : "show"}
        </button>
      ) : null}
      {shown ? (
        <ol className="compare-shared-list">
          {path.map((entry) => (
            <li key={entry.id}>
              <span className="muted">{entry.kind}</span> <UserText text={entry.preview} />
            </li>
          ))}
        </ol>
      ) : null}
    </div>
  );
}

function CompareToolbar({ view }: { view: CompareView | null }) {
  const controller = useController();
  const mode = useBranches((s) => s.compare?.mode ?? "entries");
  const goToDivergence = () => {
    const target = document.querySelector(`#${COMPARE_PANE_ID} .divergence`);
    target?.scrollIntoView({ block: "center" });
  };
  return (
    <div className="compare-toolbar" role="toolbar" aria-label="Compare">
      <h2>Compare</h2>
      <fieldset className="segmented" aria-label="Compare form">
        <button
          type="button"
          aria-pressed={mode === "entries"}
          onClick={() => controller.branches.setCompareMode("entries")}
        >
          Entries
        </button>
        <button
          type="button"
          aria-pressed={mode === "context"}
          onClick={() => controller.branches.setCompareMode("context")}
        >
          What the model sees
        </button>
      </fieldset>
      <button type="button" disabled={!view?.divergence || mode !== "entries"} onClick={goToDivergence}>
        Go to divergence
      </button>
      <button type="button" disabled={!view} onClick={() => controller.branches.swapSides()}>
        Swap sides
      </button>
      <button
        type="button"
        disabled={!view}
        onClick={() => view && void controller.branches.copyComparison(comparisonMarkdown(view, view.detail))}
      >
        Copy as Markdown
      </button>
      <span className="spacer" />
      <button
        type="button"
        aria-label="Close the comparison (Escape)"
        onClick={() => controller.branches.closeCompare()}
      >
        Close
      </button>
    </div>
  );
}

/** The two "what the model sees" sequences, asked for when the view shows them (open-session sides only). */
function useModelContexts(view: CompareView | null, wanted: boolean, openSessionId: string | null) {
  const controller = useController();
  const [contexts, setContexts] = useState<{ left: ContextView | null; right: ContextView | null }>({
    left: null,
    right: null,
  });
  useEffect(() => {
    if (!view || !wanted) return;
    let live = true;
    const read = (sessionId: string, leafId: string) =>
      sessionId === openSessionId ? controller.branches.modelContext(leafId) : Promise.resolve(null);
    void Promise.all([
      read(view.leftSessionId, view.left.leafId),
      read(view.rightSessionId, view.right.leafId),
    ]).then(([left, right]) => {
      if (live) setContexts({ left, right });
    });
    return () => {
      live = false;
    };
  }, [view, wanted, openSessionId, controller]);
  return contexts;
}

export function ComparePane() {
  const controller = useController();
  const compare = useBranches((s) => s.compare);
  const openSessionId = useSession((s) => s.view?.sessionId ?? null);
  const pane = useRef<HTMLDivElement>(null);
  const view = compare?.view ?? null;
  const contexts = useModelContexts(view, compare?.mode === "context", openSessionId);
  useEffect(() => {
    pane.current?.focus({ preventScroll: true });
  }, []);
  if (!compare) return null;
  const note = view ? degenerateNote(view) : null;
  return (
    <section
      id={COMPARE_PANE_ID}
      className="compare-pane"
      aria-label="Compare branches"
      tabIndex={-1}
      ref={pane}
      onKeyDown={(event) => {
        if (event.key === "Escape") {
          event.preventDefault();
          controller.branches.closeCompare();
        }
      }}
    >
      <CompareToolbar view={view} />
      {compare.status === "loading" ? <p className="loading">Comparing the two branches…</p> : null}
      {compare.status === "error" ? <p role="alert">{compare.error}</p> : null}
      {view ? (
        <div className="compare-body" aria-busy={compare.status === "loading"}>
          <div className="compare-heads">
            <div className="compare-head" data-side="left">
              <h3>
                Left: {view.left.leafId}
                {view.leftSessionId !== openSessionId ? <span className="badge">other session</span> : null}
              </h3>
              <SideFacts side="left" facts={view.left.facts} other={view.right.facts} />
            </div>
            <div className="compare-head" data-side="right">
              <h3>
                Right: {view.right.leafId}
                {view.rightSessionId !== openSessionId ? <span className="badge">other session</span> : null}
              </h3>
              <SideFacts side="right" facts={view.right.facts} other={view.left.facts} />
            </div>
          </div>
          {note ? (
            <p className="compare-note" role="note">
              {note}
            </p>
          ) : null}
          <SharedPrefix view={view} />
          {view.divergence ? (
            <p className="compare-divergence">
              Divergence: {view.divergence.reason} (left {view.divergence.leftEntryId ?? "—"}, right{" "}
              {view.divergence.rightEntryId ?? "—"})
            </p>
          ) : null}
          {view.notes.map((text) => (
            <p key={text} className="muted compare-engine-note">
              {text}
            </p>
          ))}
          <div className="compare-columns">
            {compare.mode === "entries" ? (
              <TurnList view={view} openSessionId={openSessionId} />
            ) : (
              <ContextList view={view} contexts={contexts} />
            )}
          </div>
        </div>
      ) : null}
    </section>
  );
}
