/**
 * How a context list takes each new view while a live session is followed
 * (issue 20). A new context opens at its end, where the selected entry's own
 * message is. One grown at its end from the view drawn before (a followed
 * leaf's: `grownFrom`) leaves the list where the user has it: read from its
 * end, the list follows the end; read above it, the list counts the rows that
 * came below and offers a way down to them.
 */

import { type RefObject, useCallback, useLayoutEffect, useRef, useState } from "react";
import type { ContextView } from "../../../shared/ipc/contract.ts";
import { grownFrom } from "../../../shared/ipc/context-reading.ts";
import { localFigure } from "../text/figures.ts";

/**
 * Scrolled to within this of its end, a list counts as at its end (estimated rows settle by a pixel or two);
 * the virtual list's virtualiser follows by the same rule (`scrollEndThreshold`).
 */
export const END_SLACK_PX = 4;

export interface ListGrowth {
  /** Whether the list showed its end when the user last scrolled it (a new view opens there). */
  atEnd: RefObject<boolean>;
  /** Rows that came below since the user left the end. */
  below: number;
  /** The list's scroll handler. */
  onScroll(): void;
}

/**
 * Runs `open` (in a layout effect) for each `view` of `rows` rows but one
 * grown from the view drawn before; counts the rows a grown one adds while
 * the list is not at its end.
 */
export function useListGrowth(
  view: ContextView,
  rows: number,
  scrollRef: RefObject<HTMLElement | null>,
  open: () => void,
): ListGrowth {
  const drawn = useRef<{ view: ContextView; rows: number } | null>(null);
  const atEnd = useRef(true);
  const [below, setBelow] = useState(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs once per view, with that render's rows and `open`
  useLayoutEffect(() => {
    const before = drawn.current;
    drawn.current = { view, rows };
    if (before === null || !grownFrom(before.view, view)) {
      atEnd.current = true;
      setBelow(0);
      open();
    } else if (!atEnd.current && rows > before.rows) {
      const added = rows - before.rows;
      setBelow((count) => count + added);
    }
  }, [view]);
  const onScroll = useCallback(() => {
    const element = scrollRef.current;
    if (!element) return;
    atEnd.current = element.scrollTop + element.clientHeight >= element.scrollHeight - END_SLACK_PX;
    if (atEnd.current) setBelow(0);
  }, [scrollRef]);
  return { atEnd, below, onScroll };
}

/** Over the list's bottom edge: how many rows came below, a button to the end. */
export function NewBelow({ count, toEnd }: { count: number; toEnd: () => void }) {
  if (count === 0) return null;
  return (
    <div className="new-below">
      <button type="button" className="new-below-button" onClick={toEnd}>
        ↓ {localFigure(count)} new {count === 1 ? "message" : "messages"}
      </button>
    </div>
  );
}
