/**
 * The context preview: exactly the messages Pi would send from the selected
 * entry taken as leaf (Pi's `buildSessionContext`), or with "What the model
 * sees" their `convertToLlm` form; virtualised past a hundred messages.
 */

import { useVirtualizer } from "@tanstack/react-virtual";
import { type ReactNode, useCallback, useLayoutEffect, useMemo, useRef } from "react";
import type { ContextView } from "../../../shared/ipc/contract.ts";
import { messageToLlm } from "../../../shared/session/index.ts";
import { useContextPreview, useController, useSession } from "../state/hooks.tsx";
import type { ContextMode } from "../state/stores.ts";
import { MessageView } from "./message-view.tsx";

/** Up to this many messages are rendered plainly; more are virtualised. */
export const VIRTUALIZE_ABOVE = 100;

export interface PreviewItem {
  key: string;
  entryId: string | null;
  message: unknown;
  tokenEstimate: number | null;
}

/** The items to draw: agent messages, or the LLM messages paired with the entries they came from. */
export function previewItems(view: ContextView, mode: ContextMode): PreviewItem[] {
  if (mode === "agent" || !view.llm) {
    return view.messages.map((item, i) => ({
      key: `${i}:${item.entryId}`,
      entryId: item.entryId,
      message: item.message,
      tokenEstimate: item.tokenEstimate,
    }));
  }
  // convertToLlm drops some messages (bash runs excluded from context): pair the survivors in order.
  const sources = view.messages.filter((item) => messageToLlm(item.message) !== undefined);
  const paired = sources.length === view.llm.length;
  return view.llm.map((message, i) => ({
    key: `llm:${i}`,
    entryId: paired ? sources[i]!.entryId : null,
    message,
    tokenEstimate: null,
  }));
}

function ContextHeader({ view, mode }: { view: ContextView; mode: ContextMode }) {
  const controller = useController();
  const count = mode === "llm" && view.llm ? view.llm.length : view.messages.length;
  return (
    <header className="preview-header">
      <div className="preview-toolbar">
        <fieldset className="segmented" aria-label="Context form">
          <button
            type="button"
            aria-pressed={mode === "agent"}
            onClick={() => controller.setContextMode("agent")}
          >
            Agent messages
          </button>
          <button
            type="button"
            aria-pressed={mode === "llm"}
            onClick={() => controller.setContextMode("llm")}
          >
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
      <dl className="facts">
        <div>
          <dt>Model</dt>
          <dd>{view.model ? `${view.model.provider}/${view.model.modelId}` : "none"}</dd>
        </div>
        <div>
          <dt>Thinking</dt>
          <dd>{view.thinkingLevel}</dd>
        </div>
        <div>
          <dt>Messages</dt>
          <dd data-testid="message-count">{count.toLocaleString()}</dd>
        </div>
        <div>
          <dt>Estimated tokens</dt>
          <dd>~{view.tokenEstimate.toLocaleString()}</dd>
        </div>
        {view.lastInputTokens !== null ? (
          <div>
            <dt>Last input tokens</dt>
            <dd>{view.lastInputTokens.toLocaleString()}</dd>
          </div>
        ) : null}
      </dl>
      {view.compaction ? (
        <p className="compaction-note">
          Compaction{" "}
          <button
            type="button"
            className="link-button"
            onClick={() => controller.reveal(view.compaction!.entryId)}
          >
            {view.compaction.entryId}
          </button>{" "}
          in effect ({view.compaction.tokensBefore.toLocaleString()} tokens before); kept from{" "}
          <button
            type="button"
            className="link-button"
            onClick={() => controller.reveal(view.compaction!.firstKeptEntryId)}
          >
            {view.compaction.firstKeptEntryId}
          </button>
          {view.compaction.firstKeptOnPath
            ? ""
            : " (not on this path: nothing before the compaction is kept)"}
          .
        </p>
      ) : null}
      {view.edits.length > 0 ? (
        <details className="edits-note">
          <summary>
            {view.edits.length} context edit{view.edits.length === 1 ? "" : "s"} applied
          </summary>
          <ul>
            {view.edits.map((edit) => (
              <li key={edit.editId}>
                <button type="button" className="link-button" onClick={() => controller.reveal(edit.editId)}>
                  {edit.editId}
                </button>{" "}
                {edit.drop ? "drops" : "replaces"}{" "}
                <button
                  type="button"
                  className="link-button"
                  onClick={() => controller.reveal(edit.targetId)}
                >
                  {edit.targetId}
                </button>
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </header>
  );
}

/** A new context opens at its end: the selected entry's own message is the last one. */
function PlainList({ items, onReveal }: { items: PreviewItem[]; onReveal: (id: string) => void }) {
  const scrollRef = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const element = scrollRef.current;
    if (element && items.length > 0) element.scrollTop = element.scrollHeight;
  }, [items]);
  return (
    <div className="preview-scroll" ref={scrollRef}>
      {items.map((item, i) => (
        <MessageView
          key={item.key}
          message={item.message}
          entryId={item.entryId}
          index={i}
          tokenEstimate={item.tokenEstimate}
          onReveal={onReveal}
        />
      ))}
    </div>
  );
}

function VirtualList({ items, onReveal }: { items: PreviewItem[]; onReveal: (id: string) => void }) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => 140,
    overscan: 6,
    getItemKey: (index) => items[index]!.key,
  });
  useLayoutEffect(() => {
    if (items.length > 0) virtualizer.scrollToIndex(items.length - 1, { align: "end" });
  }, [items, virtualizer]);
  return (
    <div className="preview-scroll" ref={scrollRef}>
      <div className="virtual-space" style={{ height: virtualizer.getTotalSize() }}>
        {virtualizer.getVirtualItems().map((row) => {
          const item = items[row.index]!;
          return (
            <div
              key={row.key}
              className="virtual-row"
              data-index={row.index}
              ref={virtualizer.measureElement}
              style={{ transform: `translateY(${row.start}px)` }}
            >
              <MessageView
                message={item.message}
                entryId={item.entryId}
                index={row.index}
                tokenEstimate={item.tokenEstimate}
                onReveal={onReveal}
              />
            </div>
          );
        })}
      </div>
    </div>
  );
}

export function ContextPreview() {
  const controller = useController();
  const hasSession = useSession((s) => s.view !== null);
  const noEntries = useSession((s) => s.view !== null && s.view.nodes.length === 0);
  const selectedId = useSession((s) => s.selectedId);
  const status = useContextPreview((s) => s.status);
  const error = useContextPreview((s) => s.error);
  const view = useContextPreview((s) => s.view);
  const mode = useContextPreview((s) => s.forMode);
  const items = useMemo(() => (view ? previewItems(view, mode) : []), [view, mode]);
  const onReveal = useCallback((entryId: string) => controller.reveal(entryId), [controller]);

  let body: ReactNode;
  if (!hasSession) body = <div className="empty">Open a session to see the context Pi would send.</div>;
  else if (noEntries) body = <div className="empty">No entries: from here Pi would send nothing.</div>;
  else if (selectedId === null)
    body = <div className="empty">Select an entry: its context appears here.</div>;
  else if (status === "error")
    body = (
      <div className="error-view" role="alert">
        <p>The context could not be built: {error}</p>
      </div>
    );
  else if (status !== "ready" || !view) body = <div className="loading">Building the context…</div>;
  else if (items.length === 0)
    body = <div className="empty">No messages: from here Pi would send nothing.</div>;
  else if (items.length > VIRTUALIZE_ABOVE) body = <VirtualList items={items} onReveal={onReveal} />;
  else body = <PlainList items={items} onReveal={onReveal} />;

  const ready = status === "ready" && view !== null;
  return (
    <section
      className="context-preview"
      aria-label="Context preview"
      aria-busy={status === "loading"}
      data-message-count={ready ? items.length : undefined}
      data-leaf-id={ready ? (view.leafId ?? "") : undefined}
      data-mode={ready ? mode : undefined}
    >
      {ready ? <ContextHeader view={view} mode={mode} /> : null}
      {body}
    </section>
  );
}
