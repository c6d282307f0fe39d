/**
 * The compare view's body: turns aligned in two columns (one scroll, so
 * both sides move together), each message pair a row with its changed words
 * marked, the divergence row flagged; or, in "what the model sees", the
 * two context sequences walked side by side.
 */

import { useState } from "react";
import type { DiffPart, MessagePair, TurnAlignment, TurnDetail } from "../../../shared/compare/index.ts";
import type { CompareView, ContextView } from "../../../shared/ipc/contract.ts";
import { useController } from "../state/hooks.tsx";
import { UserText } from "../text/user-text.tsx";

export type Side = "left" | "right";

/** A side's text of a changed pair, its own parts marked: removed on the left, added on the right. */
export function DiffText({ parts, side }: { parts: readonly DiffPart[]; side: Side }) {
  return (
    <>
      {parts.map((part, i) => {
        const key = `${i}`;
        if (part.op === "same") return <UserText key={key} text={part.text} />;
        if (part.op === "removed" && side === "left")
          return (
            <del key={key} className="diff-removed">
              <UserText text={part.text} />
            </del>
          );
        if (part.op === "added" && side === "right")
          return (
            <ins key={key} className="diff-added">
              <UserText text={part.text} />
            </ins>
          );
        return null;
      })}
    </>
  );
}

/** The whole text of an entry, asked for when a cut one is shown all. */
function useWholeText(): [Map<string, string>, (entryId: string) => void] {
  const controller = useController();
  const [texts, setTexts] = useState(new Map<string, string>());
  const load = (entryId: string) => {
    void controller.branches.entryText(entryId).then((text) => {
      if (text !== null) setTexts((before) => new Map(before).set(entryId, text));
    });
  };
  return [texts, load];
}

function Cell({
  pair,
  side,
  whole,
  loadWhole,
  canReveal,
}: {
  pair: MessagePair;
  side: Side;
  whole: Map<string, string>;
  loadWhole: (entryId: string) => void;
  canReveal: boolean;
}) {
  const controller = useController();
  const shown = side === "left" ? pair.left : pair.right;
  const entryId = side === "left" ? pair.leftEntryId : pair.rightEntryId;
  if (!shown || entryId === null) return <div className={`compare-cell ${side} empty`} />;
  const full = whole.get(entryId);
  return (
    <div className={`compare-cell ${side}`} data-entry-id={entryId}>
      <div className="compare-kind">
        {pair.kind}{" "}
        {canReveal ? (
          <button
            type="button"
            className="link-button"
            title="Show this entry in the graph"
            onClick={() => controller.branches.revealFromCompare(entryId)}
          >
            {entryId}
          </button>
        ) : (
          <span className="muted">{entryId}</span>
        )}
      </div>
      <div className="compare-text">
        {full !== undefined ? (
          <UserText text={full} />
        ) : pair.parts && pair.change === "changed" ? (
          <DiffText parts={pair.parts} side={side} />
        ) : (
          <UserText text={shown.text} />
        )}
        {shown.more && full === undefined && canReveal ? (
          <button type="button" className="link-button" onClick={() => loadWhole(entryId)}>
            show all
          </button>
        ) : null}
      </div>
    </div>
  );
}

const CHANGE_WORDS: Record<TurnAlignment["change"], string> = {
  same: "the same",
  changed: "changed",
  added: "right only",
  removed: "left only",
};

function isDivergence(view: CompareView, pair: MessagePair): boolean {
  const divergence = view.divergence;
  if (!divergence) return false;
  return (
    (divergence.leftEntryId !== null && pair.leftEntryId === divergence.leftEntryId) ||
    (divergence.rightEntryId !== null && pair.rightEntryId === divergence.rightEntryId)
  );
}

function TurnRows({
  view,
  index,
  detail,
  openSessionId,
  whole,
  loadWhole,
}: {
  view: CompareView;
  index: number;
  detail: TurnDetail | undefined;
  openSessionId: string | null;
  whole: Map<string, string>;
  loadWhole: (entryId: string) => void;
}) {
  const turn = view.turns[index]!;
  const controller = useController();
  return (
    <section className={`compare-turn change-${turn.change}`} data-turn={index}>
      <h3>
        Turn {index + 1}: {CHANGE_WORDS[turn.change]}
        <span className="muted">
          {" "}
          ({turn.left.length} left, {turn.right.length} right)
        </span>
      </h3>
      {detail ? (
        detail.messages.map((pair) => {
          const divergence = isDivergence(view, pair);
          return (
            <div
              key={`${pair.leftEntryId ?? ""}:${pair.rightEntryId ?? ""}`}
              className={`compare-row change-${pair.change}${divergence ? " divergence" : ""}`}
              data-change={pair.change}
            >
              {divergence ? (
                <div className="divergence-mark" role="note">
                  Divergence: {view.divergence!.reason}
                </div>
              ) : null}
              <Cell
                pair={pair}
                side="left"
                whole={whole}
                loadWhole={loadWhole}
                canReveal={view.leftSessionId === openSessionId}
              />
              <Cell
                pair={pair}
                side="right"
                whole={whole}
                loadWhole={loadWhole}
                canReveal={view.rightSessionId === openSessionId}
              />
            </div>
          );
        })
      ) : (
        <button type="button" onClick={() => void controller.branches.loadTurns(index, 20)}>
          Show this turn and the next ones
        </button>
      )}
    </section>
  );
}

export function TurnList({ view, openSessionId }: { view: CompareView; openSessionId: string | null }) {
  const [whole, loadWhole] = useWholeText();
  const details = new Map(view.detail.turns.map((turn) => [turn.turn, turn]));
  return (
    <>
      {view.turns.map((_turn, index) => (
        <TurnRows
          // biome-ignore lint/suspicious/noArrayIndexKey: turns are positions in the comparison, fixed while it shows.
          key={index}
          view={view}
          index={index}
          detail={details.get(index)}
          openSessionId={openSessionId}
          whole={whole}
          loadWhole={loadWhole}
        />
      ))}
    </>
  );
}

/** One message of a "what the model sees" sequence, as a line of text. */
function llmText(context: ContextView | null, index: number | undefined): string {
  if (!context?.llm || index === undefined) return "";
  const message = context.llm[index] as { role?: string; content?: unknown } | undefined;
  if (!message) return "";
  const content = message.content;
  const text =
    typeof content === "string"
      ? content
      : Array.isArray(content)
        ? content
            .map((part: { type?: string; text?: string; name?: string }) =>
              part.type === "text" ? (part.text ?? "") : part.type === "toolCall" ? `[${part.name}]` : "",
            )
            .join(" ")
        : "";
  return `${message.role ?? "?"}: ${text}`;
}

/** The context walk: each step's two messages (when the side's context could be read) in two columns. */
export function ContextList({
  view,
  contexts,
}: {
  view: CompareView;
  contexts: { left: ContextView | null; right: ContextView | null };
}) {
  return (
    <section className="compare-context">
      {view.context.map((op, i) => (
        <div
          // biome-ignore lint/suspicious/noArrayIndexKey: the walk's steps are positions, fixed while it shows.
          key={i}
          className={`compare-row change-${op.op}`}
          data-change={op.op}
        >
          <div className="compare-cell left">
            {op.left === undefined ? null : (
              <UserText text={llmText(contexts.left, op.left) || `message ${op.left + 1}`} />
            )}
          </div>
          <div className="compare-cell right">
            {op.right === undefined ? null : (
              <UserText text={llmText(contexts.right, op.right) || `message ${op.right + 1}`} />
            )}
          </div>
        </div>
      ))}
    </section>
  );
}
