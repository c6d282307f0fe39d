/**
 * The Pi session file model: the header, every entry type of both Pi
 * generations (0.73.x and 1.x) and every AgentMessage role.
 *
 * Field names are Pi's. Values read from disk are never trusted to match these
 * types: the parser checks the fields the index relies on and reports the
 * rest; unknown entry types and roles are kept as they are (`UnknownEntry`,
 * `UnknownMessage`) so they can be shown and never dropped.
 */

export const CURRENT_SESSION_VERSION = 3;

export interface SessionHeader {
  type: "session";
  /** Missing means 1. */
  version?: number;
  id: string;
  timestamp: string;
  cwd: string;
  /** Path of the file this session was forked from. */
  parentSession?: string;
  [extra: string]: unknown;
}

export interface TextContent {
  type: "text";
  text: string;
  [extra: string]: unknown;
}

export interface ImageContent {
  type: "image";
  /** base64 */
  data: string;
  mimeType: string;
  [extra: string]: unknown;
}

export interface ThinkingContent {
  type: "thinking";
  thinking: string;
  [extra: string]: unknown;
}

export interface ToolCall {
  type: "toolCall";
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  [extra: string]: unknown;
}

export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens?: number;
  cost?: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
  [extra: string]: unknown;
}

export interface UserMessage {
  role: "user";
  content: string | (TextContent | ImageContent)[];
  timestamp: number;
  [extra: string]: unknown;
}

export interface AssistantMessage {
  role: "assistant";
  content: (TextContent | ThinkingContent | ToolCall)[];
  api?: string;
  provider: string;
  model: string;
  usage?: Usage;
  stopReason?: string;
  errorMessage?: string;
  timestamp: number;
  [extra: string]: unknown;
}

export interface ToolResultMessage {
  role: "toolResult";
  toolCallId: string;
  toolName: string;
  content: (TextContent | ImageContent)[];
  details?: unknown;
  isError: boolean;
  timestamp: number;
  [extra: string]: unknown;
}

export interface BashExecutionMessage {
  role: "bashExecution";
  command: string;
  output: string;
  exitCode: number | null | undefined;
  cancelled: boolean;
  truncated: boolean;
  fullOutputPath?: string;
  /** `!!` commands: shown, never sent to the model. */
  excludeFromContext?: boolean;
  timestamp: number;
  [extra: string]: unknown;
}

export interface CustomMessage {
  role: "custom";
  customType: string;
  content: string | (TextContent | ImageContent)[];
  display: boolean;
  details?: unknown;
  timestamp: number;
  [extra: string]: unknown;
}

export interface BranchSummaryMessage {
  role: "branchSummary";
  summary: string;
  fromId: string;
  timestamp: number;
  [extra: string]: unknown;
}

export interface CompactionSummaryMessage {
  role: "compactionSummary";
  summary: string;
  tokensBefore: number;
  timestamp: number;
  [extra: string]: unknown;
}

/** Pi 1.x: the system prompt and tool state, recorded as a message. */
export interface SystemMessage {
  role: "system";
  content: string;
  timestamp?: number;
  [extra: string]: unknown;
}

/** A role this version of Arbor does not know. Kept and shown, never sent anywhere. */
export interface UnknownMessage {
  role: string;
  [extra: string]: unknown;
}

export type KnownAgentMessage =
  | UserMessage
  | AssistantMessage
  | ToolResultMessage
  | BashExecutionMessage
  | CustomMessage
  | BranchSummaryMessage
  | CompactionSummaryMessage
  | SystemMessage;

export type AgentMessage = KnownAgentMessage | UnknownMessage;

export type KnownRole = KnownAgentMessage["role"];

/** Every known role, once: a role added to `KnownAgentMessage` and not here does not compile. */
const KNOWN_ROLE_TABLE: Record<KnownRole, true> = {
  user: true,
  assistant: true,
  toolResult: true,
  bashExecution: true,
  custom: true,
  branchSummary: true,
  compactionSummary: true,
  system: true,
};

export const KNOWN_ROLES: ReadonlySet<string> = new Set(Object.keys(KNOWN_ROLE_TABLE));

/**
 * Narrows a role read from a file: a known role goes on to a switch over
 * every `KnownRole` (ending in `assertNever`), anything else to the code's
 * unknown-role path.
 */
export function isKnownRole(role: unknown): role is KnownRole {
  return typeof role === "string" && KNOWN_ROLES.has(role);
}

/** What the provider finally sees (`convertToLlm`). */
export type LlmMessage = UserMessage | AssistantMessage | ToolResultMessage | SystemMessage;

export interface EntryBase {
  type: string;
  id: string;
  parentId: string | null;
  timestamp: string;
  [extra: string]: unknown;
}

export interface MessageEntry extends EntryBase {
  type: "message";
  message: AgentMessage;
}

export interface ModelChangeEntry extends EntryBase {
  type: "model_change";
  provider: string;
  modelId: string;
}

export interface ThinkingLevelChangeEntry extends EntryBase {
  type: "thinking_level_change";
  thinkingLevel: string;
}

export interface CompactionEntry extends EntryBase {
  type: "compaction";
  summary: string;
  firstKeptEntryId: string;
  tokensBefore: number;
  details?: unknown;
  fromHook?: boolean;
  /** 1.x */
  usage?: Usage;
  /** 1.x: emitted before the summary. */
  systemMessage?: SystemMessage;
}

export interface BranchSummaryEntry extends EntryBase {
  type: "branch_summary";
  fromId: string;
  summary: string;
  details?: unknown;
  fromHook?: boolean;
  /** 1.x */
  usage?: Usage;
}

export interface CustomEntry extends EntryBase {
  type: "custom";
  customType: string;
  data?: unknown;
}

export interface CustomMessageEntry extends EntryBase {
  type: "custom_message";
  customType: string;
  content: string | (TextContent | ImageContent)[];
  display: boolean;
  details?: unknown;
}

export interface LabelEntry extends EntryBase {
  type: "label";
  targetId: string;
  /** Absent, undefined or empty clears the label. */
  label?: string | undefined;
}

export interface SessionInfoEntry extends EntryBase {
  type: "session_info";
  name?: string;
}

/** 1.x: usage that is not part of the model context (cache warming, ...). */
export interface UsageEntry extends EntryBase {
  type: "usage";
  kind: string;
  provider: string;
  model: string;
  usage: Usage;
  note?: string;
}

export type ContextEditableContent = string | (TextContent | ImageContent | ThinkingContent | ToolCall)[];

/** 1.x: replaces (or with `null` drops) an earlier entry's contribution to the context. */
export interface ContextEditEntry extends EntryBase {
  type: "context_edit";
  targetId: string;
  replacement: { content: ContextEditableContent } | null;
}

/** An entry type this version of Arbor does not know: shown as an opaque node. */
export interface UnknownEntry extends EntryBase {
  type: string;
}

export type KnownEntry =
  | MessageEntry
  | ModelChangeEntry
  | ThinkingLevelChangeEntry
  | CompactionEntry
  | BranchSummaryEntry
  | CustomEntry
  | CustomMessageEntry
  | LabelEntry
  | SessionInfoEntry
  | UsageEntry
  | ContextEditEntry;

export type KnownEntryType = KnownEntry["type"];

/** Every known entry type, once: a type added to `KnownEntry` and not here does not compile. */
const KNOWN_ENTRY_TYPE_TABLE: Record<KnownEntryType, true> = {
  message: true,
  model_change: true,
  thinking_level_change: true,
  compaction: true,
  branch_summary: true,
  custom: true,
  custom_message: true,
  label: true,
  session_info: true,
  usage: true,
  context_edit: true,
};

export const KNOWN_ENTRY_TYPES: ReadonlySet<string> = new Set(Object.keys(KNOWN_ENTRY_TYPE_TABLE));

/** Entry types only Pi 1.x writes. */
export const PI_1X_ONLY_ENTRY_TYPES: ReadonlySet<string> = new Set(["usage", "context_edit"]);

/**
 * An entry as the code sees it. At run time an entry may also be an
 * `UnknownEntry` (any other `type`, read from a file): code whose behaviour
 * depends on the type first narrows it with `isKnownEntryType` (else: the
 * unknown path, shown as "unknown"), then switches over every known type and
 * ends in `assertNever`, so a type added to `KnownEntry` is a compile error
 * wherever it must be decided on. Keeping `UnknownEntry` out of the union
 * keeps `type` a discriminant.
 */
export type SessionEntry = KnownEntry;

export function isKnownEntryType(type: unknown): type is KnownEntryType {
  return typeof type === "string" && KNOWN_ENTRY_TYPES.has(type);
}

export interface ModelRef {
  provider: string;
  modelId: string;
}

/** The result of Pi's `buildSessionContext`. */
export interface SessionContext {
  messages: AgentMessage[];
  thinkingLevel: string;
  model: ModelRef | null;
}

/**
 * The end of a switch over every member of a union: `value` is `never` there,
 * so a member added to the union and not handled is a compile error. Values
 * read from files are narrowed first (`isKnownEntryType`, `isKnownRole`), so
 * this never runs on them.
 */
export function assertNever(value: never, what: string): never {
  throw new Error(`Unexpected ${what}: ${JSON.stringify(value)}`);
}
