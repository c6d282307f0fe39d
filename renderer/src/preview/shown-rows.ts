/**
 * Which rows the virtual list of a long context shows, told to the
 * controller so that it fetches their pages (issue 20). A new view opens at
 * its end: the rows drawn before the list got there (the top ones, for a
 * frame) are not told, or each open would fetch a page nobody looks at.
 */

import type { Virtualizer } from "@tanstack/react-virtual";
import { useCallback, useLayoutEffect, useRef } from "react";

/**
 * Tells `onRows` the rows drawn, once the opening of `view` is over: the
 * rows reach the list's end, or the user scrolls by key (`endOpening`, which
 * tells the rows drawn then).
 */
export function useShownRows(
  virtualizer: Virtualizer<HTMLElement, Element>,
  view: unknown,
  count: number,
  onRows: (first: number, last: number) => void,
): { startOpening(): void; endOpening(): void } {
  const opening = useRef(false);
  const rows = virtualizer.getVirtualItems();
  const first = rows[0]?.index;
  const last = rows.at(-1)?.index;
  const shown = useRef<{ first: number; last: number } | null>(null);
  shown.current = first === undefined || last === undefined ? null : { first, last };
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs for each view, whose opening it watches
  useLayoutEffect(() => {
    if (first === undefined || last === undefined) return;
    if (last === count - 1) opening.current = false;
    if (!opening.current) onRows(first, last);
  }, [view, first, last, count, onRows]);
  const startOpening = useCallback(() => {
    opening.current = true;
  }, []);
  const endOpening = useCallback(() => {
    if (!opening.current) return;
    opening.current = false;
    if (shown.current) onRows(shown.current.first, shown.current.last);
  }, [onRows]);
  return { startOpening, endOpening };
}
