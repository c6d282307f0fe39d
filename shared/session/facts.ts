/**
 * Per-entry facts the views need without reading a whole body each time:
 * the role, a one-line preview, the tools called, and Pi's token estimate
 * (chars / 4, images 4,800 chars, as `estimateTokens` in Pi's compaction);
 * and what the branch model adds up (shared/branches): the usage and model
 * of an assistant message, the files an entry read or changed.
 */

import { assertNever, isKnownEntryType, isKnownRole, type SessionEntry } from "./types.ts";

export interface EntryFacts {
  /** The message role for message entries; the entry type otherwise. */
  kind: string;
  role: string | undefined;
  /** First non-empty line of the entry's main text, at most 200 characters. */
  preview: string;
  toolNames: string[];
  /** Pi's estimate of the tokens this entry adds to a context. */
  tokenEstimate: number;
  /** Assistant messages: stopped by an error or aborted. Tool results: `isError`. */
  isError: boolean;
  /** Assistant message whose content is tool calls only. */
  toolCallsOnly: boolean;
  /** Message content has a non-blank text block (Pi's `/tree` hides assistant messages without, see `graph/filter`). */
  hasText: boolean;
  /** Assistant messages: why the model stopped (`stop`, `toolUse`, `error`, `aborted`, `length`...). */
  stopReason: string | null;
  /** Assistant messages: the tokens and cost the provider reported (`usage`); null elsewhere. */
  usage: UsageFacts | null;
  /** Assistant messages: the model that wrote it; null elsewhere. */
  model: string | null;
  /** Files read: `read` tool calls' `path` (or `file_path`), a compaction's or branch summary's `details.readFiles`. */
  filesRead: readonly string[];
  /** Files changed: `edit` and `write` tool calls' `path` (or `file_path`), `details.modifiedFiles`. */
  filesModified: readonly string[];
}

/** An assistant message's `usage`: tokens, and `cost.total` (0 when not recorded). */
export interface UsageFacts {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  cost: number;
}

/** The file list of the (many) entries that touch no file: one shared array, not one each. */
export const NO_FILES: readonly string[] = Object.freeze([]);

const PREVIEW_LENGTH = 200;
const IMAGE_CHARS = 4800;

export function entryFacts(entry: SessionEntry): EntryFacts {
  const facts: EntryFacts = {
    kind: entry.type,
    role: undefined,
    preview: "",
    toolNames: [],
    tokenEstimate: 0,
    isError: false,
    toolCallsOnly: false,
    hasText: false,
    stopReason: null,
    usage: null,
    model: null,
    filesRead: NO_FILES,
    filesModified: NO_FILES,
  };
  // An unknown type from a file: shown as what it is, with no preview.
  if (!isKnownEntryType(entry.type)) return facts;
  switch (entry.type) {
    case "message": {
      const message = entry.message as unknown;
      if (!isRecord(message)) break;
      const role = typeof message.role === "string" ? message.role : undefined;
      facts.role = role;
      facts.kind = role ?? "message";
      facts.hasText = hasTextContent(message.content);
      if (typeof message.stopReason === "string") facts.stopReason = message.stopReason;
      describeMessage(message, facts);
      break;
    }
    case "custom_message":
      facts.preview = firstLine(textOf(entry.content));
      facts.tokenEstimate = Math.ceil(contentChars(entry.content) / 4);
      break;
    case "compaction":
    case "branch_summary":
      facts.preview = firstLine(typeof entry.summary === "string" ? entry.summary : "");
      facts.tokenEstimate = Math.ceil((typeof entry.summary === "string" ? entry.summary.length : 0) / 4);
      describeSummaryFiles(entry.details, facts);
      break;
    case "model_change":
      facts.preview = `${String(entry.provider)}/${String(entry.modelId)}`;
      break;
    case "thinking_level_change":
      facts.preview = String(entry.thinkingLevel);
      break;
    case "label":
      facts.preview = entry.label ? String(entry.label) : "(label cleared)";
      break;
    case "session_info":
      facts.preview =
        typeof entry.name === "string" && entry.name.trim() ? entry.name.trim() : "(name cleared)";
      break;
    case "custom":
      facts.preview = String(entry.customType);
      break;
    case "context_edit":
      facts.preview =
        entry.replacement === null ? `drop ${String(entry.targetId)}` : `edit ${String(entry.targetId)}`;
      break;
    case "usage":
      // Usage outside the context: nothing to preview.
      break;
    default:
      assertNever(entry, "entry type");
  }
  return facts;
}

function describeMessage(message: Record<string, unknown>, facts: EntryFacts): void {
  const content = message.content;
  const role = message.role;
  if (!isKnownRole(role)) {
    describeContent(content, facts);
    return;
  }
  switch (role) {
    case "assistant": {
      let chars = 0;
      let text = "";
      let onlyToolCalls = Array.isArray(content) && content.length > 0;
      let toolNames: string[] | null = null;
      if (Array.isArray(content)) {
        for (const block of content) {
          if (!isRecord(block)) continue;
          if (block.type === "text" && typeof block.text === "string") {
            chars += block.text.length;
            text ||= block.text.trim() ? block.text : "";
            onlyToolCalls = false;
          } else if (block.type === "thinking" && typeof block.thinking === "string") {
            chars += block.thinking.length;
            onlyToolCalls = false;
          } else if (block.type === "toolCall") {
            const name = typeof block.name === "string" ? block.name : "?";
            // Arrays of exactly their size: most messages call one tool (a push onto [] reserves 17 slots).
            if (toolNames === null) toolNames = [name];
            else toolNames.push(name);
            chars += name.length + (JSON.stringify(block.arguments ?? null)?.length ?? 0);
          } else {
            onlyToolCalls = false;
          }
        }
      }
      if (toolNames !== null) {
        facts.toolNames = toolNames;
        describeToolFiles(content as unknown[], facts);
      }
      facts.usage = usageFacts(message.usage);
      facts.model = typeof message.model === "string" ? internedModel(message.model) : null;
      facts.tokenEstimate = Math.ceil(chars / 4);
      facts.isError = message.stopReason === "error" || message.stopReason === "aborted";
      facts.toolCallsOnly = onlyToolCalls;
      facts.preview = firstLine(text) || (facts.toolNames.length > 0 ? facts.toolNames.join(", ") : "");
      if (!facts.preview && typeof message.errorMessage === "string")
        facts.preview = firstLine(message.errorMessage);
      break;
    }
    case "toolResult":
      if (typeof message.toolName === "string") facts.toolNames = [message.toolName];
      facts.isError = message.isError === true;
      facts.preview = firstLine(textOf(content));
      facts.tokenEstimate = Math.ceil(contentChars(content) / 4);
      break;
    case "bashExecution": {
      const command = typeof message.command === "string" ? message.command : "";
      const output = typeof message.output === "string" ? message.output : "";
      facts.preview = firstLine(command);
      facts.isError = typeof message.exitCode === "number" && message.exitCode !== 0;
      facts.tokenEstimate = Math.ceil((command.length + output.length) / 4);
      break;
    }
    case "branchSummary":
    case "compactionSummary": {
      const summary = typeof message.summary === "string" ? message.summary : "";
      facts.preview = firstLine(summary);
      facts.tokenEstimate = Math.ceil(summary.length / 4);
      break;
    }
    case "user":
    case "custom":
    case "system":
      describeContent(content, facts);
      break;
    default:
      assertNever(role, "message role");
  }
}

/** The files of an assistant message's `read`, `edit` and `write` calls (only called when it has tool calls). */
function describeToolFiles(content: readonly unknown[], facts: EntryFacts): void {
  let read: string[] | null = null;
  let modified: string[] | null = null;
  for (const block of content) {
    if (!isRecord(block) || block.type !== "toolCall") continue;
    const name = block.name;
    if (name !== "read" && name !== "edit" && name !== "write") continue;
    const args = block.arguments;
    const path = isRecord(args) ? (args.path ?? args.file_path) : undefined;
    if (typeof path !== "string" || path === "") continue;
    if (name === "read") read = read === null ? [path] : [...read, path];
    else modified = modified === null ? [path] : [...modified, path];
  }
  if (read !== null) facts.filesRead = read;
  if (modified !== null) facts.filesModified = modified;
}

/** A compaction's or branch summary's `details.readFiles` / `modifiedFiles` (Pi's file tracking). */
function describeSummaryFiles(details: unknown, facts: EntryFacts): void {
  if (!isRecord(details)) return;
  facts.filesRead = stringList(details.readFiles);
  facts.filesModified = stringList(details.modifiedFiles);
}

function stringList(value: unknown): readonly string[] {
  if (!Array.isArray(value)) return NO_FILES;
  const strings = value.filter((item): item is string => typeof item === "string" && item !== "");
  return strings.length === 0 ? NO_FILES : strings;
}

function usageFacts(usage: unknown): UsageFacts | null {
  if (!isRecord(usage)) return null;
  const cost = usage.cost;
  return {
    input: finiteOrZero(usage.input),
    output: finiteOrZero(usage.output),
    cacheRead: finiteOrZero(usage.cacheRead),
    cacheWrite: finiteOrZero(usage.cacheWrite),
    cost: isRecord(cost) ? finiteOrZero(cost.total) : 0,
  };
}

function finiteOrZero(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

/** Model names repeat on every assistant message: one string each, not one per entry (bounded). */
const MODEL_NAMES = new Map<string, string>();

function internedModel(model: string): string {
  const known = MODEL_NAMES.get(model);
  if (known !== undefined) return known;
  if (MODEL_NAMES.size < 256 && model.length <= 200) MODEL_NAMES.set(model, model);
  return model;
}

/** A message told by its content alone: a user's, an extension's, the system prompt, or an unknown role's. */
function describeContent(content: unknown, facts: EntryFacts): void {
  facts.preview = firstLine(textOf(content));
  facts.tokenEstimate = Math.ceil(contentChars(content) / 4);
}

/** Pi's `hasTextContent`: a non-blank string, or a text block with non-blank text. */
export function hasTextContent(content: unknown): boolean {
  if (typeof content === "string") return content.trim().length > 0;
  if (!Array.isArray(content)) return false;
  for (const block of content) {
    if (
      isRecord(block) &&
      block.type === "text" &&
      typeof block.text === "string" &&
      block.text.trim().length > 0
    ) {
      return true;
    }
  }
  return false;
}

/** The text of string or block content (text blocks joined by newlines). */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const block of content) {
    if (isRecord(block) && block.type === "text" && typeof block.text === "string") parts.push(block.text);
  }
  return parts.join("\n");
}

function contentChars(content: unknown): number {
  if (typeof content === "string") return content.length;
  if (!Array.isArray(content)) return 0;
  let chars = 0;
  for (const block of content) {
    if (!isRecord(block)) continue;
    if (block.type === "text" && typeof block.text === "string") chars += block.text.length;
    else if (block.type === "image") chars += IMAGE_CHARS;
  }
  return chars;
}

/** A line that only opens or closes a code block ("```sh", "~~~"): it says nothing of the text. */
const CODE_FENCE = /^(?:`{3,}|~{3,})[\w+#.-]*$/;

/** The text's first line that says something (not blank, not a bare code fence), cut to PREVIEW_LENGTH. */
export function firstLine(text: string): string {
  let start = 0;
  // Skip leading blank lines without splitting the whole (possibly huge) text.
  for (;;) {
    const end = text.indexOf("\n", start);
    const line = (end === -1 ? text.slice(start, start + PREVIEW_LENGTH * 4) : text.slice(start, end)).trim();
    if ((line && !CODE_FENCE.test(line)) || end === -1)
      return line.length > PREVIEW_LENGTH ? `${line.slice(0, PREVIEW_LENGTH - 1)}…` : line;
    start = end + 1;
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
