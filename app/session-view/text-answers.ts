/**
 * Entries and contexts as answers: their long strings cut short
 * (shared/ipc/text-pages.ts), and the pages of what was cut. The whole value
 * a page comes from is kept (one, the last asked for), so that "show all" of
 * a 300 MB text reads and parses its line once, not once per page.
 */

import {
  ArborError,
  type ContextPage,
  type ContextView,
  type EntryDetail,
  type TextPath,
} from "../../shared/ipc/contract.ts";
import { llmIndexOf } from "../../shared/ipc/context-pages.ts";
import { pageOfView } from "../../shared/ipc/context-reading.ts";
import { sessionErrors } from "../../shared/error-texts.ts";
import { stringAt, TEXT_CUT_SHORT_CHARS, TextCutter, textPage } from "../../shared/ipc/text-pages.ts";

export type TextSource = { entryId: string } | { leafId: string | null; llm: boolean };

/** The entry's detail with its long strings cut short. */
export function cutEntryDetail(detail: EntryDetail): EntryDetail {
  const cutter = new TextCutter();
  const entry = cutter.cut(detail.entry, []);
  return cutter.cuts.length === 0 ? detail : { ...detail, entry, cuts: cutter.cuts };
}

/** The length of an entry's line, when the index is at hand. */
export type LineBytes = (entryId: string) => number | undefined;

/**
 * A context's window (`session.context`) with its long strings cut short,
 * each cut's path from the whole context's root (`messagesFrom` on). With
 * `lineBytes`, a message from a line of at most `TEXT_CUT_SHORT_CHARS` bytes
 * holds no string to cut and is not walked (a string has no more characters
 * than its JSON has bytes), unless an edit gave it another entry's content.
 */
export function cutContextView(view: ContextView, lineBytes?: LineBytes): ContextView {
  const cutter = new TextCutter();
  const { messages: _messages, llm: _llm, pathRuns: _runs, llmSkipped: _skipped, ...figures } = view;
  const page = cutPage(cutter, pageOfView(view), view, lineBytes);
  const cutFigures = cutter.cut(figures, []);
  if (cutter.cuts.length === 0) return view;
  return { ...view, ...cutFigures, messages: page.messages, llm: page.llm, cuts: cutter.cuts };
}

/** A page of a context (`session.contextPage`) with its long strings cut short, as `cutContextView`. */
export function cutContextPage(page: ContextPage, whole: ContextView, lineBytes?: LineBytes): ContextPage {
  const cutter = new TextCutter();
  const cut = cutPage(cutter, page, whole, lineBytes);
  return cutter.cuts.length === 0 ? page : { ...cut, cuts: cutter.cuts };
}

function cutPage(
  cutter: TextCutter,
  page: ContextPage,
  whole: Pick<ContextView, "edits" | "llmSkipped">,
  lineBytes: LineBytes | undefined,
): ContextPage {
  const edited = new Set(whole.edits.map((edit) => edit.targetId));
  const short = (entryId: string) => {
    const bytes = lineBytes?.(entryId);
    return bytes !== undefined && bytes <= TEXT_CUT_SHORT_CHARS && !edited.has(entryId);
  };
  let messages = page.messages;
  page.messages.forEach((item, i) => {
    if (short(item.entryId)) return;
    const cut = cutter.cut(item, ["messages", page.from + i]);
    if (cut === item) return;
    if (messages === page.messages) messages = [...messages];
    messages[i] = cut;
  });
  let llm = page.llm;
  const pageLlm = page.llm;
  if (pageLlm !== null) {
    const skipped = whole.llmSkipped ?? [];
    const end = page.from + page.messages.length;
    const left = new Set(skipped.filter((index) => index >= page.from && index < end));
    const sources = page.messages.filter((_, i) => !left.has(page.from + i));
    const llmFrom = llmIndexOf(skipped, page.from);
    pageLlm.forEach((message, k) => {
      // The model's form of most messages is the message itself: as short as its line.
      const source = sources[k];
      if (source?.message === message && short(source.entryId)) return;
      const cut = cutter.cut(message, ["llm", llmFrom + k]);
      if (cut === message) return;
      if (llm === pageLlm) llm = [...pageLlm];
      llm![k] = cut;
    });
  }
  return { from: page.from, messages, llm };
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
