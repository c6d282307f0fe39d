/**
 * The pages of the context on view (issue 20): a long context comes as its
 * last page (`session.context`); the preview says which rows it shows
 * (`showContextRows`) and the pages around them are fetched with
 * `session.contextPage`, one request at a time, the rows last shown winning.
 * Pages belong to the view they were fetched for: a new view (another
 * selection, session or form) starts again from its own window. Copying the
 * context fetches what is not held first.
 */

import { screenErrors } from "../../../../shared/error-texts.ts";
import type { ContextPageRequest, ContextView } from "../../../../shared/ipc/contract.ts";
import { messageOfRow } from "../../../../shared/ipc/context-pages.ts";
import { gaps, wholeContext, withPage } from "../../../../shared/ipc/context-reading.ts";
import type { Controller } from "./api.ts";
import { type ControllerKit, messageOf } from "./kit.ts";

/** Messages fetched around the rows shown: about a screen's worth of scrolling either way, and more. */
export const PAGE_AROUND_ROWS = 400;

export interface ContextPagesPart {
  readonly actions: Pick<Controller, "showContextRows">;
  /** The whole context on view (every message), fetching the pages not held; `progress` hears how far. */
  whole(view: ContextView, progress?: (held: number, of: number) => void): Promise<ContextView>;
  subscribe(): void;
}

export function createContextPages(kit: ControllerKit): ContextPagesPart {
  const { context } = kit.stores;
  /** The rows the preview shows now, as message indices (`[first, last]`). */
  let wanted: { first: number; last: number } | null = null;
  let out = false;

  async function fetchNext(): Promise<void> {
    if (out || kit.isDisposed()) return;
    const { view, pages, status } = context.getState();
    if (!view || status !== "ready" || !wanted) return;
    const request = nextPage(view, pages, wanted);
    if (!request) return;
    out = true;
    try {
      const page = await kit.client.request("session.contextPage", request);
      const now = context.getState();
      if (!kit.isDisposed() && now.view === view) context.setState({ pages: withPage(now.pages, page) });
    } catch (error) {
      // Asked again when the rows shown change; a view gone meanwhile explains itself.
      if (context.getState().view === view) {
        wanted = null;
        kit.notify("error", screenErrors.contextPageNotLoaded(messageOf(error)));
      }
    } finally {
      out = false;
    }
    await fetchNext();
  }

  return {
    actions: {
      showContextRows(firstRow, lastRow) {
        const { view, forMode } = context.getState();
        if (!view) return;
        const llm = forMode === "llm";
        wanted = { first: messageOfRow(view, llm, firstRow), last: messageOfRow(view, llm, lastRow) };
        void fetchNext();
      },
    },
    whole(view, progress) {
      const held = context.getState().view === view ? context.getState().pages : [];
      return wholeContext(
        view,
        held,
        (request) => kit.client.request("session.contextPage", request),
        progress,
      );
    },
    subscribe() {
      kit.own(
        context.subscribe((state, previous) => {
          if (state.view !== previous.view) wanted = null;
        }),
      );
    },
  };
}

/**
 * The page to fetch for the rows shown (`wanted`, message indices): in the
 * first gap they touch, `PAGE_AROUND_ROWS` messages about them; null when
 * every message they show is held.
 */
export function nextPage(
  view: ContextView,
  pages: Parameters<typeof gaps>[0],
  wanted: { first: number; last: number },
): ContextPageRequest | null {
  const last = Math.min(wanted.last, view.messageCount - 1);
  const first = Math.max(0, Math.min(wanted.first, last));
  const gap = gaps(pages, view.messageCount).find((each) => each.from <= last && each.to > first);
  if (!gap) return null;
  const middle = Math.min(Math.max(Math.floor((first + last) / 2), gap.from), gap.to - 1);
  const from = Math.max(gap.from, Math.min(middle - PAGE_AROUND_ROWS / 2, gap.to - PAGE_AROUND_ROWS));
  const count = Math.min(gap.to - from, PAGE_AROUND_ROWS);
  return { leafId: view.leafId, llm: view.llm !== null, from, count };
}
