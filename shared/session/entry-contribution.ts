/**
 * What one entry contributes to a context, as Pi's
 * `sessionEntryToContextMessages` and `projectContextEntry` say: by entry
 * type (every known type decides), and for messages by role (a message
 * without content, a context edit's replacement).
 */

import { isRecord } from "./facts.ts";
import {
  type AgentMessage,
  assertNever,
  type BranchSummaryMessage,
  type CompactionSummaryMessage,
  type ContextEditEntry,
  type CustomMessage,
  isKnownEntryType,
  isKnownRole,
  type KnownRole,
  type SessionEntry,
  type TextContent,
} from "./types.ts";

/**
 * What a message without content is given in context, by role, as Pi does
 * (old, forked or hand-edited files hold such messages): empty text, no
 * blocks, or nothing (it goes as it is).
 */
const MISSING_CONTENT: Record<KnownRole, "text" | "blocks" | null> = {
  system: "text",
  user: "blocks",
  assistant: "blocks",
  toolResult: "blocks",
  bashExecution: null,
  custom: null,
  branchSummary: null,
  compactionSummary: null,
};

/** A message entry's message as Pi puts it in context. */
export function messageContribution(message: unknown): AgentMessage | undefined {
  if (!isRecord(message)) return undefined;
  const typed = message as AgentMessage;
  if (typed.content == null && isKnownRole(typed.role)) {
    const missing = MISSING_CONTENT[typed.role];
    if (missing === "text") return { ...typed, content: "" };
    if (missing === "blocks") return { ...typed, content: [] };
  }
  return typed;
}

/** Pi's `sessionEntryToContextMessages`: what one entry contributes before edits. */
export function entryToContextMessages(entry: SessionEntry): AgentMessage[] {
  // An unknown type takes no part in context.
  if (!isKnownEntryType(entry.type)) return [];
  switch (entry.type) {
    case "message": {
      const message = messageContribution(entry.message);
      return message ? [message] : [];
    }
    case "custom_message": {
      const custom: CustomMessage = {
        role: "custom",
        customType: entry.customType as string,
        content: (entry.content as CustomMessage["content"] | undefined) ?? [],
        display: entry.display as boolean,
        details: entry.details,
        timestamp: isoToMillis(entry.timestamp),
      };
      return [custom];
    }
    case "branch_summary": {
      if (!entry.summary) return [];
      const summary: BranchSummaryMessage = {
        role: "branchSummary",
        summary: entry.summary as string,
        fromId: entry.fromId as string,
        timestamp: isoToMillis(entry.timestamp),
      };
      return [summary];
    }
    case "compaction": {
      const summary: CompactionSummaryMessage = {
        role: "compactionSummary",
        summary: entry.summary as string,
        tokensBefore: entry.tokensBefore as number,
        timestamp: isoToMillis(entry.timestamp),
      };
      return entry.systemMessage ? [entry.systemMessage as AgentMessage, summary] : [summary];
    }
    case "model_change":
    case "thinking_level_change":
    case "custom":
    case "label":
    case "session_info":
    case "usage":
    case "context_edit":
      // Settings, extension state, names, usage and edits shape the context but say nothing in it.
      return [];
    default:
      return assertNever(entry, "entry type");
  }
}

/**
 * How a context edit's replacement content applies, by role: as it is, or
 * (assistant and tool result) a string as one text block; `null`: the
 * message is not edited, as in Pi.
 */
export const EDITED_CONTENT: Record<KnownRole, "as-is" | "blocks" | null> = {
  user: "as-is",
  custom: "as-is",
  assistant: "blocks",
  toolResult: "blocks",
  bashExecution: null,
  branchSummary: null,
  compactionSummary: null,
  system: null,
};

/** Pi's `projectContextEntry`: an entry's contribution with its latest context edit applied. */
export function projectContextEntry(entry: SessionEntry, edit: ContextEditEntry | undefined): AgentMessage[] {
  const messages = entryToContextMessages(entry);
  if (!edit) return messages;
  const replacement = edit.replacement;
  if (replacement === null) return [];
  return messages.map((message) => {
    const edited = isKnownRole(message.role) ? EDITED_CONTENT[message.role] : null;
    if (edited === null) return message;
    const replacementContent = isRecord(replacement) ? replacement.content : undefined;
    const content =
      edited === "blocks" && typeof replacementContent === "string"
        ? [{ type: "text", text: replacementContent } satisfies TextContent]
        : replacementContent;
    return { ...message, content } as AgentMessage;
  });
}

function isoToMillis(timestamp: unknown): number {
  return new Date(timestamp as string).getTime();
}

/**
 * The role of what an entry contributes to the context, for a context edit:
 * a message's own role, a custom message's "custom"; none for the other
 * types (Pi edits no summary, setting or unknown entry).
 */
export function editableRole(entry: SessionEntry): KnownRole | null {
  if (!isKnownEntryType(entry.type)) return null;
  switch (entry.type) {
    case "message": {
      const message: unknown = entry.message;
      const role =
        typeof message === "object" && message !== null ? (message as { role?: unknown }).role : null;
      return isKnownRole(role) ? role : null;
    }
    case "custom_message":
      return "custom";
    case "model_change":
    case "thinking_level_change":
    case "compaction":
    case "branch_summary":
    case "custom":
    case "label":
    case "session_info":
    case "usage":
    case "context_edit":
      return null;
    default:
      return assertNever(entry, "entry type");
  }
}
