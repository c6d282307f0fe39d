/** How the branch views write their figures: cost, counts, times. Pure. */

import { figure } from "../text/figures.ts";

/** Dollars as Pi's footer writes them: "$1.23", "$0.004" below a cent, "$0" for none. */
export function formatCost(dollars: number): string {
  if (dollars === 0) return "$0";
  if (dollars < 0.01) return `$${dollars.toFixed(3)}`;
  return `$${dollars.toFixed(2)}`;
}

/** "1 entry", "2,345 entries". */
export function count(n: number, one: string, many = `${one}s`): string {
  return `${figure(n)} ${n === 1 ? one : many}`;
}

/** A timestamp as a short date and time in UTC ("2026-09-25 19:13"), or "" when there is none. */
export function shortTime(iso: string | null): string {
  if (iso === null) return "";
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(iso);
  return match ? `${match[1]} ${match[2]}` : iso;
}
