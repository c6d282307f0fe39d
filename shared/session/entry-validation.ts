/**
 * Checks each parsed entry for the fields the tree index relies on (an id, a
 * type, a parent, a timestamp, a message's role), reporting what is wrong and
 * filling in what must be there for the entry to be shown at all.
 */

import { type Problem, problem } from "./problems.ts";
import { isKnownEntryType, isKnownRole, type KnownEntryType, type SessionEntry } from "./types.ts";

/** Checks the fields the index relies on. Returns the entry to index (copied if a field had to be filled in). */
export function validateEntry(
  value: Record<string, unknown>,
  line: number,
  problems: Problem[],
): SessionEntry {
  // Copied only when a field must be filled in. No closure for it: this runs once per entry.
  let patched: Record<string, unknown> | null = null;
  if (typeof value.id !== "string" || value.id.length === 0) {
    const id = `line-${line}`;
    problems.push(
      problem(
        "missing-id",
        line,
        `The entry has no id; it is shown as "${id}" and nothing can refer to it.`,
        {
          entryId: id,
        },
      ),
    );
    patched = { ...value, id };
  }
  const id = (patched ?? value).id as string;
  if (typeof value.type !== "string") {
    problems.push(
      problem("missing-type", line, "The entry has no type; it is shown as an unknown entry.", {
        entryId: id,
      }),
    );
    patched = { ...(patched ?? value), type: "unknown" };
  } else if (!isKnownEntryType(value.type)) {
    problems.push(
      problem(
        "unknown-type",
        line,
        `Unknown entry type "${value.type}"; it is shown but takes no part in context.`,
        {
          entryId: id,
        },
      ),
    );
  }
  checkParentAndTime(value, line, id, problems);
  if (isKnownEntryType(value.type)) FIELD_CHECKS[value.type]?.(value, line, id, problems);
  return (patched ?? value) as SessionEntry;
}

type FieldCheck = (value: Record<string, unknown>, line: number, id: string, problems: Problem[]) => void;

/**
 * What else the index relies on, by entry type: a message's role (its kind
 * in the graph); the other types are shown from whatever fields they have.
 */
const FIELD_CHECKS: Record<KnownEntryType, FieldCheck | null> = {
  message: (value, line, id, problems) => checkMessage(value.message, line, id, problems),
  model_change: null,
  thinking_level_change: null,
  compaction: null,
  branch_summary: null,
  custom: null,
  custom_message: null,
  label: null,
  session_info: null,
  usage: null,
  context_edit: null,
};

function checkParentAndTime(
  value: Record<string, unknown>,
  line: number,
  id: string,
  problems: Problem[],
): void {
  if (!("parentId" in value)) {
    problems.push(
      problem("missing-parent-id", line, "The entry has no parentId; it is shown as a root.", {
        entryId: id,
      }),
    );
  } else if (value.parentId !== null && (typeof value.parentId !== "string" || value.parentId === "")) {
    problems.push(
      problem(
        "invalid-field",
        line,
        "The entry's parentId is neither an entry id nor null; it is shown as a root.",
        {
          entryId: id,
        },
      ),
    );
  }
  if (typeof value.timestamp !== "string") {
    problems.push(
      problem("invalid-field", line, "The entry's timestamp is not a string; it sorts with unknown time.", {
        entryId: id,
      }),
    );
  }
}

function checkMessage(message: unknown, line: number, id: string, problems: Problem[]): void {
  if (typeof message !== "object" || message === null || Array.isArray(message)) {
    problems.push(
      problem(
        "invalid-field",
        line,
        "The message entry has no message object; it takes no part in context.",
        {
          entryId: id,
        },
      ),
    );
    return;
  }
  const role = (message as { role?: unknown }).role;
  if (typeof role !== "string") {
    problems.push(
      problem("invalid-field", line, "The message has no role; it is shown as an unknown message.", {
        entryId: id,
      }),
    );
  } else if (!isKnownRole(role)) {
    problems.push(
      problem(
        "unknown-role",
        line,
        `Unknown message role "${role}"; it is shown but never sent to a model.`,
        {
          entryId: id,
        },
      ),
    );
  }
}
