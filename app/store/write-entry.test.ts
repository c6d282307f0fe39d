/**
 * Every session write on real files written by Pi 1.6 itself, read back by
 * the store (parsed whole and structure-first) and by Pi 0.73 and 1.6: the
 * bytes before the append stay as they were, names, labels and Arbor's
 * archive state read as intended, and Pi resumes with the same context
 * (or, for a continue, a note or an edit, with the context intended).
 */

import { copyFileSync, readFileSync, utimesSync } from "node:fs";
import { basename, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ensureNoLeaks } from "../../shared/lifecycle/testing.ts";
import { ARBOR_ARCHIVE, archivedTargets, isArchived } from "../../shared/session/arbor-entries.ts";
import type { ParseMode } from "../../shared/session/parse.ts";
import { AppendError } from "./append.ts";
import { SessionStore } from "./session-store.ts";
import { type SessionWrite, type WriteOutcome, writeSessionEntry } from "./write-entry.ts";
import { tempDirs } from "./testing/files.ts";
import { assistantMessage, PI_GENERATIONS, type PiContext, pi16, userMessage } from "./testing/pi.ts";

ensureNoLeaks();

const dirs = tempDirs("write-entry");
afterAll(() => dirs.cleanup());

/**
 *   u1 ─ a1 ┬ u2 ─ a2            (labels on u1 "start", a2 "done"; name "First")
 *           └ u3 ─ a3 ─ s2 ─ l3  (name "Second"; l3 labels u1 "start again": the file's leaf)
 */
function piSession(): { path: string; ids: Record<string, string> } {
  const manager = pi16.SessionManager.create("/home/user/project", dirs.make());
  let second = 0;
  const t = () => Date.UTC(2026, 0, 1) + ++second * 1000;
  const ids: Record<string, string> = {};
  ids.u1 = manager.appendMessage(userMessage("first question", t()));
  ids.a1 = manager.appendMessage(assistantMessage("first answer", t()));
  ids.u2 = manager.appendMessage(userMessage("left question", t()));
  ids.a2 = manager.appendMessage(assistantMessage("left answer", t()));
  ids.l1 = manager.appendLabelChange(ids.u1, "start");
  ids.l2 = manager.appendLabelChange(ids.a2, "done");
  ids.s1 = manager.appendSessionInfo("First");
  manager.branch(ids.a1);
  ids.u3 = manager.appendMessage(userMessage("right question", t()));
  ids.a3 = manager.appendMessage(assistantMessage("right answer", t()));
  ids.s2 = manager.appendSessionInfo("Second");
  ids.l3 = manager.appendLabelChange(ids.u1, "start again");
  const path = manager.getSessionFile()!;
  const old = new Date(Date.now() - 60_000);
  utimesSync(path, old, old);
  return { path, ids };
}

function copyOf(path: string): string {
  const copy = join(dirs.make(), basename(path));
  copyFileSync(path, copy);
  return copy;
}

interface PiReading {
  context: PiContext;
  leafId: string | null;
  name: string | undefined;
  labels: Record<string, string | undefined>;
}

/** What each Pi generation reads in the file (each on its own copy). */
function piReadings(path: string, ids: Record<string, string>): Record<string, PiReading> {
  const readings: Record<string, PiReading> = {};
  for (const { name, module } of PI_GENERATIONS) {
    const manager = module.SessionManager.open(copyOf(path));
    const labels: Record<string, string | undefined> = {};
    for (const [key, id] of Object.entries(ids)) labels[key] = manager.getLabel(id);
    readings[name] = {
      context: manager.buildSessionContext(),
      leafId: manager.getLeafId(),
      name: manager.getSessionName(),
      labels,
    };
  }
  return readings;
}

function contexts(readings: Record<string, PiReading>): Record<string, PiContext> {
  return Object.fromEntries(Object.entries(readings).map(([name, reading]) => [name, reading.context]));
}

/** Pi's own context at `leafId` (each generation's `buildSessionContext` over the file's entries). */
function piContextsAt(path: string, leafId: string): Record<string, PiContext> {
  const result: Record<string, PiContext> = {};
  for (const { name, module } of PI_GENERATIONS) {
    const manager = module.SessionManager.open(copyOf(path));
    result[name] = module.buildSessionContext(manager.getEntries(), leafId);
  }
  return result;
}

function write(path: string, request: SessionWrite, mode: ParseMode = "full"): WriteOutcome {
  const store = SessionStore.open(path, { mode });
  try {
    return store.append(writeSessionEntry, { write: request, reader: store.reader });
  } finally {
    store.dispose();
  }
}

function withStore<T>(path: string, mode: ParseMode, use: (store: SessionStore) => T): T {
  const store = SessionStore.open(path, { mode });
  try {
    return use(store);
  } finally {
    store.dispose();
  }
}

function lastLine(path: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path, "utf8").trimEnd().split("\n").at(-1)!) as Record<string, unknown>;
}

/** Asserts `request` is refused with `reason` and leaves the file's bytes as they were. */
function expectRefused(path: string, request: SessionWrite, reason: AppendError["reason"]): AppendError {
  const before = readFileSync(path);
  let caught: unknown;
  try {
    write(path, request);
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(AppendError);
  expect((caught as AppendError).reason).toBe(reason);
  expect(readFileSync(path)).toEqual(before);
  return caught as AppendError;
}

describe("writes that keep Pi's resume point", () => {
  for (const mode of ["full", "structure"] as ParseMode[]) {
    it(`name, label, archive: appended after the bytes there were, Pi resumes with the same context (${mode})`, () => {
      const { path, ids } = piSession();
      const cases: { request: SessionWrite; expect: (reading: PiReading) => void }[] = [
        { request: { kind: "name", name: "  Tidy\nname " }, expect: (r) => expect(r.name).toBe("Tidy name") },
        { request: { kind: "name", name: "" }, expect: (r) => expect(r.name).toBeUndefined() },
        {
          request: { kind: "label", targetId: ids.a3!, label: "right" },
          expect: (r) => expect(r.labels.a3).toBe("right"),
        },
        {
          request: { kind: "label", targetId: ids.u1!, label: null },
          expect: (r) => expect(r.labels.u1).toBeUndefined(),
        },
        { request: { kind: "archive", targetId: ids.u2!, archived: true }, expect: () => {} },
        { request: { kind: "archive", targetId: ids.u2!, archived: false }, expect: () => {} },
      ];
      for (const { request, expect: check } of cases) {
        const before = readFileSync(path);
        const piBefore = piReadings(path, ids);
        const result = write(path, request, mode);
        expect(readFileSync(path).subarray(0, before.length)).toEqual(before);
        expect(result.movedResumePoint).toBe(false);
        expect(result.wasLive).toBe(false);
        expect(lastLine(path)).toMatchObject({ id: result.entryId, parentId: piBefore["Pi 1.6"]!.leafId });
        const piAfter = piReadings(path, ids);
        expect(contexts(piAfter)).toEqual(contexts(piBefore));
        for (const reading of Object.values(piAfter)) {
          expect(reading.leafId).toBe(result.entryId);
          check(reading);
        }
        const old = new Date(Date.now() - 60_000);
        utimesSync(path, old, old);
      }
    });
  }

  it("archive markers: the latest per target wins, descendants are archived with their target", () => {
    const { path, ids } = piSession();
    write(path, { kind: "archive", targetId: ids.u2!, archived: true });
    write(path, { kind: "archive", targetId: ids.u3!, archived: true });
    write(path, { kind: "archive", targetId: ids.u3!, archived: false });
    expect(lastLine(path)).toMatchObject({
      type: "custom",
      customType: ARBOR_ARCHIVE,
      data: { targetId: ids.u3, archived: false },
    });
    for (const mode of ["full", "structure"] as ParseMode[]) {
      withStore(path, mode, (store) => {
        expect([...archivedTargets(store.index, store.reader)]).toEqual([ids.u2]);
        const archived = (key: string) => isArchived(store.index, store.reader, ids[key]!);
        expect(["u1", "a1", "u2", "a2", "l1", "u3", "a3"].map(archived)).toEqual([
          false,
          false,
          true,
          true,
          true,
          false,
          false,
        ]);
      });
    }
    expectRefused(path, { kind: "archive", targetId: ids.u2!, archived: true }, "no-change");
    expectRefused(path, { kind: "archive", targetId: ids.u3!, archived: false }, "no-change");
    expectRefused(path, { kind: "archive", targetId: "nope", archived: true }, "missing-target");
  });
});

describe("continue in Pi from an entry", () => {
  for (const mode of ["full", "structure"] as ParseMode[]) {
    it(`a marker as the entry's child: Pi 0.73 and 1.6 resume with the entry's context (${mode})`, () => {
      const { path, ids } = piSession();
      for (const key of ["a2", "u1", "a1"]) {
        const expected = piContextsAt(path, ids[key]!);
        const leafBefore = withStore(path, mode, (store) => store.index.leafId);
        const result = write(path, { kind: "continue", entryId: ids[key]! }, mode);
        expect(result).toMatchObject({ movedResumePoint: true, previousLeafId: leafBefore });
        expect(lastLine(path)).toMatchObject({
          type: "custom",
          customType: "arbor.continue",
          parentId: ids[key],
          data: { fromId: leafBefore },
        });
        const readings = piReadings(path, ids);
        expect(contexts(readings)).toEqual(expected);
        for (const reading of Object.values(readings)) expect(reading.leafId).toBe(result.entryId);
      }
    });
  }

  it("with a summary: Pi's branch summary as the entry's child, in the context after the entry's", () => {
    const { path, ids } = piSession();
    const result = write(path, { kind: "continue", entryId: ids.a2!, summary: "Tried the right way." });
    expect(lastLine(path)).toMatchObject({
      type: "branch_summary",
      parentId: ids.a2,
      fromId: ids.l3,
      summary: "Tried the right way.",
      details: { arbor: "arbor.continue" },
    });
    const atEntry = piContextsAt(path, ids.a2!);
    for (const [name, reading] of Object.entries(piReadings(path, ids))) {
      expect(reading.leafId).toBe(result.entryId);
      expect(reading.context.messages.slice(0, -1)).toEqual(atEntry[name]!.messages);
      expect(reading.context.messages.at(-1)).toMatchObject({
        role: "branchSummary",
        summary: "Tried the right way.",
        fromId: ids.l3,
      });
    }
  });

  it("is refused at the resume point itself, and at an entry that is not there", () => {
    const { path, ids } = piSession();
    expectRefused(path, { kind: "continue", entryId: ids.l3! }, "no-change");
    expectRefused(path, { kind: "continue", entryId: "nope" }, "missing-target");
  });
});

describe("notes and context edits", () => {
  it("a note at the leaf joins the context as a custom message; elsewhere it moves the resume point there", () => {
    const { path, ids } = piSession();
    const before = piReadings(path, ids);
    const atLeaf = write(path, { kind: "note", text: "Remember the tests." });
    expect(atLeaf.movedResumePoint).toBe(false);
    expect(lastLine(path)).toMatchObject({
      type: "custom_message",
      customType: "arbor.note",
      content: "Remember the tests.",
      display: true,
    });
    for (const { name, messages } of PI_GENERATIONS) {
      const context = piReadings(path, ids)[name]!.context;
      expect(context.messages.slice(0, -1)).toEqual(before[name]!.context.messages);
      expect(context.messages.at(-1)).toMatchObject({ role: "custom", content: "Remember the tests." });
      expect(messages.convertToLlm(context.messages).at(-1)).toMatchObject({
        role: "user",
        content: [{ type: "text", text: "Remember the tests." }],
      });
    }
    const elsewhere = write(path, { kind: "note", text: "Left was better.", at: ids.a2! });
    expect(elsewhere.movedResumePoint).toBe(true);
    const atA2 = piContextsAt(path, ids.a2!);
    for (const [name, reading] of Object.entries(piReadings(path, ids))) {
      expect(reading.context.messages.slice(0, -1)).toEqual(atA2[name]!.messages);
    }
    expectRefused(path, { kind: "note", text: "  " }, "invalid-argument");
  });

  it("a context edit reads as Pi 1.6's own appendContextEdit; Pi 0.73 ignores it", () => {
    const { path, ids } = piSession();
    const piCopy = copyOf(path);
    const before = piReadings(path, ids);
    write(path, { kind: "context-edit", targetId: ids.a3!, replacement: { content: "shorter answer" } });
    write(path, { kind: "context-edit", targetId: ids.u3!, replacement: null });
    const pi = pi16.SessionManager.open(piCopy);
    pi.appendContextEdit(ids.a3!, { content: "shorter answer" });
    pi.appendContextEdit(ids.u3!, null);
    const readings = piReadings(path, ids);
    expect(readings["Pi 1.6"]!.context).toEqual(pi.buildSessionContext());
    expect(readings["Pi 1.6"]!.context.messages.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "assistant",
    ]);
    expect(readings["Pi 0.73"]!.context).toEqual(before["Pi 0.73"]!.context);
    // Only entries that contribute model content, on the branch being edited.
    expectRefused(path, { kind: "context-edit", targetId: ids.s2!, replacement: null }, "not-editable");
    expectRefused(path, { kind: "context-edit", targetId: ids.u2!, replacement: null }, "not-on-branch");
    write(path, { kind: "context-edit", targetId: ids.u2!, replacement: null, at: ids.a2! });
  });
});

describe("undo", () => {
  for (const mode of ["full", "structure"] as ParseMode[]) {
    it(`reverses the last label, name, archive and continue by appending their inverse (${mode})`, () => {
      const { path, ids } = piSession();
      const original = piReadings(path, ids);
      // The name "Second" back to "First", then the label on u1 back to "start".
      const name = write(path, { kind: "undo", entryId: ids.s2! }, mode);
      expect(name.undid).toEqual({ entryId: ids.s2, kind: "name" });
      expect(piReadings(path, ids)["Pi 0.73"]!.name).toBe("First");
      const label = write(path, { kind: "undo" }, mode);
      expect(label.undid).toEqual({ entryId: name.entryId, kind: "name" });
      expect(piReadings(path, ids)["Pi 1.6"]!.name).toBe("Second");
      write(path, { kind: "undo", entryId: ids.l3! }, mode);
      for (const reading of Object.values(piReadings(path, ids))) expect(reading.labels.u1).toBe("start");

      write(path, { kind: "archive", targetId: ids.u2!, archived: true }, mode);
      const archive = write(path, { kind: "undo" }, mode);
      expect(archive.undid?.kind).toBe("archive");
      withStore(path, mode, (store) => expect(archivedTargets(store.index, store.reader).size).toBe(0));

      const leafBefore = withStore(path, mode, (store) => store.index.leafId!);
      write(path, { kind: "continue", entryId: ids.a2! }, mode);
      const back = write(path, { kind: "undo" }, mode);
      expect(back).toMatchObject({ undid: { kind: "continue" }, movedResumePoint: true });
      expect(lastLine(path)).toMatchObject({ parentId: leafBefore, customType: "arbor.continue" });
      // Back where it was: the context Pi resumed with before any of this.
      expect(contexts(piReadings(path, ids))).toEqual(contexts(original));
    });
  }

  it("is refused for entries that cannot be undone, and when there is nothing to undo", () => {
    const { path, ids } = piSession();
    expectRefused(path, { kind: "undo", entryId: ids.a1! }, "not-undoable");
    expectRefused(path, { kind: "undo", entryId: "nope" }, "missing-target");
    const manager = pi16.SessionManager.create("/p", dirs.make());
    manager.appendMessage(userMessage("hi"));
    manager.appendMessage(assistantMessage("hello"));
    expectRefused(manager.getSessionFile()!, { kind: "undo" }, "not-undoable");
  });
});
