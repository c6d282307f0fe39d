/**
 * Test support for the runtime, the handlers and `arbor serve`: temp folders
 * and small Pi session files with a known tree.
 */

import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export function tempFolder(prefix = "arbor-runtime-"): { path: string; cleanup(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

/** Pi's folder name for a cwd under `<agentDir>/sessions`. */
export function encodedCwd(cwd: string): string {
  return `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;
}

const BASE_TIME = Date.UTC(2026, 0, 1, 12);

function time(minute: number): string {
  return new Date(BASE_TIME + minute * 60_000).toISOString();
}

function user(id: string, parentId: string | null, minute: number, text: string) {
  return {
    type: "message",
    id,
    parentId,
    timestamp: time(minute),
    message: { role: "user", content: text, timestamp: BASE_TIME + minute * 60_000 },
  };
}

function assistant(
  id: string,
  parentId: string | null,
  minute: number,
  text: string,
  usage: { input: number; cacheRead?: number } | null,
) {
  return {
    type: "message",
    id,
    parentId,
    timestamp: time(minute),
    message: {
      role: "assistant",
      content: [{ type: "text", text }],
      api: "anthropic-messages",
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      usage: usage
        ? {
            input: usage.input,
            output: 7,
            cacheRead: usage.cacheRead ?? 0,
            cacheWrite: 0,
            totalTokens: usage.input + 7 + (usage.cacheRead ?? 0),
          }
        : undefined,
      stopReason: "stop",
      timestamp: BASE_TIME + minute * 60_000,
    },
  };
}

/**
 * The entry ids of `sampleSession`, and its tree:
 *
 *   u1 user "Hello tree"
 *   └ a1 assistant (usage 100 + 20 cached)
 *     ├ u2 user "Take the left branch"
 *     │ └ a2 assistant (usage 150)
 *     └ u3 user "Take the right branch"
 *       └ a3 assistant (usage 170)
 *         └ t1 thinking_level_change high
 *           └ c1 compaction (keeps from u3)
 *             └ u4 user "After the compaction"
 *               └ l1 label "checkpoint" on u2
 */
export const SAMPLE_IDS = {
  u1: "aa000001",
  a1: "aa000002",
  u2: "aa000003",
  a2: "aa000004",
  u3: "aa000005",
  a3: "aa000006",
  t1: "aa000007",
  c1: "aa000008",
  u4: "aa000009",
  l1: "aa00000a",
} as const;

export interface SampleSession {
  path: string;
  cwd: string;
  headerId: string;
}

/** Writes the sample session (see `SAMPLE_IDS`) to `path`. */
export function writeSampleSession(
  path: string,
  options: { cwd?: string; headerId?: string; name?: string } = {},
): SampleSession {
  const cwd = options.cwd ?? "/work/project";
  const headerId = options.headerId ?? "019b7a4e-0000-7000-8000-000000000001";
  const ids = SAMPLE_IDS;
  const lines: Record<string, unknown>[] = [
    { type: "session", version: 3, id: headerId, timestamp: time(0), cwd },
    user(ids.u1, null, 1, "Hello tree"),
    assistant(ids.a1, ids.u1, 2, "Hello! Which branch?", { input: 100, cacheRead: 20 }),
    user(ids.u2, ids.a1, 3, "Take the left branch"),
    assistant(ids.a2, ids.u2, 4, "Went left.", { input: 150 }),
    user(ids.u3, ids.a1, 5, "Take the right branch"),
    assistant(ids.a3, ids.u3, 6, "Went right.", { input: 170 }),
    {
      type: "thinking_level_change",
      id: ids.t1,
      parentId: ids.a3,
      timestamp: time(7),
      thinkingLevel: "high",
    },
    {
      type: "compaction",
      id: ids.c1,
      parentId: ids.t1,
      timestamp: time(8),
      summary: "The user chose the right branch.",
      firstKeptEntryId: ids.u3,
      tokensBefore: 900,
    },
    user(ids.u4, ids.c1, 9, "After the compaction"),
    {
      type: "label",
      id: ids.l1,
      parentId: ids.u4,
      timestamp: time(10),
      targetId: ids.u2,
      label: "checkpoint",
    },
  ];
  if (options.name !== undefined) {
    lines.push({
      type: "session_info",
      id: "aa00000b",
      parentId: ids.l1,
      timestamp: time(11),
      name: options.name,
    });
  }
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, lines.map((line) => `${JSON.stringify(line)}\n`).join(""));
  return { path, cwd, headerId };
}

/** Writes a short linear session of `turns` user/assistant pairs. */
export function writeLinearSession(
  path: string,
  options: { cwd?: string; headerId?: string; turns?: number; prefix?: string } = {},
): SampleSession {
  const cwd = options.cwd ?? "/work/project";
  const headerId = options.headerId ?? "019b7a4e-0000-7000-8000-000000000002";
  const prefix = options.prefix ?? "bb";
  const lines: Record<string, unknown>[] = [
    { type: "session", version: 3, id: headerId, timestamp: time(0), cwd },
  ];
  let parentId: string | null = null;
  let n = 0;
  for (let turn = 0; turn < (options.turns ?? 2); turn++) {
    const userId = `${prefix}${(++n).toString(16).padStart(6, "0")}`;
    lines.push(user(userId, parentId, n, `Question ${turn + 1}`));
    const assistantId = `${prefix}${(++n).toString(16).padStart(6, "0")}`;
    lines.push(assistant(assistantId, userId, n, `Answer ${turn + 1}`, { input: 10 * (turn + 1) }));
    parentId = assistantId;
  }
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, lines.map((line) => `${JSON.stringify(line)}\n`).join(""));
  return { path, cwd, headerId };
}

/** Session files (`*.jsonl`) in `dir`, sorted. */
export function sessionFilesIn(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith(".jsonl"))
    .sort()
    .map((name) => join(dir, name));
}

/** Every name in `dir` (temp files included), sorted. */
export function namesIn(dir: string): string[] {
  return readdirSync(dir).sort();
}

/** Open file descriptors of this process (Linux), to check nothing holds files after disposal. */
export function openDescriptorCount(): number | null {
  try {
    return readdirSync("/proc/self/fd").length;
  } catch {
    return null;
  }
}
