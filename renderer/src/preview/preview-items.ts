/**
 * The preview's rows, pure: one per message of the context (the agent's
 * messages, or the model's with "What the model sees"), each drawn from the
 * page that holds it, or not yet there while its page is fetched.
 */

import type { ContextPage, ContextView } from "../../../shared/ipc/contract.ts";
import { llmIndexOf, messageOfRow } from "../../../shared/ipc/context-pages.ts";
import { pageAt } from "../../../shared/ipc/context-reading.ts";
import type { ContextMode } from "../state/stores.ts";

export interface PreviewItem {
  key: string;
  entryId: string | null;
  message: unknown;
  tokenEstimate: number | null;
}

/**
 * The item of row `row`, or undefined while no page holds it. A model's
 * message is paired with the entry of the message it is the form of: the
 * view lists the messages the model never sees (`llmSkipped`), so the pairing
 * holds in any page.
 */
export function previewItem(
  view: ContextView,
  pages: readonly ContextPage[],
  mode: ContextMode,
  row: number,
): PreviewItem | undefined {
  const index = messageOfRow(view, mode === "llm", row);
  const page = pageAt(pages, index);
  if (!page) return undefined;
  const item = page.messages[index - page.from]!;
  if (mode === "agent" || !page.llm || !view.llmSkipped) {
    return {
      key: `${index}:${item.entryId}`,
      entryId: item.entryId,
      message: item.message,
      tokenEstimate: item.tokenEstimate,
    };
  }
  const message = page.llm[row - llmIndexOf(view.llmSkipped, page.from)];
  return { key: `llm:${row}`, entryId: item.entryId, message, tokenEstimate: null };
}

/** Every row's item while every page is held (else null): a short context is drawn plainly. */
export function heldItems(
  view: ContextView,
  pages: readonly ContextPage[],
  mode: ContextMode,
  count: number,
): PreviewItem[] | null {
  const items: PreviewItem[] = [];
  for (let row = 0; row < count; row++) {
    const item = previewItem(view, pages, mode, row);
    if (!item) return null;
    items.push(item);
  }
  return items;
}
