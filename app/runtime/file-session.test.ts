/** `openFileSession` on real files: following appends, truncation, replacement and deletion; whole-line appends. */

import { appendFileSync, readFileSync, renameSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readSession } from "../../shared/session/index.ts";
import type { Disposable } from "./disposable.ts";
import { openFileSession } from "./file-session.ts";
import type { OpenSession, SessionAppendEvent, SessionReloadEvent } from "./open-session.ts";
import { SAMPLE_IDS, tempFolder, writeLinearSession, writeSampleSession } from "./testing.ts";

let folder: ReturnType<typeof tempFolder>;
let path: string;
let session: OpenSession;
const owned: Disposable[] = [];

beforeEach(async () => {
  folder = tempFolder();
  path = writeSampleSession(join(folder.path, "a.jsonl")).path;
  session = await openFileSession(path, { pollMs: 20 });
  owned.push(session);
});

afterEach(() => {
  for (const item of owned.splice(0)) item.dispose();
  folder.cleanup();
});

function nextEvent<T>(subscribe: (listener: (event: T) => void) => Disposable): Promise<T> {
  return new Promise((resolve) => {
    const subscription = subscribe((event) => {
      subscription.dispose();
      resolve(event);
    });
  });
}

const line = (value: object) => `${JSON.stringify(value)}\n`;

describe("openFileSession", () => {
  it("reads what another writer appends while followed", async () => {
    owned.push(session.follow());
    const appended = nextEvent<SessionAppendEvent>(session.onDidAppend);
    appendFileSync(
      path,
      line({
        type: "message",
        id: "cc000001",
        parentId: SAMPLE_IDS.l1,
        timestamp: "2026-01-01T13:00:00.000Z",
        message: { role: "user", content: "from Pi", timestamp: 1 },
      }),
    );
    expect((await appended).added).toEqual(["cc000001"]);
    expect(session.index.leafId).toBe("cc000001");
    expect(session.index.nodes.get("cc000001")!.parentId).toBe(SAMPLE_IDS.l1);
  });

  it("reloads a truncated file, a replaced file, and notices deletion and recreation", async () => {
    owned.push(session.follow());
    let reload = nextEvent<SessionReloadEvent>(session.onDidReload);
    const text = readFileSync(path, "utf8");
    truncateSync(path, text.indexOf("\n") + 1);
    expect((await reload).reason).toBe("truncated");
    expect(session.index.entries).toHaveLength(0);

    reload = nextEvent<SessionReloadEvent>(session.onDidReload);
    writeLinearSession(join(folder.path, "b.tmp"), { turns: 3 });
    renameSync(join(folder.path, "b.tmp"), path);
    expect((await reload).reason).toBe("replaced");
    expect(session.index.entries).toHaveLength(6);

    reload = nextEvent<SessionReloadEvent>(session.onDidReload);
    rmSync(path);
    expect((await reload).reason).toBe("deleted");
    expect(session.exists).toBe(false);
    await expect(session.appendSessionName("x")).rejects.toMatchObject({ code: "not-found" });

    reload = nextEvent<SessionReloadEvent>(session.onDidReload);
    writeSampleSession(path);
    expect((await reload).reason).toBe("recreated");
    expect(session.exists).toBe(true);
    expect(session.index.leafId).toBe(SAMPLE_IDS.l1);
  });

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
    expect(events.map((event) => event.added)).toEqual([[label.entryId], [name.entryId], [cleared.entryId]]);
    // The index after appending is the index of a fresh read.
    const fresh = readSession(readFileSync(path));
    expect(session.index.sessionName).toBe("Branching work");
    expect(session.index.labels.has(SAMPLE_IDS.a1)).toBe(false);
    expect([...session.index.nodes.keys()]).toEqual([...fresh.nodes.keys()]);
    expect(session.index.leafId).toBe(fresh.leafId);
  });

  it("refuses to append after an incomplete last line, or to a file that is not a session, and writes nothing", async () => {
    appendFileSync(path, '{"type":"message","id":"cc000002"');
    const before = readFileSync(path, "utf8");
    await expect(session.appendLabel(SAMPLE_IDS.u1, "x")).rejects.toMatchObject({ code: "conflict" });
    expect(readFileSync(path, "utf8")).toBe(before);

    const notSession = join(folder.path, "notes.jsonl");
    writeFileSync(notSession, '{"hello":"world"}\n');
    const other = await openFileSession(notSession);
    owned.push(other);
    await expect(other.appendSessionName("x")).rejects.toMatchObject({ code: "refused" });
    expect(readFileSync(notSession, "utf8")).toBe('{"hello":"world"}\n');
    await expect(session.appendLabel("missing", "x")).rejects.toMatchObject({ code: "not-found" });
  });

  it("throws once disposed, and stops following", async () => {
    const following = session.follow();
    session.dispose();
    expect(() => session.index).toThrow(/was closed/);
    following.dispose();
  });
});
