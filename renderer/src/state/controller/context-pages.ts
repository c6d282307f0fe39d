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
import { contextAsJson, contextAsMarkdown } from "../../../../shared/export/context-markdown.ts";
import type { ContextPageRequest, ContextView } from "../../../../shared/ipc/contract.ts";
import { messageOfRow } from "../../../../shared/ipc/context-pages.ts";
import { gaps, wholeContext, withPage } from "../../../../shared/ipc/context-reading.ts";
import type { Controller } from "./api.ts";
import { type ControllerKit, messageOf, type Timer } from "./kit.ts";
import { localFigure } from "../../text/figures.ts";

/** Messages fetched around the rows shown: about a screen's worth of scrolling either way, and more. */
export const PAGE_AROUND_ROWS = 400;

/** A copy that has pages to fetch first says so once it has taken this long. */
const COPY_NOTICE_AFTER_MS = 400;

export interface ContextPagesPart {
  readonly actions: Pick<Controller, "showContextRows" | "copyContext">;
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
      if (!kit.isDisposed() && context.getState().view === view) {
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
      copyContext: (format) => copyContext(kit, format),
      showContextRows(firstRow, lastRow) {
        const { view, forMode } = context.getState();
        if (!view) return;
        const llm = forMode === "llm";
        wanted = { first: messageOfRow(view, llm, firstRow), last: messageOfRow(view, llm, lastRow) };
        void fetchNext();
      },
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

/** Copies the context on view, fetched whole first when its pages are not all held. */
async function copyContext(kit: ControllerKit, format: "json" | "markdown"): Promise<void> {
  const { context } = kit.stores;
  const { notify } = kit;
  // While the selection's context loads, the one on view is the last selection's: the copy waits for it.
  await settled(context);
  if (kit.isDisposed() || context.getState().status !== "ready") return;
  const current = context.getState().view;
  if (!current) return;
  const { mode, pages } = context.getState();
  let timer: Timer | null = null;
  try {
    let copied = current;
    if (current.messages.length < current.messageCount) {
      // Page after page, which a large context makes seconds: said once it takes a while.
      timer = kit.later(COPY_NOTICE_AFTER_MS, () =>
        notify("info", `Fetching all ${localFigure(current.messageCount)} messages of the context to copy…`),
      );
      copied = await wholeContext(current, pages, (request) =>
        kit.client.request("session.contextPage", request),
      );
    }
    const text = format === "json" ? contextAsJson(copied, mode) : contextAsMarkdown(copied, mode);
    await kit.writeClipboard(text);
    notify("info", format === "json" ? "Context copied as JSON." : "Context copied as Markdown.");
  } catch (error) {
    notify("error", screenErrors.contextNotCopied(messageOf(error)));
  } finally {
    if (timer !== null) kit.cancel(timer);
  }
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

/** Resolves once the context asked for last is no longer loading (at once when it is not). */
function settled(context: ControllerKit["stores"]["context"]): Promise<void> {
  if (context.getState().status !== "loading") return Promise.resolve();
  return new Promise((resolve) => {
    const stop = context.subscribe((state) => {
      if (state.status === "loading") return;
      stop();
      resolve();
    });
  });
}
