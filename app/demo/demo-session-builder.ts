/**
 * The builders the demo sessions are written with: a session that appends
 * entries the way Pi's SessionManager does, and the ids it makes, stable
 * from run to run so the demo files are the same every time.
 */

const BASE_TIME = Date.parse("2026-11-20T09:00:00.000Z");
export const PROVIDER = "anthropic";
const MODEL = "claude-sonnet-4-5";

type Json = Record<string, unknown>;

/** Builds one session the way Pi's SessionManager appends: each entry a child of the current leaf. */
export class DemoSession {
  readonly header: Json;
  readonly entries: Json[] = [];
  leafId: string | null = null;
  private clock: number;
  private counter = 0;

  constructor(
    readonly slug: string,
    readonly cwd: string,
    startMinutes: number,
    parentSession?: string,
  ) {
    this.clock = BASE_TIME + startMinutes * 60_000;
    this.header = {
      type: "session",
      version: 3,
      id: demoUuid(slug),
      timestamp: new Date(this.clock).toISOString(),
      cwd,
      ...(parentSession ? { parentSession } : {}),
    };
  }

  get fileName(): string {
    return `${String(this.header.timestamp).replace(/[:.]/g, "-")}_${String(this.header.id)}.jsonl`;
  }

  private nextId(): string {
    this.counter += 1;
    return hex8(`${this.slug}:${this.counter}`);
  }

  private tick(seconds = 20): string {
    this.clock += seconds * 1000;
    return new Date(this.clock).toISOString();
  }

  private append(fields: Json, parentId: string | null = this.leafId): string {
    const id = this.nextId();
    const timestamp = this.tick();
    this.entries.push({ type: fields.type, id, parentId, timestamp, ...fields });
    this.leafId = id;
    return id;
  }

  user(text: string): string {
    return this.append({
      type: "message",
      message: { role: "user", content: [{ type: "text", text }], timestamp: this.clock },
    });
  }

  assistant(parts: {
    text?: string;
    thinking?: string;
    tools?: { name: string; args: Json }[];
    stopReason?: string;
  }): {
    id: string;
    toolCallIds: string[];
  } {
    const content: Json[] = [];
    if (parts.thinking) content.push({ type: "thinking", thinking: parts.thinking });
    if (parts.text) content.push({ type: "text", text: parts.text });
    const toolCallIds: string[] = [];
    for (const [index, tool] of (parts.tools ?? []).entries()) {
      // The call's index is in the seed: a real provider never gives two calls in one message the same id.
      const seed = `${this.slug}:call:${this.counter}:${index}:${tool.name}`;
      const callId = `toolu_${hex8(seed)}${hex8(`${seed}:tail`)}`;
      toolCallIds.push(callId);
      content.push({ type: "toolCall", id: callId, name: tool.name, arguments: tool.args });
    }
    const input = 1200 + this.entries.length * 350;
    const id = this.append({
      type: "message",
      message: {
        role: "assistant",
        content,
        api: "anthropic-messages",
        provider: PROVIDER,
        model: MODEL,
        usage: {
          input,
          output: 180 + content.length * 90,
          cacheRead: Math.floor(input * 0.6),
          cacheWrite: 0,
          totalTokens: input + 180,
          cost: {
            input: input * 3e-6,
            output: 0.0027,
            cacheRead: 0,
            cacheWrite: 0,
            total: input * 3e-6 + 0.0027,
          },
        },
        stopReason: parts.stopReason ?? (toolCallIds.length > 0 ? "toolUse" : "stop"),
        timestamp: this.clock,
      },
    });
    return { id, toolCallIds };
  }

  toolResult(toolCallId: string, toolName: string, text: string, isError = false): string {
    return this.append({
      type: "message",
      message: {
        role: "toolResult",
        toolCallId,
        toolName,
        content: [{ type: "text", text }],
        isError,
        timestamp: this.clock,
      },
    });
  }

  bash(command: string, output: string, exitCode: number): string {
    return this.append({
      type: "message",
      message: {
        role: "bashExecution",
        command,
        output,
        exitCode,
        cancelled: false,
        truncated: false,
        timestamp: this.clock,
      },
    });
  }

  modelChange(provider: string, modelId: string): string {
    return this.append({ type: "model_change", provider, modelId });
  }

  thinkingLevel(level: string): string {
    return this.append({ type: "thinking_level_change", thinkingLevel: level });
  }

  label(targetId: string, label: string | undefined): string {
    return this.append({ type: "label", targetId, label });
  }

  name(name: string): string {
    return this.append({ type: "session_info", name });
  }

  compaction(summary: string, firstKeptEntryId: string, tokensBefore: number): string {
    return this.append({ type: "compaction", summary, firstKeptEntryId, tokensBefore });
  }

  /** Pi's branchWithSummary: a summary of the abandoned path, as a child of the entry branched from. */
  branchWithSummary(fromEntryId: string, summary: string): string {
    const abandoned = this.leafId ?? "root";
    return this.append({ type: "branch_summary", fromId: abandoned, summary }, fromEntryId);
  }

  branch(entryId: string): void {
    this.leafId = entryId;
  }

  customMessage(customType: string, content: string, display: boolean): string {
    // Pi writes customType before id.
    const id = this.nextId();
    const timestamp = this.tick();
    this.entries.push({
      type: "custom_message",
      customType,
      content,
      display,
      id,
      parentId: this.leafId,
      timestamp,
    });
    this.leafId = id;
    return id;
  }

  custom(customType: string, data: Json): string {
    const id = this.nextId();
    const timestamp = this.tick();
    this.entries.push({ type: "custom", customType, data, id, parentId: this.leafId, timestamp });
    this.leafId = id;
    return id;
  }

  contextEdit(targetId: string, replacement: { content: string } | null): string {
    return this.append({ type: "context_edit", targetId, replacement });
  }

  text(): string {
    return [this.header, ...this.entries].map((entry) => `${JSON.stringify(entry)}\n`).join("");
  }
}

/** The entries from the first to `leafId`, following parent ids. */
export function pathTo(entries: readonly Json[], leafId: string): Json[] {
  const byId = new Map(entries.map((entry) => [entry.id as string, entry]));
  const path: Json[] = [];
  for (
    let entry = byId.get(leafId);
    entry;
    entry = entry.parentId ? byId.get(entry.parentId as string) : undefined
  ) {
    path.push(entry);
  }
  return path.reverse();
}

/** 8 hex characters from FNV-1a with a murmur finaliser, so neighbouring seeds look unrelated (like Pi's random ids). */
export function hex8(seed: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < seed.length; i++) hash = Math.imul(hash ^ seed.charCodeAt(i), 0x01000193) >>> 0;
  hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b) >>> 0;
  hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35) >>> 0;
  return ((hash ^ (hash >>> 16)) >>> 0).toString(16).padStart(8, "0");
}

/** A UUID v7-shaped id from the slug (time prefix from the demo clock), stable across runs. */
function demoUuid(slug: string): string {
  const time = BASE_TIME.toString(16).padStart(12, "0");
  const rest = `${hex8(`${slug}:a`)}${hex8(`${slug}:b`)}${hex8(`${slug}:c`)}`;
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${rest.slice(0, 3)}-8${rest.slice(3, 6)}-${rest.slice(6, 18)}`;
}
