/**
 * A whole context (leaf-context.ts) in pages of messages: which messages fit
 * one answer, the window `session.context` sends (the last page, or all), and
 * the pages of `session.contextPage`. Sizes are estimated, not measured: each
 * message by the length of its entry's line where the index knows it (its
 * token estimate × 4 otherwise), capped at what the text cutter leaves of a
 * long string, plus what the message costs beyond its content; twice that
 * with the model's form, which repeats the content. Pure.
 */

import {
  CONTEXT_ANSWER_BUDGET_BYTES,
  CONTEXT_FIRST_WINDOW_MESSAGES,
  CONTEXT_PAGE_MAX_MESSAGES,
} from "./context-view.ts";
import type { ContextPage, ContextView } from "./context-view.ts";
import { TEXT_BLOCK_MAX_CHARS } from "./text-pages.ts";

/** What a message costs an answer beyond its content: its entry id, its estimate, the keys. */
export const MESSAGE_OVERHEAD_BYTES = 160;

/** How much one answer may carry: estimated JSON bytes of messages, and messages. */
export interface PageBudget {
  bytes: number;
  messages: number;
}

export const ANSWER_BUDGET: PageBudget = {
  bytes: CONTEXT_ANSWER_BUDGET_BYTES,
  messages: CONTEXT_PAGE_MAX_MESSAGES,
};

/** A whole context (`messagesFrom` 0, every message) with each message's estimated size in an answer. */
export interface PagedContext {
  whole: ContextView;
  sizes: Float64Array;
  budget: PageBudget;
}

/**
 * The whole context ready to page. `lineBytes`: the length of an entry's
 * line, when the index is at hand (a message edited by a context edit is
 * estimated by its tokens: its content is another entry's).
 */
export function pagedContext(
  whole: ContextView,
  lineBytes?: (entryId: string) => number | undefined,
  budget: PageBudget = ANSWER_BUDGET,
): PagedContext {
  const edited = new Set(whole.edits.map((edit) => edit.targetId));
  const skipped = new Set(whole.llmSkipped ?? []);
  const forms = whole.llm === null ? 1 : 2;
  const sizes = new Float64Array(whole.messages.length);
  whole.messages.forEach((item, i) => {
    const line = edited.has(item.entryId) ? undefined : lineBytes?.(item.entryId);
    const content = Math.min(line ?? item.tokenEstimate * 4, TEXT_BLOCK_MAX_CHARS);
    sizes[i] = (content + MESSAGE_OVERHEAD_BYTES) * (skipped.has(i) ? 1 : forms);
  });
  return { whole, sizes, budget };
}

/** How many messages from `from` (at most `count`) fit one answer: at least one, unless none is left. */
export function pageLength(paged: PagedContext, from: number, count: number): number {
  const { sizes, budget } = paged;
  const end = Math.min(sizes.length, from + Math.min(count, budget.messages));
  let bytes = 0;
  let at = from;
  while (at < end) {
    bytes += sizes[at]!;
    if (bytes > budget.bytes && at > from) break;
    at++;
  }
  return at - from;
}

/** Where the last page within `budget` starts: 0 when the whole context fits. */
export function lastPageFrom(paged: PagedContext, budget: PageBudget = paged.budget): number {
  const { sizes } = paged;
  const stop = Math.max(0, sizes.length - budget.messages);
  let bytes = 0;
  let at = sizes.length;
  while (at > stop) {
    bytes += sizes[at - 1]!;
    if (bytes > budget.bytes && at < sizes.length) break;
    at--;
  }
  return at;
}

/** How many of the model's messages come before message `index`: `index` less those it leaves out before it. */
export function llmIndexOf(skipped: readonly number[], index: number): number {
  return index - countBelow(skipped, index);
}

/** The index (in all messages) of the model's message `llmIndex`. */
export function messageIndexOfLlm(skipped: readonly number[], llmIndex: number): number {
  // The smallest index whose messages up to it, less those left out, are `llmIndex + 1`.
  let low = llmIndex;
  let high = llmIndex + skipped.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (middle + 1 - countBelow(skipped, middle + 1) >= llmIndex + 1) high = middle;
    else low = middle + 1;
  }
  return low;
}

/** How many rows a list of the context's messages has: all of them, or (`llm`) those the model sees. */
export function rowCount(view: ContextView, llm: boolean): number {
  return llm && view.llmSkipped ? view.messageCount - view.llmSkipped.length : view.messageCount;
}

/** The message (its index in the whole context) that row `row` of such a list shows. */
export function messageOfRow(view: ContextView, llm: boolean, row: number): number {
  return llm && view.llmSkipped ? messageIndexOfLlm(view.llmSkipped, row) : row;
}

/** How many of the ascending `values` are below `limit`. */
function countBelow(values: readonly number[], limit: number): number {
  let low = 0;
  let high = values.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (values[middle]! < limit) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The messages `from` to `from + length` of the whole context, with their model form when it has one. */
export function contextPageOf(paged: PagedContext, from: number, length: number): ContextPage {
  const { whole } = paged;
  const end = Math.min(from + length, whole.messages.length);
  const messages = whole.messages.slice(from, end);
  if (whole.llm === null || whole.llmSkipped === null) return { from, messages, llm: null };
  const skipped = whole.llmSkipped;
  return { from, messages, llm: whole.llm.slice(llmIndexOf(skipped, from), llmIndexOf(skipped, end)) };
}

/** The view `session.context` answers: the whole context's figures with the window from `from`. */
export function contextWindow(paged: PagedContext, from: number): ContextView {
  const page = contextPageOf(paged, from, paged.whole.messages.length - from);
  return { ...paged.whole, messagesFrom: from, messages: page.messages, llm: page.llm };
}

/**
 * The window `session.context` answers: the context's end, at most
 * `CONTEXT_FIRST_WINDOW_MESSAGES` (or the pages' count when smaller) within
 * the pages' bytes, or the whole context when it fits.
 */
export function lastWindow(paged: PagedContext): ContextView {
  const first: PageBudget = {
    bytes: paged.budget.bytes,
    messages: Math.min(paged.budget.messages, CONTEXT_FIRST_WINDOW_MESSAGES),
  };
  return contextWindow(paged, lastPageFrom(paged, first));
}
