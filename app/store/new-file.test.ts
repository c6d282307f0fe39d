/**
 * New session files: the header and name Pi makes, forks compared with what
 * Pi 1.6's own `createBranchedSession` writes for the same leaf (on a copy),
 * exports, and the writer never overwriting anything.
 */

import { appendFileSync, copyFileSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ArborError } from "../../shared/ipc/contract.ts";
import type { ParseMode } from "../../shared/session/parse.ts";
import { appendLabel } from "./append.ts";
import {
  cloneSession,
  createSessionFile,
  exportSession,
  forkSession,
  NewFileError,
  publishByRename,
  sessionFileName,
  uuidv7,
  writeNewFile,
} from "./new-file.ts";
import { openIndexedFile } from "./open-indexed-file.ts";
import { SessionStore } from "./session-store.ts";
import { fileText, headerLine, tempDirs, userLine } from "./testing/files.ts";
import { assistantMessage, PI_GENERATIONS, type PiEntry, pi16, userMessage } from "./testing/pi.ts";
import { ensureNoLeaks } from "../../shared/lifecycle/testing.ts";

ensureNoLeaks();

const dirs = tempDirs("new-file");
afterAll(() => dirs.cleanup());

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function lines(path: string): Array<Record<string, unknown>> {
  return readFileSync(path, "utf8")
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function rawLines(path: string): string[] {
  return readFileSync(path, "utf8").trimEnd().split("\n");
}

function expectNewFileError(write: () => unknown, code: NewFileError["code"]): NewFileError {
  let caught: unknown;
  try {
    write();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(NewFileError);
  expect(caught).toBeInstanceOf(ArborError);
  expect((caught as NewFileError).code).toBe(code);
  return caught as NewFileError;
}

describe("uuidv7 and names", () => {
  it("makes version-7 UUIDs carrying the time, and Pi's file names", () => {
    const now = Date.UTC(2026, 5, 1, 12, 30, 45, 678);
    const ids = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const id = uuidv7(now);
      expect(id).toMatch(UUID_V7);
      expect(Number.parseInt(id.replace(/-/g, "").slice(0, 12), 16)).toBe(now);
      ids.add(id);
    }
    expect(ids.size).toBe(1000);
    expect(sessionFileName("2026-06-01T12:30:45.678Z", "abc")).toBe("2026-06-01T12-30-45-678Z_abc.jsonl");
  });
});

describe("createSessionFile", () => {
  it("writes Pi's header, in Pi's key order, under Pi's file name; Pi opens and continues it", () => {
    const dir = dirs.make();
    const now = new Date(Date.UTC(2026, 2, 3, 4, 5, 6, 7));
    const created = createSessionFile({ dir, cwd: "/home/user/project", now });
    expect(basename(created.path)).toBe(`2026-03-03T04-05-06-007Z_${created.header.id}.jsonl`);
    expect(dirname(created.path)).toBe(dir);
    expect(created.header.id).toMatch(UUID_V7);
    expect(rawLines(created.path)).toEqual([
      `{"type":"session","version":3,"id":"${created.header.id}","timestamp":"2026-03-03T04:05:06.007Z","cwd":"/home/user/project"}`,
    ]);
    expect(created.leafId).toBeNull();

    const withParent = createSessionFile({ dir, cwd: "/p", parentSession: "/sessions/a.jsonl" });
    expect(Object.keys(lines(withParent.path)[0]!)).toEqual([
      "type",
      "version",
      "id",
      "timestamp",
      "cwd",
      "parentSession",
    ]);

    for (const { name, is16, module } of PI_GENERATIONS) {
      const copy = join(dirs.make(), basename(created.path));
      copyFileSync(created.path, copy);
      const manager = module.SessionManager.open(copy);
      expect(manager.getHeader()?.id, name).toBe(created.header.id);
      const user = manager.appendMessage(userMessage("first"));
      const assistant = manager.appendMessage(assistantMessage("answer"));
      const written = lines(copy);
      // Pi 0.73 writes nothing before the first assistant message, and then
      // appends everything it holds, its header included: a header-only file
      // continued by 0.73 ends up with the header twice (which both Pi
      // versions and Arbor read, Arbor reporting the second as "extra-header").
      expect(
        written.map((line) => line.type),
        name,
      ).toEqual(is16 ? ["session", "message", "message"] : ["session", "session", "message", "message"]);
      expect(
        written.slice(-2).map((line) => line.id),
        name,
      ).toEqual([user, assistant]);
      expect(
        written.filter((line) => line.type === "session").every((line) => line.id === created.header.id),
      ).toBe(true);
    }
  });
});

/**
 * A session written by Pi 1.6 itself: labels inside the chain (so later
 * entries are children of label entries), a compaction whose
 * firstKeptEntryId is a label entry, a second branch with its own label, a
 * model change, a session name.
 */
function piWrittenSession(): { path: string; ids: Record<string, string> } {
  const dir = dirs.make();
  const manager = pi16.SessionManager.create("/home/user/project", dir);
  const ids: Record<string, string> = {};
  let step = 0;
  const t = () => Date.UTC(2026, 0, 1) + ++step * 1000;
  ids.u1 = manager.appendMessage(userMessage("first question", t()));
  ids.a1 = manager.appendMessage(assistantMessage("first answer", t()));
  ids.l1 = manager.appendLabelChange(ids.u1, "start");
  ids.u2 = manager.appendMessage(userMessage("second question", t()));
  ids.m1 = manager.appendModelChange("openai", "gpt-5");
  ids.a2 = manager.appendMessage(assistantMessage("second answer", t()));
  ids.l2 = manager.appendLabelChange(ids.a2, "good answer");
  ids.l3 = manager.appendLabelChange(ids.a1, "to be cleared");
  ids.l4 = manager.appendLabelChange(ids.a1, undefined);
  ids.c1 = manager.appendCompaction("summary of the start", ids.l1, 1234);
  ids.u3 = manager.appendMessage(userMessage("third question", t()));
  ids.a3 = manager.appendMessage(assistantMessage("third answer", t()));
  ids.s1 = manager.appendSessionInfo("Pi's name");
  manager.branch(ids.a1);
  ids.b1 = manager.appendMessage(userMessage("another way", t()));
  ids.b2 = manager.appendMessage(assistantMessage("another answer", t()));
  ids.lb = manager.appendLabelChange(ids.b1, "branch label");
  ids.lu = manager.appendLabelChange(ids.u1, "start, renamed");
  return { path: manager.getSessionFile()!, ids };
}

/** Replaces the ids of label entries (which both writers make up) by their position. */
function normaliseLabelIds(fileLines: string[]): string[] {
  const labelIds = fileLines
    .map((line) => JSON.parse(line) as PiEntry)
    .filter((entry) => entry.type === "label")
    .map((entry) => entry.id);
  return fileLines.map((line) =>
    labelIds.reduce((text, id, i) => text.replaceAll(`"${id}"`, `"LABEL${i}"`), line),
  );
}

describe("forkSession: Pi 1.6's createBranchedSession, as a new file", () => {
  const { path: source, ids } = piWrittenSession();

  const cases: Array<{ what: string; entry: keyof typeof ids; position: "at" | "before"; piLeaf: string }> = [
    { what: "at the leaf", entry: "lu", position: "at", piLeaf: "lu" },
    { what: "at the end of the main branch", entry: "s1", position: "at", piLeaf: "s1" },
    { what: "at an entry after a compaction", entry: "a3", position: "at", piLeaf: "a3" },
    { what: "at the compaction", entry: "c1", position: "at", piLeaf: "c1" },
    { what: "at a label entry", entry: "l2", position: "at", piLeaf: "l2" },
    { what: "at an entry on the other branch", entry: "b2", position: "at", piLeaf: "b2" },
    { what: "before a user message whose parent is a label", entry: "u2", position: "before", piLeaf: "l1" },
    { what: "before a user message after a compaction", entry: "u3", position: "before", piLeaf: "c1" },
  ];

  for (const mode of ["full", "structure"] as ParseMode[]) {
    for (const { what, entry, position, piLeaf } of cases) {
      it(`${what} (${position}, ${mode})`, () => {
        // Pi on one copy, Arbor on another, each in its own session directory.
        const piCopy = join(dirs.make(), basename(source));
        copyFileSync(source, piCopy);
        const piFork = pi16.SessionManager.open(piCopy).createBranchedSession(ids[piLeaf]!)!;
        const arborCopy = join(dirs.make(), basename(source));
        copyFileSync(source, arborCopy);
        const opened = openIndexedFile(arborCopy, { mode });
        let fork: ReturnType<typeof forkSession>;
        try {
          fork = forkSession(opened.index, opened.reader, arborCopy, ids[entry]!, { position });
        } finally {
          opened.close();
        }
        expect(dirname(fork.path)).toBe(dirname(arborCopy));
        expect(basename(fork.path)).toBe(sessionFileName(fork.header.timestamp, fork.header.id));

        const piLines = rawLines(piFork);
        const arborLines = rawLines(fork.path);
        const piHeader = JSON.parse(piLines[0]!);
        const arborHeader = JSON.parse(arborLines[0]!);
        expect(Object.keys(arborHeader)).toEqual(Object.keys(piHeader));
        expect(arborHeader).toEqual({
          ...piHeader,
          id: arborHeader.id,
          timestamp: arborHeader.timestamp,
          parentSession: arborCopy,
        });
        expect(piHeader.parentSession).toBe(piCopy);
        expect(arborHeader.id).toMatch(UUID_V7);
        // Entries byte for byte, label entry ids aside.
        expect(normaliseLabelIds(arborLines.slice(1))).toEqual(normaliseLabelIds(piLines.slice(1)));
        expect(fork.entries.map((e) => JSON.stringify(e))).toEqual(arborLines.slice(1));
        expect(fork.leafId).toBe((JSON.parse(arborLines.at(-1)!) as PiEntry).id);

        // And both forks mean the same to Pi.
        for (const { name, module } of PI_GENERATIONS) {
          const a = module.SessionManager.open(copyOf(fork.path));
          const p = module.SessionManager.open(copyOf(piFork));
          expect(a.buildSessionContext(), name).toEqual(p.buildSessionContext());
          for (const id of Object.values(ids)) expect(a.getLabel(id), name).toBe(p.getLabel(id));
        }
      });
    }
  }

  it("before the first user message: an empty session naming its parent", () => {
    const copy = join(dirs.make(), basename(source));
    copyFileSync(source, copy);
    const opened = openIndexedFile(copy);
    try {
      const fork = forkSession(opened.index, opened.reader, copy, ids.u1!, { position: "before" });
      expect(fork.entries).toEqual([]);
      expect(fork.leafId).toBeNull();
      expect(lines(fork.path)).toEqual([
        {
          type: "session",
          version: 3,
          id: fork.header.id,
          timestamp: fork.header.timestamp,
          cwd: "/home/user/project",
          parentSession: copy,
        },
      ]);
      expectNewFileError(
        () => forkSession(opened.index, opened.reader, copy, ids.a1!, { position: "before" }),
        "refused",
      );
      expectNewFileError(
        () => forkSession(opened.index, opened.reader, copy, "nope", { position: "at" }),
        "not-found",
      );
    } finally {
      opened.close();
    }
  });

  it("cloneSession is a fork at the file's leaf, and sees entries Arbor appended", () => {
    const copy = join(dirs.make(), basename(source));
    copyFileSync(source, copy);
    const store = SessionStore.open(copy);
    try {
      const label = store.append(appendLabel, {
        leafId: store.index.leafId,
        targetId: ids.b2!,
        label: "cloned",
      });
      const clone = cloneSession(store.index, store.reader, copy);
      const piCopy = copyOf(copy);
      const piFork = pi16.SessionManager.open(piCopy).createBranchedSession(label.entryId)!;
      expect(normaliseLabelIds(rawLines(clone.path).slice(1))).toEqual(
        normaliseLabelIds(rawLines(piFork).slice(1)),
      );
      expect(lines(clone.path).at(-1)).toMatchObject({ type: "label", targetId: ids.b2, label: "cloned" });
    } finally {
      store.dispose();
    }
  });
});

function copyOf(path: string): string {
  const copy = join(dirs.make(), basename(path));
  copyFileSync(path, copy);
  return copy;
}

describe("exportSession", () => {
  it("copies the whole session byte for byte", () => {
    const { path } = piWrittenSession();
    const opened = openIndexedFile(path);
    try {
      const destination = join(dirs.make(), "export.jsonl");
      const result = exportSession(opened.index, opened.reader, path, { destination });
      expect(result).toMatchObject({ path: destination, omittedPartialLine: false });
      expect(readFileSync(destination)).toEqual(readFileSync(path));
      expectNewFileError(() => exportSession(opened.index, opened.reader, path, { destination }), "conflict");
    } finally {
      opened.close();
    }
  });

  it("leaves out a half-written last line, and terminates a complete one", () => {
    const dir = dirs.make();
    const base = fileText([headerLine(), userLine("u1", null, "hello")]);
    const half = join(dir, "half.jsonl");
    writeFileSync(half, base);
    appendFileSync(half, userLine("u2", "u1", "still being writ").slice(0, 50));
    const complete = join(dir, "complete.jsonl");
    writeFileSync(complete, base);
    appendFileSync(complete, userLine("u2", "u1", "complete, no newline"));
    for (const [path, expected, omitted] of [
      [half, base, true],
      [complete, `${base}${userLine("u2", "u1", "complete, no newline")}\n`, false],
    ] as const) {
      const opened = openIndexedFile(path, { mode: "structure" });
      try {
        const destination = join(dirs.make(), "export.jsonl");
        expect(exportSession(opened.index, opened.reader, path, { destination }).omittedPartialLine).toBe(
          omitted,
        );
        expect(readFileSync(destination, "utf8")).toBe(expected);
      } finally {
        opened.close();
      }
    }
  });

  it("exports one branch as a fork of it", () => {
    const { path, ids } = piWrittenSession();
    const opened = openIndexedFile(path);
    try {
      const destination = join(dirs.make(), "branch.jsonl");
      exportSession(opened.index, opened.reader, path, { destination, leafId: ids.b2! });
      const piFork = pi16.SessionManager.open(copyOf(path)).createBranchedSession(ids.b2!)!;
      expect(normaliseLabelIds(rawLines(destination).slice(1))).toEqual(
        normaliseLabelIds(rawLines(piFork).slice(1)),
      );
      expect(lines(destination)[0]).toMatchObject({ type: "session", version: 3, parentSession: path });
    } finally {
      opened.close();
    }
  });
});

describe("the new-file writer never overwrites", () => {
  function tempFiles(dir: string): string[] {
    return readdirSync(dir).filter((name) => name.endsWith(".tmp"));
  }

  it("refuses an existing target, leaves it untouched, and removes its temporary file", () => {
    const dir = dirs.make();
    const target = join(dir, "taken.jsonl");
    writeFileSync(target, "precious\n");
    const error = expectNewFileError(() => writeNewFile(target, "new content\n"), "conflict");
    expect(error.message).toMatch(/already exists/);
    expect(readFileSync(target, "utf8")).toBe("precious\n");
    expect(tempFiles(dir)).toEqual([]);
    expect(readdirSync(dir)).toEqual(["taken.jsonl"]);
  });

  it("the rename fallback refuses an existing target too", () => {
    const dir = dirs.make();
    const target = join(dir, "taken.jsonl");
    writeFileSync(target, "precious\n");
    const temp = join(dir, ".taken.jsonl.x.tmp");
    writeFileSync(temp, "new content\n");
    expectNewFileError(() => publishByRename(temp, target), "conflict");
    expect(readFileSync(target, "utf8")).toBe("precious\n");
    const free = join(dir, "free.jsonl");
    publishByRename(temp, free);
    expect(readFileSync(free, "utf8")).toBe("new content\n");
    expect(tempFiles(dir)).toEqual([]);
  });

  it("writes many parts in order, and reports a missing directory", () => {
    const dir = dirs.make();
    const target = join(dir, "parts.jsonl");
    expect(writeNewFile(target, ["a", new TextEncoder().encode("b"), "c\n"])).toEqual({ bytes: 4 });
    expect(readFileSync(target, "utf8")).toBe("abc\n");
    expect(tempFiles(dir)).toEqual([]);
    expectNewFileError(() => writeNewFile(join(dir, "missing", "x.jsonl"), "x"), "not-found");
  });

  it("a failing content source leaves nothing behind", () => {
    const dir = dirs.make();
    const target = join(dir, "broken.jsonl");
    function* parts(): Generator<string> {
      yield "first\n";
      throw new Error("source went away");
    }
    expectNewFileError(() => writeNewFile(target, parts()), "io");
    expect(readdirSync(dir)).toEqual([]);
  });
});
