/**
 * Session files for the performance tests, written straight to disk in Pi's
 * format (version 3), deterministic:
 *
 * - `writeWorkSession`: turns of user -> assistant (tool call) -> tool result
 *   -> assistant (text), a re-asked question now and then (a branch), a label,
 *   and a compaction every couple of thousand entries, as Pi writes them.
 * - `writeGridSession`: a root question with `rows` answers, each the start
 *   of a run of `columns` labelled messages: labels keep every message a node
 *   of its own, so the graph draws about rows x columns nodes.
 */

import { createHash } from "node:crypto";
import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";

const BASE_TIME = Date.parse("2026-10-01T08:00:00.000Z");

type Json = Record<string, unknown>;

class Writer {
  private readonly fd: number;
  private buffer: string[] = [];
  private size = 0;
  private counter = 0;
  private clock = BASE_TIME;
  entries = 0;
  lastId: string | null = null;

  constructor(
    readonly path: string,
    header: Json,
  ) {
    this.fd = openSync(path, "w");
    this.line(header);
  }

  private line(value: Json) {
    const text = `${JSON.stringify(value)}\n`;
    this.buffer.push(text);
    this.size += text.length;
    if (this.size > 1 << 20) this.flush();
  }

  private flush() {
    writeSync(this.fd, this.buffer.join(""));
    this.buffer = [];
    this.size = 0;
  }

  /** Appends an entry as a child of `parentId` (default: the last one); returns its id. */
  add(fields: Json, parentId: string | null = this.lastId): string {
    this.counter += 1;
    this.clock += 1000;
    const id = this.counter.toString(16).padStart(8, "0");
    this.line({ ...fields, id, parentId, timestamp: new Date(this.clock).toISOString() });
    this.entries += 1;
    this.lastId = id;
    return id;
  }

  get time(): number {
    return this.clock;
  }

  close() {
    this.flush();
    closeSync(this.fd);
  }
}

const WORDS =
  "the test fails when the button is disabled until the token loads so the click lands too early and we wait for the role based locator instead of a fixed sleep which only hides the race".split(
    " ",
  );

function sentence(seed: number, length: number): string {
  const words: string[] = [];
  for (let i = 0; i < length; i++) words.push(WORDS[(seed * 7 + i * 13) % WORDS.length]!);
  const text = words.join(" ");
  return `${text[0]!.toUpperCase()}${text.slice(1)}.`;
}

function user(writer: Writer, text: string): Json {
  return {
    type: "message",
    message: { role: "user", content: [{ type: "text", text }], timestamp: writer.time },
  };
}

function assistant(writer: Writer, content: Json[], stopReason: string): Json {
  return {
    type: "message",
    message: {
      role: "assistant",
      content,
      api: "anthropic-messages",
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      usage: { input: 1200, output: 80, cacheRead: 600, cacheWrite: 0, totalTokens: 1880 },
      stopReason,
      timestamp: writer.time,
    },
  };
}

export interface GeneratedSession {
  path: string;
  entries: number;
  leafId: string;
  name: string;
}

function header(slug: string, cwd: string): Json {
  const id = `019a0000-0000-7000-8000-${createHash("sha256").update(slug).digest("hex").slice(0, 12)}`;
  return { type: "session", version: 3, id, timestamp: new Date(BASE_TIME).toISOString(), cwd };
}

function fileFor(root: string, slug: string, cwd: string): { path: string; header: Json } {
  const dir = join(root, `--${cwd.replace(/^\//, "").replace(/\//g, "-")}--`);
  mkdirSync(dir, { recursive: true });
  const head = header(slug, cwd);
  const stamp = String(head.timestamp).replace(/[:.]/g, "-");
  return { path: join(dir, `${stamp}_${head.id}.jsonl`), header: head };
}

/** A working session of `entries` entries (about; it ends after a whole turn). */
export function writeWorkSession(
  root: string,
  slug: string,
  entries: number,
  name: string,
): GeneratedSession {
  const { path, header: head } = fileFor(root, slug, "/home/e2e/projects/perf");
  const writer = new Writer(path, head);
  writer.add({ type: "session_info", name }, null);
  let turn = 0;
  let lastCompactionAt = 0;
  let keptFrom: string | null = null;
  while (writer.entries < entries - 4) {
    turn += 1;
    const question = writer.add(user(writer, sentence(turn, 12)));
    if (turn % 40 === 0) {
      // Re-asked: the first attempt stays on a branch of its own.
      writer.add(assistant(writer, [{ type: "text", text: sentence(turn + 1, 20) }], "stop"));
      writer.add(user(writer, `Instead: ${sentence(turn + 2, 10)}`), question);
    }
    const callId = `toolu_${turn.toString(16).padStart(12, "0")}`;
    writer.add(
      assistant(
        writer,
        [
          { type: "text", text: sentence(turn + 3, 8) },
          { type: "toolCall", id: callId, name: "read", arguments: { path: `src/file-${turn % 50}.ts` } },
        ],
        "toolUse",
      ),
    );
    writer.add({
      type: "message",
      message: {
        role: "toolResult",
        toolCallId: callId,
        toolName: "read",
        content: [{ type: "text", text: `export const value${turn} = ${turn};\n${sentence(turn + 4, 16)}` }],
        isError: false,
        timestamp: writer.time,
      },
    });
    const answer = writer.add(assistant(writer, [{ type: "text", text: sentence(turn + 5, 24) }], "stop"));
    if (turn % 25 === 0) writer.add({ type: "label", targetId: answer, label: `checkpoint ${turn}` });
    if (turn % 10 === 1) keptFrom = question;
    if (writer.entries - lastCompactionAt > 2000 && keptFrom !== null) {
      writer.add({
        type: "compaction",
        summary: `## Goal\n${sentence(turn, 10)}\n\n## Done\n- ${sentence(turn + 6, 12)}`,
        firstKeptEntryId: keptFrom,
        tokensBefore: 150_000,
      });
      lastCompactionAt = writer.entries;
    }
  }
  writer.add(user(writer, "Summarise where we are."));
  const leafId = writer.add(assistant(writer, [{ type: "text", text: sentence(turn + 7, 30) }], "stop"));
  writer.close();
  return { path, entries: writer.entries, leafId, name };
}

/** `rows` runs of `columns` labelled messages under one root question: rows x columns nodes, no chains. */
export function writeGridSession(
  root: string,
  slug: string,
  rows: number,
  columns: number,
  name: string,
): GeneratedSession {
  const { path, header: head } = fileFor(root, slug, "/home/e2e/projects/grid");
  const writer = new Writer(path, head);
  writer.add({ type: "session_info", name }, null);
  const start = writer.add(user(writer, "Try every approach, one branch each."));
  for (let row = 0; row < rows; row++) {
    let parent: string = start;
    for (let column = 0; column < columns; column++) {
      const message =
        column % 2 === 0
          ? assistant(writer, [{ type: "text", text: sentence(row * columns + column, 10) }], "stop")
          : user(writer, sentence(row + column, 8));
      const id = writer.add(message, parent);
      parent = writer.add({ type: "label", targetId: id, label: `r${row}c${column}` });
    }
  }
  // The file's leaf: a message, shown in every filter but "labelled".
  const leafId = writer.add(user(writer, "Which one worked best?"));
  writer.close();
  return { path, entries: writer.entries, leafId, name };
}
