/**
 * The cost of a context's path, pure: the sum of `usage.cost.total` of the
 * assistant messages the context holds, as Pi recorded them. A compaction
 * in effect replaced the messages before it, so their cost is not in the
 * sum: `sinceCompaction` says so.
 */

import type { ContextView } from "../../../shared/ipc/contract.ts";

export interface PathCost {
  /** Dollars. */
  cost: number;
  /** Answers that recorded a cost. */
  answers: number;
  /** The sum starts at a compaction: what came before it is not counted. */
  sinceCompaction: boolean;
}

/** Summed over all the context's messages where it was built (shared/ipc/leaf-context.ts): a page holds only some. */
export function pathCost(view: ContextView): PathCost {
  return { cost: view.cost.total, answers: view.cost.answers, sinceCompaction: view.compaction !== null };
}

/** What each figure of the preview header means, shown on hover. */
export const FIGURE_EXPLANATIONS = {
  estimated:
    "Estimated: Pi's estimate of the context's size from its text (about 4 characters a token), as Pi counts it before sending",
  lastInput:
    "Last input: the input tokens the provider reported for the last answer on this path (cache reads included), the context's real size then",
  cost: "Cost: sum of usage.cost.total of the assistant messages on this path, as recorded by Pi",
  costSinceCompaction:
    "Cost: sum of usage.cost.total of the assistant messages in this context, as recorded by Pi; the answers before the compaction in effect are not counted",
} as const;
