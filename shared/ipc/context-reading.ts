/**
 * The client's side of contexts in pages: the pages a window holds of one
 * context (its view's own window first, then what `session.contextPage`
 * answered), where they leave gaps, and the whole context put together from
 * them, fetching the gaps. Pure but for the fetches it is handed.
 */

import { sessionErrors } from "../error-texts.ts";
import type { ArborClient } from "./contract.ts";
import type { ContextPage, ContextPageRequest, ContextView } from "./context-view.ts";
import { CONTEXT_PAGE_MAX_MESSAGES } from "./context-view.ts";
import { llmIndexOf } from "./context-pages.ts";
import type { TextCut } from "./text-pages.ts";

export type FetchContextPage = (request: ContextPageRequest) => Promise<ContextPage>;

/** The view's own window as a page. */
export function pageOfView(view: ContextView): ContextPage {
  const page: ContextPage = { from: view.messagesFrom, messages: view.messages, llm: view.llm };
  if (view.cuts) page.cuts = view.cuts;
  return page;
}

/**
 * Whether `after` is `before` grown at its end, as a followed leaf's context
 * is: its first `before.messageCount` messages are `before`'s. An entry's
 * path up from it never changes, so the same last message (by entry) under
 * the same compaction and context edits means the same messages before it.
 * Decided from the windows both carry: false when `after`'s no longer
 * reaches back to `before`'s last message.
 */
export function grownFrom(before: ContextView, after: ContextView): boolean {
  const last = before.messageCount - 1;
  if (last < 0 || after.messageCount <= last) return false;
  if ((before.llm === null) !== (after.llm === null)) return false;
  if (before.compaction?.entryId !== after.compaction?.entryId) return false;
  if (
    before.edits.length !== after.edits.length ||
    before.edits.some((edit, k) => edit.editId !== after.edits[k]!.editId)
  )
    return false;
  const was = before.messages[last - before.messagesFrom];
  const is = after.messages[last - after.messagesFrom];
  return was !== undefined && is !== undefined && was.entryId === is.entryId;
}

/**
 * The pages of `after`, grown from the view `pages` were held for
 * (`grownFrom`): what they hold before its window, which is still the same
 * messages (a page reaching into the window is cut at its start), then the
 * window itself.
 */
export function grownPages(pages: readonly ContextPage[], after: ContextView): readonly ContextPage[] {
  const start = after.messagesFrom;
  const kept: ContextPage[] = [];
  for (const page of pages) {
    if (page.from + page.messages.length <= start) kept.push(page);
    else if (page.from < start) kept.push(pageCutAt(page, start, after.llmSkipped ?? []));
  }
  return [...kept, pageOfView(after)];
}

/** `page` without its messages from `end` on, and their model's form and cut texts. */
function pageCutAt(page: ContextPage, end: number, llmSkipped: readonly number[]): ContextPage {
  const messages = page.messages.slice(0, end - page.from);
  const llmEnd = llmIndexOf(llmSkipped, end);
  const llm = page.llm ? page.llm.slice(0, llmEnd - llmIndexOf(llmSkipped, page.from)) : null;
  const cut: ContextPage = { from: page.from, messages, llm };
  const cuts = page.cuts?.filter((each) => Number(each.path[1]) < (each.path[0] === "llm" ? llmEnd : end));
  if (cuts && cuts.length > 0) cut.cuts = cuts;
  return cut;
}

/** Pages sorted by `from`, none overlapping another: `page` added (a page overlapping one held is ignored). */
export function withPage(pages: readonly ContextPage[], page: ContextPage): readonly ContextPage[] {
  if (page.messages.length === 0) return pages;
  const end = page.from + page.messages.length;
  let at = 0;
  while (at < pages.length && pages[at]!.from < page.from) at++;
  const before = pages[at - 1];
  const after = pages[at];
  if (before && before.from + before.messages.length > page.from) return pages;
  if (after && after.from < end) return pages;
  return [...pages.slice(0, at), page, ...pages.slice(at)];
}

/** The page holding message `index`, if one is held. */
export function pageAt(pages: readonly ContextPage[], index: number): ContextPage | undefined {
  let low = 0;
  let high = pages.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const page = pages[middle]!;
    if (page.from + page.messages.length <= index) low = middle + 1;
    else high = middle;
  }
  const page = pages[low];
  return page && page.from <= index ? page : undefined;
}

/** The gap (`[from, to)` of messages no page holds) that holds `index`; undefined when a page holds it. */
export function gapAt(
  pages: readonly ContextPage[],
  messageCount: number,
  index: number,
): { from: number; to: number } | undefined {
  if (index < 0 || index >= messageCount || pageAt(pages, index)) return undefined;
  let from = 0;
  let to = messageCount;
  for (const page of pages) {
    const end = page.from + page.messages.length;
    if (end <= index) from = Math.max(from, end);
    else if (page.from > index) {
      to = page.from;
      break;
    }
  }
  return { from, to };
}

/** Every gap, in order. */
export function gaps(pages: readonly ContextPage[], messageCount: number): { from: number; to: number }[] {
  const found: { from: number; to: number }[] = [];
  let at = 0;
  for (const page of pages) {
    if (page.from > at) found.push({ from: at, to: page.from });
    at = Math.max(at, page.from + page.messages.length);
  }
  if (at < messageCount) found.push({ from: at, to: messageCount });
  return found;
}

/** How many messages the pages hold. */
export function heldCount(pages: readonly ContextPage[]): number {
  let count = 0;
  for (const page of pages) count += page.messages.length;
  return count;
}

/**
 * The whole context (`messagesFrom` 0, every message, the model's form of
 * them all with `llm`, every cut) from `view` and the pages held of it,
 * fetching the gaps first. `progress` hears how many messages are held as
 * pages arrive.
 */
export async function wholeContext(
  view: ContextView,
  held: readonly ContextPage[],
  fetchPage: FetchContextPage,
  progress?: (held: number, of: number) => void,
): Promise<ContextView> {
  let pages = withPage(held, pageOfView(view));
  const llm = view.llm !== null;
  for (const gap of gaps(pages, view.messageCount)) {
    for (let from = gap.from; from < gap.to; ) {
      const count = Math.min(gap.to - from, CONTEXT_PAGE_MAX_MESSAGES);
      const page = await fetchPage({ leafId: view.leafId, llm, from, count });
      if (page.from !== from || page.messages.length === 0 || page.messages.length > count) {
        throw new Error(sessionErrors.pageNotAsked(from));
      }
      pages = withPage(pages, page);
      from += page.messages.length;
      progress?.(heldCount(pages), view.messageCount);
    }
  }
  return joinPages(view, pages);
}

/** The whole context from pages that hold every message of it. */
export function joinPages(view: ContextView, pages: readonly ContextPage[]): ContextView {
  const messages: ContextView["messages"] = [];
  const llm: NonNullable<ContextView["llm"]> = [];
  const cuts: TextCut[] = [];
  for (const page of pages) {
    if (page.from !== messages.length) throw new Error(sessionErrors.contextGap(messages.length));
    for (const message of page.messages) messages.push(message);
    for (const message of page.llm ?? []) llm.push(message);
    for (const cut of page.cuts ?? []) cuts.push(cut);
  }
  if (messages.length !== view.messageCount) throw new Error(sessionErrors.contextGap(messages.length));
  const { cuts: _viewCuts, ...rest } = view;
  const whole: ContextView = { ...rest, messagesFrom: 0, messages, llm: view.llm === null ? null : llm };
  if (cuts.length > 0) whole.cuts = cuts;
  return whole;
}

/** The whole context from `leafId`: `session.context`, then every page it did not carry. */
export async function readWholeContext(
  client: Pick<ArborClient, "request">,
  leafId: string | null,
  llm: boolean,
): Promise<ContextView> {
  const view = await client.request("session.context", { leafId, llm });
  return wholeContext(view, [], (request) => client.request("session.contextPage", request));
}
