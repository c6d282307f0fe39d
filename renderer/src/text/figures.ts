/**
 * Counts as text. `Number.prototype.toLocaleString` resolves its locale at
 * every call (about 20 µs in Chromium); these formatters are made once (under
 * a microsecond a call), which matters where a count is written at each
 * change of a store, as while a live session follows a burst of appends.
 */

const EN_US = new Intl.NumberFormat("en-US");
const USERS = new Intl.NumberFormat();

/** "12,345": the status line's and the branch views' figures, as the tests read them. */
export function figure(n: number): string {
  return EN_US.format(n);
}

/** A count in the user's own locale. */
export function localFigure(n: number): string {
  return USERS.format(n);
}
