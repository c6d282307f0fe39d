/**
 * An entry as the compare engine reads it: one text to compare and show
 * (prose, diffed by words; or code and tool output, diffed by lines), a key
 * that says which entries may stand for each other (role and tools), and
 * the outcome a divergence is looked for in (a failed tool, an exit code, a
 * stopped answer).
 */

import { marksOnly } from "../branches/entry-kinds.ts";
import { type EntryFacts, isRecord, textOf } from "../session/facts.ts";
import type { TreeNode } from "../session/tree-index.ts";
import { assertNever, isKnownEntryType, isKnownRole, type SessionEntry } from "../session/types.ts";

export type TextKind = "prose" | "code";

export interface MessageItem {
  node: TreeNode;
  entry: SessionEntry;
  facts: EntryFacts;
  /** The role for messages, the entry type otherwise. */
  kind: string;
  /** Entries with the same key may be aligned: the kind, and the tools an assistant calls or a result is of. */
  key: string;
  text: string;
  textKind: TextKind;
  /** A label, a name, an Arbor mark: not part of the work, compared but never an outcome. */
  marker: boolean;
}

export function messageItem(node: TreeNode, entry: SessionEntry, facts: EntryFacts): MessageItem {
  const kind = facts.kind;
  const { text, textKind } = entryText(entry);
  const tools = facts.toolNames.length > 0 ? `:${facts.toolNames.join(",")}` : "";
  return { node, entry, facts, kind, key: kind + tools, text, textKind, marker: marksOnly(facts) };
}

/** Whether two items say the same: same kind, same text (for a tool result, the same error state too). */
export function sameContent(left: MessageItem, right: MessageItem): boolean {
  return left.key === right.key && left.text === right.text && outcomeOf(left) === outcomeOf(right);
}

/**
 * What came of an entry, where two branches can part: a tool result passed
 * or failed, a bash command's exit code, an answer stopped by an error or
 * aborted. Null for entries that have no outcome.
 */
export function outcomeOf(item: MessageItem): string | null {
  const { facts, entry } = item;
  if (facts.role === "toolResult") return facts.isError ? "failed" : "passed";
  if (facts.role === "bashExecution" && entry.type === "message") {
    const message = entry.message as { exitCode?: unknown; cancelled?: unknown };
    if (message.cancelled === true) return "cancelled";
    return typeof message.exitCode === "number" ? `exit ${message.exitCode}` : "no exit code";
  }
  if (facts.role === "assistant") return facts.isError ? `stopped: ${facts.stopReason}` : "answered";
  return null;
}

function entryText(entry: SessionEntry): { text: string; textKind: TextKind } {
  if (!isKnownEntryType(entry.type)) return { text: dataText(entry), textKind: "code" };
  switch (entry.type) {
    case "message":
      return messageText(entry.message as unknown);
    case "custom_message":
      return { text: contentText(entry.content), textKind: "prose" };
    case "compaction":
    case "branch_summary":
      return { text: String(entry.summary ?? ""), textKind: "prose" };
    case "model_change":
      return { text: `${String(entry.provider)}/${String(entry.modelId)}`, textKind: "prose" };
    case "thinking_level_change":
      return { text: String(entry.thinkingLevel), textKind: "prose" };
    case "label":
      return { text: entry.label ? String(entry.label) : "", textKind: "prose" };
    case "session_info":
      return { text: typeof entry.name === "string" ? entry.name : "", textKind: "prose" };
    case "custom":
    case "context_edit":
    case "usage":
      return { text: dataText(entry), textKind: "code" };
    default:
      return assertNever(entry, "entry type");
  }
}

function messageText(message: unknown): { text: string; textKind: TextKind } {
  if (!isRecord(message)) return { text: "", textKind: "prose" };
  const role = message.role;
  if (!isKnownRole(role)) return { text: JSON.stringify(message), textKind: "code" };
  switch (role) {
    case "user":
    case "custom":
    case "system":
      return { text: contentText(message.content), textKind: "prose" };
    case "assistant":
      return { text: assistantText(message.content), textKind: "prose" };
    case "toolResult":
      return { text: contentText(message.content), textKind: "code" };
    case "bashExecution":
      return {
        text: `$ ${String(message.command ?? "")}\n${String(message.output ?? "")}`,
        textKind: "code",
      };
    case "branchSummary":
    case "compactionSummary":
      return { text: String(message.summary ?? ""), textKind: "prose" };
    default:
      return assertNever(role, "message role");
  }
}

/** Text blocks, and a line per image (an image's bytes are not compared as text). */
function contentText(content: unknown): string {
  if (!Array.isArray(content)) return textOf(content);
  const parts: string[] = [];
  for (const block of content) {
    if (!isRecord(block)) continue;
    if (block.type === "text" && typeof block.text === "string") parts.push(block.text);
    else if (block.type === "image") parts.push(`[image ${String(block.mimeType ?? "")}]`);
  }
  return parts.join("\n");
}

/** The answer's text, then a line per tool call with its arguments; thinking is left out. */
function assistantText(content: unknown): string {
  if (!Array.isArray(content)) return textOf(content);
  const parts: string[] = [];
  for (const block of content) {
    if (!isRecord(block)) continue;
    if (block.type === "text" && typeof block.text === "string") parts.push(block.text);
    else if (block.type === "toolCall")
      parts.push(`→ ${String(block.name)} ${JSON.stringify(block.arguments ?? {})}`);
  }
  return parts.join("\n");
}

/** An entry's own fields, without the ones every entry has. */
function dataText(entry: SessionEntry): string {
  const { id: _id, parentId: _parentId, timestamp: _timestamp, ...data } = entry;
  return JSON.stringify(data, null, 1);
}
