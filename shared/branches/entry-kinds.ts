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
import { isKnownEntryType, type KnownEntryType, type SessionEntry } from "../session/types.ts";

/** `customType` prefix of the `custom` entries Arbor writes (marks, archive state...). */
export const ARBOR_CUSTOM_PREFIX = "arbor.";

/**
 * Which entry types only mark something: a label, a session name, and
 * `custom` entries when they are Arbor's own ("arbor"). A new Pi entry type
 * must be placed here (the record is keyed by every known type).
 */
const MARKER_TYPES: Readonly<Record<KnownEntryType, boolean | "arbor">> = {
  message: false,
  custom_message: false,
  compaction: false,
  branch_summary: false,
  custom: "arbor",
  model_change: false,
  thinking_level_change: false,
  label: true,
  session_info: true,
  usage: false,
  context_edit: false,
};

function markerType(type: unknown): boolean | "arbor" {
  return isKnownEntryType(type) ? MARKER_TYPES[type] : false;
}

/**
 * An entry that marks something without being part of the work: a label, a
 * session name, one of Arbor's own `custom` entries. A branch's tip is its
 * last entry that is not one of these, so appending a label makes no branch.
 * (The model reads the same from the entry's facts: `marksOnly`.)
 */
export function isMarker(entry: SessionEntry): boolean {
  const marker = markerType(entry.type);
  if (marker !== "arbor") return marker;
  return typeof entry.customType === "string" && entry.customType.startsWith(ARBOR_CUSTOM_PREFIX);
}

/** A turn starts at a user message or an extension's `custom_message` (for a message, `kind` is its role). */
export function startsTurn(facts: EntryFacts): boolean {
  return facts.role === "user" || (facts.role === undefined && facts.kind === "custom_message");
}

/** `isMarker` from an entry's facts (a `custom` entry's preview is its `customType`). */
export function marksOnly(facts: EntryFacts): boolean {
  if (facts.role !== undefined) return false;
  const marker = markerType(facts.kind);
  if (marker !== "arbor") return marker;
  return facts.preview.startsWith(ARBOR_CUSTOM_PREFIX);
}

/** An assistant message with text: what "the last answer" of a run is. */
export function isAnswer(facts: EntryFacts): boolean {
  return facts.role === "assistant" && facts.hasText;
}

/** A tool result with `isError`, or a bash execution that exited non-zero. */
export function isToolError(facts: EntryFacts): boolean {
  return facts.isError && (facts.role === "toolResult" || facts.role === "bashExecution");
}
