/**
 * A session that grows as Pi writes it, for the tests of what the window
 * grows by appends (the node list, the graph model): each step appends a
 * few Pi-style lines (a turn at the leaf, mostly; now and then a branch from
 * an older entry, a label, a model change, an assistant turn of tool calls
 * only), reads the file again, and gives the delta the main process would
 * send and the view it would send whole.
 */

import { readSession } from "../../session/index.ts";
import type { Rng } from "../../session/testing/generate-session.ts";
import type { SessionIndex } from "../../session/tree-index.ts";
import type { SessionDelta, SessionView } from "../contract.ts";
import { NodeTable } from "../node-table.ts";
import { diffSessionViews } from "../session-delta.ts";
import { sessionViewOf } from "./session-view.ts";
import { encodeNodes } from "../wire-nodes.ts";

type Json = Record<string, unknown>;

export interface LiveStep {
  delta: SessionDelta;
  /** The whole view after the step, as `session.current` would answer. */
  fresh: SessionView;
  /** What the step wrote, for messages. */
  what: string;
}

export class LiveSession {
  private text: string;
  index: SessionIndex;
  private counter = 0;
  private clock = Date.UTC(2026, 5, 1);

  constructor(
    readonly rng: Rng,
    firstText: string,
    /** Whether the views come as columns (as the wire decodes them) or as objects. */
    private readonly columns: boolean,
  ) {
    this.text = firstText.endsWith("\n") ? firstText : `${firstText}\n`;
    this.index = readSession(this.text);
  }

  /** The whole view now. */
  view(): SessionView {
    const view = sessionViewOf("live", this.index, { path: "/live.jsonl" });
    return this.columns
      ? { ...view, nodes: new NodeTable(JSON.parse(JSON.stringify(encodeNodes([...view.nodes.toArray()])))) }
      : view;
  }

  /** Appends a few lines (`kind` forces a kind of step) and returns the delta from the view before. */
  step(kind?: "turn" | "branch" | "label" | "compaction"): LiveStep {
    const before = this.view();
    const chosen = kind ?? this.rng.weighted({ turn: 16, branch: 2, label: 1, model: 1, compaction: 1 });
    const lines =
      chosen === "branch"
        ? this.branch()
        : chosen === "label"
          ? [this.label()]
          : chosen === "model"
            ? [this.model()]
            : chosen === "compaction"
              ? [this.compaction()]
              : this.turn();
    this.text += lines.map((line) => `${JSON.stringify(line)}\n`).join("");
    this.index = readSession(this.text);
    const fresh = this.view();
    return { delta: diffSessionViews(before, fresh), fresh, what: `${chosen} (${lines.length} lines)` };
  }

  private entry(fields: Json, parentId: string | null): Json {
    this.counter += 1;
    this.clock += 1000;
    const id = `live${this.counter.toString(16).padStart(4, "0")}`;
    return { ...fields, id, parentId, timestamp: new Date(this.clock).toISOString() };
  }

  /** A few lines of a turn at the leaf, each the child of the one before. */
  private turn(): Json[] {
    const rng = this.rng;
    const lines: Json[] = [];
    let parent = this.index.leafId;
    const add = (message: Json) => {
      const line = this.entry({ type: "message", message: { ...message, timestamp: this.clock } }, parent);
      lines.push(line);
      parent = line.id as string;
    };
    const count = rng.int(1, 4);
    for (let k = 0; k < count; k++) {
      const kind = rng.weighted({ user: 2, answer: 2, calls: 2, result: 2 });
      const callId = `call${this.counter}`;
      if (kind === "user") add({ role: "user", content: `question ${this.counter}` });
      else if (kind === "answer")
        add({
          role: "assistant",
          content: [{ type: "text", text: `answer ${this.counter}` }],
          ...ASSISTANT,
          stopReason: "stop",
        });
      else if (kind === "calls")
        add({
          role: "assistant",
          content: [{ type: "toolCall", id: callId, name: "read", arguments: { path: "a.ts" } }],
          ...ASSISTANT,
          stopReason: "toolUse",
        });
      else
        add({
          role: "toolResult",
          toolCallId: callId,
          toolName: "read",
          content: [{ type: "text", text: `result ${this.counter}` }],
          isError: false,
        });
    }
    return lines;
  }

  /** A question asked again from an older entry: a new branch, and the leaf moves to it. */
  private branch(): Json[] {
    const entries = this.index.entries;
    if (entries.length === 0) return this.turn();
    const from = entries[this.rng.int(0, entries.length - 1)]!.id;
    const question = this.entry(
      { type: "message", message: { role: "user", content: "again", timestamp: this.clock } },
      from,
    );
    return [question];
  }

  private label(): Json {
    const entries = this.index.entries;
    const target = entries.length === 0 ? null : entries[this.rng.int(0, entries.length - 1)]!.id;
    return this.entry(
      { type: "label", targetId: target, label: this.rng.chance(0.8) ? `mark ${this.counter}` : undefined },
      this.index.leafId,
    );
  }

  /** A compaction at the leaf, keeping the path from one of its entries (or from itself on an empty path). */
  private compaction(): Json {
    const path: string[] = [];
    for (let id = this.index.leafId; id !== null; id = this.index.byId.get(id)?.parentId ?? null)
      path.push(id);
    const line = this.entry(
      { type: "compaction", summary: `summary ${this.counter}`, firstKeptEntryId: "", tokensBefore: 1000 },
      this.index.leafId,
    );
    line.firstKeptEntryId = path.length > 0 ? this.rng.pick(path) : line.id;
    return line;
  }

  private model(): Json {
    return this.entry(
      { type: "model_change", provider: "anthropic", modelId: "claude-opus-4-5" },
      this.index.leafId,
    );
  }
}

const ASSISTANT = {
  api: "anthropic-messages",
  provider: "anthropic",
  model: "claude-sonnet-4-5",
  usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15 },
};
