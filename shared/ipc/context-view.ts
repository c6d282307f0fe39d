/**
 * What `session.context` and `session.contextPage` answer (the contract
 * re-exports these). A context travels in pages of messages: an answer
 * carries a window of them, never more than about `CONTEXT_ANSWER_BUDGET_BYTES`
 * of JSON in messages (its long strings are cut besides: text-pages.ts), so a
 * context 100k messages long is not one 120 MB answer.
 */

import type { AppliedContextEdit, CompactionInEffect } from "../session/context.ts";
import type { AgentMessage, LlmMessage, ModelRef } from "../session/types.ts";
import type { TextCut } from "./text-pages.ts";

/** The most messages one context answer carries (and one `session.contextPage` asks for). */
export const CONTEXT_PAGE_MAX_MESSAGES = 2_000;

/**
 * About the most JSON one context answer carries in messages, as estimated
 * (context-pages.ts: each message by its line's length, capped at what the
 * text cutter leaves of a string). The cutter's own budget for long strings
 * (`ANSWER_TEXT_MAX_CHARS`) bounds what a few huge messages add to it.
 */
export const CONTEXT_ANSWER_BUDGET_BYTES = 2 * 1024 * 1024;

/**
 * The most messages the first answer of a context (`session.context`) carries:
 * the end the preview opens on, many screens of it. Following a live session
 * asks for the leaf's context several times a second, and the page parses,
 * shades and lists each answer; the rest comes a page at a time as the list
 * scrolls up to it.
 */
export const CONTEXT_FIRST_WINDOW_MESSAGES = 200;

export interface ContextMessageView {
  entryId: string;
  message: AgentMessage;
  tokenEstimate: number;
}

/**
 * The context Pi would send from a leaf: its figures over all its messages,
 * and a window of the messages themselves (`messagesFrom` to
 * `messagesFrom + messages.length`). The window is all of them when they fit
 * the first window (`CONTEXT_FIRST_WINDOW_MESSAGES`, within the answer budget);
 * else `session.context` sends the context's end (the preview opens at its
 * end) and `session.contextPage` the rest, in larger pages. A view built whole
 * (`contextView` in views.ts) has them all, from 0.
 */
export interface ContextView {
  /**
   * Strings cut short; each path is from the root of the WHOLE context:
   * `["messages", index in all messages, ...]`, `["llm", index in all llm
   * messages, ...]`, so `session.text` finds it whatever page it came in.
   * Absent when none was.
   */
  cuts?: TextCut[];
  leafId: string | null;
  /** How many messages the whole context holds. */
  messageCount: number;
  /** The index in the whole context of `messages[0]`. */
  messagesFrom: number;
  messages: ContextMessageView[];
  /** `convertToLlm` of `messages` (the window's), when asked for. */
  llm: LlmMessage[] | null;
  /**
   * With `llm`: the indices (in all messages, ascending) of the messages
   * `convertToLlm` leaves out (bash runs excluded from the context, unknown
   * roles). The model's k-th message is the k-th message not listed, and the
   * model sees `messageCount - llmSkipped.length` in all. Null without `llm`.
   */
  llmSkipped: number[] | null;
  thinkingLevel: string;
  model: ModelRef | null;
  compaction: CompactionInEffect | null;
  edits: AppliedContextEdit[];
  /** Pi's estimate over all the messages. */
  tokenEstimate: number;
  /** Input tokens reported by the last assistant message on the path, if any. */
  lastInputTokens: number | null;
  /** The sum of `usage.cost.total` of all the assistant messages that recorded one, and how many did. */
  cost: { total: number; answers: number };
  /**
   * Which entries of the leaf's path give the context a message, without
   * listing their ids: walking the path from the leaf up to its first entry,
   * the lengths of alternating runs of entries that do and entries that do
   * not, starting with those that do (so a leading 0 when the leaf gives
   * none). A chain of 100k messages is `[100000]`. The graph shades by it.
   */
  pathRuns: number[];
}

/** What `session.contextPage` is asked: a range of the messages of the context from `leafId`. */
export interface ContextPageRequest {
  leafId: string | null;
  llm: boolean;
  /** The index in the whole context of the first message. */
  from: number;
  /** At most `CONTEXT_PAGE_MAX_MESSAGES`. */
  count: number;
}

/**
 * A page of a context's messages: from `from`, as many of the `count` asked
 * for as fit one answer (at least one, unless `from` is the end). `llm` is
 * `convertToLlm` of these messages, so pages in order concatenate to the
 * whole context; cut paths are the whole context's, as in `ContextView`.
 */
export interface ContextPage {
  from: number;
  messages: ContextMessageView[];
  llm: LlmMessage[] | null;
  cuts?: TextCut[];
}
