/** The WebSocket protocol on a real socket: frames in and out, broken frames, events to every client. */

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WebSocket, WebSocketServer } from "ws";
import {
  ArborError,
  type ArborEvents,
  type ArborHandlers,
  REQUEST_NAMES,
  type SessionView,
} from "../../shared/ipc/contract.ts";
import { plainView, sessionViewOf } from "../../shared/ipc/testing/session-view.ts";
import { WebSocketClient, type WebSocketConstructor } from "../../shared/ipc/websocket-client.ts";
import { decodeResult, type WireSessionView } from "../../shared/ipc/wire.ts";
import type { WireNodes } from "../../shared/ipc/wire-nodes.ts";
import { readSession } from "../../shared/session/index.ts";
import { generateSession } from "../../shared/session/testing/generate-session.ts";
import { createEventHub, type EventHub } from "./event-sink.ts";
import { WebSocketAdapter } from "./websocket-adapter.ts";
import { ensureNoLeaks } from "../../shared/lifecycle/testing.ts";

ensureNoLeaks();

let server: Server;
let sockets: WebSocketServer;
let adapter: WebSocketAdapter;
let events: EventHub;
let url: string;
let release: (() => void) | undefined;

/** A small session view, as the session requests answer. */
function sampleView(sessionId: string): SessionView {
  return sessionViewOf(sessionId, readSession(generateSession({ seed: 8 }).text));
}

beforeEach(async () => {
  const handlers = {} as Record<string, (params: unknown) => Promise<unknown>>;
  for (const name of REQUEST_NAMES) handlers[name] = async (params) => ({ name, params });
  handlers["session.open"] = async (params) => sampleView((params as { sessionId: string }).sessionId);
  handlers["session.current"] = () =>
    new Promise((resolve) => {
      release = () => resolve(sampleView("slow"));
    });
  handlers["session.entry"] = async () => {
    throw new ArborError("not-found", "There is no entry x.");
  };
  events = createEventHub();
  adapter = new WebSocketAdapter({ handlers: handlers as unknown as ArborHandlers, events });
  server = createServer();
  sockets = new WebSocketServer({ server });
  sockets.on("connection", (socket) => adapter.accept(socket));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  adapter.dispose();
  events.dispose();
  await new Promise((resolve) => sockets.close(resolve));
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function rawSocket(): Promise<{ socket: WebSocket; next(): Promise<unknown> }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    const queue: unknown[] = [];
    const waiting: ((value: unknown) => void)[] = [];
    socket.on("message", (data) => {
      const value = JSON.parse(String(data));
      const waiter = waiting.shift();
      if (waiter) waiter(value);
      else queue.push(value);
    });
    socket.once("open", () =>
      resolve({
        socket,
        next: () => (queue.length > 0 ? Promise.resolve(queue.shift()) : new Promise((r) => waiting.push(r))),
      }),
    );
    socket.once("error", reject);
  });
}

describe("WebSocketAdapter", () => {
  it("answers {id, name, params} with {id, result} or {id, error}", async () => {
    const { socket, next } = await rawSocket();
    socket.send(JSON.stringify({ id: 1, name: "session.entry", params: { entryId: "x" } }));
    expect(await next()).toEqual({ id: 1, error: { code: "not-found", message: "There is no entry x." } });
    socket.send(JSON.stringify({ id: "two", name: "session.open", params: { sessionId: "s1" } }));
    // A view travels in its wire form: its nodes in columns.
    const answer = (await next()) as { id: string; result: WireSessionView & { nodes: WireNodes } };
    expect(answer.id).toBe("two");
    expect(answer.result.nodes.ids).toEqual(
      sampleView("s1")
        .nodes.toArray()
        .map((node) => node.id),
    );
    expect(plainView(decodeResult("session.open", answer.result))).toEqual(plainView(sampleView("s1")));
    socket.close();
  });

  it("answers broken frames with invalid-request and keeps the connection", async () => {
    const { socket, next } = await rawSocket();
    socket.send("not json");
    expect(await next()).toMatchObject({ id: null, error: { code: "invalid-request" } });
    socket.send("[1,2]");
    expect(await next()).toMatchObject({ id: null, error: { code: "invalid-request" } });
    socket.send(JSON.stringify({ name: "app.info", params: {} }));
    expect(await next()).toMatchObject({ id: null, error: { code: "invalid-request" } });
    socket.send(JSON.stringify({ id: 3, params: {} }));
    expect(await next()).toMatchObject({ id: 3, error: { code: "invalid-request" } });
    socket.send(Buffer.from([1, 2, 3]), { binary: true });
    expect(await next()).toMatchObject({ id: null, error: { code: "invalid-request" } });
    socket.send(JSON.stringify({ id: 4, name: "session.open", params: { path: "/etc/passwd" } }));
    expect(await next()).toMatchObject({ id: 4, error: { code: "invalid-request" } });
    socket.send(JSON.stringify({ id: 5, name: "app.info", params: {} }));
    expect(await next()).toMatchObject({ id: 5, result: { name: "app.info" } });
    socket.close();
  });

  it("the client matches answers to requests out of order, delivers events, and fails pending requests on close", async () => {
    const client = await WebSocketClient.connect(url, {
      WebSocket: WebSocket as unknown as WebSocketConstructor,
    });
    const other = await WebSocketClient.connect(url, {
      WebSocket: WebSocket as unknown as WebSocketConstructor,
    });
    const slow = client.request("session.current", {});
    const fast = await client.request("app.info", {});
    expect(fast).toEqual({ name: "app.info", params: {} });
    release!();
    // The client decodes what arrives in the wire form.
    expect(plainView(await slow)).toEqual(plainView(sampleView("slow")));
    expect(plainView(await client.request("session.open", { sessionId: "s2" }))).toEqual(
      plainView(sampleView("s2")),
    );

    const seen: unknown[] = [];
    const seenByOther: unknown[] = [];
    let first: () => void = () => {};
    const firstArrived = new Promise<void>((resolve) => {
      first = resolve;
    });
    const unsubscribe = client.on("library.progress", (payload) => {
      seen.push(payload);
      first();
    });
    other.on("library.progress", (payload) => seenByOther.push(payload));
    const delivered = new Promise<void>((resolve) => other.on("library.changed", () => resolve()));
    events.emit("library.progress", { loaded: 1, total: 2 });
    await firstArrived;
    unsubscribe();
    events.emit("library.progress", { loaded: 2, total: 2 });
    events.emit("library.changed", { projects: [], skipped: [], scanning: false, demo: false });
    await delivered;
    const reloaded = new Promise<ArborEvents["session.reloaded"]>((resolve) =>
      other.on("session.reloaded", resolve),
    );
    const payload = { sessionId: "s1", reason: "rewritten" as const, view: sampleView("s1") };
    events.emit("session.reloaded", payload);
    const received = await reloaded;
    expect({ ...received, view: plainView(received.view) }).toEqual({
      ...payload,
      view: plainView(payload.view),
    });
    expect(seen).toEqual([{ loaded: 1, total: 2 }]);
    expect(seenByOther).toEqual([
      { loaded: 1, total: 2 },
      { loaded: 2, total: 2 },
    ]);

    const error = await client.request("session.entry", { entryId: "x" }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ArborError);
    expect(error).toMatchObject({ code: "not-found", message: "There is no entry x." });

    const closed = new Promise<string>((resolve) => other.onClose(resolve));
    const pending = other.request("session.current", {});
    adapter.dispose();
    await expect(pending).rejects.toMatchObject({ code: "io" });
    expect(await closed).toContain("shutting down");
    expect(other.isClosed).toBe(true);
    await expect(other.request("app.info", {})).rejects.toMatchObject({ code: "io" });
    client.close();
  });

  it("the client reports a refused connection as an io error", async () => {
    await expect(
      WebSocketClient.connect("ws://127.0.0.1:9/ws", {
        WebSocket: WebSocket as unknown as WebSocketConstructor,
      }),
    ).rejects.toMatchObject({ code: "io" });
  });
});

describe("work after the answers", () => {
  /** A socket whose writes finish only when the test says so. */
  function heldSocket() {
    const writes: (() => void)[] = [];
    const socket = {
      OPEN: 1,
      readyState: 1,
      sent: [] as string[],
      on() {},
      off() {},
      once() {},
      close() {},
      terminate() {},
      send(frame: string, written: () => void) {
        socket.sent.push(frame);
        writes.push(written);
      },
    };
    const finishWrites = () => {
      for (const written of writes.splice(0)) written();
    };
    return { socket, finishWrites };
  }
  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

  it("runs once every frame sent so far has been written out, on the next turn when none is waiting", async () => {
    const { socket, finishWrites } = heldSocket();
    adapter.accept(socket as unknown as WebSocket);
    const ran: string[] = [];
    adapter.whenSent(() => ran.push("idle"));
    await nextTurn();
    expect(ran).toEqual(["idle"]);

    events.emit("library.progress", { loaded: 1, total: 2 });
    expect(socket.sent).toHaveLength(1);
    adapter.whenSent(() => ran.push("after the event"));
    await nextTurn();
    await nextTurn();
    expect(ran).toEqual(["idle"]);
    finishWrites();
    await nextTurn();
    expect(ran).toEqual(["idle", "after the event"]);
  });

  it("drops work still waiting when the adapter is disposed", async () => {
    const { socket, finishWrites } = heldSocket();
    adapter.accept(socket as unknown as WebSocket);
    events.emit("library.progress", { loaded: 1, total: 2 });
    let ran = false;
    adapter.whenSent(() => {
      ran = true;
    });
    adapter.dispose();
    finishWrites();
    await nextTurn();
    expect(ran).toBe(false);
  });
});
