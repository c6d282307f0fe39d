/**
 * A context grown by the entries appended below its leaf equals the context
 * built afresh (`contextView`, itself checked against Pi's
 * `buildSessionContext` and `convertToLlm`), in both forms, or is not grown.
 */

import { describe, expect, it } from "vitest";
import { generateSession, Rng } from "../session/testing/generate-session.ts";
import { inMemoryEntryReader, readSession, type SessionIndex } from "../session/index.ts";
import type { ContextView } from "./context-view.ts";
import { editTargetsOnPath, GROWN_CONTEXT_MAX_ENTRIES, grownContextView } from "./leaf-context-grown.ts";
import { contextView } from "./leaf-context.ts";
import { LiveSession } from "./testing/live-session.ts";

const fresh = (index: SessionIndex, leafId: string | null, llm: boolean) =>
  contextView(index, inMemoryEntryReader(index), leafId, llm);

function grown(index: SessionIndex, from: ContextView, leafId: string): ContextView | null {
  return grownContextView(
    index,
    inMemoryEntryReader(index),
    from,
    leafId,
    editTargetsOnPath(index, from.leafId!),
  );
}

describe("a context grown below its leaf", () => {
  it("equals the context built afresh after every kind of append, or is built afresh", () => {
    let grew = 0;
    let declined = 0;
    for (const seed of [2, 5, 9, 14, 21]) {
      const live = new LiveSession(new Rng(seed * 7), generateSession({ seed, entryCount: 150 }).text, false);
      for (const llm of [false, true]) {
        let before = fresh(live.index, live.index.leafId, llm);
        for (let step = 0; step < 40; step++) {
          const { what } = live.step();
          const leafId = live.index.leafId!;
          const afresh = fresh(live.index, leafId, llm);
          const result = grown(live.index, before, leafId);
          if (result === null) declined++;
          else {
            grew++;
            expect(result, `seed ${seed}, step ${step}: ${what}`).toEqual(afresh);
          }
          before = afresh;
        }
      }
    }
    // Both ways were taken: turns grow; branches, labels, model changes and compactions do not.
    expect(grew).toBeGreaterThan(100);
    expect(declined).toBeGreaterThan(20);
  });

  it("reads what each message sets: the model, the prompt size and cost of trusted replies, messages Pi leaves out", () => {
    const lines = [
      {
        type: "session",
        version: 3,
        id: "019b7a4e-0000-7000-8000-0000000000dd",
        timestamp: stamp(0),
        cwd: "/w",
      },
      entry("u1", null, { role: "user", content: "first" }),
      entry("a1", "u1", reply("m1", { input: 10, output: 5, totalTokens: 15, cost: { total: 0.5 } })),
    ];
    const appended = [
      entry(
        "a2",
        "a1",
        reply("m2", { input: 20, output: 5, cacheRead: 7, totalTokens: 32, cost: { total: 1 } }),
      ),
      entry("a3", "a2", {
        ...reply("m3", { input: 99, output: 1, totalTokens: 100 }),
        stopReason: "aborted",
      }),
      entry("b1", "a3", {
        role: "bashExecution",
        command: "ls",
        output: "",
        exitCode: 0,
        excludeFromContext: true,
      }),
      entry("x1", "b1", "not a message"),
      entry("u2", "x1", { role: "user" }),
      entry("c1", "u2", { role: "invented", content: "?" }),
    ];
    const before = readSession(text(lines));
    const after = readSession(text([...lines, ...appended]));
    for (const llm of [false, true]) {
      const from = fresh(before, "a1", llm);
      for (const leaf of ["a2", "a3", "b1", "x1", "u2", "c1"]) {
        expect(grown(after, from, leaf), `${leaf}, llm ${llm}`).toEqual(fresh(after, leaf, llm));
      }
    }
    expect(fresh(after, "c1", false)).toMatchObject({
      model: { provider: "test", modelId: "m3" },
      lastInputTokens: 27,
      cost: { total: 1.5, answers: 2 },
    });
  });

  it("is built afresh when a context edit names an appended entry, or the leaf is elsewhere or far below", () => {
    const head = {
      type: "session",
      version: 3,
      id: "019b7a4e-0000-7000-8000-0000000000ee",
      timestamp: stamp(0),
    };
    const edit = {
      type: "context_edit",
      id: "e1",
      parentId: "u1",
      timestamp: stamp(2),
      targetId: "u9",
      replacement: null,
    };
    const lines = [head, entry("u1", null, { role: "user", content: "first" }), edit];
    const index = readSession(
      text([...lines, entry("u9", "e1", { role: "user", content: "named by the edit" })]),
    );
    const from = fresh(index, "e1", false);
    // The edit drops u9 from the context: only a context built afresh knows.
    expect(fresh(index, "u9", false).messageCount).toBe(from.messageCount);
    expect(grown(index, from, "u9")).toBeNull();
    expect(grown(index, from, "u1")).toBeNull();
    expect(grown(index, from, "e1")).toBeNull();

    const chain = [head, entry("c0", null, { role: "user", content: "0" })];
    for (let i = 1; i <= GROWN_CONTEXT_MAX_ENTRIES + 1; i++) {
      chain.push(entry(`c${i}`, `c${i - 1}`, { role: "user", content: `${i}` }));
    }
    const long = readSession(text(chain));
    const top = fresh(long, "c0", false);
    expect(grown(long, top, `c${GROWN_CONTEXT_MAX_ENTRIES + 1}`)).toBeNull();
    expect(grown(long, top, `c${GROWN_CONTEXT_MAX_ENTRIES}`)).toEqual(
      fresh(long, `c${GROWN_CONTEXT_MAX_ENTRIES}`, false),
    );
  });
});

function stamp(seconds: number): string {
  return new Date(Date.UTC(2026, 5, 1) + seconds * 1000).toISOString();
}

let clock = 10;
function entry(id: string, parentId: string | null, message: unknown): Record<string, unknown> {
  clock++;
  return { type: "message", id, parentId, timestamp: stamp(clock), message };
}

function reply(model: string, usage: Record<string, unknown>) {
  return {
    role: "assistant",
    content: [{ type: "text", text: `from ${model}` }],
    api: "test",
    provider: "test",
    model,
    usage,
    stopReason: "stop",
  };
}

function text(lines: readonly unknown[]): string {
  return lines.map((line) => `${JSON.stringify(line)}\n`).join("");
}
