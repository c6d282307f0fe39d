/** The vanilla stores and the controller, without React (Node environment). */

import { afterEach, describe, expect, it, vi } from "vitest";
import { ArborError, EVENT_NAMES } from "../../../shared/ipc/contract.ts";
import { createFakeClient } from "../testing/fake-client.ts";
import { plainView } from "../../../shared/ipc/testing/session-view.ts";
import { sessionViewOf } from "../testing/session-view.ts";
import { diffSessionViews } from "../../../shared/ipc/session-delta.ts";
import { readSession } from "../../../shared/session/index.ts";
import { assistant, conversation, sessionText, user } from "../testing/sessions.ts";
import { createController, RECENT_HIGHLIGHT_MS } from "./controller.ts";
import { createStores, initialSessionState } from "./stores.ts";

const location = { search: "", href: "http://arbor.test/" };

function setup(sessionIds = ["one", "two"]) {
  const client = createFakeClient(
    sessionIds.map((sessionId, i) => ({ sessionId, text: sessionText(conversation(3 + i)) })),
  );
  const stores = createStores();
  const controller = createController(client, stores, { location });
  return { client, stores, controller };
}

/** Session "one" open, with frames that run when the test says (`frames.shift()!()`). */
async function openWithFrames(options: { appendPauseMs?: number } = {}) {
  const client = createFakeClient([{ sessionId: "one", text: sessionText(conversation(3)) }]);
  const stores = createStores();
  const frames: (() => void)[] = [];
  const controller = createController(client, stores, {
    location,
    afterNextFrame: (run) => frames.push(run),
    ...options,
  });
  await controller.start();
  await controller.openSession("one");
  return { client, stores, frames, controller };
}

/** Lets pending promise callbacks run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

afterEach(() => {
  vi.useRealTimers();
});

describe("the stores", () => {
  it("are fresh for every createStores(): nothing is shared between two sets", () => {
    const a = createStores();
    const b = createStores();
    a.session.setState({ filterMode: "all", folded: new Set(["x"]) });
    expect(b.session.getState().filterMode).toBe("default");
    expect(b.session.getState().folded.size).toBe(0);
    expect(initialSessionState.folded.size).toBe(0);
  });
});

describe("the controller", () => {
  it("subscribes to every event on start and lets go of all of them on dispose", async () => {
    const { client, controller } = setup();
    await controller.start();
    for (const name of EVENT_NAMES) expect(client.listenerCount(name), name).toBe(1);
    controller.dispose();
    for (const name of EVENT_NAMES) expect(client.listenerCount(name), name).toBe(0);
  });

  it("centres an opened session's leaf at once, and animates later moves", async () => {
    const { stores, controller } = setup();
    await controller.start();
    await controller.openSession("one");
    expect(stores.session.getState().centreRequest).toMatchObject({ entryId: "a2", animate: false });
    controller.centreOn("u1");
    expect(stores.session.getState().centreRequest).toMatchObject({ entryId: "u1", animate: true });
    controller.reveal("u0");
    expect(stores.session.getState().centreRequest).toMatchObject({ entryId: "u0", animate: true });
    await controller.openSession("two", "u1");
    expect(stores.session.getState().centreRequest).toMatchObject({ entryId: "u1", animate: false });
  });

  it("centres a selection whose chain it opens, and the cursor when the filter changes", async () => {
    const { stores, controller } = setup();
    await controller.start();
    await controller.openSession("one");
    const opened = stores.session.getState().centreRequest!;
    expect(controller.model()!.graph.nodeOfEntry.get("u1")).not.toBe("u1");
    controller.select("u1");
    const selected = stores.session.getState().centreRequest!;
    expect(selected).toMatchObject({ entryId: "u1", animate: true });
    expect(selected.serial).toBeGreaterThan(opened.serial);
    expect(controller.model()!.graph.nodeOfEntry.get("u1")).toBe("u1");
    // An entry with a node of its own (clicked, most likely) stays where it is on screen.
    controller.select("a1");
    expect(stores.session.getState().centreRequest).toBe(selected);
    controller.setFilterMode("user-only");
    expect(stores.session.getState().centreRequest).toMatchObject({
      entryId: stores.session.getState().cursorId,
      animate: false,
      keepZoom: true,
    });
    expect(stores.session.getState().centreRequest!.serial).toBeGreaterThan(selected.serial);
    controller.dispose();
  });

  it("fits an opened empty session at once, and animates a fit asked for later", async () => {
    const client = createFakeClient([{ sessionId: "empty", text: sessionText([]) }]);
    const stores = createStores();
    const controller = createController(client, stores, { location });
    await controller.start();
    await controller.openSession("empty");
    expect(stores.session.getState().view?.nodes.count).toBe(0);
    const opened = stores.session.getState().fitRequest;
    expect(opened).toMatchObject({ animate: false });
    controller.fitView();
    const asked = stores.session.getState().fitRequest;
    expect(asked).toMatchObject({ animate: true });
    expect(asked!.serial).toBeGreaterThan(opened!.serial);
    controller.dispose();
  });

  it("applies appends that come faster than frames together, before the next frame, as one change", async () => {
    const { client, stores, frames, controller } = await openWithFrames();
    const shown = stores.session.getState().view!;
    let changes = 0;
    const unsubscribe = stores.session.subscribe((state, previous) => {
      if (state.view !== previous.view) changes++;
    });
    const ids = [
      ...client.append("one", [user("n0", "next")]),
      ...client.append("one", [assistant("n1", "answer")]),
      ...client.append("one", [user("n2", "again")]),
    ];
    // Nothing yet: one frame asked for, the view as it was.
    expect(frames).toHaveLength(1);
    expect(stores.session.getState().view).toBe(shown);
    frames.shift()!();
    expect(changes).toBe(1);
    expect(plainView(stores.session.getState().view)).toEqual(
      plainView(await client.request("session.current", {})),
    );
    // Followed to the last line, every new entry highlighted.
    expect(stores.session.getState().selectedId).toBe(ids[2]);
    expect([...stores.live.getState().recent]).toEqual(ids);
    unsubscribe();
    controller.dispose();
  });

  it("applies a burst's appends at most once an appendPauseMs, those that came in the pause together", async () => {
    const { client, stores, frames, controller } = await openWithFrames({ appendPauseMs: 100 });
    let changes = 0;
    const unsubscribe = stores.session.subscribe((state, previous) => {
      if (state.view !== previous.view) changes++;
    });
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
    try {
      // Long after any append: the next frame applies it.
      const [first] = client.append("one", [user("n0", "next")]);
      expect(frames).toHaveLength(1);
      frames.shift()!();
      expect(changes).toBe(1);
      // Within the pause: no frame is asked for until it ends; what comes meanwhile joins it.
      const [second] = client.append("one", [assistant("n1", "answer")]);
      vi.advanceTimersByTime(60);
      const [third] = client.append("one", [user("n2", "again")]);
      vi.advanceTimersByTime(39);
      expect(frames).toHaveLength(0);
      vi.advanceTimersByTime(1);
      expect(frames).toHaveLength(1);
      frames.shift()!();
      expect(changes).toBe(2);
      expect(plainView(stores.session.getState().view)).toEqual(
        plainView(await client.request("session.current", {})),
      );
      expect(stores.session.getState().selectedId).toBe(third);
      expect([...stores.live.getState().recent]).toEqual([first, second, third]);
      // A pause later, at once again.
      vi.advanceTimersByTime(100);
      client.append("one", [assistant("n3", "done")]);
      expect(frames).toHaveLength(1);
    } finally {
      vi.useRealTimers();
      unsubscribe();
      controller.dispose();
    }
  });

  it("follows a burst of appends by jumping to each new leaf, and animates a move after a pause", async () => {
    const { client, stores, controller } = setup(["one"]);
    await controller.start();
    await controller.openSession("one");
    const centred = () => stores.session.getState().centreRequest!;
    const [first] = client.append("one", [user("n0", "next")]);
    expect(centred()).toMatchObject({ entryId: first, animate: true });
    const [second] = client.append("one", [assistant("n1", "answer")]);
    expect(centred()).toMatchObject({ entryId: second, animate: false });
    await new Promise((resolve) => setTimeout(resolve, 450));
    const [third] = client.append("one", [user("n2", "again")]);
    expect(centred()).toMatchObject({ entryId: third, animate: true });
    controller.dispose();
  });

  it("following a burst, asks for the new leaf's context at once, then once at the end of each pause", async () => {
    const { client, stores, controller } = setup(["one"]);
    await controller.start();
    await controller.openSession("one");
    await settle();
    const asked = client.calls.length;
    const contexts = () =>
      client.calls
        .slice(asked)
        .filter((call) => call.name === "session.context")
        .map((call) => (call.params as { leafId: string }).leafId);
    const [first] = client.append("one", [user("n0", "next")]);
    await settle();
    const [, third] = [
      ...client.append("one", [assistant("n1", "answer")]),
      ...client.append("one", [user("n2", "again")]),
    ];
    await settle();
    expect(contexts()).toEqual([first]);
    await new Promise((resolve) => setTimeout(resolve, 350));
    await settle();
    expect(contexts()).toEqual([first, third]);
    expect(stores.context.getState().view?.leafId).toBe(third);
    // A selection of the user's own is asked for at once.
    controller.select("u0");
    await settle();
    expect(contexts()).toEqual([first, third, "u0"]);
    controller.dispose();
  });

  it("asks for one context at a time: the selections made meanwhile ask only for the newest", async () => {
    const { client, stores, controller } = setup();
    await controller.start();
    await controller.openSession("one");
    await settle();
    const asked = client.calls.length;
    client.held.add("session.context");
    controller.select("u0");
    await settle();
    controller.select("u1");
    await settle();
    controller.select("a0");
    await settle();
    expect(client.calls.slice(asked).filter((call) => call.name === "session.context")).toHaveLength(1);
    expect(stores.context.getState()).toMatchObject({ status: "loading", forId: "a0" });
    client.held.clear();
    client.release();
    await settle();
    await settle();
    const contexts = client.calls.slice(asked).filter((call) => call.name === "session.context");
    expect(contexts.map((call) => (call.params as { leafId: string }).leafId)).toEqual(["u0", "a0"]);
    expect(stores.context.getState().view?.leafId).toBe("a0");
    controller.dispose();
  });

  it("follows the selection with the context and drops an answer that arrives after a newer question", async () => {
    const { client, stores, controller } = setup();
    await controller.start();
    await controller.openSession("one");
    await settle();
    expect(stores.context.getState().view?.leafId).toBe("a2");
    client.held.add("session.context");
    controller.select("u1");
    controller.select("a0");
    client.release();
    client.held.clear();
    await settle();
    await settle();
    const context = stores.context.getState();
    expect(context.forId).toBe("a0");
    expect(context.view?.leafId).toBe("a0");
    expect(context.view?.messages.map((m) => m.entryId)).toEqual(["u0", "a0"]);
    controller.dispose();
  });

  it("keeps the context on view while the next loads: shaded only when the new selection continues its leaf", async () => {
    const copied: string[] = [];
    const client = createFakeClient([
      { sessionId: "one", text: sessionText(conversation(3)) },
      { sessionId: "two", text: sessionText(conversation(4)) },
    ]);
    const stores = createStores();
    const controller = createController(client, stores, {
      location,
      writeClipboard: async (text) => void copied.push(text),
    });
    await controller.start();
    await controller.openSession("one");
    await settle();
    const held = stores.context.getState().view!;
    expect(held.leafId).toBe("a2");
    expect(stores.context.getState().shades.get("u2")).toBeDefined();
    client.held.add("session.context");
    // Back up the path: the context on view stays, its shading (of a longer path) goes.
    controller.select("a1");
    await settle();
    expect(stores.context.getState()).toMatchObject({ status: "loading", forId: "a1", view: held });
    expect(stores.context.getState().shades.get("u2")).toBeUndefined();
    // A copy asked meanwhile waits for the selection's own context.
    const copy = controller.copyContext("json");
    client.release();
    await settle();
    await copy;
    expect(JSON.parse(copied[0]!)).toMatchObject({ leafId: "a1", messages: { length: 4 } });
    const a1 = stores.context.getState().view!;
    client.held.add("session.context");
    // Down again, just below the leaf of the context on view (as when following): view and shading stay.
    controller.select("u2");
    await settle();
    expect(stores.context.getState()).toMatchObject({ status: "loading", forId: "u2", view: a1 });
    expect(stores.context.getState().shades.get("a1")).toBeDefined();
    // The other form, or another session, starts afresh: nothing of the last one is shown meanwhile.
    controller.setContextMode("llm");
    await settle();
    expect(stores.context.getState()).toMatchObject({
      status: "loading",
      forMode: "llm",
      view: null,
      pages: [],
    });
    client.release();
    client.held.clear();
    await settle();
    await settle();
    expect(stores.context.getState()).toMatchObject({ status: "ready", forMode: "llm" });
    client.held.add("session.context");
    await controller.openSession("two");
    await settle();
    expect(stores.context.getState()).toMatchObject({ view: null, pages: [] });
    client.release();
    client.held.clear();
    controller.dispose();
  });

  it("tells the address each session it shows and the entry selected unless it is the leaf, so a reload opens them again", async () => {
    const client = createFakeClient([
      { sessionId: "one", text: sessionText(conversation(3)) },
      { sessionId: "two", text: sessionText(conversation(4)) },
    ]);
    const shown: string[] = [];
    const controller = createController(client, createStores(), {
      location,
      showInAddress: (sessionId, leafId) => shown.push(`${sessionId} ${leafId ?? "(leaf)"}`),
    });
    await controller.start();
    await controller.openSession("one");
    controller.select("u1");
    controller.select("u1");
    // Following the leaf, the selection moves to the new entry: the file's leaf again.
    client.append("one", [{ type: "message", message: { role: "user", content: "more", timestamp: 1 } }]);
    await settle();
    await controller.openSession("two");
    expect(shown).toEqual(["one (leaf)", "one u1", "one (leaf)", "two (leaf)"]);
    controller.dispose();
  });

  it("keeps the long texts shown whole for the session they were shown in", async () => {
    const client = createFakeClient([
      { sessionId: "one", text: sessionText(conversation(3)) },
      { sessionId: "two", text: sessionText(conversation(4)) },
    ]);
    const stores = createStores();
    const controller = createController(client, stores, { location });
    await controller.start();
    await controller.openSession("one");
    controller.showWhole("t0 output", true);
    controller.select("u1");
    await settle();
    expect([...stores.context.getState().shownWhole]).toEqual(["t0 output"]);
    controller.showWhole("t0 output", false);
    controller.showWhole("t1 output", true);
    await controller.openSession("two");
    expect([...stores.context.getState().shownWhole]).toEqual([]);
    controller.dispose();
  });

  it("in follow mode, moves to a new message but stays where it is for a label", async () => {
    const { client, stores, controller } = setup();
    await controller.start();
    await controller.openSession("one");
    expect(stores.session.getState().follow).toBe(true);
    controller.select("u1");
    controller.beginLabel("u1");
    controller.setLabelText("root cause");
    await controller.submitLabel();
    await settle();
    const labelled = stores.session.getState();
    expect(labelled.view?.nodes.toArray().find((node) => node.id === "u1")?.label).toBe("root cause");
    expect(labelled.view?.nodes.toArray().find((node) => node.id === labelled.view?.leafId)?.type).toBe(
      "label",
    );
    expect(labelled.selectedId).toBe("u1");
    expect(labelled.cursorId).toBe("u1");
    const [message] = client.append("one", [
      { type: "message", message: { role: "user", content: "more", timestamp: 1 } },
    ]);
    await settle();
    expect(stores.session.getState().selectedId).toBe(message);
    expect(stores.session.getState().cursorId).toBe(message);
    controller.dispose();
  });

  it("in follow mode, goes to the leaf of a rebuilt or reread file; otherwise the selection stays", async () => {
    const { client, stores, controller } = setup();
    await controller.start();
    await controller.openSession("one");
    const first = stores.session.getState().view!;
    const oldLeaf = first.leafId!;
    const other = first.nodes.toArray().find((node) => node.id !== oldLeaf && node.type === "message")!.id;
    // An entry appended under an id the file has already: the index is rebuilt, the leaf moves, nothing is new.
    client.append("one", [
      { id: other, type: "message", message: { role: "user", content: "again", timestamp: 2 } },
    ]);
    await settle();
    expect(stores.session.getState().view?.leafId).toBe(other);
    expect(stores.session.getState()).toMatchObject({ selectedId: other, cursorId: other });

    // Rewritten in place: the same entries, another last one.
    const view = stores.session.getState().view!;
    client.emit("session.reloaded", {
      sessionId: "one",
      reason: "rewritten",
      view: { ...view, leafId: oldLeaf, bytes: view.bytes + 1 },
    });
    expect(stores.session.getState()).toMatchObject({ selectedId: oldLeaf, cursorId: oldLeaf });

    controller.setFollow(false);
    controller.select(other);
    client.emit("session.reloaded", {
      sessionId: "one",
      reason: "rewritten",
      view: { ...view, leafId: oldLeaf, bytes: view.bytes + 2 },
    });
    expect(stores.session.getState()).toMatchObject({ selectedId: other, cursorId: other });
    controller.dispose();
  });

  it("a session moved to the trash is closed; another session's closing changes nothing", async () => {
    const { client, stores, controller } = setup();
    await controller.start();
    await controller.openSession("one");
    client.emit("session.closed", { sessionId: "two", reason: "trashed" });
    expect(stores.session.getState().view?.sessionId).toBe("one");
    client.emit("session.closed", { sessionId: "one", reason: "trashed" });
    expect(stores.session.getState().view).toBeNull();
    expect(stores.live.getState().reloadNotice).toBe("The session was moved to the trash: it was closed.");
    controller.dispose();
  });

  it("a session its file's deletion closed comes back when the file is written again", async () => {
    const { client, stores, controller } = setup();
    await controller.start();
    await controller.openSession("one");
    const view = stores.session.getState().view!;
    client.emit("session.reloaded", { sessionId: "one", reason: "deleted", view: null });
    expect(stores.session.getState().view).toBeNull();
    expect(stores.live.getState().reloadNotice).toBe("The file was deleted: the session was closed.");
    client.emit("session.reloaded", { sessionId: "one", reason: "recreated", view });
    expect(stores.session.getState().view?.sessionId).toBe("one");
    expect(stores.live.getState().reloadNotice).toBe(
      "The file was deleted and created again: Arbor read it again.",
    );
    // A click on its row while the file is gone fails; the file's return still brings it back.
    client.emit("session.reloaded", { sessionId: "one", reason: "deleted", view: null });
    client.failing.set("session.open", new ArborError("not-found", "The session file no longer exists."));
    await controller.openSession("one");
    client.failing.clear();
    client.emit("session.reloaded", { sessionId: "one", reason: "recreated", view });
    expect(stores.session.getState().view?.sessionId).toBe("one");
    // Once another session was opened, a late return of the closed one changes nothing.
    client.emit("session.reloaded", { sessionId: "one", reason: "deleted", view: null });
    await controller.openSession("two");
    client.emit("session.reloaded", { sessionId: "one", reason: "recreated", view });
    expect(stores.session.getState().view?.sessionId).toBe("two");
    controller.dispose();
  });

  it("ignores a slow session.open answer once another session was opened", async () => {
    const { client, stores, controller } = setup();
    await controller.start();
    client.late.add("session.open");
    const first = controller.openSession("one");
    client.late.clear();
    await controller.openSession("two");
    client.release();
    await first;
    expect(stores.session.getState().view?.sessionId).toBe("two");
    expect(client.openId).toBe("two");
    controller.dispose();
  });

  it("follows the main process when a slow open switches it last", async () => {
    const { client, stores, controller } = setup();
    await controller.start();
    client.held.add("session.open");
    const first = controller.openSession("one");
    client.held.clear();
    await controller.openSession("two");
    // The held open of "one" switches the main process only now: the window shows what it holds.
    client.release();
    await first;
    await settle();
    expect(client.openId).toBe("one");
    expect(stores.session.getState().view?.sessionId).toBe("one");
    controller.dispose();
  });

  it("marks appended entries for a few seconds, then unmarks them", async () => {
    vi.useFakeTimers();
    const { client, stores, controller } = setup();
    await controller.start();
    await controller.openSession("one");
    client.append("one", [
      { type: "message", id: "n0", message: { role: "user", content: "hi", timestamp: 1 } },
    ]);
    expect(stores.live.getState().recent.has("n0")).toBe(true);
    expect(
      stores.session
        .getState()
        .view?.nodes.toArray()
        .some((node) => node.id === "n0"),
    ).toBe(true);
    vi.advanceTimersByTime(RECENT_HIGHLIGHT_MS + 1);
    expect(stores.live.getState().recent.has("n0")).toBe(false);
    controller.dispose();
  });

  it("ignores events for a session other than the open one, and follows a switch it did not ask for", async () => {
    const { client, stores, controller } = setup();
    await controller.start();
    await controller.openSession("one");
    const other = sessionViewOf("two", client.index("two"));
    const grown = sessionViewOf("two", readSession(`${sessionText(conversation(4))}`));
    client.emit("session.appended", { sessionId: "two", delta: diffSessionViews(other, grown) });
    expect(stores.session.getState().view?.sessionId).toBe("one");
    // A switch from the menu or the command line: the event names the session, the view is asked for.
    const asked = client.calls.length;
    client.switchTo("two", "fork");
    expect(stores.session.getState().status).toBe("loading");
    await settle();
    expect(client.calls.slice(asked).map((call) => call.name)).toEqual([
      "session.current",
      "session.context",
      "session.entry",
    ]);
    expect(stores.session.getState().status).toBe("ready");
    expect(plainView(stores.session.getState().view)).toEqual(plainView(other));
    expect(stores.session.getState().selectedId).toBe(other.leafId);
    const open = stores.library.getState().listing!.projects.flatMap((project) => project.sessions);
    expect(open.filter((item) => item.open).map((item) => item.sessionId)).toEqual(["two"]);
    controller.dispose();
  });

  it("an open it asked for switches with no view in the event: the answer brings it, with the link's entry", async () => {
    const client = createFakeClient([
      { sessionId: "one", text: sessionText(conversation(3)) },
      { sessionId: "two", text: sessionText(conversation(4)) },
    ]);
    const stores = createStores();
    const switches: unknown[] = [];
    client.on("session.switched", (payload) => switches.push(payload));
    const controller = createController(client, stores, {
      location: { search: "?session=two&leaf=u1", href: "http://arbor.test/?session=two&leaf=u1" },
    });
    await controller.start();
    expect(switches).toEqual([{ sessionId: "two", path: "/sessions/two.jsonl", reason: "open" }]);
    expect(client.calls.map((call) => call.name)).not.toContain("session.current");
    expect(stores.session.getState().selectedId).toBe("u1");
    expect(stores.session.getState().cursorId).toBe("u1");
    await controller.openSession("one");
    expect(client.calls.map((call) => call.name)).not.toContain("session.current");
    expect(plainView(stores.session.getState().view)).toEqual(
      plainView(await client.request("session.current", {})),
    );
    controller.dispose();
  });

  it("applies each append's delta: the view equals a fresh session.current, a new object every time", async () => {
    const { client, stores, controller } = setup(["one"]);
    await controller.start();
    await controller.openSession("one");
    const steps: [string, Record<string, unknown>[]][] = [
      ["a turn at the leaf", [user("n0", "next"), assistant("n1", "reply")]],
      ["a label", [{ type: "label", targetId: "u1", label: "checkpoint" }]],
      ["a relabel", [{ type: "label", targetId: "u1", label: "moved" }]],
      ["a cleared label", [{ type: "label", targetId: "u1" }]],
      ["a branch from an earlier entry", [user("b0", "again", "a0"), assistant("b1", "other")]],
      ["a name", [{ type: "session_info", name: "Renamed" }]],
      ["a new root", [user("r0", "fresh start", null)]],
      ["an orphan", [user("o0", "lost", "missing-parent")]],
      [
        "an older sibling",
        [{ ...user("s0", "early"), parentId: "u0", timestamp: "2020-01-01T00:00:00.000Z" }],
      ],
    ];
    for (const [what, entries] of steps) {
      const before = stores.session.getState().view!;
      client.append("one", entries);
      const after = stores.session.getState().view!;
      expect(after, what).not.toBe(before);
      expect(plainView(after), what).toEqual(plainView(await client.request("session.current", {})));
    }
    const view = stores.session.getState().view!;
    expect(view.name).toBe("Renamed");
    expect(view.nodes.toArray().find((node) => node.id === "u1")!.label).toBeNull();
    expect(view.roots).toEqual(["u0", "r0", "o0"]);
    expect(view.problems.map((problem) => problem.kind)).toContain("orphan");
    controller.dispose();
  });

  it("a delta for a newer view than the one shown fetches the whole view; an older one is ignored", async () => {
    const { client, stores, controller } = setup(["one"]);
    await controller.start();
    await controller.openSession("one");
    const shown = stores.session.getState().view!;
    const index = readSession(`${sessionText(conversation(3))}`);
    const older = sessionViewOf("one", index);
    // The same view with a smaller size: its delta is in the view already.
    client.emit("session.appended", {
      sessionId: "one",
      delta: { ...diffSessionViews(older, shown), baseBytes: shown.bytes - 10, bytes: shown.bytes - 5 },
    });
    expect(stores.session.getState().view).toBe(shown);
    // A delta from a view this window never had: one was missed.
    client.append("one", [user("n0", "next")]);
    const asked = client.calls.length;
    client.emit("session.appended", {
      sessionId: "one",
      delta: { ...diffSessionViews(shown, shown), baseBytes: shown.bytes + 1000, bytes: shown.bytes + 2000 },
    });
    await settle();
    expect(client.calls.slice(asked).map((call) => call.name)).toContain("session.current");
    expect(plainView(stores.session.getState().view)).toEqual(
      plainView(await client.request("session.current", {})),
    );
    controller.dispose();
  });

  it("changing the filter clears the folds and keeps the cursor on its nearest visible ancestor, as Pi does", async () => {
    const { stores, controller } = setup(["one"]);
    await controller.start();
    await controller.openSession("one");
    controller.toggleFold("u0");
    expect(stores.session.getState().folded.has("u0")).toBe(true);
    controller.setCursor("a1");
    controller.setFilterMode("user-only");
    expect(stores.session.getState().folded.size).toBe(0);
    expect(stores.session.getState().cursorId).toBe("u1");
    controller.dispose();
  });

  it("a deep link to an entry that does not exist opens the session at its leaf and says so", async () => {
    const client = createFakeClient([{ sessionId: "one", text: sessionText(conversation(2)) }]);
    const stores = createStores();
    const controller = createController(client, stores, {
      location: { search: "?session=one&leaf=nope", href: "http://arbor.test/?session=one&leaf=nope" },
    });
    await controller.start();
    expect(stores.session.getState().selectedId).toBe("a1");
    expect(stores.live.getState().notice?.text).toContain("nope");
    controller.dispose();
  });
});
