/**
 * The handlers beyond the contract suite: the demo library fallback, events
 * for changes made by other writers, the `live` flag, and errors that always
 * leave as `ArborError`s.
 */

import { appendFileSync, rmSync, truncateSync, utimesSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  ArborError,
  type ArborEvents,
  type EventName,
  type SessionListItem,
  type SessionView,
} from "../../shared/ipc/contract.ts";
import { createSessionLibrary, type SessionLibrary } from "../library/index.ts";
import {
  encodedCwd,
  SAMPLE_IDS,
  tempFolder,
  writeLinearSession,
  writeSampleSession,
} from "../runtime/testing.ts";
import { readSession } from "../../shared/session/index.ts";
import { plainView, sessionViewOf } from "../../shared/ipc/testing/session-view.ts";
import { applySessionDelta } from "../../shared/ipc/session-delta.ts";
import { createEventHub } from "./event-sink.ts";
import { createArborHandlers } from "./handlers.ts";
import { HandleRegistry } from "./handles.ts";
import { type ArborHost, createArborHost } from "./host.ts";
import { SessionRuntime } from "../runtime/session-runtime.ts";
import { storeSessionFactory } from "../runtime/store-session.ts";
import { openSessionFile } from "../store/open-session-file.ts";
import { createParseCache, type ParseCache } from "../store/parse-cache.ts";
import { countingLoads } from "../store/testing/counting-cache.ts";
import { contextView, entryDetail, firstUserText } from "../../shared/ipc/views.ts";
import { decodeResult, encodeResult } from "../../shared/ipc/wire.ts";
import { stringifyWire } from "../../shared/ipc/wire-json.ts";

let folder: ReturnType<typeof tempFolder>;
let root: string;
let samplePath: string;
const hosts: ArborHost[] = [];

beforeEach(() => {
  folder = tempFolder("arbor-handlers-");
  root = join(folder.path, "sessions");
  samplePath = join(root, encodedCwd("/work/project"), "2026-01-01T12-00-00-000Z_sample.jsonl");
});

afterEach(async () => {
  for (const host of hosts.splice(0)) await host.close();
  folder.cleanup();
});

function host(options: { demo?: boolean } = {}): ArborHost {
  const created = createArborHost({
    transport: "serve",
    version: "0.1.0",
    dataDir: join(folder.path, "data"),
    roots: [root],
    demo: options.demo ?? true,
  });
  hosts.push(created);
  return created;
}

function collect(created: ArborHost): { name: EventName; payload: unknown }[] {
  const seen: { name: EventName; payload: unknown }[] = [];
  created.events.subscribe((name, payload) => seen.push({ name, payload }));
  return seen;
}

function waitForEvent<E extends EventName>(created: ArborHost, name: E): Promise<ArborEvents[E]> {
  return new Promise((resolve) => {
    const subscription = created.events.subscribe((event, payload) => {
      if (event !== name) return;
      subscription.dispose();
      resolve(payload as ArborEvents[E]);
    });
  });
}

const items = (listing: { projects: { sessions: SessionListItem[] }[] }) =>
  listing.projects.flatMap((p) => p.sessions);

/** The view a window holds: `start`, then each `session.appended` delta of `created` applied to it in turn. */
function followedView(created: ArborHost, start: SessionView): { current: SessionView } {
  const followed = { current: start };
  created.events.subscribe((name, payload) => {
    if (name !== "session.appended") return;
    const { delta } = payload as ArborEvents["session.appended"];
    expect(delta.baseBytes).toBe(followed.current.bytes);
    followed.current = applySessionDelta(followed.current, delta);
  });
  return followed;
}

describe("the demo library", () => {
  it("is listed when no session exists, and the real library returns once it has sessions", async () => {
    const created = host();
    const listing = await created.handlers["library.rescan"]({});
    expect(listing.demo).toBe(true);
    const demoSessions = items(listing).filter((item) => !item.error);
    expect(demoSessions.length).toBeGreaterThanOrEqual(3);
    const view = await created.handlers["session.open"]({ sessionId: demoSessions[0]!.sessionId });
    expect(view.nodes.count).toBeGreaterThan(0);
    expect(view.path.startsWith(join(folder.path, "data", "demo-sessions"))).toBe(true);

    writeSampleSession(samplePath);
    const real = await created.handlers["library.rescan"]({});
    expect(real.demo).toBe(false);
    expect(items(real).map((item) => item.path)).toEqual([samplePath]);
  });

  it("is not used when turned off", async () => {
    const listing = await host({ demo: false }).handlers["library.rescan"]({});
    expect(listing).toEqual({ projects: [], scanning: false, demo: false });
  });

  it("library.list starts the first scan and says so; library.changed brings the result", async () => {
    writeSampleSession(samplePath);
    const created = host();
    const changed = waitForEvent(created, "library.changed");
    const first = await created.handlers["library.list"]({});
    expect(first.scanning).toBe(true);
    const done = await changed;
    expect(done.scanning).toBe(false);
    expect(items(done).map((item) => item.path)).toEqual([samplePath]);
  });
});

describe("changes made by other writers", () => {
  it("opening the open session again reads its file first: deleted, it is not found; recreated, its new content", async () => {
    writeSampleSession(samplePath);
    const created = host();
    const [item] = items(await created.handlers["library.rescan"]({}));
    const first = await created.handlers["session.open"]({ sessionId: item!.sessionId });
    expect(first.nodes.count).toBeGreaterThan(1);
    rmSync(samplePath);
    await expect(created.handlers["session.open"]({ sessionId: item!.sessionId })).rejects.toMatchObject({
      code: "not-found",
    });
    // Written again (as another program might), with other entries: those are what opens.
    writeLinearSession(samplePath, { turns: 2, prefix: "dd" });
    const again = await created.handlers["session.open"]({ sessionId: item!.sessionId });
    const fresh = sessionViewOf("fresh", readSession(readFileSync(samplePath, "utf8")));
    expect(again.nodes.ids).toEqual(fresh.nodes.ids);
    expect(again.nodes.toArray().every((node) => node.id.startsWith("dd"))).toBe(true);
  });

  it("sends session.appended for lines Pi appends, and session.reloaded for truncation and deletion", async () => {
    writeSampleSession(samplePath);
    const created = host();
    const [item] = items(await created.handlers["library.rescan"]({}));
    await created.handlers["session.open"]({ sessionId: item!.sessionId });

    const appended = waitForEvent(created, "session.appended");
    appendFileSync(
      samplePath,
      `${JSON.stringify({ type: "message", id: "ee000001", parentId: SAMPLE_IDS.l1, timestamp: "2026-01-02T00:00:00.000Z", message: { role: "user", content: "from Pi", timestamp: 1 } })}\n`,
    );
    const event = await appended;
    expect(event.sessionId).toBe(item!.sessionId);
    expect(event.delta.added).toMatchObject([{ id: "ee000001", kind: "user", preview: "from Pi" }]);
    expect(event.delta.live).toBe(true);

    // A damaged line on its own is news too: its problem is sent at once, not with the next entry.
    const damaged = waitForEvent(created, "session.appended");
    const view = await created.handlers["session.current"]({});
    appendFileSync(samplePath, "not json at all\n");
    const problemOnly = await damaged;
    expect(problemOnly.delta.added).toEqual([]);
    const lines = readFileSync(samplePath, "utf8").split("\n").length - 1;
    expect(applySessionDelta(view!, problemOnly.delta).problems).toContainEqual(
      expect.objectContaining({ kind: "malformed-json", line: lines }),
    );

    const truncated = waitForEvent(created, "session.reloaded");
    const text = readFileSync(samplePath, "utf8");
    truncateSync(samplePath, text.indexOf("\n") + 1);
    const afterTruncation = await truncated;
    expect(afterTruncation).toMatchObject({ sessionId: item!.sessionId, reason: "truncated" });
    expect(afterTruncation.view!.nodes.count).toBe(0);

    const deleted = waitForEvent(created, "session.reloaded");
    rmSync(samplePath);
    expect(await deleted).toEqual({ sessionId: item!.sessionId, reason: "deleted", view: null });
  });

  it("keeps the open session's library row up to date: Pi's messages, Arbor's own name", async () => {
    writeSampleSession(samplePath);
    const created = host();
    const [item] = items(await created.handlers["library.rescan"]({}));
    await created.handlers["session.open"]({ sessionId: item!.sessionId });

    const grown = waitForEvent(created, "library.sessionChanged");
    appendFileSync(
      samplePath,
      `${JSON.stringify({ type: "message", id: "ee000001", parentId: SAMPLE_IDS.l1, timestamp: "2026-03-02T00:00:00.000Z", message: { role: "user", content: "from Pi", timestamp: Date.UTC(2026, 2, 2) } })}\n`,
    );
    const row = await grown;
    expect(row).toMatchObject({
      sessionId: item!.sessionId,
      messageCount: item!.messageCount + 1,
      modified: "2026-03-02T00:00:00.000Z",
    });
    expect(row.bytes).toBe(readFileSync(samplePath).length);
    // The listing says the same, without a rescan.
    expect(items(await created.handlers["library.list"]({}))).toContainEqual(row);

    const renamed = waitForEvent(created, "library.sessionChanged");
    await created.handlers["session.rename"]({ name: "Named in Arbor" });
    expect(await renamed).toMatchObject({ sessionId: item!.sessionId, name: "Named in Arbor" });
  });

  it("marks a session live only while another writer changed its file in the last few seconds", async () => {
    writeSampleSession(samplePath);
    const old = new Date(Date.now() - 60_000);
    utimesSync(samplePath, old, old);
    const created = host();
    const [item] = items(await created.handlers["library.rescan"]({}));
    const view = await created.handlers["session.open"]({ sessionId: item!.sessionId });
    expect(view.live).toBe(false);
    const label = await created.handlers["session.setLabel"]({ targetId: SAMPLE_IDS.u1, label: "x" });
    expect(label.wasLive).toBe(false);
    // Arbor's own label a moment ago does not make the file look like a Pi is writing it...
    expect((await created.handlers["session.current"]({}))!.live).toBe(false);
    const rename = await created.handlers["session.rename"]({ name: "y" });
    expect(rename.wasLive).toBe(false);
    expect((await created.handlers["session.current"]({}))!.live).toBe(false);
    // ...another writer's line does.
    appendFileSync(
      samplePath,
      `${JSON.stringify({ type: "custom", customType: "pi", id: "cc0000ff", parentId: rename.entryId, timestamp: new Date().toISOString() })}\n`,
    );
    expect(
      (await created.handlers["session.setLabel"]({ targetId: SAMPLE_IDS.u1, label: "z" })).wasLive,
    ).toBe(true);
    // The other writer's line is still the last foreign change: live, though Arbor wrote after it.
    expect((await created.handlers["session.current"]({}))!.live).toBe(true);
    // A file Arbor writes whole (a clone, a fork) is its own: not live, though it is seconds old.
    const clone = await created.handlers["session.clone"]({});
    expect(clone.path).not.toBe(samplePath);
    expect(clone.live).toBe(false);
    const fork = await created.handlers["session.fork"]({ entryId: SAMPLE_IDS.u1, position: "at" });
    expect(fork.live).toBe(false);
    expect((await created.handlers["session.current"]({}))!.live).toBe(false);
  });
});

describe("naming a session", () => {
  it("a link opened before the first scan ends waits for it; the header's own id names the session too", async () => {
    writeSampleSession(samplePath);
    const created = host();
    // An id from an earlier run (ids are derived from the path), before this run listed anything.
    const linked = new HandleRegistry().sessionId(samplePath);
    const view = await created.handlers["session.open"]({ sessionId: linked });
    expect(view.sessionId).toBe(linked);
    expect(view.path).toBe(samplePath);

    const headerId = view.headerId!;
    await created.handlers["session.open"]({
      sessionId: items(await created.handlers["library.list"]({}))[0]!.sessionId,
    });
    const byHeader = await created.handlers["session.open"]({ sessionId: headerId });
    expect(byHeader.path).toBe(samplePath);
    expect(byHeader.sessionId).toBe(linked);
    await expect(created.handlers["session.open"]({ sessionId: "not-a-session" })).rejects.toMatchObject({
      code: "not-found",
    });
  });
});

describe("opens that wait for the scan", () => {
  it("a later open wins: an earlier one still looking for its session is stale", async () => {
    writeSampleSession(samplePath);
    const otherPath = join(root, encodedCwd("/work/project"), "2026-01-02T12-00-00-000Z_other.jsonl");
    writeLinearSession(otherPath, { turns: 1, prefix: "ot" });
    const created = host();
    const registry = new HandleRegistry();
    const first = created.handlers["session.open"]({ sessionId: registry.sessionId(samplePath) });
    const second = created.handlers["session.open"]({ sessionId: registry.sessionId(otherPath) });
    await expect(first).rejects.toMatchObject({ code: "stale" });
    expect((await second).path).toBe(otherPath);
    expect((await created.handlers["session.current"]({}))?.path).toBe(otherPath);
  });
});

describe("switches and deltas", () => {
  const line = (fields: Record<string, unknown>) => `${JSON.stringify(fields)}\n`;
  const message = (id: string, parentId: string | null, text: string, at: string) =>
    line({
      type: "message",
      id,
      parentId,
      timestamp: at,
      message: { role: "user", content: text, timestamp: 1 },
    });

  it("an open through a request builds its view once: the event carries none, the answer does", async () => {
    writeSampleSession(samplePath);
    const created = host();
    const [item] = items(await created.handlers["library.rescan"]({}));
    const seen = collect(created);
    const view = await created.handlers["session.open"]({ sessionId: item!.sessionId });
    expect(seen).toEqual([
      { name: "session.switched", payload: { sessionId: item!.sessionId, path: samplePath, reason: "open" } },
    ]);
    expect(view.nodes.ids).toContain(SAMPLE_IDS.l1);
    // Asking again builds nothing new: the same node views, nothing sent.
    const again = await created.handlers["session.current"]({});
    expect(plainView(again)).toEqual(plainView(view));
    expect(again!.nodes.toArray().every((node, i) => node === view.nodes.node(i))).toBe(true);
    expect(seen).toHaveLength(1);
  });

  it("a switch the main process makes itself (menu, command line) names the session; session.current has the view", async () => {
    writeSampleSession(samplePath);
    const otherPath = join(root, encodedCwd("/work/project"), "other.jsonl");
    writeSampleSession(otherPath, { headerId: "019b7a4e-0000-7000-8000-00000000aaaa" });
    const created = host();
    const listing = items(await created.handlers["library.rescan"]({}));
    await created.handlers["session.open"]({
      sessionId: listing.find((i) => i.path === samplePath)!.sessionId,
    });
    const switched = waitForEvent(created, "session.switched");
    const seen = collect(created);
    await created.runtime.switchSession(otherPath);
    const event = await switched;
    const other = listing.find((i) => i.path === otherPath)!;
    expect(event).toEqual({ sessionId: other.sessionId, path: otherPath, reason: "open" });
    // Pi writes before any window asked for the view: nothing is sent, the view asked for then has it.
    appendFileSync(otherPath, message("ee000001", SAMPLE_IDS.l1, "early", "2026-01-02T00:00:00.000Z"));
    created.runtime.session!.refresh();
    expect(seen.map((entry) => entry.name)).toEqual(["session.switched"]);
    const view = (await created.handlers["session.current"]({}))!;
    expect(view.sessionId).toBe(other.sessionId);
    expect(view.leafId).toBe("ee000001");
    // From then on, each append is a delta from that view.
    const appended = waitForEvent(created, "session.appended");
    appendFileSync(otherPath, message("ee000002", "ee000001", "later", "2026-01-02T00:00:01.000Z"));
    created.runtime.session!.refresh();
    const { delta } = await appended;
    expect(delta.baseBytes).toBe(view.bytes);
    expect(plainView(applySessionDelta(view, delta))).toEqual(
      plainView(await created.handlers["session.current"]({})),
    );
  });

  it("deltas applied one after another equal session.current: branches, labels, roots, a rebuilt index", async () => {
    writeSampleSession(samplePath);
    const created = host();
    const [item] = items(await created.handlers["library.rescan"]({}));
    const view = followedView(
      created,
      await created.handlers["session.open"]({ sessionId: item!.sessionId }),
    );
    const at = (second: number) => `2026-01-03T00:00:${String(second).padStart(2, "0")}.000Z`;
    const writes = [
      message("ee000001", SAMPLE_IDS.a1, "a third branch", at(1)),
      line({
        type: "label",
        id: "ee000002",
        parentId: "ee000001",
        timestamp: at(2),
        targetId: SAMPLE_IDS.u2,
        label: "renamed",
      }),
      message("ee000003", SAMPLE_IDS.u1, "an older sibling", "2025-01-01T00:00:00.000Z"),
      message("ee000004", null, "a new root", at(4)),
      message("ee000005", "nowhere", "an orphan", at(5)),
      message(SAMPLE_IDS.u4, SAMPLE_IDS.u2, "a duplicate id moves the entry", at(6)),
      line({ type: "session_info", id: "ee000006", parentId: "ee000005", timestamp: at(7), name: "Named" }),
    ];
    for (const text of writes) {
      appendFileSync(samplePath, text);
      created.runtime.session!.refresh();
      const current = (await created.handlers["session.current"]({}))!;
      expect(plainView(view.current)).toEqual(plainView(current));
      expect(view.current.bytes).toBe(readFileSync(samplePath).length);
    }
    expect(view.current.name).toBe("Named");
    expect(view.current.nodes.toArray().find((node) => node.id === SAMPLE_IDS.u2)!.label).toBe("renamed");
    expect(view.current.nodes.toArray().find((node) => node.id === SAMPLE_IDS.u4)!.parentId).toBe(
      SAMPLE_IDS.u2,
    );
    expect(view.current.roots).toEqual([SAMPLE_IDS.u1, "ee000004", "ee000005"]);
  });
});

describe("sessions opened from a saved view", () => {
  /** A host whose sessions open structure first with a parse cache for any size; the cache counts saved parses loaded. */
  function savedViewHost(setTitle?: (title: string) => void): {
    created: ArborHost;
    cache: ParseCache & { loads: number };
  } {
    const cache = countingLoads(createParseCache(join(folder.path, "open-cache"), { minBytes: 0 }));
    const created = createArborHost({
      transport: "serve",
      version: "0.1.0",
      dataDir: join(folder.path, "data"),
      roots: [root],
      demo: false,
      openSession: storeSessionFactory({ mode: "structure-with-facts", parseCache: cache }),
      setTitle,
    });
    hosts.push(created);
    return { created, cache };
  }

  /** What a first open saved for the next one. */
  function saveView(path: string, cache: ParseCache): void {
    const opened = openSessionFile(path, { mode: "structure-with-facts", parseCache: cache });
    opened.saveForNextOpen?.();
    opened.close();
  }

  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

  it("answers the open, the leaf's context and entry as an index would, then builds the index", async () => {
    writeSampleSession(samplePath);
    // With a window title to keep (Electron's): it is read from the saved view too.
    const titles: string[] = [];
    const { created, cache } = savedViewHost((title) => titles.push(title));
    saveView(samplePath, cache);
    cache.loads = 0;
    const [item] = items(await created.handlers["library.rescan"]({}));
    const index = readSession(readFileSync(samplePath, "utf8"));
    const fresh = sessionViewOf(item!.sessionId, index, { path: samplePath });
    const view = await created.handlers["session.open"]({ sessionId: item!.sessionId });
    // While the window reads the view, nothing builds the index.
    await nextTurn();
    await nextTurn();
    expect(cache.loads).toBe(0);
    expect(titles).toEqual([`${firstUserText(index)} — project — Arbor`]);
    // Through the WebSocket's form, as a window gets it.
    const sent = JSON.parse(stringifyWire(encodeResult("session.open", view, "spliced")));
    expect(plainView(decodeResult("session.open", sent))).toEqual(plainView({ ...fresh, live: view.live }));
    const leafId = view.leafId!;
    const json = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
    expect(await created.handlers["session.context"]({ leafId })).toEqual(
      json(contextView(index, leafId, false)),
    );
    expect(await created.handlers["session.entry"]({ entryId: leafId })).toEqual(
      json(entryDetail(index, leafId)),
    );
    expect(cache.loads).toBe(0);
    // The index is built once those are answered.
    await nextTurn();
    expect(cache.loads).toBe(1);
    expect(await created.handlers["session.context"]({ leafId: SAMPLE_IDS.u2, llm: true })).toEqual(
      contextView(index, SAMPLE_IDS.u2, true),
    );
    expect(plainView(await created.handlers["session.current"]({}))).toEqual(plainView(view));
  });

  it("deltas from the saved view equal session.current after each append, a rebuilt index too", async () => {
    writeSampleSession(samplePath);
    const { created, cache } = savedViewHost();
    saveView(samplePath, cache);
    const [item] = items(await created.handlers["library.rescan"]({}));
    const view = followedView(
      created,
      await created.handlers["session.open"]({ sessionId: item!.sessionId }),
    );
    expect(created.runtime.session!.savedView).toBeDefined();
    const at = (second: number) => `2026-01-03T00:00:${String(second).padStart(2, "0")}.000Z`;
    const line = (fields: Record<string, unknown>) => `${JSON.stringify(fields)}\n`;
    const writes = [
      // The first append rebuilds the index (a duplicate id): every node is compared with the saved view.
      line({
        type: "message",
        id: SAMPLE_IDS.u4,
        parentId: SAMPLE_IDS.u2,
        timestamp: at(1),
        message: { role: "user", content: "moved", timestamp: 1 },
      }),
      line({
        type: "label",
        id: "ee000002",
        parentId: SAMPLE_IDS.u4,
        timestamp: at(2),
        targetId: SAMPLE_IDS.u2,
        label: "renamed",
      }),
    ];
    for (const text of writes) {
      appendFileSync(samplePath, text);
      created.runtime.session!.refresh();
      expect(plainView(view.current)).toEqual(plainView(await created.handlers["session.current"]({})));
    }
    expect(created.runtime.session!.savedView).toBeUndefined();
    expect(view.current.nodes.toArray().find((node) => node.id === SAMPLE_IDS.u2)!.label).toBe("renamed");

    // Opened again (another window) from a view saved now, its index built once the leaf's context was
    // answered (and adopted by the views known from the saved view): an append in place gives a delta too.
    await created.runtime.close();
    saveView(samplePath, cache);
    const again = savedViewHost().created;
    const [same] = items(await again.handlers["library.rescan"]({}));
    const reopened = followedView(
      again,
      await again.handlers["session.open"]({ sessionId: same!.sessionId }),
    );
    expect(again.runtime.session!.savedView).toBeDefined();
    await again.handlers["session.context"]({ leafId: reopened.current.leafId });
    await nextTurn();
    expect(again.runtime.session!.savedView).toBeDefined();
    appendFileSync(
      samplePath,
      line({
        type: "message",
        id: "ee000003",
        parentId: "ee000002",
        timestamp: at(3),
        message: { role: "user", content: "more", timestamp: 1 },
      }),
    );
    again.runtime.session!.refresh();
    expect(plainView(reopened.current)).toEqual(plainView(await again.handlers["session.current"]({})));
    expect(reopened.current.leafId).toBe("ee000003");
  });
});

describe("errors", () => {
  it("session requests without an open session are refused", async () => {
    const created = host();
    for (const call of [
      () => created.handlers["session.context"]({ leafId: null }),
      () => created.handlers["session.entry"]({ entryId: "x" }),
      () => created.handlers["session.rename"]({ name: "x" }),
      () => created.handlers["session.clone"]({}),
      () => created.handlers["session.fork"]({ entryId: "x", position: "at" }),
    ]) {
      await expect(call()).rejects.toMatchObject({ code: "refused" });
    }
  });

  it("a file gone since it was listed is not-found, and the open session stays", async () => {
    writeSampleSession(samplePath);
    const otherPath = join(root, encodedCwd("/work/project"), "other.jsonl");
    writeSampleSession(otherPath, { headerId: "019b7a4e-0000-7000-8000-00000000aaaa" });
    const created = host();
    const listing = items(await created.handlers["library.rescan"]({}));
    const sample = listing.find((item) => item.path === samplePath)!;
    const other = listing.find((item) => item.path === otherPath)!;
    await created.handlers["session.open"]({ sessionId: sample.sessionId });
    rmSync(otherPath);
    const error = await created.handlers["session.open"]({ sessionId: other.sessionId }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ArborError);
    expect(error).toMatchObject({ code: "not-found" });
    expect((await created.handlers["session.current"]({}))!.path).toBe(samplePath);
  });

  it("a cancelled replacement is refused and names the extension", async () => {
    writeSampleSession(samplePath);
    const created = host();
    const [item] = items(await created.handlers["library.rescan"]({}));
    await created.handlers["session.open"]({ sessionId: item!.sessionId });
    created.runtime.addExtension({
      id: "test.guard",
      activate(context) {
        context.on("session_before_fork", () => ({ cancel: true }));
      },
    });
    const error = await created.handlers["session.clone"]({}).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "refused" });
    expect((error as Error).message).toContain("test.guard");
  });

  it("anything unexpected leaves as a generic internal ArborError, reported to the host", async () => {
    const reported: unknown[] = [];
    const failing = {
      roots: () => [],
      setExtraFolders() {},
      scan: async () => {
        throw new Error("/private/path exploded");
      },
      list: () => ({ projects: [], sessions: [], failed: [] }),
      session: () => undefined,
      search: async () => {
        throw new TypeError("cannot read properties of undefined");
      },
      dispose: async () => {},
    } as unknown as SessionLibrary;
    const runtime = new SessionRuntime();
    const handlers = createArborHandlers({
      runtime,
      library: failing,
      events: createEventHub(),
      transport: "electron",
      version: "0.1.0",
      onInternalError: (error) => reported.push(error),
    });
    const search = await handlers["library.search"]({ query: "x" }).catch((e: unknown) => e);
    expect(search).toBeInstanceOf(ArborError);
    expect(search).toMatchObject({ code: "internal" });
    expect((search as Error).message).not.toContain("undefined");
    const scan = await handlers["library.rescan"]({}).catch((e: unknown) => e);
    expect(scan).toMatchObject({ code: "internal" });
    expect((scan as Error).message).not.toContain("/private/path");
    expect(reported).toHaveLength(2);
    handlers.dispose();
    await runtime.close();
  });
});

describe("collecting every event", () => {
  it("a fork sends session.switched, then library.changed once the new file is listed", async () => {
    writeSampleSession(samplePath);
    const created = host();
    const [item] = items(await created.handlers["library.rescan"]({}));
    await created.handlers["session.open"]({ sessionId: item!.sessionId });
    const seen = collect(created);
    const changed = waitForEvent(created, "library.changed");
    const fork = await created.handlers["session.fork"]({ entryId: SAMPLE_IDS.a2, position: "at" });
    const listing = await changed;
    expect(seen[0]).toMatchObject({ name: "session.switched", payload: { reason: "fork" } });
    expect(items(listing).find((entry) => entry.path === fork.path)).toMatchObject({
      open: true,
      parentSessionId: item!.sessionId,
    });
    expect(items(listing).find((entry) => entry.path === samplePath)!.open).toBe(false);
  });

  it("a fork made while a scan runs is listed by the scan after it", async () => {
    writeSampleSession(samplePath);
    const real = createSessionLibrary({ roots: [root], cacheDir: null });
    // A scan that has listed the folder, before the fork, and is still running when the fork is written.
    let hold: Promise<void> | null = null;
    let scanned = () => {};
    const library = Object.create(real, {
      scan: {
        value: async (options: unknown) => {
          const report = await real.scan(options as never);
          scanned();
          if (hold) await hold;
          return report;
        },
      },
    }) as SessionLibrary;
    const runtime = new SessionRuntime();
    const handlers = createArborHandlers({
      runtime,
      library,
      events: createEventHub(),
      transport: "serve",
      version: "0.1.0",
    });
    const [item] = items(await handlers["library.rescan"]({}));
    await handlers["session.open"]({ sessionId: item!.sessionId });
    let release = () => {};
    hold = new Promise((resolve) => {
      release = resolve;
    });
    const listedBefore = new Promise<void>((resolve) => {
      scanned = resolve;
    });
    const running = handlers["library.rescan"]({});
    await listedBefore;
    hold = null;
    const fork = await handlers["session.fork"]({ entryId: SAMPLE_IDS.a2, position: "at" });
    release();
    await running;
    await handlers.idle();
    expect(items(await handlers["library.list"]({})).map((entry) => entry.path)).toContain(fork.path);
    handlers.dispose();
    await runtime.close();
    await real.dispose();
  });
});
