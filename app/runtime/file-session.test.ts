/**
 * `FileSession` (the runtime's `OpenSession` over `SessionStore`) on real
 * files: following appends, truncation, replacement, deletion and
 * re-creation; label and name appends as whole lines below the leaf; the
 * store's refusals; one follower shared by every `follow()`.
 */

import {
  appendFileSync,
  readFileSync,
  renameSync,
  rmSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readSession } from "../../shared/session/index.ts";
import { AppendError } from "../store/append.ts";
import type { Disposable } from "../../shared/lifecycle/disposable.ts";
import type { OpenSession, SessionAppendEvent, SessionReloadEvent } from "./open-session.ts";
import { openFileSession, type FileSession, fileSessionFactory } from "./file-session.ts";
import { nextEvent } from "../store/testing/files.ts";
import { SAMPLE_IDS, tempFolder, writeLinearSession, writeSampleSession } from "./testing.ts";
import { ensureNoLeaks } from "../../shared/lifecycle/testing.ts";

ensureNoLeaks();

let folder: ReturnType<typeof tempFolder>;
let path: string;
let session: OpenSession;
const owned: Disposable[] = [];

const openFast = fileSessionFactory({ follow: { pollMs: 20, quietMs: 20 } });

beforeEach(async () => {
  folder = tempFolder();
  path = writeSampleSession(join(folder.path, "a.jsonl")).path;
  session = await openFast(path);
  owned.push(session);
});

afterEach(() => {
  for (const item of owned.splice(0)) item.dispose();
  folder.cleanup();
});

const line = (value: object) => `${JSON.stringify(value)}\n`;

const piUserLine = (id: string, parentId: string, text: string) =>
  line({
    type: "message",
    id,
    parentId,
    timestamp: "2026-01-01T13:00:00.000Z",
    message: { role: "user", content: text, timestamp: 1 },
  });

describe("FileSession: following", () => {
  it("reads what another writer appends while followed", async () => {
    owned.push(session.follow());
    const appended = nextEvent<SessionAppendEvent>(session.onDidAppend, "append");
    appendFileSync(path, piUserLine("cc000001", SAMPLE_IDS.l1, "from Pi"));
    expect(await appended).toEqual({ added: ["cc000001"], rebuilt: false });
    expect(session.index.leafId).toBe("cc000001");
    expect(session.index.nodes.get("cc000001")!.parentId).toBe(SAMPLE_IDS.l1);
  });

  it("reloads a truncated file, a replaced file, and notices deletion and recreation", async () => {
    owned.push(session.follow());
    let reload = nextEvent<SessionReloadEvent>(session.onDidReload, "reload");
    const text = readFileSync(path, "utf8");
    truncateSync(path, text.indexOf("\n") + 1);
    expect((await reload).reason).toBe("truncated");
    expect(session.index.entries).toHaveLength(0);

    reload = nextEvent<SessionReloadEvent>(session.onDidReload, "reload");
    writeLinearSession(join(folder.path, "b.tmp"), { turns: 3 });
    renameSync(join(folder.path, "b.tmp"), path);
    expect((await reload).reason).toBe("replaced");
    expect(session.index.entries).toHaveLength(6);

    reload = nextEvent<SessionReloadEvent>(session.onDidReload, "reload");
    const mtimeBefore = session.mtimeMs;
    rmSync(path);
    expect((await reload).reason).toBe("deleted");
    expect(session.exists).toBe(false);
    // The last read stays readable while the file is gone.
    expect(session.index.entries).toHaveLength(6);
    expect(session.mtimeMs).toBe(mtimeBefore);
    await expect(session.appendSessionName("x")).rejects.toMatchObject({ code: "not-found" });

    reload = nextEvent<SessionReloadEvent>(session.onDidReload, "reload");
    writeSampleSession(path);
    expect((await reload).reason).toBe("recreated");
    expect(session.exists).toBe(true);
    expect(session.index.leafId).toBe(SAMPLE_IDS.l1);
  });

  it("refresh() reads the change at once, without following", () => {
    const events: SessionAppendEvent[] = [];
    owned.push(session.onDidAppend((event) => events.push(event)));
    appendFileSync(path, piUserLine("cc000003", SAMPLE_IDS.l1, "unfollowed"));
    expect(session.index.leafId).toBe(SAMPLE_IDS.l1);
    session.refresh();
    expect(events).toEqual([{ added: ["cc000003"], rebuilt: false }]);
    expect(session.index.leafId).toBe("cc000003");
  });

  it("every follow() shares the store's one follower, which stops when the last is disposed", () => {
    const store = (session as FileSession).store;
    const first = session.follow();
    const second = session.follow();
    expect(store.following).toBe(true);
    first.dispose();
    first.dispose();
    expect(store.following).toBe(true);
    second.dispose();
    expect(store.following).toBe(false);
    owned.push(session.follow());
    expect(store.following).toBe(true);
  });
});

describe("FileSession: appends", () => {
  it("appends one whole line per label or name, as a child of the leaf, and reads it back", async () => {
    const before = readFileSync(path, "utf8");
    const events: SessionAppendEvent[] = [];
    owned.push(session.onDidAppend((event) => events.push(event)));
    const label = await session.appendLabel(SAMPLE_IDS.a1, "important");
    const name = await session.appendSessionName("  Branching\nwork  ");
    const cleared = await session.appendLabel(SAMPLE_IDS.a1, null);
    const after = readFileSync(path, "utf8");
    expect(after.startsWith(before)).toBe(true);
    const lines = after
      .slice(before.length)
      .trimEnd()
      .split("\n")
      .map((text) => JSON.parse(text));
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatchObject({
      type: "label",
      id: label.entryId,
      parentId: SAMPLE_IDS.l1,
      targetId: SAMPLE_IDS.a1,
      label: "important",
    });
    expect(lines[1]).toMatchObject({
      type: "session_info",
      id: name.entryId,
      parentId: label.entryId,
      name: "Branching work",
    });
    expect(lines[2]).toMatchObject({
      type: "label",
      id: cleared.entryId,
      parentId: name.entryId,
      targetId: SAMPLE_IDS.a1,
    });
    expect("label" in lines[2]).toBe(false);
    expect(Object.keys(lines[0])).toEqual(["type", "id", "parentId", "timestamp", "targetId", "label"]);
    expect(label.entryId).toMatch(/^[0-9a-f]{8}$/);
    // Arbor's own appends in a row do not make the file look live.
    expect([label.wasLive, name.wasLive, cleared.wasLive]).toEqual([true, false, false]);
    expect(events.map((event) => event.added)).toEqual([[label.entryId], [name.entryId], [cleared.entryId]]);
    // The index after appending is the index of a fresh read.
    const fresh = readSession(readFileSync(path));
    expect(session.index.sessionName).toBe("Branching work");
    expect(session.index.labels.has(SAMPLE_IDS.a1)).toBe(false);
    expect([...session.index.nodes.keys()]).toEqual([...fresh.nodes.keys()]);
    expect(session.index.leafId).toBe(fresh.leafId);
  });

  it("a user's write into a live file waits for confirmation: refused with nothing written, then written", async () => {
    // The sample was written just now: a Pi may be writing it.
    const before = readFileSync(path, "utf8");
    const refusal = session.write({ kind: "archive", targetId: SAMPLE_IDS.u2, archived: true });
    await expect(refusal).rejects.toMatchObject({ code: "conflict", reason: "live" });
    await expect(refusal).rejects.toThrow(/Pi is writing this session.*Confirm to write anyway/);
    expect(readFileSync(path, "utf8")).toBe(before);
    // A request that is refused anyway says why first.
    await expect(session.write({ kind: "archive", targetId: "nope", archived: true })).rejects.toMatchObject({
      code: "not-found",
    });
    const written = await session.write(
      { kind: "archive", targetId: SAMPLE_IDS.u2, archived: true },
      { confirmLive: true },
    );
    expect(written).toMatchObject({ wasLive: true, movedResumePoint: false, previousLeafId: SAMPLE_IDS.l1 });
    // Once the other writer's change is old, Arbor's own writes do not make the file live.
    const old = new Date(Date.now() - 60_000);
    utimesSync(path, old, old);
    const undo = await session.write({ kind: "undo" });
    expect(undo).toMatchObject({ wasLive: false, undid: { entryId: written.entryId, kind: "archive" } });
    await session.write({ kind: "name", name: "ours" });
    // Another writer's line makes it live again.
    appendFileSync(path, piUserLine("cc000009", undo.entryId, "Pi again"));
    await expect(session.write({ kind: "name", name: "x" })).rejects.toMatchObject({ reason: "live" });
  });

  it("reads what another writer appended first, and appends below that writer's leaf", async () => {
    // Not followed: the session has not seen Pi's line when the label is asked for.
    appendFileSync(path, piUserLine("cc000004", SAMPLE_IDS.l1, "Pi was here"));
    const label = await session.appendLabel(SAMPLE_IDS.u1, "after Pi");
    const last = JSON.parse(readFileSync(path, "utf8").trimEnd().split("\n").at(-1)!);
    expect(last).toMatchObject({ id: label.entryId, parentId: "cc000004", targetId: SAMPLE_IDS.u1 });
    expect(session.index.leafId).toBe(label.entryId);
  });

  it("counts another writer's changes as foreign, not its own label and name appends", async () => {
    // The file was last written an hour ago.
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(path, hourAgo, hourAgo);
    session.refresh();
    expect(Math.abs(session.foreignChangeMs - hourAgo.getTime())).toBeLessThan(1_000);
    await session.appendLabel(SAMPLE_IDS.u1, "ours");
    await session.appendSessionName("ours too");
    expect(session.mtimeMs).toBeGreaterThan(hourAgo.getTime() + 60_000);
    expect(Math.abs(session.foreignChangeMs - hourAgo.getTime())).toBeLessThan(1_000);
    // Pi writes, then Arbor labels at once: Pi's time is kept.
    const piTime = new Date(Date.now() - 60_000);
    appendFileSync(path, piUserLine("cc000005", session.index.leafId!, "Pi again"));
    utimesSync(path, piTime, piTime);
    await session.appendLabel(SAMPLE_IDS.u1, "after Pi");
    expect(Math.abs(session.foreignChangeMs - piTime.getTime())).toBeLessThan(1_000);
  });

  it("refuses after an incomplete last line, a file that is not a session, or a missing target, and writes nothing", async () => {
    appendFileSync(path, '{"type":"message","id":"cc000002"');
    const before = readFileSync(path, "utf8");
    const refusal = session.appendLabel(SAMPLE_IDS.u1, "x");
    await expect(refusal).rejects.toBeInstanceOf(AppendError);
    await expect(refusal).rejects.toMatchObject({ code: "refused", reason: "unterminated-last-line" });
    expect(readFileSync(path, "utf8")).toBe(before);

    const notSession = join(folder.path, "notes.jsonl");
    writeFileSync(notSession, '{"hello":"world"}\n');
    const other = await openFileSession(notSession);
    owned.push(other);
    await expect(other.appendSessionName("x")).rejects.toMatchObject({
      code: "refused",
      reason: "no-header",
    });
    expect(readFileSync(notSession, "utf8")).toBe('{"hello":"world"}\n');
    await expect(session.appendLabel("missing", "x")).rejects.toMatchObject({ code: "not-found" });
  });
});

describe("FileSession: lifetime", () => {
  it("throws once disposed, and stops following", async () => {
    const store = (session as FileSession).store;
    const following = session.follow();
    session.dispose();
    expect(store.following).toBe(false);
    expect(() => session.index).toThrow(/was closed/);
    expect(() => session.follow()).toThrow(/was closed/);
    await expect(session.appendSessionName("late")).rejects.toThrow(/was closed/);
    following.dispose();
    expect(readFileSync(path, "utf8")).not.toContain("late");
  });

  it("a file that cannot be opened is the file system's error", async () => {
    await expect(openFileSession(join(folder.path, "missing.jsonl"))).rejects.toMatchObject({
      code: "ENOENT",
    });
  });
});
