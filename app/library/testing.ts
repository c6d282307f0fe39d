/**
 * Test support: small Pi session files written line by line into temp
 * folders, and Pi 1.6's own session listing as the oracle.
 */

import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export type Line = Record<string, unknown> | string;

/** A temp folder removed by `cleanup()`. */
export function tempFolder(prefix = "arbor-library-"): { path: string; cleanup(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

/** Writes lines (objects as JSON, strings as they are), each ending in "\n" unless `unterminated`. */
export function writeLines(
  path: string,
  lines: readonly Line[],
  options: { unterminated?: boolean } = {},
): string {
  mkdirSync(dirname(path), { recursive: true });
  const text = lines.map((line) => (typeof line === "string" ? line : JSON.stringify(line))).join("\n");
  writeFileSync(path, options.unterminated ? text : `${text}\n`);
  return path;
}

/** Pi's folder name for a cwd under `<agentDir>/sessions`. */
export function encodedCwd(cwd: string): string {
  return `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;
}

/**
 * Builds the lines of one session: a header and entries chained by
 * parentId, ids and timestamps counted up from `start`.
 */
export class SessionBuilder {
  readonly lines: Line[] = [];
  private count = 0;
  private lastId: string | null = null;
  private time: number;

  constructor(
    readonly id: string,
    readonly cwd: string,
    options: { start?: number; parentSession?: string; version?: number | null } = {},
  ) {
    this.time = options.start ?? Date.UTC(2026, 0, 1, 12);
    const header: Record<string, unknown> = { type: "session" };
    if (options.version !== null) header.version = options.version ?? 3;
    header.id = id;
    header.timestamp = new Date(this.time).toISOString();
    header.cwd = cwd;
    if (options.parentSession) header.parentSession = options.parentSession;
    this.lines.push(header);
  }

  /** Appends an entry; returns its id. */
  entry(fields: Record<string, unknown>, options: { parentId?: string | null; id?: string } = {}): string {
    this.count++;
    this.time += 60_000;
    const id = options.id ?? `${this.id.slice(0, 4)}${this.count.toString(16).padStart(4, "0")}`;
    const parentId = options.parentId !== undefined ? options.parentId : this.lastId;
    this.lines.push({
      type: fields.type,
      id,
      parentId,
      timestamp: new Date(this.time).toISOString(),
      ...fields,
    });
    this.lastId = id;
    return id;
  }

  message(message: Record<string, unknown>, options: { withTimestamp?: boolean } = {}): string {
    const timestamp = options.withTimestamp === false ? {} : { timestamp: this.time + 60_000 };
    return this.entry({ type: "message", message: { ...message, ...timestamp } });
  }

  user(content: unknown, options: { withTimestamp?: boolean } = {}): string {
    return this.message({ role: "user", content }, options);
  }

  assistant(text: string, toolCalls: { name: string; arguments: Record<string, unknown> }[] = []): string {
    const content: Record<string, unknown>[] = [];
    if (text) content.push({ type: "text", text });
    toolCalls.forEach((call, index) => {
      content.push({
        type: "toolCall",
        id: `call_${this.count}_${index}`,
        name: call.name,
        arguments: call.arguments,
      });
    });
    return this.message({
      role: "assistant",
      content,
      api: "anthropic-messages",
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15, cost: { total: 0 } },
      stopReason: toolCalls.length > 0 ? "toolUse" : "stop",
    });
  }

  toolResult(toolName: string, text: string): string {
    return this.message({
      role: "toolResult",
      toolCallId: `call_${this.count}`,
      toolName,
      content: [{ type: "text", text }],
      isError: false,
    });
  }

  name(name: string | undefined): string {
    return this.entry(name === undefined ? { type: "session_info" } : { type: "session_info", name });
  }

  write(path: string, options: { unterminated?: boolean } = {}): string {
    return writeLines(path, this.lines, options);
  }
}

/** Pi 1.6's `SessionInfo`, as `SessionManager.list` and `listAll` return it. */
export interface PiSessionInfo {
  path: string;
  id: string;
  cwd: string;
  name?: string;
  parentSessionPath?: string;
  created: Date;
  modified: Date;
  messageCount: number;
  firstMessage: string;
  allMessagesText: string;
}

interface PiSessionManagerStatics {
  list(cwd: string, sessionDir?: string): Promise<PiSessionInfo[]>;
  listAll(sessionDir?: string): Promise<PiSessionInfo[]>;
}

const PI16_SESSION_MANAGER = new URL(
  "../../node_modules/@earendil-works/pi-coding-agent/dist/core/session-manager.js",
  import.meta.url,
);

/** Pi 1.6's `SessionManager`, imported by path (its package index does not load on Node 20). */
export async function piSessionManager(): Promise<PiSessionManagerStatics> {
  const module = (await import(PI16_SESSION_MANAGER.href)) as { SessionManager: PiSessionManagerStatics };
  return module.SessionManager;
}

/**
 * Pi's `listAll(dir)` over a copy of `dir`, so Pi never touches the files
 * the test reads with Arbor. Paths in the answer are mapped back to `dir`.
 */
export async function piListAllOnCopy(dir: string): Promise<PiSessionInfo[]> {
  const copy = `${dir}.pi-copy`;
  rmSync(copy, { recursive: true, force: true });
  cpSync(dir, copy, { recursive: true, preserveTimestamps: true });
  try {
    const sessionManager = await piSessionManager();
    const sessions = await sessionManager.listAll(copy);
    return sessions.map((session) => ({ ...session, path: join(dir, session.path.slice(copy.length + 1)) }));
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}
