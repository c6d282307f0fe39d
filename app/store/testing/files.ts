/** Helpers for the store tests: temp dirs, hand-written entry lines, index snapshots, waiting for events. */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Disposable } from "../../../shared/lifecycle/disposable.ts";
import type { SessionIndex } from "../../../shared/session/tree-index.ts";

export const SESSION_ID = "019a0000-0000-7000-8000-000000000001";

export function headerLine(options: { version?: number; cwd?: string; id?: string } = {}): string {
  return JSON.stringify({
    type: "session",
    version: options.version ?? 3,
    id: options.id ?? SESSION_ID,
    timestamp: "2026-01-01T00:00:00.000Z",
    cwd: options.cwd ?? "/tmp/project",
  });
}

/** ISO timestamp `second` seconds after 2026-01-01T00:00:00Z. */
export function ts(second: number): string {
  return new Date(Date.UTC(2026, 0, 1) + second * 1000).toISOString();
}

export function userLine(id: string, parentId: string | null, text: string, second = 1): string {
  return JSON.stringify({
    type: "message",
    id,
    parentId,
    timestamp: ts(second),
    message: { role: "user", content: text, timestamp: Date.UTC(2026, 0, 1) + second * 1000 },
  });
}

export function assistantLine(id: string, parentId: string | null, text: string, second = 2): string {
  return JSON.stringify({
    type: "message",
    id,
    parentId,
    timestamp: ts(second),
    message: {
      role: "assistant",
      content: [{ type: "text", text }],
      api: "anthropic-messages",
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15 },
      stopReason: "stop",
      timestamp: Date.UTC(2026, 0, 1) + second * 1000,
    },
  });
}

/** A header and a chain of `count` messages, questions and answers in turn, `${prefix}1` to `${prefix}${count}`. */
export function chainLines(count: number, options: { prefix?: string; cwd?: string } = {}): string[] {
  const prefix = options.prefix ?? "e";
  const lines = [headerLine(options.cwd === undefined ? {} : { cwd: options.cwd })];
  for (let i = 1; i <= count; i++) {
    const parent = i === 1 ? null : `${prefix}${i - 1}`;
    lines.push(
      i % 2
        ? userLine(`${prefix}${i}`, parent, `question ${i}`, i)
        : assistantLine(`${prefix}${i}`, parent, `answer ${i}`, i),
    );
  }
  return lines;
}

export function fileText(lines: readonly string[]): string {
  return lines.map((line) => `${line}\n`).join("");
}

/** A temp dir per test file; `cleanup` removes them all. */
export function tempDirs(prefix: string): { make(): string; cleanup(): void } {
  const made: string[] = [];
  return {
    make() {
      const dir = mkdtempSync(join(tmpdir(), `arbor-${prefix}-`));
      made.push(dir);
      return dir;
    },
    cleanup() {
      for (const dir of made) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Everything about an index a reader can observe, in a form `toEqual` compares. */
export function snapshot(index: SessionIndex) {
  return {
    header: index.header,
    version: index.version,
    nodes: [...index.nodes.values()]
      .map((node) => ({
        id: node.id,
        parentId: node.parentId,
        children: node.children,
        depth: node.depth,
        line: node.line,
        offset: node.offset,
        byteLength: node.byteLength,
        type: node.entry.type,
      }))
      .sort((a, b) => a.line - b.line),
    entries: index.entries.map((entry) => entry.id),
    roots: index.roots,
    orphans: [...index.orphans].sort(),
    problems: index.problems.map((p) => [p.line, p.kind, p.relatedLine ?? null]).sort(),
    labels: [...index.labels],
    leafId: index.leafId,
    sessionName: index.sessionName,
    byteLength: index.byteLength,
    lineCount: index.lineCount,
    unterminated: index.unterminatedLastLine,
  };
}

/** Resolves once `condition()` holds, checking every `everyMs`; rejects after `timeoutMs`. */
export async function waitFor(
  condition: () => boolean,
  what: string,
  timeoutMs = 5000,
  everyMs = 5,
): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs)
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** The next value `subscribe` (an `Event`) delivers, or a rejection after `timeoutMs`. */
export function nextEvent<T>(
  subscribe: (listener: (value: T) => void) => Disposable,
  what: string,
  timeoutMs = 3000,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      subscription.dispose();
      reject(new Error(`No ${what} within ${timeoutMs} ms`));
    }, timeoutMs);
    const subscription = subscribe((value) => {
      clearTimeout(timer);
      subscription.dispose();
      resolve(value);
    });
  });
}
