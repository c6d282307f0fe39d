/**
 * The context preview: exactly the messages Pi would send from the selected
 * entry taken as leaf (Pi's `buildSessionContext`), or with "What the model
 * sees" their `convertToLlm` form; virtualised past a hundred messages, or
 * while some are still to fetch (a long context comes in pages: rows whose
 * page is not there yet say so, and the rows shown are asked for).
 */

import { useVirtualizer } from "@tanstack/react-virtual";
import { useShallow } from "zustand/react/shallow";
import {
  type FocusEvent,
  type KeyboardEvent,
  type ReactNode,
  type RefObject,
  useCallback,
  useDeferredValue,
  useLayoutEffect,
  useMemo,
  useRef,
} from "react";
import { screenErrors } from "../../../shared/error-texts.ts";
import type { ContextView } from "../../../shared/ipc/contract.ts";
import { rowCount } from "../../../shared/ipc/context-pages.ts";
import { useContextPreview, useController, useSession } from "../state/hooks.tsx";
import { ContextHeader } from "./context-header.tsx";
import { MessageView, type ShownWhole, ShownWholeContext } from "./message-view.tsx";
import { ContextCuts } from "./cut-texts.tsx";
import { END_SLACK_PX, NewBelow, useListGrowth } from "./list-growth.tsx";
import { heldItems, type PreviewItem, previewItem } from "./preview-items.ts";
import { useShownRows } from "./shown-rows.ts";
import { localFigure } from "../text/figures.ts";

export type { PreviewItem } from "./preview-items.ts";

/** Up to this many messages are rendered plainly; more are virtualised. */
export const VIRTUALIZE_ABOVE = 100;

/** How far an arrow key scrolls, about as far as a browser's own. */
export const LINE_SCROLL = 40;

/** How a list scrolls: the plain one by its element, the virtual one through the virtualiser, which knows the rows it has not drawn. */
interface Scroller {
  toStart(): void;
  toEnd(): void;
  by(pixels: number): void;
}

function takesTyping(target: EventTarget): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName);
}

/**
 * The scrolling keys, handled by the list itself rather than left to the
 * browser: the browser scrolls whatever holds the focus into view, and the
 * virtualiser unmounts the focused row when it leaves, dropping the focus.
 */
function scrollByKey(event: KeyboardEvent<HTMLElement>, scroller: Scroller): void {
  if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || takesTyping(event.target))
    return;
  const page = Math.max(LINE_SCROLL, event.currentTarget.clientHeight - LINE_SCROLL);
  switch (event.key) {
    case "Home":
      scroller.toStart();
      break;
    case "End":
      scroller.toEnd();
      break;
    case "PageUp":
      scroller.by(-page);
      break;
    case "PageDown":
      scroller.by(page);
      break;
    case "ArrowUp":
      scroller.by(-LINE_SCROLL);
      break;
    case "ArrowDown":
      scroller.by(LINE_SCROLL);
      break;
    case " ":
      // On a button or a summary, Space presses it.
      if (event.target !== event.currentTarget) return;
      scroller.by(event.shiftKey ? -page : page);
      break;
    default:
      return;
  }
  event.preventDefault();
}

function focusList(list: HTMLElement | null): void {
  if (list?.isConnected) list.focus({ preventScroll: true });
}

/**
 * The fallback for a focused element removed by anything but a virtual row's
 * unmount (which hands the focus over first): where the browser reports it as
 * a blur to nowhere, the list takes the focus once the element is gone.
 */
function refocusWhenRemoved(event: FocusEvent<HTMLElement>): void {
  const list = event.currentTarget;
  const left = event.target;
  if (event.relatedTarget !== null || left === list) return;
  queueMicrotask(() => {
    const active = document.activeElement;
    if (!left.isConnected && (active === null || active === document.body)) focusList(list);
  });
}

/** The scrolling list: a focusable region, so the keys scroll it wherever the focus is in it. */
function PreviewScroll({
  scrollRef,
  scroller,
  onScroll,
  children,
}: {
  scrollRef: RefObject<HTMLElement | null>;
  scroller: Scroller;
  onScroll?: () => void;
  children: ReactNode;
}) {
  return (
    <section
      className="preview-scroll"
      ref={scrollRef}
      aria-label="Context messages"
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard to be scrolled by it
      tabIndex={0}
      onKeyDown={(event) => scrollByKey(event, scroller)}
      onBlur={refocusWhenRemoved}
      onScroll={onScroll}
    >
      {children}
    </section>
  );
}

function PlainList({
  view,
  items,
  onReveal,
}: {
  view: ContextView;
  items: PreviewItem[];
  onReveal: (id: string) => void;
}) {
  const scrollRef = useRef<HTMLElement>(null);
  const { atEnd, below, onScroll } = useListGrowth(view, items.length, scrollRef, () => undefined);
  // A new context opens at its end; a grown one follows it only from there.
  useLayoutEffect(() => {
    const element = scrollRef.current;
    if (element && items.length > 0 && atEnd.current) element.scrollTop = element.scrollHeight;
  }, [items, atEnd]);
  const scroller = useMemo<Scroller>(
    () => ({
      toStart: () => scrollRef.current?.scrollTo({ top: 0 }),
      toEnd: () => scrollRef.current?.scrollTo({ top: scrollRef.current.scrollHeight }),
      by: (pixels) => scrollRef.current?.scrollBy({ top: pixels }),
    }),
    [],
  );
  return (
    <PreviewScroll scrollRef={scrollRef} scroller={scroller} onScroll={onScroll}>
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
      <NewBelow count={below} toEnd={scroller.toEnd} />
    </PreviewScroll>
  );
}

/**
 * A drawn row of the virtual list. The virtualiser measures it by a
 * ResizeObserver, so a row that grows (a long output shown whole) moves the
 * rows after it. A row leaving the view hands the focus it holds to the list
 * before it goes, instead of dropping it to the page.
 */
function VirtualRow({
  index,
  start,
  measure,
  scrollRef,
  children,
}: {
  index: number;
  start: number;
  measure: (node: HTMLDivElement | null) => void;
  scrollRef: RefObject<HTMLElement | null>;
  children: ReactNode;
}) {
  const rowRef = useRef<HTMLDivElement | null>(null);
  const ref = useCallback(
    (node: HTMLDivElement | null) => {
      rowRef.current = node;
      measure(node);
    },
    [measure],
  );
  // A layout effect's cleanup runs before React removes the row's elements, while the focus is still in them.
  useLayoutEffect(() => {
    const row = rowRef.current;
    return () => {
      if (row?.contains(document.activeElement)) focusList(scrollRef.current);
    };
  }, [scrollRef]);
  return (
    <div className="virtual-row" data-index={index} ref={ref} style={{ transform: `translateY(${start}px)` }}>
      {children}
    </div>
  );
}

/** A row whose page is still to come. */
function LoadingRow({ index }: { index: number }) {
  return (
    <div className="message message-loading" data-index={index} data-loading="">
      Loading message {localFigure(index + 1)}…
    </div>
  );
}

/**
 * `count` rows, each `itemAt` its index (undefined: its page is still to
 * come). The list opens at its end for each new `view` (a grown one leaves
 * it where it is, and the virtualiser keeps following the end from there),
 * and tells `onRows` which rows it draws.
 */
function VirtualList({
  view,
  count,
  itemAt,
  onRows,
  onReveal,
}: {
  view: ContextView;
  count: number;
  itemAt: (index: number) => PreviewItem | undefined;
  onRows: (first: number, last: number) => void;
  onReveal: (id: string) => void;
}) {
  const scrollRef = useRef<HTMLElement>(null);
  // One function per `itemAt`: the virtualiser lays out every row again (each key read) when it changes.
  const getItemKey = useCallback((index: number) => itemAt(index)?.key ?? `loading:${index}`, [itemAt]);
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => 140,
    overscan: 6,
    getItemKey,
    // Its renders join React's own instead of running inside each scroll event: an append that moves the
    // list to its new end would otherwise render the list several times within one task.
    useFlushSync: false,
    // A context grown at its end (a followed leaf's) keeps the list where it is: at its end, it follows.
    anchorTo: "end",
    followOnAppend: true,
    scrollEndThreshold: END_SLACK_PX,
  });
  const { startOpening, endOpening } = useShownRows(virtualizer, view, count, onRows);
  // Its pages arriving do not move it.
  const { below, onScroll } = useListGrowth(view, count, scrollRef, () => {
    startOpening();
    if (count > 0) virtualizer.scrollToIndex(count - 1, { align: "end" });
  });
  const scroller = useMemo<Scroller>(
    () => ({
      toStart: () => {
        endOpening();
        virtualizer.scrollToOffset(0);
      },
      toEnd: () => {
        endOpening();
        virtualizer.scrollToIndex(virtualizer.options.count - 1, { align: "end" });
      },
      by: (pixels) => {
        endOpening();
        virtualizer.scrollBy(pixels);
      },
    }),
    [virtualizer, endOpening],
  );
  const rows = virtualizer.getVirtualItems();
  return (
    <PreviewScroll scrollRef={scrollRef} scroller={scroller} onScroll={onScroll}>
      <div className="virtual-space" style={{ height: virtualizer.getTotalSize() }}>
        {rows.map((row) => {
          const item = itemAt(row.index);
          return (
            <VirtualRow
              key={row.key}
              index={row.index}
              start={row.start}
              measure={virtualizer.measureElement}
              scrollRef={scrollRef}
            >
              {item ? (
                <MessageView
                  message={item.message}
                  entryId={item.entryId}
                  index={row.index}
                  tokenEstimate={item.tokenEstimate}
                  onReveal={onReveal}
                />
              ) : (
                <LoadingRow index={row.index} />
              )}
            </VirtualRow>
          );
        })}
      </div>
      <NewBelow count={below} toEnd={scroller.toEnd} />
    </PreviewScroll>
  );
}

export function ContextPreview() {
  const controller = useController();
  const hasSession = useSession((s) => s.view !== null);
  const noEntries = useSession((s) => s.view !== null && s.view.nodes.count === 0);
  const selectedId = useSession((s) => s.selectedId);
  const status = useContextPreview((s) => s.status);
  const error = useContextPreview((s) => s.error);
  // A new context (a few a second while following a live session) is drawn in a render of its own, which
  // React may slice, after the urgent one of the change that asked for it.
  const { view, pages, mode } = useDeferredValue(
    useContextPreview(useShallow((s) => ({ view: s.view, pages: s.pages, mode: s.forMode }))),
  );
  const count = view ? rowCount(view, mode === "llm") : 0;
  // A short context held whole is drawn plainly; else rows are drawn as they are scrolled to.
  const items = useMemo(
    () => (view && count <= VIRTUALIZE_ABOVE ? heldItems(view, pages, mode, count) : null),
    [view, pages, mode, count],
  );
  const itemAt = useCallback(
    (index: number) => (view ? previewItem(view, pages, mode, index) : undefined),
    [view, pages, mode],
  );
  const onRows = useCallback(
    (first: number, last: number) => controller.showContextRows(first, last),
    [controller],
  );
  const onReveal = useCallback((entryId: string) => controller.reveal(entryId), [controller]);
  const shownWholeKeys = useContextPreview((s) => s.shownWhole);
  const shownWhole = useMemo<ShownWhole>(
    () => ({ has: (key) => shownWholeKeys.has(key), set: (key, shown) => controller.showWhole(key, shown) }),
    [shownWholeKeys, controller],
  );

  let body: ReactNode;
  if (!hasSession) body = <div className="empty">Open a session to see the context Pi would send.</div>;
  else if (noEntries) body = <div className="empty">No entries: from here Pi would send nothing.</div>;
  else if (selectedId === null)
    body = <div className="empty">Select an entry: its context appears here.</div>;
  else if (status === "error")
    body = (
      <div className="error-view" role="alert">
        <p>{screenErrors.contextNotBuilt(error ?? "")}</p>
      </div>
    );
  // While the next context loads, the last one stays on view (see `loadContext`): only a first one is waited for.
  else if ((status !== "ready" && status !== "loading") || !view)
    body = <div className="loading">Building the context…</div>;
  else if (count === 0) body = <div className="empty">No messages: from here Pi would send nothing.</div>;
  else if (items) body = <PlainList view={view} items={items} onReveal={onReveal} />;
  else body = <VirtualList view={view} count={count} itemAt={itemAt} onRows={onRows} onReveal={onReveal} />;
  body = <ShownWholeContext.Provider value={shownWhole}>{body}</ShownWholeContext.Provider>;

  const ready = (status === "ready" || status === "loading") && view !== null;
  return (
    <section
      className="context-preview"
      aria-label="Context preview"
      aria-busy={status === "loading"}
      data-message-count={ready ? count : undefined}
      data-leaf-id={ready ? (view.leafId ?? "") : undefined}
      data-mode={ready ? mode : undefined}
    >
      {ready ? <ContextHeader view={view} mode={mode} /> : null}
      {ready ? <ContextCuts view={view} pages={pages} mode={mode} /> : null}
      {body}
    </section>
  );
}
