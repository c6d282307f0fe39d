/**
 * The open session's view: deltas for appends (`session.appended`) that
 * keep a window's view equal to the whole view, reloads
 * (`session.reloaded`), the `live` flag, and sessions opened from a saved
 * view (answered without an index, which is built once the answers left).
 */

import { appendFileSync, readFileSync, rmSync, truncateSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { BranchModel } from "../../shared/branches/index.ts";
import type { SessionView } from "../../shared/ipc/contract.ts";
import { applySessionDelta } from "../../shared/ipc/session-delta.ts";
import { plainView, sessionViewOf } from "../../shared/ipc/testing/session-view.ts";
import { contextView, entryDetail, firstUserText } from "../../shared/ipc/views.ts";
import { decodeResult, encodeResult } from "../../shared/ipc/wire.ts";
import { stringifyWire } from "../../shared/ipc/wire-json.ts";
import { inMemoryEntryReader, readSession } from "../../shared/session/index.ts";
import type { ArborHost } from "../ipc/host.ts";
import { collect, followedView, items, hostsInTempFolder, waitForEvent } from "../ipc/testing.ts";
import {
  type Disposable,
  type DisposableTracker,
  setDisposableTracker,
} from "../../shared/lifecycle/disposable.ts";
import { fileSessionFactory } from "../runtime/file-session.ts";
import { encodedCwd, SAMPLE_IDS, writeLinearSession, writeSampleSession } from "../runtime/testing.ts";
import { openIndexedFile } from "../store/open-indexed-file.ts";
import { createParseCache, type ParseCache } from "../store/parse-cache.ts";
import { countingLoads } from "../store/testing/counting-cache.ts";
import { ensureNoLeaks } from "../../shared/lifecycle/testing.ts";

ensureNoLeaks();

const fixture = hostsInTempFolder("arbor-session-view-");

/** How long sessions opened from a saved view wait to build their index, here. */
const INDEX_BUILD_TEST_DELAY_MS = 30;

/** The whole view of the open session, as `session.current` answers. */
function current(created: ArborHost): SessionView | null {
  return created.windowServices.sessions.current()?.view() ?? null;
}

/** A host with the sample session open; its row as listed. */
async function openSample(created: ArborHost) {
  const [item] = items(await created.windowServices.library.rescan());
  const view = await created.windowServices.actions.open(item!.sessionId);
  return { item: item!, view };
}

const line = (fields: Record<string, unknown>) => `${JSON.stringify(fields)}\n`;
const message = (id: string, parentId: string | null, text: string, at: string) =>
  line({
    type: "message",
    id,
    parentId,
    timestamp: at,
    message: { role: "user", content: text, timestamp: 1 },
  });

describe("changes made by other writers", () => {
  it("sends session.appended for lines Pi appends, and session.reloaded for truncation and deletion", async () => {
    const { samplePath } = fixture;
    writeSampleSession(samplePath);
    const created = fixture.host();
    const { item } = await openSample(created);

    const appended = waitForEvent(created, "session.appended");
    appendFileSync(samplePath, message("ee000001", SAMPLE_IDS.l1, "from Pi", "2026-01-02T00:00:00.000Z"));
    const event = await appended;
    expect(event.sessionId).toBe(item.sessionId);
    expect(event.delta.added).toMatchObject([{ id: "ee000001", kind: "user", preview: "from Pi" }]);
    expect(event.delta.live).toBe(true);

    // A damaged line on its own is news too: its problem is sent at once, not with the next entry.
    const damaged = waitForEvent(created, "session.appended");
    const view = current(created);
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
    expect(afterTruncation).toMatchObject({ sessionId: item.sessionId, reason: "truncated" });
    expect(afterTruncation.view!.nodes.count).toBe(0);

    const deleted = waitForEvent(created, "session.reloaded");
    rmSync(samplePath);
    expect(await deleted).toEqual({ sessionId: item.sessionId, reason: "deleted", view: null });
  });

  it("marks a session live only while another writer changed its file in the last few seconds", async () => {
    const { samplePath } = fixture;
    writeSampleSession(samplePath);
    const old = new Date(Date.now() - 60_000);
    utimesSync(samplePath, old, old);
    const created = fixture.host();
    const { actions, writes } = created.windowServices;
    const { view } = await openSample(created);
    expect(view.live).toBe(false);
    const label = await writes.write({ kind: "label", targetId: SAMPLE_IDS.u1, label: "x" }, undefined);
    expect(label.wasLive).toBe(false);
    // Arbor's own label a moment ago does not make the file look like a Pi is writing it...
    expect(current(created)!.live).toBe(false);
    const rename = await writes.write({ kind: "name", name: "y" }, undefined);
    expect(rename.wasLive).toBe(false);
    expect(current(created)!.live).toBe(false);
    // ...another writer's line does.
    appendFileSync(
      samplePath,
      line({
        type: "custom",
        customType: "pi",
        id: "cc0000ff",
        parentId: rename.entryId,
        timestamp: new Date().toISOString(),
      }),
    );
    // A live file is written only once the user confirms.
    const z = { kind: "label", targetId: SAMPLE_IDS.u1, label: "z" } as const;
    await expect(writes.write(z, undefined)).rejects.toMatchObject({ code: "conflict" });
    expect((await writes.write(z, true)).wasLive).toBe(true);
    // The other writer's line is still the last foreign change: live, though Arbor wrote after it.
    expect(current(created)!.live).toBe(true);
    // A file Arbor writes whole (a clone, a fork) is its own: not live, though it is seconds old.
    const clone = await actions.clone();
    expect(clone.path).not.toBe(samplePath);
    expect(clone.live).toBe(false);
    const fork = await actions.fork(SAMPLE_IDS.u1, "at");
    expect(fork.live).toBe(false);
    expect(current(created)!.live).toBe(false);
  });
});

describe("switches and deltas", () => {
  it("an open through a request builds its view once: the event carries none, the answer does", async () => {
    writeSampleSession(fixture.samplePath);
    const created = fixture.host();
    const [item] = items(await created.windowServices.library.rescan());
    const seen = collect(created);
    const view = await created.windowServices.actions.open(item!.sessionId);
    expect(seen).toEqual([
      {
        name: "session.switched",
        payload: { sessionId: item!.sessionId, path: fixture.samplePath, reason: "open" },
      },
    ]);
    expect(view.nodes.ids).toContain(SAMPLE_IDS.l1);
    // Asking again builds nothing new: the same node views, nothing sent.
    const again = current(created);
    expect(plainView(again)).toEqual(plainView(view));
    expect(again!.nodes.toArray().every((node, i) => node === view.nodes.node(i))).toBe(true);
    expect(seen).toHaveLength(1);
  });

  it("a switch the main process makes itself (menu, command line) names the session; the view asked for then has it", async () => {
    const { samplePath, root } = fixture;
    writeSampleSession(samplePath);
    const otherPath = join(root, encodedCwd("/work/project"), "other.jsonl");
    writeSampleSession(otherPath, { headerId: "019b7a4e-0000-7000-8000-00000000aaaa" });
    const created = fixture.host();
    const listing = items(await created.windowServices.library.rescan());
    await created.windowServices.actions.open(listing.find((i) => i.path === samplePath)!.sessionId);
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
    const view = current(created)!;
    expect(view.sessionId).toBe(other.sessionId);
    expect(view.leafId).toBe("ee000001");
    // From then on, each append is a delta from that view.
    const appended = waitForEvent(created, "session.appended");
    appendFileSync(otherPath, message("ee000002", "ee000001", "later", "2026-01-02T00:00:01.000Z"));
    created.runtime.session!.refresh();
    const { delta } = await appended;
    expect(delta.baseBytes).toBe(view.bytes);
    expect(plainView(applySessionDelta(view, delta))).toEqual(plainView(current(created)));
  });

  it("deltas applied one after another equal the whole view: branches, labels, roots, a rebuilt index", async () => {
    const { samplePath } = fixture;
    writeSampleSession(samplePath);
    const created = fixture.host();
    const view = followedView(created, (await openSample(created)).view);
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
      expect(plainView(view.current)).toEqual(plainView(current(created)));
      expect(view.current.bytes).toBe(readFileSync(samplePath).length);
    }
    expect(view.current.name).toBe("Named");
    expect(view.current.nodes.toArray().find((node) => node.id === SAMPLE_IDS.u2)!.label).toBe("renamed");
    expect(view.current.nodes.toArray().find((node) => node.id === SAMPLE_IDS.u4)!.parentId).toBe(
      SAMPLE_IDS.u2,
    );
    expect(view.current.roots).toEqual([SAMPLE_IDS.u1, "ee000004", "ee000005"]);
  });

  it("one view per open session: made with the session, disposed with it", async () => {
    const { samplePath, root } = fixture;
    writeSampleSession(samplePath);
    const otherPath = join(root, encodedCwd("/work/project"), "other.jsonl");
    writeLinearSession(otherPath, { turns: 1, prefix: "ot" });
    const disposed = new Set<Disposable>();
    // Hears disposals, and passes everything on to the leak check's tracker.
    const previous: DisposableTracker | null = setDisposableTracker({
      created: (disposable) => previous?.created(disposable),
      adopted: (child, owner) => previous?.adopted(child, owner),
      disposed: (disposable) => {
        disposed.add(disposable);
        previous?.disposed(disposable);
      },
    });
    try {
      const created = fixture.host();
      const { sessions } = created.windowServices;
      expect(sessions.current()).toBeUndefined();
      await openSample(created);
      const first = sessions.current()!;
      expect(first.session).toBe(created.runtime.session);
      expect(sessions.current()).toBe(first);
      await created.runtime.switchSession(otherPath);
      expect(disposed.has(first)).toBe(true);
      const second = sessions.current()!;
      expect(second).not.toBe(first);
      expect(second.session.path).toBe(otherPath);
      expect(disposed.has(second)).toBe(false);
      await created.runtime.close();
      expect(disposed.has(second)).toBe(true);
      expect(sessions.current()).toBeUndefined();
    } finally {
      setDisposableTracker(previous);
    }
  });
});

describe("sessions opened from a saved view", () => {
  /** A host whose sessions open structure first with a parse cache for any size; the cache counts saved parses loaded. */
  function savedViewHost(setTitle?: (title: string) => void): {
    created: ArborHost;
    cache: ParseCache & { loads: number };
  } {
    const cache = countingLoads(createParseCache(join(fixture.folder, "open-cache"), { minBytes: 0 }));
    const created = fixture.host({
      demo: false,
      openSession: fileSessionFactory({ mode: "structure-with-facts", parseCache: cache }),
      setTitle,
      indexBuildDelayMs: INDEX_BUILD_TEST_DELAY_MS,
    });
    return { created, cache };
  }

  /** What a first open saved for the next one. */
  function saveView(path: string, cache: ParseCache): void {
    const opened = openIndexedFile(path, { mode: "structure-with-facts", parseCache: cache });
    opened.saveForNextOpen?.();
    opened.close();
  }

  /** The sample session written, its view saved, then opened from it (no saved parse loaded yet). */
  async function openSampleFromSavedView() {
    writeSampleSession(fixture.samplePath);
    const { created, cache } = savedViewHost();
    saveView(fixture.samplePath, cache);
    cache.loads = 0;
    const { view } = await openSample(created);
    return { created, cache, view };
  }

  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
  /** Past the delay before the index is built. */
  const afterIndexDelay = () => new Promise((resolve) => setTimeout(resolve, INDEX_BUILD_TEST_DELAY_MS + 20));

  it("answers the open, the leaf's context and entry as an index would, then builds the index", async () => {
    const { samplePath } = fixture;
    writeSampleSession(samplePath);
    // With a window title to keep (Electron's): it is read from the saved view too.
    const titles: string[] = [];
    const { created, cache } = savedViewHost((title) => titles.push(title));
    saveView(samplePath, cache);
    cache.loads = 0;
    const [item] = items(await created.windowServices.library.rescan());
    const index = readSession(readFileSync(samplePath, "utf8"));
    const reader = inMemoryEntryReader(index);
    const fresh = sessionViewOf(item!.sessionId, index, { path: samplePath });
    const json = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
    const view = await created.windowServices.actions.open(item!.sessionId);
    // While the window reads the view, nothing builds the index.
    await nextTurn();
    await nextTurn();
    expect(cache.loads).toBe(0);
    expect(titles).toEqual([`${firstUserText(index, reader)} — project — Arbor`]);
    // Through the WebSocket's form, as a window gets it.
    const sent = JSON.parse(stringifyWire(encodeResult("session.open", view, "spliced")));
    // With the branch map saved with the view: the window draws it without asking.
    const freshMap = json(BranchModel.build(index, reader).branchMap());
    expect(plainView(decodeResult("session.open", sent))).toEqual(
      plainView({ ...fresh, live: view.live, branchMap: freshMap }),
    );
    const leafId = view.leafId!;
    const open = created.windowServices.sessions.requireCurrent();
    expect(open.context(leafId, false)).toEqual(json(contextView(index, reader, leafId, false)));
    expect(open.entry(leafId)).toEqual(json(entryDetail(index, reader, leafId)));
    expect(cache.loads).toBe(0);
    // The index is built a while after those are answered: the window draws them first.
    await nextTurn();
    expect(cache.loads).toBe(0);
    await afterIndexDelay();
    expect(cache.loads).toBe(1);
    expect(open.context(SAMPLE_IDS.u2, true)).toEqual(contextView(index, reader, SAMPLE_IDS.u2, true));
    expect(plainView(current(created))).toEqual(plainView(view));
  });

  it("builds the index once its first answers are quiet: each answer from the saved view puts it off", async () => {
    const { created, cache, view } = await openSampleFromSavedView();
    const open = created.windowServices.sessions.requireCurrent();
    // Only the build's timer is faked; the answers still leave on the next turn, as they do.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      open.context(view.leafId!, false);
      await nextTurn();
      vi.advanceTimersByTime(INDEX_BUILD_TEST_DELAY_MS - 1);
      open.entry(view.leafId!);
      await nextTurn();
      vi.advanceTimersByTime(INDEX_BUILD_TEST_DELAY_MS - 1);
      expect(cache.loads).toBe(0);
      vi.advanceTimersByTime(1);
      expect(cache.loads).toBe(1);
      // Built once: answers read from the saved view later (it still describes the index) build nothing more.
      open.context(view.leafId!, true);
      await nextTurn();
      vi.advanceTimersByTime(INDEX_BUILD_TEST_DELAY_MS * 2);
      expect(cache.loads).toBe(1);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it("answers the branch map from the saved view without an index; once the file grew, from the index", async () => {
    const { samplePath } = fixture;
    const { created, cache } = await openSampleFromSavedView();
    const json = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
    const mapOf = () => {
      const index = readSession(readFileSync(samplePath, "utf8"));
      return json(BranchModel.build(index, inMemoryEntryReader(index)).branchMap());
    };
    const branches = created.windowServices.branches;
    expect(json(branches.map())).toEqual(mapOf());
    expect(cache.loads).toBe(0);
    appendFileSync(
      samplePath,
      message("ee000009", SAMPLE_IDS.u2, "a new branch", "2026-01-03T00:00:09.000Z"),
    );
    created.runtime.session!.refresh();
    expect(created.runtime.session!.savedView).toBeUndefined();
    expect(json(branches.map())).toEqual(mapOf());
    expect(json(branches.map()).leaves.map((leaf) => leaf.leafId)).toContain("ee000009");
  });

  it("deltas from the saved view equal the whole view after each append, a rebuilt index too", async () => {
    const { samplePath } = fixture;
    writeSampleSession(samplePath);
    const { created, cache } = savedViewHost();
    saveView(samplePath, cache);
    const view = followedView(created, (await openSample(created)).view);
    expect(created.runtime.session!.savedView).toBeDefined();
    const at = (second: number) => `2026-01-03T00:00:${String(second).padStart(2, "0")}.000Z`;
    const writes = [
      // The first append rebuilds the index (a duplicate id): every node is compared with the saved view.
      message(SAMPLE_IDS.u4, SAMPLE_IDS.u2, "moved", at(1)),
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
      expect(plainView(view.current)).toEqual(plainView(current(created)));
    }
    expect(created.runtime.session!.savedView).toBeUndefined();
    expect(view.current.nodes.toArray().find((node) => node.id === SAMPLE_IDS.u2)!.label).toBe("renamed");

    // Opened again (another window) from a view saved now, its index built once the leaf's context was
    // answered (and adopted by the views known from the saved view): an append in place gives a delta too.
    await created.runtime.close();
    saveView(samplePath, cache);
    const again = savedViewHost().created;
    const reopened = followedView(again, (await openSample(again)).view);
    expect(again.runtime.session!.savedView).toBeDefined();
    again.windowServices.sessions.requireCurrent().context(reopened.current.leafId, false);
    await afterIndexDelay();
    expect(again.runtime.session!.savedView).toBeDefined();
    appendFileSync(samplePath, message("ee000003", "ee000002", "more", at(3)));
    again.runtime.session!.refresh();
    expect(plainView(reopened.current)).toEqual(plainView(current(again)));
    expect(reopened.current.leafId).toBe("ee000003");
  });
});
