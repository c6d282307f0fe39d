/** The vanilla stores and the controller, without React (Node environment). */

import { afterEach, describe, expect, it, vi } from "vitest";
import { EVENT_NAMES } from "../../../shared/ipc/contract.ts";
import { createFakeClient } from "../testing/fake-client.ts";
import { sessionViewOf } from "../testing/session-view.ts";
import { conversation, sessionText } from "../testing/sessions.ts";
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

  it("ignores a slow session.open answer once another session was opened", async () => {
    const { client, stores, controller } = setup();
    await controller.start();
    client.held.add("session.open");
    const first = controller.openSession("one");
    client.held.clear();
    await controller.openSession("two");
    client.release();
    await first;
    expect(stores.session.getState().view?.sessionId).toBe("two");
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
    expect(stores.session.getState().view?.nodes.some((node) => node.id === "n0")).toBe(true);
    vi.advanceTimersByTime(RECENT_HIGHLIGHT_MS + 1);
    expect(stores.live.getState().recent.has("n0")).toBe(false);
    controller.dispose();
  });

  it("ignores events for a session other than the open one, and switches on session.switched", async () => {
    const { client, stores, controller } = setup();
    await controller.start();
    await controller.openSession("one");
    const other = sessionViewOf("two", client.index("two"));
    client.emit("session.appended", { sessionId: "two", added: [], view: other });
    expect(stores.session.getState().view?.sessionId).toBe("one");
    client.emit("session.switched", { view: other, reason: "fork" });
    expect(stores.session.getState().view?.sessionId).toBe("two");
    expect(stores.session.getState().selectedId).toBe(other.leafId);
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
