/**
 * Crafted Pi sessions for the branch model's and the compare engine's
 * tests: entries written as Pi writes them, one call each, timestamps one
 * second apart. `text()` is the JSONL file.
 */

type Json = Record<string, unknown>;

export interface ToolCallSpec {
  name: string;
  args: Json;
  /** Defaults to `call-<entry id>-<position>`. */
  id?: string;
}

export interface AssistantSpec {
  text?: string;
  thinking?: string;
  tools?: ToolCallSpec[];
  model?: string;
  provider?: string;
  usage?: { input: number; output: number; cacheRead?: number; cacheWrite?: number; cost?: number };
  stopReason?: string;
  errorMessage?: string;
}

export class SessionBuilder {
  private readonly lines: string[];
  private second = 0;

  constructor(
    readonly sessionId = "0193f2a4-7c1e-7000-8000-00000000b000",
    header: Json = {},
  ) {
    this.lines = [
      JSON.stringify({
        type: "session",
        version: 3,
        id: sessionId,
        timestamp: "2026-01-01T00:00:00.000Z",
        cwd: "/work/project",
        ...header,
      }),
    ];
  }

  /** Any entry: `type`, `id`, `parentId`, a timestamp, then `fields`. */
  entry(type: string, id: string, parentId: string | null, fields: Json = {}): this {
    this.second += 1;
    const timestamp = new Date(Date.UTC(2026, 0, 1) + this.second * 1000).toISOString();
    this.lines.push(JSON.stringify({ type, id, parentId, timestamp, ...fields }));
    return this;
  }

  message(id: string, parentId: string | null, message: Json): this {
    return this.entry("message", id, parentId, { message: { timestamp: this.second * 1000, ...message } });
  }

  user(id: string, parentId: string | null, text: string): this {
    return this.message(id, parentId, { role: "user", content: text });
  }

  assistant(id: string, parentId: string | null, spec: AssistantSpec = {}): this {
    const content: Json[] = [];
    if (spec.thinking) content.push({ type: "thinking", thinking: spec.thinking });
    if (spec.text !== undefined) content.push({ type: "text", text: spec.text });
    (spec.tools ?? []).forEach((tool, i) => {
      content.push({
        type: "toolCall",
        id: tool.id ?? `call-${id}-${i}`,
        name: tool.name,
        arguments: tool.args,
      });
    });
    const usage = spec.usage ?? { input: 100, output: 10 };
    const message: Json = {
      role: "assistant",
      content,
      api: "anthropic-messages",
      provider: spec.provider ?? "anthropic",
      model: spec.model ?? "claude-sonnet-4-5",
      usage: {
        input: usage.input,
        output: usage.output,
        cacheRead: usage.cacheRead ?? 0,
        cacheWrite: usage.cacheWrite ?? 0,
        totalTokens: usage.input + usage.output,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: usage.cost ?? 0 },
      },
      stopReason: spec.stopReason ?? (spec.tools?.length ? "toolUse" : "stop"),
    };
    if (spec.errorMessage) message.errorMessage = spec.errorMessage;
    return this.message(id, parentId, message);
  }

  toolResult(
    id: string,
    parentId: string | null,
    spec: { toolName: string; text: string; isError?: boolean; toolCallId?: string },
  ): this {
    return this.message(id, parentId, {
      role: "toolResult",
      toolCallId: spec.toolCallId ?? `call-${parentId}-0`,
      toolName: spec.toolName,
      content: [{ type: "text", text: spec.text }],
      isError: spec.isError ?? false,
    });
  }

  bash(
    id: string,
    parentId: string | null,
    spec: { command: string; output: string; exitCode: number },
  ): this {
    return this.message(id, parentId, {
      role: "bashExecution",
      command: spec.command,
      output: spec.output,
      exitCode: spec.exitCode,
      cancelled: false,
      truncated: false,
    });
  }

  label(id: string, parentId: string | null, targetId: string, label: string | undefined): this {
    return this.entry("label", id, parentId, { targetId, label });
  }

  sessionInfo(id: string, parentId: string | null, name: string): this {
    return this.entry("session_info", id, parentId, { name });
  }

  custom(id: string, parentId: string | null, customType: string, data: Json = {}): this {
    return this.entry("custom", id, parentId, { customType, data });
  }

  customMessage(id: string, parentId: string | null, customType: string, content: string): this {
    return this.entry("custom_message", id, parentId, { customType, content, display: true });
  }

  compaction(
    id: string,
    parentId: string | null,
    spec: { summary: string; firstKeptEntryId: string; tokensBefore?: number; details?: Json },
  ): this {
    return this.entry("compaction", id, parentId, {
      summary: spec.summary,
      firstKeptEntryId: spec.firstKeptEntryId,
      tokensBefore: spec.tokensBefore ?? 1000,
      ...(spec.details ? { details: spec.details } : {}),
    });
  }

  branchSummary(
    id: string,
    parentId: string | null,
    spec: { fromId: string; summary: string; details?: Json },
  ): this {
    return this.entry("branch_summary", id, parentId, {
      fromId: spec.fromId,
      summary: spec.summary,
      ...(spec.details ? { details: spec.details } : {}),
    });
  }

  text(): string {
    return `${this.lines.join("\n")}\n`;
  }
}
