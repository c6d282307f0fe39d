/**
 * How the branch model and the compare engine read an entry: where a turn
 * starts, which entries only mark something (a label, a name, Arbor's own
 * marks) and so never make a branch, and what an answer is. Each test reads
 * only what a stub keeps (type, `customType`, the message's role) or the
 * entry's facts, so it costs no body read. The branch model asks per entry
 * of 100k: it reads the facts (objects of one shape) rather than the
 * entries (of many shapes, which makes each property read slow).
 */

import type { EntryFacts } from "../session/facts.ts";
import type { SessionEntry } from "../session/types.ts";

/** `customType` prefix of the `custom` entries Arbor writes (marks, archive state...). */
export const ARBOR_CUSTOM_PREFIX = "arbor.";

/**
 * An entry that marks something without being part of the work: a label, a
 * session name, one of Arbor's own `custom` entries. A branch's tip is its
 * last entry that is not one of these, so appending a label makes no branch.
 * (The model reads the same from the entry's facts: `marksOnly`.)
 */
export function isMarker(entry: SessionEntry): boolean {
  if (entry.type === "label" || entry.type === "session_info") return true;
  return (
    entry.type === "custom" &&
    typeof entry.customType === "string" &&
    entry.customType.startsWith(ARBOR_CUSTOM_PREFIX)
  );
}

/** A turn starts at a user message or an extension's `custom_message` (for a message, `kind` is its role). */
export function startsTurn(facts: EntryFacts): boolean {
  return facts.role === "user" || (facts.role === undefined && facts.kind === "custom_message");
}

/** `isMarker` from an entry's facts (a `custom` entry's preview is its `customType`). */
export function marksOnly(facts: EntryFacts): boolean {
  if (facts.role !== undefined) return false;
  const kind = facts.kind;
  return (
    kind === "label" ||
    kind === "session_info" ||
    (kind === "custom" && facts.preview.startsWith(ARBOR_CUSTOM_PREFIX))
  );
}

/** An assistant message with text: what "the last answer" of a run is. */
export function isAnswer(facts: EntryFacts): boolean {
  return facts.role === "assistant" && facts.hasText;
}

/** A tool result with `isError`, or a bash execution that exited non-zero. */
export function isToolError(facts: EntryFacts): boolean {
  return facts.isError && (facts.role === "toolResult" || facts.role === "bashExecution");
}
