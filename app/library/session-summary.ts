/**
 * What the library knows about one session file, folded from its lines in
 * one pass: Pi's `buildSessionInfo` rules (Pi 1.6, dist/core/session-manager.js)
 * for the id, cwd, name, first message, message count, created and modified
 * times, plus what Arbor adds (version, entry count, damage). No body is kept:
 * the searchable texts of each entry go into a `TermSet` and are dropped.
 *
 * Where Pi gives up on a whole file because one field has the wrong type
 * (`content` that is not an array, a `name` that is not a string: Pi's code
 * throws and the session disappears from its list), Arbor reads around the
 * field and lists the session.
 */

import { assertNever, isKnownEntryType, isKnownRole } from "../../shared/session/types.ts";
import type { TermSet } from "./tokenize.ts";
import { HEADER_PROBLEM_TEXT } from "../../shared/session/problems.ts";
import { ARBOR_ARCHIVE } from "../../shared/session/arbor-entries.ts";

/** First user messages are kept up to this many characters (Pi keeps all of it). */
export const FIRST_MESSAGE_LIMIT = 1000;
/** Pi's `firstMessage` when no user message has text. */
export const NO_MESSAGES = "(no messages)";

export type SessionErrorCode = "unreadable" | "empty" | "not-a-session";

export interface SessionError {
  code: SessionErrorCode;
  message: string;
}

export interface FileSignature {
  size: number;
  mtimeMs: number;
  ino: number;
}

export interface SessionSummary extends FileSignature {
  path: string;
  /** Header `id` ("" when missing). */
  id: string;
  /** Header `cwd` ("" when missing, as in Pi). */
  cwd: string;
  /** Latest `session_info` name, trimmed; an empty name clears it (Pi's rule). */
  name: string | undefined;
  /** Text of the first user message with text, at most `FIRST_MESSAGE_LIMIT` characters; `NO_MESSAGES` if none. */
  firstMessage: string;
  /** Every `message` entry, whatever its role (Pi's count). */
  messageCount: number;
  /** Of `messageCount`, the messages in branches Arbor archived (left out of the library's count). */
  archivedMessageCount: number;
  /** Header timestamp in ms, `null` when missing or not a date. */
  created: number | null;
  /** Pi's rule: the latest user/assistant message time, else the header time, else the file's mtime. */
  modified: number;
  /** Header `parentSession`: the path of the session this one was forked from. */
  parentSession: string | undefined;
  /** The version the header declares (1 when missing). */
  version: number;
  /** Lines that parsed as entries, the header not counted. */
  entryCount: number;
  /** Non-blank lines that are not JSON (Pi skips them silently). */
  badLines: number;
  /** 1-based line of the first of them. */
  firstBadLine: number | undefined;
  /** Set when the file is not a readable session; the other fields are then mostly empty. */
  error: SessionError | undefined;
}

export type SearchField = "name" | "user" | "assistant" | "custom" | "tool" | "bash";

/** Calls `visit` for each searchable text of an entry: names, message texts, tool-call arguments, bash commands. */
export function forEachSearchText(
  entry: unknown,
  visit: (field: SearchField, text: string, toolName: string | undefined) => void,
): void {
  if (!isRecord(entry)) return;
  const type = entry.type;
  // An unknown type holds nothing the library knows how to search.
  if (!isKnownEntryType(type)) return;
  switch (type) {
    case "session_info":
      if (typeof entry.name === "string" && entry.name.trim()) visit("name", entry.name, undefined);
      return;
    case "custom_message": {
      const text = contentText(entry.content, "\n");
      if (text) visit("custom", text, undefined);
      return;
    }
    case "message":
      forEachMessageText(entry.message, visit);
      return;
    case "model_change":
    case "thinking_level_change":
    case "compaction":
    case "branch_summary":
    case "custom":
    case "label":
    case "usage":
    case "context_edit":
      // Settings, summaries, extension state and edits: the library's search leaves them to the session's.
      return;
    default:
      assertNever(type, "entry type");
  }
}

function forEachMessageText(
  message: unknown,
  visit: (field: SearchField, text: string, toolName: string | undefined) => void,
): void {
  if (!isRecord(message)) return;
  const role = message.role;
  // An unknown role is shown, never searched.
  if (!isKnownRole(role)) return;
  switch (role) {
    case "user": {
      const text = contentText(message.content, "\n");
      if (text) visit("user", text, undefined);
      return;
    }
    case "assistant": {
      const content = message.content;
      const text = contentText(content, "\n");
      if (text) visit("assistant", text, undefined);
      if (!Array.isArray(content)) return;
      for (const block of content) {
        if (!isRecord(block) || block.type !== "toolCall") continue;
        const toolName = typeof block.name === "string" ? block.name : undefined;
        const parts: string[] = [];
        collectStrings(block.arguments, parts, 0);
        if (parts.length > 0) visit(toolName === "bash" ? "bash" : "tool", parts.join("\n"), toolName);
      }
      return;
    }
    case "bashExecution":
      if (typeof message.command === "string" && message.command) visit("bash", message.command, undefined);
      return;
    case "toolResult":
    case "custom":
    case "branchSummary":
    case "compactionSummary":
    case "system":
      // Tool output, extension messages, summaries and the system prompt are not searched.
      return;
    default:
      assertNever(role, "message role");
  }
}

const TOOL_RESULT_HEAD = asciiBytes('{"type":"message",');
const TOOL_RESULT_ROLE = asciiBytes('"message":{"role":"toolResult","');
const TOOL_RESULT_TAIL = asciiBytes(',"timestamp":');
/** Pi writes the role within the first ~150 bytes (type, id, parentId, timestamp come first). */
const ROLE_WITHIN = 320;

/**
 * True for a line as Pi writes a tool result: `{"type":"message",` first,
 * the message's role `toolResult` among the first bytes, and the line closed
 * by the message's `"timestamp":<ms>}}`. Such lines are most of a session's
 * bytes and hold nothing a summary or the search index takes (Pi's summary
 * only counts them), so they are counted without being decoded or parsed.
 * A line cut short by a crash fails the tail test and is parsed (and
 * rejected) as usual; only a line damaged in its middle while intact at both
 * ends would be counted where Pi skips it.
 */
export function isPiToolResultLine(bytes: Uint8Array, start: number, end: number): boolean {
  while (end > start && (bytes[end - 1] === 0x0d || bytes[end - 1] === 0x20)) end--;
  if (end - start < 64 || !startsWith(bytes, start, TOOL_RESULT_HEAD)) return false;
  if (bytes[end - 1] !== 0x7d || bytes[end - 2] !== 0x7d) return false;
  let digits = end - 2;
  while (digits > start && bytes[digits - 1]! >= 0x30 && bytes[digits - 1]! <= 0x39) digits--;
  if (digits === end - 2 || !startsWith(bytes, digits - TOOL_RESULT_TAIL.length, TOOL_RESULT_TAIL))
    return false;
  const limit = Math.min(end, start + ROLE_WITHIN) - TOOL_RESULT_ROLE.length;
  const first = TOOL_RESULT_ROLE[0]!;
  for (let i = start + TOOL_RESULT_HEAD.length; i <= limit; i++) {
    if (bytes[i] === first && startsWith(bytes, i, TOOL_RESULT_ROLE)) return true;
  }
  return false;
}

function startsWith(bytes: Uint8Array, at: number, pattern: Uint8Array): boolean {
  if (at < 0 || at + pattern.length > bytes.length) return false;
  for (let i = 0; i < pattern.length; i++) if (bytes[at + i] !== pattern[i]) return false;
  return true;
}

function asciiBytes(text: string): Uint8Array {
  return Uint8Array.from(text, (character) => character.charCodeAt(0));
}

/**
 * Folds the lines of one file, in order. Feed every physical line (without
 * its newline) to `line`, then call `finish`.
 */
export class SessionSummarizer {
  private header: Record<string, unknown> | null = null;
  private notSession = false;
  private name: string | undefined;
  private messageCount = 0;
  private archivedMessageCount = 0;
  private entryCount = 0;
  /** Archive markers among the lines read: when there are any, `archivedMessageCount` needs the tree. */
  archiveMarkers = 0;
  private firstMessage = "";
  private lastActivityTime: number | undefined;
  private badLines = 0;
  private firstBadLine: number | undefined;
  private readonly visitText: (field: SearchField, text: string) => void;

  constructor(private readonly terms: TermSet | null) {
    this.visitText = (_field, text) => this.terms?.add(text);
  }

  /**
   * A summarizer that goes on from `summary`, as if it had read the lines the
   * summary was made of: feed it the lines appended after them. Null for a
   * file that is not a readable session.
   */
  static continuing(summary: SessionSummary, terms: TermSet | null): SessionSummarizer | null {
    if (summary.error) return null;
    const summarizer = new SessionSummarizer(terms);
    summarizer.header = {
      type: "session",
      id: summary.id,
      cwd: summary.cwd,
      timestamp: summary.created === null ? undefined : new Date(summary.created).toISOString(),
      parentSession: summary.parentSession,
      version: summary.version,
    };
    summarizer.name = summary.name;
    summarizer.messageCount = summary.messageCount;
    summarizer.archivedMessageCount = summary.archivedMessageCount;
    summarizer.entryCount = summary.entryCount;
    summarizer.firstMessage = summary.firstMessage === NO_MESSAGES ? "" : summary.firstMessage;
    // `modified` is the header's time or the file's when no message had a time: then there was no activity.
    const noActivity = summary.modified === summary.created || summary.modified === summary.mtimeMs;
    summarizer.lastActivityTime = noActivity ? undefined : summary.modified;
    summarizer.badLines = summary.badLines;
    summarizer.firstBadLine = summary.firstBadLine;
    return summarizer;
  }

  /** True once the first parsed line turned out not to be a session header: the rest need not be read. */
  get done(): boolean {
    return this.notSession;
  }

  /** Offers a line's bytes before it is decoded; true when that was enough (see `isPiToolResultLine`). */
  rawLine(bytes: Uint8Array, start: number, end: number): boolean {
    if (!this.header || !isPiToolResultLine(bytes, start, end)) return false;
    this.entryCount++;
    this.messageCount++;
    return true;
  }

  line(line: string, lineNumber: number): void {
    if (this.notSession) return;
    // Pi: blank lines and lines JSON.parse rejects are skipped.
    if (!line.trim()) return;
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      this.badLine(lineNumber);
      return;
    }
    if (!entry) return;
    if (!this.header) {
      if (!isRecord(entry) || entry.type !== "session") {
        this.notSession = true;
        return;
      }
      this.header = entry;
      return;
    }
    this.entryCount++;
    if (!isRecord(entry)) return;
    if (entry.type === "session_info") {
      // Pi: `entry.name?.trim() || undefined`, the latest entry wins, an empty name clears.
      this.name = typeof entry.name === "string" ? entry.name.trim() || undefined : undefined;
    }
    if (entry.type === "custom" && entry.customType === ARBOR_ARCHIVE) this.archiveMarkers++;
    if (this.terms) forEachSearchText(entry, this.visitText);
    if (entry.type !== "message") return;
    this.messageCount++;
    const message = entry.message;
    if (!isRecord(message) || typeof message.role !== "string" || !("content" in message)) return;
    if (message.role !== "user" && message.role !== "assistant") return;
    const activityTime = messageActivityTime(entry, message);
    if (activityTime !== undefined)
      this.lastActivityTime = Math.max(this.lastActivityTime ?? 0, activityTime);
    if (this.firstMessage || message.role !== "user") return;
    const first = contentText(message.content, " ");
    if (first) this.firstMessage = first.slice(0, FIRST_MESSAGE_LIMIT);
  }

  /** A line that is not JSON, or too long to decode. */
  badLine(lineNumber: number): void {
    this.badLines++;
    this.firstBadLine ??= lineNumber;
  }

  /** The summary of the lines read; `archivedMessageCount` stays as it was (see `scan-file.ts`). */
  finish(path: string, signature: FileSignature): SessionSummary {
    const header = this.header;
    const base: SessionSummary = {
      path,
      size: signature.size,
      mtimeMs: signature.mtimeMs,
      ino: signature.ino,
      id: "",
      cwd: "",
      name: undefined,
      firstMessage: NO_MESSAGES,
      messageCount: 0,
      archivedMessageCount: 0,
      created: null,
      modified: signature.mtimeMs,
      parentSession: undefined,
      version: 1,
      entryCount: 0,
      badLines: this.badLines,
      firstBadLine: this.firstBadLine,
      error: undefined,
    };
    if (!header) {
      const error: SessionError = this.notSession
        ? { code: "not-a-session", message: HEADER_PROBLEM_TEXT.entriesBeforeHeader }
        : {
            code: "empty",
            message: signature.size === 0 ? HEADER_PROBLEM_TEXT.emptyFile : HEADER_PROBLEM_TEXT.noHeaderLine,
          };
      return { ...base, error };
    }
    const headerTime =
      typeof header.timestamp === "string" ? new Date(header.timestamp).getTime() : Number.NaN;
    const last = this.lastActivityTime;
    return {
      ...base,
      id: typeof header.id === "string" ? header.id : "",
      cwd: typeof header.cwd === "string" ? header.cwd : "",
      name: this.name,
      firstMessage: this.firstMessage || NO_MESSAGES,
      messageCount: this.messageCount,
      archivedMessageCount: this.archivedMessageCount,
      created: Number.isNaN(headerTime) ? null : headerTime,
      modified:
        last !== undefined && last > 0 ? last : Number.isNaN(headerTime) ? signature.mtimeMs : headerTime,
      parentSession: typeof header.parentSession === "string" ? header.parentSession : undefined,
      version: typeof header.version === "number" ? header.version : 1,
      entryCount: this.entryCount,
    };
  }
}

/** Pi's `getMessageActivityTime`: the message's numeric timestamp, else the entry's, for user and assistant messages. */
function messageActivityTime(
  entry: Record<string, unknown>,
  message: Record<string, unknown>,
): number | undefined {
  if (typeof message.timestamp === "number") return message.timestamp;
  const time = new Date(entry.timestamp as string).getTime();
  return Number.isNaN(time) ? undefined : time;
}

/** Pi's `extractTextContent`: a string as it is, else the text blocks joined by `separator`. */
function contentText(content: unknown, separator: string): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const block of content) {
    if (isRecord(block) && block.type === "text") parts.push(block.text == null ? "" : String(block.text));
  }
  return parts.join(separator);
}

const MAX_ARGUMENT_DEPTH = 8;

function collectStrings(value: unknown, into: string[], depth: number): void {
  if (typeof value === "string") {
    if (value) into.push(value);
  } else if (depth < MAX_ARGUMENT_DEPTH && typeof value === "object" && value !== null) {
    for (const item of Array.isArray(value) ? value : Object.values(value))
      collectStrings(item, into, depth + 1);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
