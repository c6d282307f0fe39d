/**
 * Appending with append.ts: every refusal, the entries as Pi writes them
 * (field names, key order), and the appended file read back by Pi's own
 * SessionManager (0.73 and 1.6, each on a copy) with the meaning intended.
 */

import {
  appendFileSync,
  copyFileSync,
  existsSync,
  readFileSync,
  renameSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ArborError } from "../../shared/ipc/contract.ts";
import { buildSessionContext, contextGraphOf } from "../../shared/session/context.ts";
import type { SessionIndex } from "../../shared/session/tree-index.ts";
import {
  AppendError,
  type AppendFailure,
  type AppendResult,
  type AppendTarget,
  appendBranchSummary,
  appendContextEdit,
  appendCustomEntry,
  appendCustomMessage,
  appendLabel,
  appendSessionName,
  generateEntryId,
} from "./append.ts";
import { openIndexedFile } from "./open-indexed-file.ts";
import { SessionStore } from "./session-store.ts";
import { assistantLine, fileText, headerLine, tempDirs, ts, userLine } from "./testing/files.ts";
import { PI_GENERATIONS, type PiEntry, pi16 } from "./testing/pi.ts";
import { ensureNoLeaks } from "../../shared/lifecycle/testing.ts";

ensureNoLeaks();

const dirs = tempDirs("append");
afterAll(() => dirs.cleanup());

const BASE = [
  headerLine(),
  userLine("u1", null, "hello", 1),
  assistantLine("a1", "u1", "hi there", 2),
  userLine("u2", "a1", "second question", 3),
  assistantLine("a2", "u2", "second answer", 4),
];

function sessionFile(lines: readonly string[] = BASE, name = "session.jsonl"): string {
  const path = join(dirs.make(), name);
  writeFileSync(path, fileText(lines));
  // Old enough not to count as live.
  const old = new Date(Date.now() - 60_000);
  utimesSync(path, old, old);
  return path;
}

/** An append target as a caller without a store makes it: from `openIndexedFile`. */
function targetOf(path: string): { target: AppendTarget; close(): void } {
  const opened = openIndexedFile(path);
  return {
    target: {
      path,
      index: opened.index,
      file: { size: opened.size, mtimeMs: opened.mtimeMs, ino: opened.ino },
    },
    close: () => opened.close(),
  };
}

function expectFailure(
  write: () => unknown,
  code: AppendError["code"],
  reason: AppendFailure,
  message?: RegExp,
): AppendError {
  let caught: unknown;
  try {
    write();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(AppendError);
  expect(caught).toBeInstanceOf(ArborError);
  const error = caught as AppendError;
  expect({ code: error.code, reason: error.reason }).toEqual({ code, reason });
  if (message) expect(error.message).toMatch(message);
  return error;
}

/** Asserts `write` refuses and leaves the file's bytes as they were. */
function expectRefusalLeavesFile(
  path: string,
  write: () => unknown,
  code: AppendError["code"],
  reason: AppendFailure,
  message?: RegExp,
): void {
  const before = existsSync(path) ? readFileSync(path) : null;
  expectFailure(write, code, reason, message);
  expect(existsSync(path) ? readFileSync(path) : null).toEqual(before);
}

describe("append.ts refuses", () => {
  it("when the last line is not terminated (someone is mid-write, or the file is damaged)", () => {
    const path = sessionFile();
    appendFileSync(path, userLine("u3", "a2", "half a li").slice(0, 40));
    const { target, close } = targetOf(path);
    try {
      expectRefusalLeavesFile(
        path,
        () => appendLabel(target, { leafId: "a2", targetId: "u1", label: "x" }),
        "refused",
        "unterminated-last-line",
        /not terminated.*merge two lines/,
      );
    } finally {
      close();
    }
  });

  it("even when the unterminated last line is a complete entry", () => {
    const path = sessionFile();
    appendFileSync(path, userLine("u3", "a2", "no newline after me", 5));
    const { target, close } = targetOf(path);
    try {
      expect(target.index.leafId).toBe("u3");
      expectRefusalLeavesFile(
        path,
        () => appendSessionName(target, { leafId: "u3", name: "x" }),
        "refused",
        "unterminated-last-line",
      );
    } finally {
      close();
    }
  });

  it("legacy files (version < 3), and files without a header", () => {
    for (const version of [1, 2]) {
      const lines =
        version === 1
          ? [
              headerLine({ version: 1 }),
              JSON.stringify({
                type: "message",
                timestamp: ts(1),
                message: { role: "user", content: "v1", timestamp: 1 },
              }),
            ]
          : [headerLine({ version: 2 }), userLine("u1", null, "v2")];
      const path = sessionFile(lines);
      const { target, close } = targetOf(path);
      try {
        expectRefusalLeavesFile(
          path,
          () => appendSessionName(target, { leafId: target.index.leafId, name: "x" }),
          "refused",
          "legacy-version",
          new RegExp(`version ${version} session`),
        );
      } finally {
        close();
      }
    }
    const headerless = sessionFile(BASE.slice(1));
    const { target, close } = targetOf(headerless);
    try {
      expectRefusalLeavesFile(
        headerless,
        () => appendLabel(target, { leafId: "a2", targetId: "u1", label: "x" }),
        "refused",
        "no-header",
      );
    } finally {
      close();
    }
  });

  it("when the parent or the target is not in the file", () => {
    const path = sessionFile();
    const { target, close } = targetOf(path);
    try {
      expectRefusalLeavesFile(
        path,
        () => appendLabel(target, { leafId: "nope", targetId: "u1", label: "x" }),
        "not-found",
        "missing-parent",
      );
      expectRefusalLeavesFile(
        path,
        () => appendLabel(target, { leafId: "a2", targetId: "nope", label: "x" }),
        "not-found",
        "missing-target",
      );
      expectRefusalLeavesFile(
        path,
        () => appendBranchSummary(target, { branchFromId: "u1", fromId: "nope", summary: "s" }),
        "not-found",
        "missing-target",
      );
      expectRefusalLeavesFile(
        path,
        () => appendContextEdit(target, { leafId: "a2", targetId: "nope", replacement: null }),
        "not-found",
        "missing-target",
      );
      expectRefusalLeavesFile(
        path,
        () => appendCustomEntry(target, { leafId: "nope", customType: "ext" }),
        "not-found",
        "missing-parent",
      );
    } finally {
      close();
    }
  });

  it("when the file changed on disk since the index was built, until the new bytes are read", () => {
    const path = sessionFile();
    const store = SessionStore.open(path);
    try {
      appendFileSync(path, `${userLine("u3", "a2", "written by Pi", 5)}\n`);
      expectRefusalLeavesFile(
        path,
        () => store.append(appendLabel, { leafId: "a2", targetId: "u1", label: "x" }),
        "conflict",
        "changed-on-disk",
        /changed on disk/,
      );
      store.sync();
      const result = store.append(appendLabel, { leafId: "u3", targetId: "u1", label: "x" });
      expect(store.index.labels.get("u1")?.label).toBe("x");
      expect(store.index.leafId).toBe(result.entryId);
      // Only the modification time moved (a touch): refused too, until synced.
      const later = new Date(Date.now() + 5000);
      utimesSync(path, later, later);
      expectFailure(
        () => store.append(appendLabel, { leafId: result.entryId, targetId: "u1", label: "y" }),
        "conflict",
        "changed-on-disk",
      );
      store.sync();
      store.append(appendLabel, { leafId: result.entryId, targetId: "u1", label: "y" });
      expect(store.index.labels.get("u1")?.label).toBe("y");
    } finally {
      store.dispose();
    }
  });

  it("when the index does not cover the whole file (it grew while being read)", () => {
    const path = sessionFile();
    const { target, close } = targetOf(path);
    try {
      const stale = { ...target, file: { ...target.file!, size: target.file!.size - 1 } };
      expectRefusalLeavesFile(
        path,
        () => appendLabel(stale, { leafId: "a2", targetId: "u1", label: "x" }),
        "conflict",
        "changed-on-disk",
      );
    } finally {
      close();
    }
  });

  it("when the file was replaced or deleted (and never re-creates it)", () => {
    const path = sessionFile();
    const { target, close } = targetOf(path);
    try {
      const other = `${path}.new`;
      writeFileSync(other, fileText(BASE));
      renameSync(other, path);
      expectRefusalLeavesFile(
        path,
        () => appendLabel(target, { leafId: "a2", targetId: "u1", label: "x" }),
        "conflict",
        "changed-on-disk",
        /replaced/,
      );
      unlinkSync(path);
      expectFailure(
        () => appendLabel(target, { leafId: "a2", targetId: "u1", label: "x" }),
        "not-found",
        "missing-file",
      );
      expect(existsSync(path)).toBe(false);
      expectFailure(
        () => appendLabel({ ...target, file: null }, { leafId: "a2", targetId: "u1", label: "x" }),
        "not-found",
        "missing-file",
      );
    } finally {
      close();
    }
  });

  it("context edits Pi would refuse: off the branch, not editable, bad replacement", () => {
    const path = sessionFile([
      ...BASE,
      JSON.stringify({
        type: "model_change",
        id: "m1",
        parentId: "a2",
        timestamp: ts(5),
        provider: "p",
        modelId: "m",
      }),
      userLine("b1", "a1", "another branch", 6),
    ]);
    const { target, close } = targetOf(path);
    try {
      expectRefusalLeavesFile(
        path,
        () => appendContextEdit(target, { leafId: "b1", targetId: "a2", replacement: null }),
        "refused",
        "not-on-branch",
      );
      expectRefusalLeavesFile(
        path,
        () => appendContextEdit(target, { leafId: "m1", targetId: "m1", replacement: null }),
        "refused",
        "not-editable",
      );
      for (const replacement of [{}, { content: 42 }, "text", { content: { text: "x" } }]) {
        expectRefusalLeavesFile(
          path,
          () =>
            appendContextEdit(target, {
              leafId: "a2",
              targetId: "a1",
              replacement: replacement as unknown as { content: string },
            }),
          "refused",
          "invalid-argument",
          /replacement must be null or contain string\/array content/,
        );
      }
    } finally {
      close();
    }
  });
});

describe("append.ts writes", () => {
  it("one whole line per entry, a fresh 8-hex id, the given leaf as parent", () => {
    const path = sessionFile();
    const store = SessionStore.open(path);
    try {
      const before = readFileSync(path);
      const result = store.append(appendLabel, { leafId: "u2", targetId: "a1", label: "keep" });
      const after = readFileSync(path);
      expect(after.subarray(0, before.length)).toEqual(before);
      const line = after.subarray(before.length).toString("utf8");
      expect(line.endsWith("\n")).toBe(true);
      expect(line.indexOf("\n")).toBe(line.length - 1);
      expect(result.bytes).toBe(Buffer.byteLength(line));
      expect(JSON.parse(line)).toEqual(result.entry);
      expect(result.entryId).toMatch(/^[0-9a-f]{8}$/);
      expect(result.entry).toMatchObject({ parentId: "u2", targetId: "a1", label: "keep" });
      expect(new Date(result.entry.timestamp).toISOString()).toBe(result.entry.timestamp);
      expect(result.size).toBe(after.length);
    } finally {
      store.dispose();
    }
  });

  it("ids never repeat one in the file; a whole UUID when 8 hex chars keep colliding, like Pi", () => {
    const path = sessionFile();
    const { target, close } = targetOf(path);
    try {
      for (let i = 0; i < 2000; i++) {
        const id = generateEntryId(target.index);
        expect(id).toMatch(/^[0-9a-f]{8}$/);
        expect(target.index.nodes.has(id) || target.index.byId.has(id)).toBe(false);
      }
      // Candidates the file has are passed over: the first it lacks is the one given. (Ids drawn for the
      // same file one after another may meet, one chance in a few thousand for 2000 of them: an append puts
      // each in the file before the next is drawn.)
      const asked: string[] = [];
      const busy = {
        nodes: {
          has: (id: string) => {
            asked.push(id);
            return asked.length <= 30;
          },
        },
        byId: { has: () => false },
      } as unknown as SessionIndex;
      const given = generateEntryId(busy);
      expect(asked).toHaveLength(31);
      expect(given).toBe(asked[30]);
      expect(asked.slice(0, 30)).not.toContain(given);
      const full = { nodes: { has: () => true }, byId: { has: () => true } } as unknown as SessionIndex;
      expect(generateEntryId(full)).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      );
    } finally {
      close();
    }
  });

  it("reports a file modified in the last few seconds as live, but not after its own write", () => {
    const path = sessionFile();
    const store = SessionStore.open(path);
    try {
      expect(store.append(appendLabel, { leafId: "a2", targetId: "u1", label: "a" }).wasLive).toBe(false);
      // The previous change was our own.
      const second = store.append(appendLabel, { leafId: store.index.leafId, targetId: "u1", label: "b" });
      expect(second.wasLive).toBe(false);
      // Someone else (a Pi) writes.
      appendFileSync(path, `${userLine("p1", store.index.leafId, "Pi was here", 9)}\n`);
      store.sync();
      expect(store.append(appendLabel, { leafId: "p1", targetId: "u1", label: "c" }).wasLive).toBe(true);
    } finally {
      store.dispose();
    }
  });

  it("each entry with Pi 1.6's field names and key order", () => {
    // The same operation done by Pi's SessionManager on a copy and by Arbor on another copy.
    type Operation = {
      name: string;
      pi(manager: ReturnType<typeof pi16.SessionManager.open>): void;
      arbor(target: AppendTarget, leafId: string): AppendResult;
    };
    const operations: Operation[] = [
      {
        name: "label set",
        pi: (m) => m.appendLabelChange("u1", "important"),
        arbor: (t, leafId) => appendLabel(t, { leafId, targetId: "u1", label: "important" }),
      },
      {
        name: "label clear",
        pi: (m) => m.appendLabelChange("u1", undefined),
        arbor: (t, leafId) => appendLabel(t, { leafId, targetId: "u1", label: null }),
      },
      {
        name: "session name",
        pi: (m) => m.appendSessionInfo("  My\r\nsession \n name "),
        arbor: (t, leafId) => appendSessionName(t, { leafId, name: "  My\r\nsession \n name " }),
      },
      {
        name: "custom entry",
        pi: (m) => m.appendCustomEntry("my-ext", { count: 3, list: [1, "two"] }),
        arbor: (t, leafId) =>
          appendCustomEntry(t, { leafId, customType: "my-ext", data: { count: 3, list: [1, "two"] } }),
      },
      {
        name: "custom entry without data",
        pi: (m) => m.appendCustomEntry("my-ext"),
        arbor: (t, leafId) => appendCustomEntry(t, { leafId, customType: "my-ext" }),
      },
      {
        name: "custom message",
        pi: (m) => m.appendCustomMessageEntry("my-ext", [{ type: "text", text: "extra" }], false, { why: 1 }),
        arbor: (t, leafId) =>
          appendCustomMessage(t, {
            leafId,
            customType: "my-ext",
            content: [{ type: "text", text: "extra" }],
            display: false,
            details: { why: 1 },
          }),
      },
      {
        name: "branch summary",
        pi: (m) => m.branchWithSummary("a1", "what happened on the other branch", { files: ["a"] }, true),
        arbor: (t, leafId) =>
          appendBranchSummary(t, {
            branchFromId: "a1",
            fromId: leafId,
            summary: "what happened on the other branch",
            details: { files: ["a"] },
            fromHook: true,
          }),
      },
      {
        name: "branch summary from the root",
        pi: (m) => m.branchWithSummary(null, "from the top"),
        arbor: (t, leafId) =>
          appendBranchSummary(t, { branchFromId: null, fromId: leafId, summary: "from the top" }),
      },
      {
        name: "context edit of an assistant message with a string",
        pi: (m) =>
          (m as { appendContextEdit: (id: string, r: unknown) => string }).appendContextEdit("a1", {
            content: "short",
          }),
        arbor: (t, leafId) =>
          appendContextEdit(t, { leafId, targetId: "a1", replacement: { content: "short" } }),
      },
      {
        name: "context edit of a user message with a string",
        pi: (m) =>
          (m as { appendContextEdit: (id: string, r: unknown) => string }).appendContextEdit("u2", {
            content: "short",
          }),
        arbor: (t, leafId) =>
          appendContextEdit(t, { leafId, targetId: "u2", replacement: { content: "short" } }),
      },
      {
        name: "context edit dropping an entry",
        pi: (m) =>
          (m as { appendContextEdit: (id: string, r: unknown) => string }).appendContextEdit("u2", null),
        arbor: (t, leafId) => appendContextEdit(t, { leafId, targetId: "u2", replacement: null }),
      },
    ];
    for (const operation of operations) {
      const source = sessionFile();
      const piCopy = join(dirs.make(), "pi.jsonl");
      copyFileSync(source, piCopy);
      const manager = pi16.SessionManager.open(piCopy);
      operation.pi(manager);
      const piLine = readFileSync(piCopy, "utf8").trimEnd().split("\n").at(-1)!;

      const { target, close } = targetOf(source);
      let arborLine: string;
      try {
        const result = operation.arbor(target, target.index.leafId!);
        arborLine = readFileSync(source, "utf8").trimEnd().split("\n").at(-1)!;
        expect(JSON.parse(arborLine), operation.name).toEqual(result.entry);
      } finally {
        close();
      }
      const normalise = (line: string) =>
        line.replace(/"id":"[0-9a-f]{8}"/, '"id":"ID"').replace(/"timestamp":"[^"]+"/, '"timestamp":"TS"');
      expect(normalise(arborLine), operation.name).toBe(normalise(piLine));
    }
  });
});

describe("entries appended by Arbor, read back by Pi's own SessionManager", () => {
  it("means what was intended, in Pi 0.73 and Pi 1.6", () => {
    const path = sessionFile();
    const store = SessionStore.open(path);
    let ids: Record<string, string>;
    try {
      const leaf = () => store.index.leafId;
      const label = store.append(appendLabel, { leafId: leaf(), targetId: "u1", label: "start" });
      store.append(appendLabel, { leafId: leaf(), targetId: "a2", label: "temporary" });
      store.append(appendLabel, { leafId: leaf(), targetId: "a2", label: null });
      store.append(appendSessionName, { leafId: leaf(), name: "Renamed\nsession" });
      store.append(appendCustomEntry, { leafId: leaf(), customType: "arbor-test", data: { n: 1 } });
      const custom = store.append(appendCustomMessage, {
        leafId: leaf(),
        customType: "arbor-note",
        content: "extra context",
        display: true,
        details: { from: "arbor" },
      });
      store.append(appendContextEdit, {
        leafId: leaf()!,
        targetId: "a1",
        replacement: { content: "edited answer" },
      });
      const drop = store.append(appendContextEdit, { leafId: leaf()!, targetId: "u2", replacement: null });
      const summary = store.append(appendBranchSummary, {
        branchFromId: "a1",
        fromId: leaf()!,
        summary: "The user asked a second question.",
      });
      ids = { label: label.entryId, custom: custom.entryId, drop: drop.entryId, summary: summary.entryId };
      expect(store.index.labels.get("u1")?.label).toBe("start");
      expect(store.index.labels.has("a2")).toBe(false);
      expect(store.index.sessionName).toBe("Renamed session");
    } finally {
      store.dispose();
    }

    const customMessage = {
      role: "custom",
      customType: "arbor-note",
      content: "extra context",
      display: true,
      details: { from: "arbor" },
    };
    for (const { name, is16, module } of PI_GENERATIONS) {
      const copy = join(dirs.make(), "copy.jsonl");
      copyFileSync(path, copy);
      const manager = module.SessionManager.open(copy);
      expect(manager.getLabel("u1"), name).toBe("start");
      expect(manager.getLabel("a2"), name).toBeUndefined();
      expect(manager.getSessionName(), name).toBe("Renamed session");
      expect(manager.getLeafId(), name).toBe(ids.summary);
      // At the leaf: the branch summary, a child of a1.
      const atLeaf = manager.buildSessionContext().messages;
      expect(
        atLeaf.map((m) => m.role),
        name,
      ).toEqual(["user", "assistant", "branchSummary"]);
      expect(atLeaf[2], name).toMatchObject({
        role: "branchSummary",
        summary: "The user asked a second question.",
        fromId: ids.drop,
      });
      // At the last context edit: the custom message, and (1.x only) the edits.
      const entries = manager.getEntries() as PiEntry[];
      const atEdits = module.buildSessionContext(entries, ids.drop).messages;
      if (is16) {
        expect(
          atEdits.map((m) => m.role),
          name,
        ).toEqual(["user", "assistant", "assistant", "custom"]);
        expect(atEdits[1]!.content, name).toEqual([{ type: "text", text: "edited answer" }]);
      } else {
        expect(
          atEdits.map((m) => m.role),
          name,
        ).toEqual(["user", "assistant", "user", "assistant", "custom"]);
        expect(atEdits[1]!.content, name).toEqual([{ type: "text", text: "hi there" }]);
      }
      expect(atEdits.at(-1), name).toMatchObject(customMessage);
      expect(readFileSync(copy, "utf8"), `${name} left the file as it was`).toBe(readFileSync(path, "utf8"));
    }

    // Arbor's own context agrees with Pi 1.6.
    const opened = openIndexedFile(path);
    try {
      const graph = contextGraphOf(opened.index, opened.reader);
      const copy = join(dirs.make(), "copy16.jsonl");
      copyFileSync(path, copy);
      const entries = pi16.SessionManager.open(copy).getEntries();
      for (const leafId of [ids.drop, ids.summary, ids.custom, ids.label]) {
        expect(buildSessionContext(graph, leafId)).toEqual(pi16.buildSessionContext(entries, leafId));
      }
    } finally {
      opened.close();
    }
  });
});
