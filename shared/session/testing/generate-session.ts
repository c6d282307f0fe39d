/**
 * A seeded generator of Pi version-3 session files, for the differential
 * tests that compare Arbor's reading with Pi's own (`../oracle/`). Same seed,
 * same options: same bytes, on every machine.
 *
 * It writes what Pi writes (every entry type and message role of 0.73 and
 * 1.x, branches, nested compactions, labels, context edits, ...) and, on
 * request, the damage Pi still reads without hanging or crashing: malformed
 * and blank lines, CRLF, an unterminated last line, orphans, duplicate ids,
 * entries without an id. It never writes a parent cycle (Pi loops forever)
 * nor a message entry without a message object (Pi throws).
 *
 * Each generated file lists the features it exercises (`features`), so a test
 * can assert that a run of seeds covered all of them.
 */

/** mulberry32: small, fast, and good enough to pick test cases. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [low, high], both included. */
  int(low: number, high: number): number {
    return low + Math.floor(this.next() * (high - low + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error("Rng.pick: no items");
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** Picks a key with probability proportional to its weight. */
  weighted<K extends string>(weights: Readonly<Record<K, number>>): K {
    const keys = Object.keys(weights) as K[];
    let total = 0;
    for (const key of keys) total += weights[key];
    let at = this.next() * total;
    for (const key of keys) {
      at -= weights[key];
      if (at < 0) return key;
    }
    return keys[keys.length - 1]!;
  }

  hex(length: number): string {
    let out = "";
    for (let i = 0; i < length; i++) out += "0123456789abcdef"[this.int(0, 15)];
    return out;
  }

  uuid(): string {
    return `${this.hex(8)}-${this.hex(4)}-7${this.hex(3)}-${this.pick(["8", "9", "a", "b"])}${this.hex(3)}-${this.hex(12)}`;
  }
}

export type JsonObject = Record<string, unknown>;

export interface DamageOptions {
  /** Unparsable lines inserted, and entry lines replaced by a truncated copy (the entry is lost). */
  malformedLines?: boolean;
  blankLines?: boolean;
  /** `all`: every line ends in CRLF; `mixed`: some do. */
  crlf?: "all" | "mixed" | false;
  /** `valid`: the last entry has no newline; `partial`: a half-written line ends the file. */
  unterminatedLastLine?: "valid" | "partial" | false;
  /** Entries whose parentId names no entry of the file. */
  orphans?: boolean;
  /** Later lines reusing an earlier entry's id (the later line wins in Pi). */
  duplicateIds?: boolean;
  /** Entries without an id (or with an empty one) between other entries. */
  missingIds?: boolean;
  /** Lines holding JSON that is not an object (`42`, `"text"`, `[1]`, `true`, `null`), never last. */
  nonObjectLines?: boolean;
  /**
   * A truthy non-object JSON line (`42`, `"text"`, `[1]`, `true`) last in the file. Never
   * chosen by `damage: true`: Pi keeps it as its last entry, so its default leaf is a
   * value that is no entry and gives an empty context; Arbor does not do that yet.
   */
  nonObjectLastLine?: boolean;
}

export interface GenerateSessionOptions {
  seed: number;
  /** Entries before damage; default 25 to 110, from the seed. */
  entryCount?: number;
  /** No 1.x-only content: no usage or context_edit entries, no system role, no compaction systemMessage, no missing content. */
  pi073Compatible?: boolean;
  /** `true`: a random mix of damage from the seed. */
  damage?: boolean | DamageOptions;
}

export interface GeneratedSession {
  /** The JSONL text of the file. */
  text: string;
  header: JsonObject;
  /** The entry objects in file order as written (duplicates and id-less entries included, damage lines not). */
  entries: JsonObject[];
  /** Every id of an entry that parses, in order of first occurrence (see `listEntryIds`). */
  entryIds: string[];
  /** The damage actually applied, or null for a clean file. */
  damage: Required<DamageOptions> | null;
  /** Tags of everything this file exercises, e.g. `entry:compaction`, `compaction:kept-off-path`. */
  features: string[];
}

/**
 * Every string id of an entry line that parses as a JSON object, in order of
 * first occurrence, header excluded: the ids a test can ask for as leaf.
 */
export function listEntryIds(text: string): string[] {
  const ids = new Set<string>();
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) continue;
    const object = value as JsonObject;
    if (object.type === "session") continue;
    if (typeof object.id === "string" && object.id !== "") ids.add(object.id);
  }
  return [...ids];
}

/** Every id in a list of entry objects, in order of first occurrence. */
export function entryIdsOf(entries: readonly JsonObject[]): string[] {
  const ids = new Set<string>();
  for (const entry of entries) if (typeof entry.id === "string" && entry.id !== "") ids.add(entry.id);
  return [...ids];
}

/** Feature tags the generator can produce; tests assert a run of seeds covered each. */
export const ALL_FEATURES: readonly string[] = [
  "entry:message",
  "entry:model_change",
  "entry:thinking_level_change",
  "entry:compaction",
  "entry:branch_summary",
  "entry:custom",
  "entry:custom_message",
  "entry:label",
  "entry:session_info",
  "entry:usage",
  "entry:context_edit",
  "role:user",
  "role:user:string",
  "role:user:blocks",
  "role:user:image",
  "role:assistant",
  "role:assistant:text",
  "role:assistant:thinking",
  "role:assistant:toolCall",
  "role:assistant:empty",
  "role:assistant:stop:error",
  "role:assistant:stop:aborted",
  "role:toolResult",
  "role:toolResult:isError",
  "role:toolResult:image",
  "role:bashExecution",
  "bash:excludeFromContext",
  "bash:cancelled",
  "bash:truncated:fullOutputPath",
  "bash:truncated:noPath",
  "bash:exitCode:null",
  "bash:exitCode:missing",
  "bash:exitCode:nonzero",
  "bash:exitCode:zero",
  "bash:no-output",
  "role:custom",
  "role:branchSummary",
  "role:compactionSummary",
  "role:system",
  "system:no-content",
  "content:null",
  "tree:branch",
  "tree:new-root",
  "timestamp:sibling-out-of-order",
  "timestamp:tie",
  "compaction:kept-on-path",
  "compaction:kept-self",
  "compaction:kept-off-path",
  "compaction:kept-missing",
  "compaction:nested",
  "compaction:older-in-kept-range",
  "compaction:system-in-kept-range",
  "compaction:systemMessage",
  "compaction:usage",
  "branch_summary:empty",
  "branch_summary:non-empty",
  "branch_summary:root",
  "label:set",
  "label:clear-absent",
  "label:clear-empty",
  "session_info:name",
  "session_info:clear",
  "custom:data",
  "custom:no-data",
  "custom_message:string",
  "custom_message:blocks",
  "custom_message:display",
  "custom_message:hidden",
  "custom_message:no-content",
  "context_edit:replace-string",
  "context_edit:replace-blocks",
  "context_edit:drop",
  "context_edit:target:user",
  "context_edit:target:assistant",
  "context_edit:target:toolResult",
  "context_edit:target:custom_message",
  "context_edit:target:other",
  "damage:malformed",
  "damage:truncated-entry",
  "damage:blank",
  "damage:crlf:all",
  "damage:crlf:mixed",
  "damage:unterminated:valid",
  "damage:unterminated:partial",
  "damage:orphan",
  "damage:duplicate-id",
  "damage:missing-id",
  "damage:empty-id",
  "damage:non-object",
];

const WORDS = [
  "tree",
  "branch",
  "leaf",
  "session",
  "refactor",
  "the",
  "parser",
  "fix",
  "test",
  "compaction",
  "context",
  "model",
  "héllo",
  "日本語",
  "naïve",
  "🎉",
  "emoji👩‍💻",
  '"quoted"',
  "back`tick`",
  "path\\to\\file",
  "tab\there",
  "line\nbreak",
  "crlf\r\ninside",
  "\u2028sep",
  "<summary>",
  "</summary>",
  "{json}",
  "",
];

const PROVIDERS = [
  { provider: "anthropic", api: "anthropic-messages", models: ["claude-opus-4-5", "claude-sonnet-4-5"] },
  { provider: "openai", api: "openai-responses", models: ["gpt-5.1-codex", "gpt-5.2"] },
  { provider: "google", api: "google-generative-ai", models: ["gemini-3-pro"] },
];
const THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh"];
const TOOL_NAMES = ["read", "bash", "edit", "write", "grep", "find", "ls"];
const CUSTOM_TYPES = ["todo", "plan-mode", "ext:notes", "git-checkpoint"];
/** A valid, tiny base64 payload (the bytes need not be a real image). */
const IMAGE_DATA = ["iVBORw0KGgo=", "R0lGODlhAQABAAAAACw=", "/9j/4AAQSkZJRg=="];

export interface MessageOptions {
  pi073Compatible?: boolean;
  /** Unix ms for the message's own `timestamp`. */
  timestamp: number;
  /** Collects feature tags. */
  features?: Set<string>;
  /**
   * Only what Pi's own code writes through `appendMessage`: no missing content,
   * no system message without content, no branchSummary or compactionSummary role.
   */
  wellFormed?: boolean;
}

function words(rng: Rng, min = 1, max = 8): string {
  const count = rng.int(min, max);
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push(rng.pick(WORDS));
  return out.join(" ");
}

/** A short non-empty text with some non-ASCII, quotes and line breaks. */
export function randomText(rng: Rng): string {
  return nonEmptyText(rng);
}

/** Content blocks fit for a message of `role` (a context edit's replacement, a custom message's content). */
export function randomBlocks(rng: Rng, role: string): JsonObject[] {
  return replacementBlocks(rng, role);
}

/** Token usage as Pi records it. */
export function randomUsage(rng: Rng): JsonObject {
  return usage(rng);
}

function nonEmptyText(rng: Rng): string {
  return `${rng.pick(["note", "step", "answer", "q"])} ${words(rng)}`;
}

function textBlock(rng: Rng): JsonObject {
  return { type: "text", text: nonEmptyText(rng) };
}

function imageBlock(rng: Rng): JsonObject {
  return { type: "image", data: rng.pick(IMAGE_DATA), mimeType: rng.pick(["image/png", "image/jpeg"]) };
}

function usage(rng: Rng): JsonObject {
  const input = rng.int(0, 50_000);
  const output = rng.int(0, 8_000);
  const cacheRead = rng.int(0, 100_000);
  const cacheWrite = rng.int(0, 5_000);
  return {
    input,
    output,
    cacheRead,
    cacheWrite,
    totalTokens: input + output + cacheRead + cacheWrite,
    cost: {
      input: input / 1e6,
      output: output / 1e6,
      cacheRead: 0,
      cacheWrite: 0,
      total: (input + output) / 1e6,
    },
  };
}

function userContent(rng: Rng, features: Set<string>): string | JsonObject[] {
  if (rng.chance(0.45)) {
    features.add("role:user:string");
    return nonEmptyText(rng);
  }
  features.add("role:user:blocks");
  const blocks: JsonObject[] = [];
  const count = rng.int(1, 3);
  for (let i = 0; i < count; i++) {
    if (rng.chance(0.25)) {
      features.add("role:user:image");
      blocks.push(imageBlock(rng));
    } else blocks.push(textBlock(rng));
  }
  return blocks;
}

function assistantBlocks(rng: Rng, features: Set<string>, min = 0): JsonObject[] {
  const blocks: JsonObject[] = [];
  const count = rng.int(min, 4);
  if (count === 0) features.add("role:assistant:empty");
  for (let i = 0; i < count; i++) {
    const kind = rng.weighted({ text: 5, thinking: 3, toolCall: 4 });
    if (kind === "text") {
      features.add("role:assistant:text");
      blocks.push(textBlock(rng));
    } else if (kind === "thinking") {
      features.add("role:assistant:thinking");
      const block: JsonObject = { type: "thinking", thinking: words(rng, 3, 12) };
      if (rng.chance(0.5)) block.thinkingSignature = rng.hex(24);
      blocks.push(block);
    } else {
      features.add("role:assistant:toolCall");
      blocks.push({
        type: "toolCall",
        id: `toolu_${rng.hex(12)}`,
        name: rng.pick(TOOL_NAMES),
        arguments: rng.chance(0.8) ? { path: `src/${rng.hex(4)}.ts`, limit: rng.int(1, 500) } : {},
      });
    }
  }
  return blocks;
}

/** One AgentMessage of a random role. Also used to drive Pi's own SessionManager. */
export function randomAgentMessage(rng: Rng, options: MessageOptions): JsonObject {
  const features = options.features ?? new Set<string>();
  const compatible = options.pi073Compatible === true;
  const timestamp = options.timestamp;
  const wellFormed = options.wellFormed === true;
  const role = rng.weighted({
    user: 20,
    assistant: 30,
    toolResult: 18,
    bashExecution: 9,
    custom: 4,
    branchSummary: wellFormed ? 0 : 2,
    compactionSummary: wellFormed ? 0 : 2,
    system: compatible ? 0 : 5,
  });
  features.add(`role:${role}`);
  const nullContent = !compatible && !wellFormed && rng.chance(0.04);
  switch (role) {
    case "user": {
      const message: JsonObject = { role, content: userContent(rng, features), timestamp };
      if (nullContent) {
        features.add("content:null");
        message.content = null;
      }
      return message;
    }
    case "assistant": {
      const vendor = rng.pick(PROVIDERS);
      const stopReason = rng.weighted({ stop: 6, toolUse: 5, length: 1, error: 2, aborted: 2 });
      const message: JsonObject = {
        role,
        content: assistantBlocks(rng, features),
        api: vendor.api,
        provider: vendor.provider,
        model: rng.pick(vendor.models),
        usage: usage(rng),
        stopReason,
        timestamp,
      };
      if (stopReason === "error" || stopReason === "aborted") {
        features.add(`role:assistant:stop:${stopReason}`);
        if (stopReason === "error" || rng.chance(0.5)) message.errorMessage = `${stopReason}: ${words(rng)}`;
      }
      if (nullContent) {
        features.add("content:null");
        message.content = null;
      }
      return message;
    }
    case "toolResult": {
      const content: JsonObject[] = [textBlock(rng)];
      if (rng.chance(0.15)) {
        features.add("role:toolResult:image");
        content.push(imageBlock(rng));
      }
      const isError = rng.chance(0.25);
      if (isError) features.add("role:toolResult:isError");
      const message: JsonObject = {
        role,
        toolCallId: `toolu_${rng.hex(12)}`,
        toolName: rng.pick(TOOL_NAMES),
        content,
        isError,
        timestamp,
      };
      if (rng.chance(0.4)) message.details = { diff: words(rng), lines: rng.int(0, 99) };
      if (nullContent) {
        features.add("content:null");
        message.content = null;
      }
      return message;
    }
    case "bashExecution": {
      const message: JsonObject = {
        role,
        command: rng.pick(["ls -la", "npm test", "git status", "echo `date`", "cat 日本.txt"]),
        output: rng.chance(0.2) ? "" : words(rng, 1, 10),
        timestamp,
      };
      if (message.output === "") features.add("bash:no-output");
      const exit = rng.weighted({ zero: 4, nonzero: 3, null: 2, missing: 1 });
      features.add(`bash:exitCode:${exit}`);
      if (exit === "zero") message.exitCode = 0;
      else if (exit === "nonzero") message.exitCode = rng.pick([1, 2, 127, 130, -1]);
      else if (exit === "null") message.exitCode = null;
      message.cancelled = rng.chance(0.15);
      if (message.cancelled) features.add("bash:cancelled");
      message.truncated = rng.chance(0.25);
      if (message.truncated) {
        if (rng.chance(0.7)) {
          features.add("bash:truncated:fullOutputPath");
          message.fullOutputPath = `/tmp/pi-bash-${rng.hex(8)}.log`;
        } else features.add("bash:truncated:noPath");
      }
      const exclude = rng.weighted({ absent: 6, yes: 2, no: 1 });
      if (exclude === "yes") {
        features.add("bash:excludeFromContext");
        message.excludeFromContext = true;
      } else if (exclude === "no") message.excludeFromContext = false;
      return message;
    }
    case "custom": {
      const message: JsonObject = {
        role,
        customType: rng.pick(CUSTOM_TYPES),
        content: rng.chance(0.5)
          ? nonEmptyText(rng)
          : [textBlock(rng), ...(rng.chance(0.3) ? [imageBlock(rng)] : [])],
        display: rng.chance(0.5),
        timestamp,
      };
      if (rng.chance(0.5)) message.details = { source: rng.pick(CUSTOM_TYPES) };
      return message;
    }
    case "branchSummary":
      return { role, summary: nonEmptyText(rng), fromId: rng.hex(8), timestamp };
    case "compactionSummary":
      return { role, summary: nonEmptyText(rng), tokensBefore: rng.int(1000, 200_000), timestamp };
    case "system":
      return systemMessage(rng, features, timestamp, wellFormed);
  }
}

function systemMessage(rng: Rng, features: Set<string>, timestamp: number, wellFormed = false): JsonObject {
  const message: JsonObject = { role: "system" };
  if (!wellFormed && rng.chance(0.12)) features.add("system:no-content");
  else message.content = `You are a coding agent. ${words(rng)}`;
  if (rng.chance(0.4)) {
    message.toolsAdded = [
      { name: rng.pick(TOOL_NAMES), description: words(rng), parameters: { type: "object" } },
    ];
  }
  if (rng.chance(0.2)) message.toolsRemoved = [{ name: rng.pick(TOOL_NAMES) }];
  message.timestamp = timestamp;
  return message;
}

type EntryKind =
  | "message"
  | "model_change"
  | "thinking_level_change"
  | "compaction"
  | "branch_summary"
  | "custom"
  | "custom_message"
  | "label"
  | "session_info"
  | "usage"
  | "context_edit";

interface Builder {
  rng: Rng;
  compatible: boolean;
  features: Set<string>;
  entries: JsonObject[];
  byId: Map<string, JsonObject>;
  /** Timestamp in ms of each entry. */
  timeOf: Map<string, number>;
  childrenOf: Map<string | null, string[]>;
  clock: number;
  lastTime: number;
}

function newId(builder: Builder): string {
  for (;;) {
    const id = builder.rng.hex(8);
    if (!builder.byId.has(id)) return id;
  }
}

/** Ids from the root down to `id` (inclusive), or [] for null. */
function pathTo(builder: Builder, id: string | null): string[] {
  const path: string[] = [];
  let at = id;
  while (at !== null) {
    const entry = builder.byId.get(at);
    if (!entry) break;
    path.push(at);
    at = typeof entry.parentId === "string" ? entry.parentId : null;
  }
  return path.reverse();
}

function nextTimestamp(builder: Builder, parentId: string | null): number {
  const { rng } = builder;
  const siblings = builder.childrenOf.get(parentId) ?? [];
  builder.clock += rng.int(1, 90_000);
  let time = builder.clock;
  if (siblings.length > 0 && rng.chance(0.35)) {
    // Earlier than a sibling already in the file: Pi's /tree sorts children by time.
    const earliest = Math.min(...siblings.map((id) => builder.timeOf.get(id)!));
    time = earliest - rng.int(0, 600_000);
  } else if (rng.chance(0.08)) {
    time = builder.lastTime;
  } else if (rng.chance(0.05)) {
    time = builder.clock - rng.int(1, 3_600_000);
  }
  for (const sibling of siblings) {
    const siblingTime = builder.timeOf.get(sibling)!;
    if (siblingTime > time) builder.features.add("timestamp:sibling-out-of-order");
    if (siblingTime === time) builder.features.add("timestamp:tie");
  }
  builder.lastTime = time;
  return time;
}

function isEditable(entry: JsonObject): string | null {
  if (entry.type === "custom_message") return "custom_message";
  if (entry.type !== "message") return null;
  const role = (entry.message as JsonObject).role;
  return role === "user" || role === "assistant" || role === "toolResult" ? role : null;
}

function replacementBlocks(rng: Rng, role: string): JsonObject[] {
  if (role === "assistant") return assistantBlocks(rng, new Set(), 1);
  if (role === "toolResult") return [textBlock(rng)];
  const blocks = [textBlock(rng)];
  if (rng.chance(0.3)) blocks.push(imageBlock(rng));
  return blocks;
}

/** The body of one entry of `kind` (without id, parentId, timestamp). */
function entryBody(
  builder: Builder,
  kind: EntryKind,
  id: string,
  parentId: string | null,
  time: number,
): JsonObject {
  const { rng, features, compatible } = builder;
  features.add(`entry:${kind}`);
  const ancestors = pathTo(builder, parentId);
  switch (kind) {
    case "message":
      return {
        message: randomAgentMessage(rng, {
          pi073Compatible: compatible,
          timestamp: time + rng.int(-5, 5),
          features,
        }),
      };
    case "model_change": {
      const vendor = rng.pick(PROVIDERS);
      return { provider: vendor.provider, modelId: rng.pick(vendor.models) };
    }
    case "thinking_level_change":
      return { thinkingLevel: rng.pick(THINKING_LEVELS) };
    case "compaction": {
      const target = rng.weighted({ onPath: ancestors.length > 0 ? 10 : 0, self: 3, offPath: 2, missing: 1 });
      let firstKeptEntryId: string;
      if (target === "onPath") {
        firstKeptEntryId = rng.pick(ancestors);
        features.add("compaction:kept-on-path");
      } else if (target === "offPath") {
        const onPath = new Set(ancestors);
        const others = [...builder.byId.keys()].filter((other) => !onPath.has(other));
        firstKeptEntryId = others.length > 0 ? rng.pick(others) : rng.hex(8);
        features.add(others.length > 0 ? "compaction:kept-off-path" : "compaction:kept-missing");
      } else if (target === "missing") {
        firstKeptEntryId = rng.hex(8);
        features.add("compaction:kept-missing");
      } else {
        // What Pi 1.x writes when no kept entry is given.
        firstKeptEntryId = id;
        features.add("compaction:kept-self");
      }
      const keptFrom = ancestors.indexOf(firstKeptEntryId);
      ancestors.forEach((ancestorId, index) => {
        const ancestor = builder.byId.get(ancestorId)!;
        if (ancestor.type === "compaction") {
          features.add("compaction:nested");
          if (keptFrom >= 0 && index >= keptFrom) features.add("compaction:older-in-kept-range");
        }
        if (
          keptFrom >= 0 &&
          index >= keptFrom &&
          ancestor.type === "message" &&
          (ancestor.message as JsonObject).role === "system"
        ) {
          features.add("compaction:system-in-kept-range");
        }
      });
      const body: JsonObject = {
        summary: `## Summary\n${words(rng, 3, 20)}`,
        firstKeptEntryId,
        tokensBefore: rng.int(1000, 250_000),
      };
      if (rng.chance(0.4)) body.details = { readFiles: [`src/${rng.hex(4)}.ts`], modifiedFiles: [] };
      if (rng.chance(0.2)) body.fromHook = rng.chance(0.5);
      if (!compatible && rng.chance(0.4)) {
        features.add("compaction:usage");
        body.usage = usage(rng);
      }
      if (!compatible && rng.chance(0.4)) {
        features.add("compaction:systemMessage");
        body.systemMessage = systemMessage(rng, new Set(), time);
      }
      return body;
    }
    case "branch_summary": {
      const fromCandidates = [...builder.byId.keys()];
      const fromId = fromCandidates.length > 0 && rng.chance(0.9) ? rng.pick(fromCandidates) : "root";
      const empty = rng.chance(0.3);
      features.add(empty ? "branch_summary:empty" : "branch_summary:non-empty");
      if (parentId === null) features.add("branch_summary:root");
      const body: JsonObject = { fromId, summary: empty ? "" : `Branch explored: ${words(rng, 2, 12)}` };
      if (rng.chance(0.3)) body.details = { files: [rng.hex(4)] };
      if (rng.chance(0.2)) body.fromHook = true;
      if (!compatible && rng.chance(0.3)) body.usage = usage(rng);
      return body;
    }
    case "custom": {
      const body: JsonObject = { customType: rng.pick(CUSTOM_TYPES) };
      if (rng.chance(0.7)) {
        features.add("custom:data");
        body.data = { state: words(rng), count: rng.int(0, 9), nested: { ok: rng.chance(0.5) } };
      } else features.add("custom:no-data");
      return body;
    }
    case "custom_message": {
      const body: JsonObject = { customType: rng.pick(CUSTOM_TYPES) };
      if (!compatible && rng.chance(0.06)) {
        features.add("custom_message:no-content");
      } else if (rng.chance(0.5)) {
        features.add("custom_message:string");
        body.content = nonEmptyText(rng);
      } else {
        features.add("custom_message:blocks");
        body.content = [textBlock(rng), ...(rng.chance(0.4) ? [imageBlock(rng)] : [])];
      }
      body.display = rng.chance(0.5);
      features.add(body.display ? "custom_message:display" : "custom_message:hidden");
      if (rng.chance(0.5)) body.details = { injectedBy: rng.pick(CUSTOM_TYPES) };
      return body;
    }
    case "label": {
      const targets = [...builder.byId.keys()];
      const targetId = targets.length > 0 ? rng.pick(targets) : id;
      const how = rng.weighted({ set: 7, absent: 2, empty: 1 });
      if (how === "set") {
        features.add("label:set");
        return { targetId, label: rng.pick(["checkpoint", "good", "bug here", "⭐ keep", "v2"]) };
      }
      features.add(how === "absent" ? "label:clear-absent" : "label:clear-empty");
      return how === "absent" ? { targetId } : { targetId, label: "" };
    }
    case "session_info": {
      if (rng.chance(0.25)) {
        features.add("session_info:clear");
        return { name: rng.pick(["", "   "]) };
      }
      features.add("session_info:name");
      return { name: rng.pick(["Refactor", "  padded name  ", "Fix the parser", "日本語のセッション"]) };
    }
    case "usage": {
      const vendor = rng.pick(PROVIDERS);
      const body: JsonObject = {
        kind: rng.pick(["cache_warm", "title"]),
        provider: vendor.provider,
        model: rng.pick(vendor.models),
        usage: usage(rng),
      };
      if (rng.chance(0.5)) body.note = words(rng);
      return body;
    }
    case "context_edit": {
      const editable = ancestors.filter((ancestorId) => isEditable(builder.byId.get(ancestorId)!) !== null);
      let targetId: string;
      let role: string;
      if (editable.length > 0 && rng.chance(0.85)) {
        targetId = rng.pick(editable);
        role = isEditable(builder.byId.get(targetId)!)!;
      } else {
        // Hand-edited or odd files: a target that is off the path, not editable, or missing.
        const all = [...builder.byId.keys()];
        targetId = all.length > 0 && rng.chance(0.8) ? rng.pick(all) : rng.hex(8);
        const target = builder.byId.get(targetId);
        role = (target && isEditable(target)) ?? "other";
      }
      features.add(`context_edit:target:${role}`);
      const how = rng.weighted({ string: 4, blocks: 4, drop: 3 });
      if (how === "drop") {
        features.add("context_edit:drop");
        return { targetId, replacement: null };
      }
      if (how === "string") {
        features.add("context_edit:replace-string");
        return { targetId, replacement: { content: `edited: ${words(rng)}` } };
      }
      features.add("context_edit:replace-blocks");
      return { targetId, replacement: { content: replacementBlocks(rng, role) } };
    }
  }
}

function entryKinds(compatible: boolean): Record<EntryKind, number> {
  return {
    message: 48,
    model_change: 4,
    thinking_level_change: 4,
    compaction: 6,
    branch_summary: 4,
    custom: 3,
    custom_message: 5,
    label: 6,
    session_info: 3,
    usage: compatible ? 0 : 3,
    context_edit: compatible ? 0 : 7,
  };
}

function makeEntry(builder: Builder, kind: EntryKind, id: string, parentId: string | null): JsonObject {
  const time = nextTimestamp(builder, parentId);
  const body = entryBody(builder, kind, id, parentId, time);
  return { type: kind, id, parentId, timestamp: new Date(time).toISOString(), ...body };
}

function record(builder: Builder, entry: JsonObject): void {
  const id = entry.id as string;
  const parentId = (entry.parentId as string | null) ?? null;
  builder.entries.push(entry);
  builder.byId.set(id, entry);
  builder.timeOf.set(id, new Date(entry.timestamp as string).getTime());
  const siblings = builder.childrenOf.get(parentId) ?? [];
  siblings.push(id);
  builder.childrenOf.set(parentId, siblings);
}

function resolveDamage(rng: Rng, damage: GenerateSessionOptions["damage"]): Required<DamageOptions> | null {
  if (!damage) return null;
  if (damage === true) {
    return {
      malformedLines: rng.chance(0.6),
      blankLines: rng.chance(0.5),
      crlf:
        rng.weighted({ none: 2, all: 1, mixed: 1 }) === "none" ? false : rng.chance(0.5) ? "all" : "mixed",
      unterminatedLastLine: rng.pick([false, "valid", "partial"] as const),
      orphans: rng.chance(0.5),
      duplicateIds: rng.chance(0.5),
      missingIds: rng.chance(0.4),
      nonObjectLines: rng.chance(0.3),
      nonObjectLastLine: false,
    };
  }
  return {
    malformedLines: damage.malformedLines ?? false,
    blankLines: damage.blankLines ?? false,
    crlf: damage.crlf ?? false,
    unterminatedLastLine: damage.unterminatedLastLine ?? false,
    orphans: damage.orphans ?? false,
    duplicateIds: damage.duplicateIds ?? false,
    missingIds: damage.missingIds ?? false,
    nonObjectLines: damage.nonObjectLines ?? false,
    nonObjectLastLine: damage.nonObjectLastLine ?? false,
  };
}

export function generateSession(options: GenerateSessionOptions): GeneratedSession {
  const rng = new Rng(options.seed);
  const compatible = options.pi073Compatible === true;
  const features = new Set<string>();
  const start = Date.UTC(2026, 0, 1) + rng.int(0, 300) * 86_400_000;
  const builder: Builder = {
    rng,
    compatible,
    features,
    entries: [],
    byId: new Map(),
    timeOf: new Map(),
    childrenOf: new Map(),
    clock: start,
    lastTime: start,
  };
  const header: JsonObject = {
    type: "session",
    version: 3,
    id: rng.uuid(),
    timestamp: new Date(start).toISOString(),
    cwd: `/home/dev/project-${rng.hex(4)}`,
  };
  if (rng.chance(0.2)) header.parentSession = `/home/dev/.pi/agent/sessions/--home-dev--/${rng.uuid()}.jsonl`;

  const count = options.entryCount ?? rng.int(25, 110);
  const kinds = entryKinds(compatible);
  let leaf: string | null = null;
  for (let i = 0; i < count; i++) {
    let parentId: string | null;
    if (builder.entries.length === 0) parentId = null;
    else if (rng.chance(0.75)) parentId = leaf;
    else if (rng.chance(0.9)) {
      // /tree navigation: continue from an earlier entry.
      parentId = (rng.pick(builder.entries).id as string) ?? null;
      if (parentId !== leaf) features.add("tree:branch");
    } else {
      // resetLeaf(): a new root.
      parentId = null;
      features.add("tree:new-root");
    }
    // The first entry of a conversation is usually a user message; anything goes later.
    const kind: EntryKind = i === 0 && rng.chance(0.7) ? "message" : rng.weighted(kinds);
    const id = newId(builder);
    const entry = makeEntry(builder, kind, id, parentId);
    record(builder, entry);
    leaf = id;
  }

  const damage = resolveDamage(rng, options.damage);
  const items: FileItem[] = damage
    ? damageEntries(builder, damage)
    : builder.entries.map((entry) => ({ entry }));
  const entries = items.flatMap((item) => ("entry" in item ? [item.entry] : []));
  const lines = [
    JSON.stringify(header),
    ...items.map((item) => ("entry" in item ? JSON.stringify(item.entry) : item.raw)),
  ];
  const text = damage ? damageLines(builder, lines, damage) : `${lines.join("\n")}\n`;
  return {
    text,
    header,
    entries,
    entryIds: listEntryIds(text),
    damage,
    features: [...features].sort(),
  };
}

/** One line of the file after the header: an entry, or raw JSON text that is not an object. */
type FileItem = { entry: JsonObject } | { raw: string };

/** Orphans, duplicates, id-less entries and non-object lines: damage at the level of entries. */
function damageEntries(builder: Builder, damage: Required<DamageOptions>): FileItem[] {
  const { rng, features } = builder;
  const clean = builder.entries;
  // Position of each id's first line: every winning parent link below points to a lower
  // position, so no damage can close a parent cycle (Pi would loop forever).
  const position = new Map<string, number>();
  clean.forEach((entry, index) => {
    position.set(entry.id as string, index);
  });
  const items: FileItem[] = clean.map((entry) => ({ entry: { ...entry } }));
  const indexOfId = (id: string) => items.findIndex((item) => "entry" in item && item.entry.id === id);

  if (damage.orphans) {
    const count = rng.int(1, Math.max(1, Math.floor(clean.length / 15)));
    for (let i = 0; i < count; i++) {
      const item = rng.pick(items) as { entry: JsonObject };
      // Generated ids are hex only, so this names no entry.
      item.entry.parentId = `${rng.hex(7)}z`;
      features.add("damage:orphan");
    }
  }

  const kinds = entryKinds(builder.compatible);
  if (damage.duplicateIds) {
    const count = rng.int(1, 3);
    for (let i = 0; i < count; i++) {
      const id = rng.pick(clean).id as string;
      const earlier = clean.slice(0, position.get(id)!).map((entry) => entry.id as string);
      const parentId = earlier.length > 0 && rng.chance(0.85) ? rng.pick(earlier) : null;
      const duplicate = makeEntry(builder, rng.weighted(kinds), id, parentId);
      items.splice(rng.int(indexOfId(id) + 1, items.length), 0, { entry: duplicate });
      features.add("damage:duplicate-id");
    }
  }

  if (damage.missingIds && items.length > 2) {
    const count = rng.int(1, 3);
    for (let i = 0; i < count; i++) {
      const parentId = rng.pick(clean.slice(0, -1)).id as string;
      const entry = makeEntry(builder, rng.weighted(kinds), "no-id", parentId);
      if (rng.chance(0.7)) {
        delete entry.id;
        features.add("damage:missing-id");
      } else {
        entry.id = "";
        features.add("damage:empty-id");
      }
      // After its parent, never last: the last entry keeps an id a test can name.
      const after = indexOfId(parentId) + 1;
      items.splice(rng.int(Math.min(after, items.length - 1), items.length - 1), 0, { entry });
    }
  }

  if (damage.nonObjectLines && items.length > 1) {
    const count = rng.int(1, 3);
    for (let i = 0; i < count; i++) {
      // Never last either: Pi keeps a truthy non-object value as an entry, and as the last one it would be the leaf.
      items.splice(rng.int(0, items.length - 1), 0, {
        raw: rng.pick(["42", '"a string"', "[1,2,3]", "true", "null", "0"]),
      });
      features.add("damage:non-object");
    }
  }
  if (damage.nonObjectLastLine) {
    items.push({ raw: rng.pick(["42", '"a string"', "[1]", "true"]) });
    features.add("damage:non-object-last");
  }
  return items;
}

/** Malformed and blank lines, truncated entries, line endings, an unterminated end. */
function damageLines(builder: Builder, lines: string[], damage: Required<DamageOptions>): string {
  const { rng, features } = builder;
  const objectLines = () => lines.slice(1).filter((line) => line.startsWith("{"));

  if (damage.malformedLines) {
    // Replace some entry lines, never the header nor the last, by a truncated copy: the entry is lost.
    const count = rng.int(1, 3);
    for (let i = 0; i < count && lines.length > 3; i++) {
      const at = rng.int(1, lines.length - 2);
      const line = lines[at]!;
      if (!line.startsWith("{")) continue;
      lines[at] = line.slice(0, rng.int(1, line.length - 2));
      features.add("damage:truncated-entry");
    }
    const inserts = rng.int(1, 4);
    for (let i = 0; i < inserts; i++) {
      const sample = objectLines();
      const garbage = rng.pick([
        "not json at all",
        "{",
        '{"type":"message","id":',
        '{"type":"label",}',
        "}{",
        "<<<<<<< HEAD",
        (sample.length > 0 ? rng.pick(sample) : "{").slice(0, 10),
      ]);
      // Position 0 puts garbage before the header: Pi skips it and still finds the header.
      lines.splice(rng.int(0, lines.length - 1), 0, garbage);
      features.add("damage:malformed");
    }
  }

  if (damage.blankLines) {
    const count = rng.int(1, 4);
    for (let i = 0; i < count; i++) {
      lines.splice(rng.int(0, lines.length - 1), 0, rng.pick(["", "   ", "\t", " \r"]));
      features.add("damage:blank");
    }
  }

  const endings = lines.map(() => "\n");
  if (damage.crlf === "all") {
    endings.fill("\r\n");
    features.add("damage:crlf:all");
  } else if (damage.crlf === "mixed") {
    for (let i = 0; i < endings.length; i++) if (rng.chance(0.5)) endings[i] = "\r\n";
    features.add("damage:crlf:mixed");
  }
  if (damage.unterminatedLastLine === "valid") {
    endings[endings.length - 1] = "";
    features.add("damage:unterminated:valid");
  }
  let text = "";
  lines.forEach((line, index) => {
    text += line + endings[index]!;
  });
  const last = lines[lines.length - 1]!;
  if (damage.unterminatedLastLine === "partial" && last.startsWith("{")) {
    // A write cut short: half of a copy of the last line, without its newline.
    text += last.slice(0, Math.max(1, Math.floor(last.length / 2)));
    features.add("damage:unterminated:partial");
  }
  return text;
}
