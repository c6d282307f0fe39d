/**
 * Entries and contexts as answers: their long strings cut short
 * (shared/ipc/text-pages.ts), and the pages of what was cut. The whole value
 * a page comes from is kept (one, the last asked for), so that "show all" of
 * a 300 MB text reads and parses its line once, not once per page.
 */

import { ArborError, type ContextView, type EntryDetail, type TextPath } from "../../shared/ipc/contract.ts";
import { sessionErrors } from "../../shared/error-texts.ts";
import { stringAt, TEXT_CUT_SHORT_CHARS, TextCutter, textPage } from "../../shared/ipc/text-pages.ts";

export type TextSource = { entryId: string } | { leafId: string | null; llm: boolean };

/** The entry's detail with its long strings cut short. */
export function cutEntryDetail(detail: EntryDetail): EntryDetail {
  const cutter = new TextCutter();
  const entry = cutter.cut(detail.entry, []);
  return cutter.cuts.length === 0 ? detail : { ...detail, entry, cuts: cutter.cuts };
}

/**
 * The context with its long strings cut short. `lineBytes`: the length of an
 * entry's line, when the index is at hand: a message from a line of at most
 * `TEXT_CUT_SHORT_CHARS` bytes holds no string to cut and is not walked (a
 * string has no more characters than its JSON has bytes), unless an edit
 * gave it another entry's content.
 */
export function cutContextView(
  view: ContextView,
  lineBytes?: (entryId: string) => number | undefined,
): ContextView {
  const cutter = new TextCutter();
  const edited = new Set(view.edits.map((edit) => edit.targetId));
  let messages = view.messages;
  view.messages.forEach((item, i) => {
    const bytes = lineBytes?.(item.entryId);
    if (bytes !== undefined && bytes <= TEXT_CUT_SHORT_CHARS && !edited.has(item.entryId)) return;
    const cut = cutter.cut(item, ["messages", i]);
    if (cut === item) return;
    if (messages === view.messages) messages = [...messages];
    messages[i] = cut;
  });
  const { messages: _messages, ...rest } = view;
  const cutRest = cutter.cut(rest, []);
  return cutter.cuts.length === 0 ? view : { ...cutRest, messages, cuts: cutter.cuts };
}

/** The last whole value a page was read from, and reading pages of it. */
export class WholeTexts {
  private last: { key: string; value: unknown } | undefined;

  constructor(
    /** The whole entry (`entry`) or context (`context`) a source names; throws when there is none. */
    private readonly whole: (source: TextSource) => unknown,
  ) {}

  page(source: TextSource, path: TextPath, offset: number, length: number): { text: string; length: number } {
    const key = "entryId" in source ? `entry\0${source.entryId}` : `context\0${source.leafId}\0${source.llm}`;
    if (this.last?.key !== key) this.last = { key, value: this.whole(source) };
    const text = stringAt(this.last.value, path);
    if (text === undefined) throw new ArborError("not-found", sessionErrors.noText(path.join(".")));
    return textPage(text, offset, length);
  }

  /** Lets go of the value kept (the session closed). */
  clear(): void {
    this.last = undefined;
  }
}
