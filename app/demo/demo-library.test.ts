import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildSessionContext, contextGraphOf } from "../../shared/session/index.ts";
import { readWholeSessionFile } from "../store/read-whole-session-file.ts";
import { demoFiles, writeDemoLibrary } from "./demo-library.ts";

const pi16 = (await import(
  new URL("../../node_modules/@earendil-works/pi-coding-agent/dist/core/session-manager.js", import.meta.url)
    .href
)) as {
  SessionManager: {
    open(path: string): {
      getEntries(): { id: string }[];
      getLabel(id: string): string | undefined;
      getSessionName(): string | undefined;
      getHeader(): { parentSession?: string } | null;
    };
  };
  buildSessionContext(entries: unknown[], leafId?: string | null): unknown;
};

interface DemoEntry {
  type: string;
  id: string;
  parentId: string | null;
  message?: {
    role: string;
    toolCallId?: string;
    content?: { type: string; id: string }[];
  };
}

const root = mkdtempSync(join(tmpdir(), "arbor-demo-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("the demo library", () => {
  const paths = writeDemoLibrary(root);
  const [login, fork, release, damaged] = paths.map((path) => ({ path, ...readWholeSessionFile(path) }));

  it("is deterministic and written once", () => {
    expect(paths).toHaveLength(4);
    expect(demoFiles(root).map((f) => f.text)).toEqual(demoFiles(root).map((f) => f.text));
    const before = statSync(paths[0]!).mtimeMs;
    expect(writeDemoLibrary(root)).toEqual([]);
    expect(statSync(paths[0]!).mtimeMs).toBe(before);
  });

  it("shows every feature Arbor is for", () => {
    const types = new Set(login!.index.entries.map((entry) => entry.type));
    for (const type of [
      "compaction",
      "branch_summary",
      "label",
      "custom_message",
      "context_edit",
      "model_change",
      "thinking_level_change",
      "session_info",
    ]) {
      expect(types, type).toContain(type);
    }
    expect([...login!.index.nodes.values()].some((node) => node.children.length > 1)).toBe(true);
    expect(login!.index.sessionName).toBe("Fix flaky login test");
    expect(fork!.index.parentSession).toBe(login!.path);
    expect(new Set(release!.index.entries.map((entry) => entry.type))).toContain("custom");
  });

  it("opens cleanly in Arbor and reads the same in Pi 1.6, every entry as leaf", () => {
    for (const { path, index, reader } of [login!, fork!, release!]) {
      expect(index.problems, path).toEqual([]);
      const copy = `${path}.pi-copy.jsonl`;
      copyFileSync(path, copy);
      const manager = pi16.SessionManager.open(copy);
      const entries = manager.getEntries();
      expect(entries.map((entry) => entry.id)).toEqual(index.entries.map((entry) => entry.id));
      for (const id of [...index.byId.keys(), undefined]) {
        expect(buildSessionContext(contextGraphOf(index, reader), id), `${path} ${id}`).toEqual(
          pi16.buildSessionContext(entries, id),
        );
      }
      for (const [target, state] of index.labels) expect(manager.getLabel(target)).toBe(state.label);
      expect(manager.getSessionName()).toBe(index.sessionName);
      rmSync(copy);
    }
  });

  it("gives every tool call its own id, and every tool result answers exactly one earlier call on its path", () => {
    let messagesWithSeveralCalls = 0;
    for (const file of demoFiles(root)) {
      // The damaged file's broken lines are skipped: they hold no tool calls.
      const entries = file.text
        .split("\n")
        .flatMap((line) => {
          try {
            return [JSON.parse(line) as DemoEntry];
          } catch {
            return [];
          }
        })
        .filter((entry) => entry.type === "message");
      const byId = new Map(entries.map((entry) => [entry.id, entry]));
      const callIdsOf = (entry: DemoEntry | undefined) =>
        entry?.message?.role === "assistant"
          ? (entry.message.content ?? [])
              .filter((block) => block.type === "toolCall")
              .map((block) => block.id)
          : [];
      const seen: string[] = [];
      const answered = new Set<string>();
      for (const entry of entries) {
        const calls = callIdsOf(entry);
        if (calls.length > 1) messagesWithSeveralCalls += 1;
        for (const id of calls) {
          expect(id, file.relativePath).toMatch(/^toolu_[0-9a-f]{16}$/);
          expect(seen, `${file.relativePath}: ${id} used twice`).not.toContain(id);
          seen.push(id);
        }
        const answers = entry.message?.role === "toolResult" ? entry.message.toolCallId : undefined;
        if (answers === undefined) continue;
        expect(
          seen.filter((id) => id === answers),
          `${file.relativePath}: ${answers}`,
        ).toHaveLength(1);
        expect(answered, `${file.relativePath}: ${answers} answered twice`).not.toContain(answers);
        answered.add(answers);
        // The call it answers is on the result's own path, not on another branch.
        const ancestorCalls: string[] = [];
        for (let at = byId.get(entry.parentId ?? ""); at; at = byId.get(at.parentId ?? "")) {
          ancestorCalls.push(...callIdsOf(at));
        }
        expect(ancestorCalls, `${file.relativePath}: ${answers}`).toContain(answers);
      }
    }
    // The case that once went wrong: one message calling the same tool twice.
    expect(messagesWithSeveralCalls).toBeGreaterThan(0);
  });

  it("has one damaged file whose problems Arbor reports by line", () => {
    const kinds = damaged!.index.problems.map((p) => p.kind);
    expect(kinds).toContain("malformed-json");
    expect(kinds).toContain("orphan");
    expect(damaged!.index.unterminatedLastLine?.parsed).toBe(false);
    expect(damaged!.index.entries.length).toBeGreaterThan(2);
    expect(readFileSync(damaged!.path, "utf8").endsWith("\n")).toBe(false);
  });
});
