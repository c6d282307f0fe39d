/** Pi 0.73 and Pi 1.6's session managers, imported by file path and typed as far as the store tests use them. */

export interface PiEntry {
  type: string;
  id: string;
  parentId: string | null;
  [field: string]: unknown;
}

export interface PiContext {
  messages: Array<Record<string, unknown>>;
  thinkingLevel: string;
  model: { provider: string; modelId: string } | null;
}

export interface PiSessionManager {
  appendMessage(message: Record<string, unknown>): string;
  appendCompaction(summary: string, firstKeptEntryId: string | undefined, tokensBefore: number): string;
  appendCustomEntry(customType: string, data?: unknown): string;
  appendCustomMessageEntry(customType: string, content: unknown, display: boolean, details?: unknown): string;
  appendSessionInfo(name: string): string;
  appendLabelChange(targetId: string, label: string | undefined): string;
  appendModelChange(provider: string, modelId: string): string;
  branch(id: string): void;
  branchWithSummary(id: string | null, summary: string, details?: unknown, fromHook?: boolean): string;
  createBranchedSession(leafId: string): string | undefined;
  getSessionFile(): string | undefined;
  getLeafId(): string | null;
  getEntries(): PiEntry[];
  getEntry(id: string): PiEntry | undefined;
  getLabel(id: string): string | undefined;
  getSessionName(): string | undefined;
  getHeader(): ({ id: string; parentSession?: string; cwd: string } & Record<string, unknown>) | null;
  buildSessionContext(): PiContext;
}

export interface Pi16SessionManager extends PiSessionManager {
  appendContextEdit(targetId: string, replacement: { content: unknown } | null): string;
}

interface PiSessionModule<M> {
  SessionManager: {
    create(cwd: string, dir: string): M;
    open(path: string): M;
  };
  buildSessionContext(entries: PiEntry[], leafId?: string | null): PiContext;
}

const root = new URL("../../../node_modules/", import.meta.url);
export const pi16 = (await import(
  new URL("@earendil-works/pi-coding-agent/dist/core/session-manager.js", root).href
)) as PiSessionModule<Pi16SessionManager>;
export const pi073 = (await import(
  new URL("@mariozechner/pi-coding-agent/dist/core/session-manager.js", root).href
)) as PiSessionModule<PiSessionManager>;

export const PI_GENERATIONS = [
  { name: "Pi 0.73", is16: false, module: pi073 as PiSessionModule<PiSessionManager> },
  { name: "Pi 1.6", is16: true, module: pi16 as PiSessionModule<PiSessionManager> },
] as const;

export function userMessage(text: string, timestamp = Date.now()): Record<string, unknown> {
  return { role: "user", content: text, timestamp };
}

export function assistantMessage(text: string, timestamp = Date.now()): Record<string, unknown> {
  return {
    role: "assistant",
    content: [{ type: "text", text }],
    api: "anthropic-messages",
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15 },
    stopReason: "stop",
    timestamp,
  };
}
