/**
 * Pi 0.73 and Pi 1.6, the test oracles: their session managers and
 * `convertToLlm`, imported by file path and typed as far as the tests (store
 * and shared/session/oracle) use them.
 */

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

export interface PiTreeNode {
  entry: PiEntry;
  children: PiTreeNode[];
}

/** Both generations' session manager, as far as the tests use it. */
export interface PiSessionManager {
  appendMessage(message: Record<string, unknown>): string;
  appendModelChange(provider: string, modelId: string): string;
  appendThinkingLevelChange(level: string): string;
  appendCompaction(
    summary: string,
    firstKeptEntryId: string | undefined,
    tokensBefore: number,
    details?: unknown,
    fromHook?: boolean,
  ): string;
  appendCustomEntry(customType: string, data?: unknown): string;
  appendCustomMessageEntry(customType: string, content: unknown, display: boolean, details?: unknown): string;
  appendSessionInfo(name: string): string;
  appendLabelChange(targetId: string, label: string | undefined): string;
  branch(id: string): void;
  resetLeaf(): void;
  branchWithSummary(id: string | null, summary: string, details?: unknown, fromHook?: boolean): string;
  createBranchedSession(leafId: string): string | undefined;
  getSessionFile(): string | undefined;
  getLeafId(): string | null;
  getEntries(): PiEntry[];
  getEntry(id: string): PiEntry | undefined;
  getBranch(fromId?: string): PiEntry[];
  getTree(): PiTreeNode[];
  getLabel(id: string): string | undefined;
  getSessionName(): string | undefined;
  getHeader():
    | ({ id: string; parentSession?: string; cwd: string; version?: number } & Record<string, unknown>)
    | null;
  buildSessionContext(): PiContext;
}

/** Pi 1.x only. */
export interface Pi16SessionManager extends PiSessionManager {
  appendContextEdit(targetId: string, replacement: { content: unknown } | null): string;
  appendUsage(kind: string, provider: string, model: string, usage: unknown, note?: string): unknown;
}

export interface PiSessionModule<M> {
  SessionManager: {
    create(cwd: string, dir: string): M;
    open(path: string): M;
  };
  buildSessionContext(entries: PiEntry[], leafId?: string | null, byId?: Map<string, PiEntry>): PiContext;
}

interface PiMessagesModule {
  convertToLlm(messages: unknown[]): unknown[];
}

const root = new URL("../../../node_modules/", import.meta.url);
const load = async <T>(path: string): Promise<T> => (await import(new URL(path, root).href)) as T;

export const pi16 = await load<PiSessionModule<Pi16SessionManager>>(
  "@earendil-works/pi-coding-agent/dist/core/session-manager.js",
);
export const pi073 = await load<PiSessionModule<PiSessionManager>>(
  "@mariozechner/pi-coding-agent/dist/core/session-manager.js",
);
export const pi16Messages = await load<PiMessagesModule>(
  "@earendil-works/pi-coding-agent/dist/core/messages.js",
);
export const pi073Messages = await load<PiMessagesModule>(
  "@mariozechner/pi-coding-agent/dist/core/messages.js",
);

export const PI_GENERATIONS = [
  { name: "Pi 0.73", is16: false, module: pi073, messages: pi073Messages },
  { name: "Pi 1.6", is16: true, module: pi16 as PiSessionModule<PiSessionManager>, messages: pi16Messages },
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
