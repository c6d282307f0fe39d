/**
 * The context preview's header: the form toggle and copy buttons, the
 * context's figures (model, thinking level, messages, tokens), and notes on
 * the compaction and context edits that shaped it, each linking to its entry.
 */

import type { ReactNode } from "react";
import type { ContextView } from "../../../shared/ipc/contract.ts";
import { rowCount } from "../../../shared/ipc/context-pages.ts";
import type { AppliedContextEdit, CompactionInEffect } from "../../../shared/session/index.ts";
import { formatCost } from "../branch-map/figures.ts";
import { useController } from "../state/hooks.tsx";
import type { ContextMode } from "../state/stores.ts";
import { FIGURE_EXPLANATIONS, pathCost } from "./path-cost.ts";
import { localFigure } from "../text/figures.ts";

export function ContextHeader({ view, mode }: { view: ContextView; mode: ContextMode }) {
  return (
    <header className="preview-header">
      <ContextToolbar mode={mode} />
      <ContextFacts view={view} mode={mode} />
      {view.compaction ? <CompactionNote compaction={view.compaction} /> : null}
      {view.edits.length > 0 ? <EditsNote edits={view.edits} /> : null}
    </header>
  );
}

function ContextToolbar({ mode }: { mode: ContextMode }) {
  const controller = useController();
  return (
    <div className="preview-toolbar">
      <fieldset className="segmented" aria-label="Context form">
        <button
          type="button"
          aria-pressed={mode === "agent"}
          onClick={() => controller.setContextMode("agent")}
        >
          Agent messages
        </button>
        <button type="button" aria-pressed={mode === "llm"} onClick={() => controller.setContextMode("llm")}>
          What the model sees
        </button>
      </fieldset>
      <span className="spacer" />
      <button type="button" onClick={() => void controller.copyContext("json")}>
        Copy JSON
      </button>
      <button type="button" onClick={() => void controller.copyContext("markdown")}>
        Copy Markdown
      </button>
    </div>
  );
}

/** One figure of the context: its name and its value. */
function Fact({
  term,
  testId,
  explanation,
  children,
}: {
  term: string;
  testId?: string;
  /** What the figure means, shown on hover. */
  explanation?: string;
  children: ReactNode;
}) {
  return (
    <div title={explanation}>
      <dt>{term}</dt>
      <dd data-testid={testId}>{children}</dd>
    </div>
  );
}

/** The model and thinking level Pi would use, and the context's size: messages in the shown form, tokens. */
function ContextFacts({ view, mode }: { view: ContextView; mode: ContextMode }) {
  const count = rowCount(view, mode === "llm");
  const cost = pathCost(view);
  return (
    <dl className="facts">
      <Fact term="Model">{view.model ? `${view.model.provider}/${view.model.modelId}` : "none"}</Fact>
      <Fact term="Thinking">{view.thinkingLevel}</Fact>
      <Fact term="Messages" testId="message-count">
        {localFigure(count)}
      </Fact>
      <Fact term="Estimated tokens" explanation={FIGURE_EXPLANATIONS.estimated}>
        ~{localFigure(view.tokenEstimate)}
      </Fact>
      {view.lastInputTokens !== null ? (
        <Fact term="Last input tokens" explanation={FIGURE_EXPLANATIONS.lastInput}>
          {localFigure(view.lastInputTokens)}
        </Fact>
      ) : null}
      {cost.answers > 0 ? (
        <Fact
          term={cost.sinceCompaction ? "Cost since compaction" : "Cost"}
          testId="path-cost"
          explanation={
            cost.sinceCompaction ? FIGURE_EXPLANATIONS.costSinceCompaction : FIGURE_EXPLANATIONS.cost
          }
        >
          {formatCost(cost.cost)}
        </Fact>
      ) : null}
    </dl>
  );
}

/** A link to an entry in the graph. */
function EntryLink({ id }: { id: string }) {
  const controller = useController();
  return (
    <button type="button" className="link-button" onClick={() => controller.reveal(id)}>
      {id}
    </button>
  );
}

function CompactionNote({ compaction }: { compaction: CompactionInEffect }) {
  return (
    <p className="compaction-note">
      Compaction <EntryLink id={compaction.entryId} /> in effect ({localFigure(compaction.tokensBefore)}{" "}
      tokens before); kept from <EntryLink id={compaction.firstKeptEntryId} />
      {compaction.firstKeptOnPath ? "" : " (not on this path: nothing before the compaction is kept)"}.
    </p>
  );
}

function EditsNote({ edits }: { edits: readonly AppliedContextEdit[] }) {
  return (
    <details className="edits-note">
      <summary>
        {edits.length} context edit{edits.length === 1 ? "" : "s"} applied
      </summary>
      <ul>
        {edits.map((edit) => (
          <li key={edit.editId}>
            <EntryLink id={edit.editId} /> {edit.drop ? "drops" : "replaces"} <EntryLink id={edit.targetId} />
          </li>
        ))}
      </ul>
    </details>
  );
}
