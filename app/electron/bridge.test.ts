import { describe, expect, it, vi } from "vitest";
import { EVENT_NAMES, REQUEST_NAMES } from "../../shared/ipc/contract.ts";
import {
  type BridgeTransport,
  createArborBridge,
  type DropEvent,
  type DropTarget,
  installDropHandler,
} from "./bridge.ts";

function fakeTransport(overrides: Partial<BridgeTransport> = {}) {
  let deliver: (message: unknown) => void = () => {};
  const transport: BridgeTransport = {
    invokeRequest: vi.fn(async () => ({ result: { version: "1", transport: "electron" } })),
    invokeOpenDroppedFile: vi.fn(async () => ({ opened: true })),
    listenForEvents: vi.fn((listener) => {
      deliver = listener;
    }),
    pathForFile: vi.fn(() => "/home/u/s.jsonl"),
    ...overrides,
  };
  return { transport, deliver: (message: unknown) => deliver(message) };
}

describe("the preload bridge", () => {
  it("exposes exactly request, on and openDroppedFile, frozen", () => {
    const bridge = createArborBridge(fakeTransport().transport);
    expect(Object.keys(bridge).sort()).toEqual(["on", "openDroppedFile", "request"]);
    expect(Object.isFrozen(bridge)).toBe(true);
  });

  it("listens on the event channel once, however many subscriptions", () => {
    const { transport } = fakeTransport();
    const bridge = createArborBridge(transport);
    bridge.on("library.changed", () => {});
    bridge.on("session.appended", () => {});
    expect(transport.listenForEvents).toHaveBeenCalledOnce();
  });

  describe("request", () => {
    it("sends every contract request and passes the outcome through", async () => {
      const { transport } = fakeTransport();
      const bridge = createArborBridge(transport);
      for (const name of REQUEST_NAMES) {
        await bridge.request(name, {} as never);
      }
      expect(transport.invokeRequest).toHaveBeenCalledTimes(REQUEST_NAMES.length);
      expect(await bridge.request("app.info", {})).toEqual({
        result: { version: "1", transport: "electron" },
      });
    });

    it("passes errors through as data, code included", async () => {
      const error = { code: "not-found", message: "No session s1." };
      const bridge = createArborBridge(fakeTransport({ invokeRequest: async () => ({ error }) }).transport);
      expect(await bridge.request("session.open", { sessionId: "s1" })).toEqual({ error });
    });

    it("refuses a name the contract does not have, without sending anything", async () => {
      const { transport } = fakeTransport();
      const bridge = createArborBridge(transport);
      for (const name of ["fs.readFile", "__proto__", "constructor", "", 42]) {
        expect(await bridge.request(name as never, {} as never)).toMatchObject({
          error: { code: "invalid-request" },
        });
      }
      expect(transport.invokeRequest).not.toHaveBeenCalled();
    });

    it("turns a failed invoke or a strange answer into an internal error, never a rejection", async () => {
      const failing = createArborBridge(
        fakeTransport({
          invokeRequest: async () => {
            throw new Error("No handler registered");
          },
        }).transport,
      );
      expect(await failing.request("app.info", {})).toEqual({
        error: {
          code: "internal",
          message:
            'The request "app.info" did not reach the main process (No handler registered); reload the window and try again.',
        },
      });
      const strange = createArborBridge(fakeTransport({ invokeRequest: async () => "hello" }).transport);
      expect(await strange.request("app.info", {})).toMatchObject({ error: { code: "internal" } });
    });
  });

  describe("on", () => {
    it("delivers the payload alone (never Electron's event object) to each listener of that event", () => {
      const { transport, deliver } = fakeTransport();
      const bridge = createArborBridge(transport);
      const changed = vi.fn();
      const progress = vi.fn();
      bridge.on("library.changed", changed);
      bridge.on("library.progress", progress);
      deliver({ name: "library.progress", payload: { loaded: 1, total: 2 } });
      expect(progress).toHaveBeenCalledWith({ loaded: 1, total: 2 });
      expect(progress.mock.calls[0]).toHaveLength(1);
      expect(changed).not.toHaveBeenCalled();
    });

    it("returns the unsubscribe, which removes only that subscription", () => {
      const { transport, deliver } = fakeTransport();
      const bridge = createArborBridge(transport);
      const listener = vi.fn();
      const first = bridge.on("library.progress", listener);
      bridge.on("library.progress", listener);
      first();
      first();
      deliver({ name: "library.progress", payload: {} });
      expect(listener).toHaveBeenCalledOnce();
    });

    it("keeps delivering when one listener throws", () => {
      const { transport, deliver } = fakeTransport();
      const bridge = createArborBridge(transport);
      const after = vi.fn();
      const quiet = vi.spyOn(console, "error").mockImplementation(() => {});
      bridge.on("library.progress", () => {
        throw new Error("boom");
      });
      bridge.on("library.progress", after);
      deliver({ name: "library.progress", payload: {} });
      expect(after).toHaveBeenCalledOnce();
      quiet.mockRestore();
    });

    it("ignores messages that are not contract events", () => {
      const { transport, deliver } = fakeTransport();
      const bridge = createArborBridge(transport);
      const listener = vi.fn();
      for (const name of EVENT_NAMES) bridge.on(name, listener);
      for (const message of [
        null,
        "x",
        { name: "toString" },
        { name: "other", payload: 1 },
        { payload: 1 },
      ]) {
        deliver(message);
      }
      expect(listener).not.toHaveBeenCalled();
    });

    it("throws for an unknown event name or a listener that is not a function", () => {
      const bridge = createArborBridge(fakeTransport().transport);
      expect(() => bridge.on("ipc.everything" as never, () => {})).toThrow(TypeError);
      expect(() => bridge.on("library.changed", "alert(1)" as never)).toThrow(TypeError);
    });
  });

  describe("openDroppedFile", () => {
    it("sends the file's path (never the page's idea of one) and reports the main process's answer", async () => {
      const { transport } = fakeTransport();
      const bridge = createArborBridge(transport);
      const file = { name: "s.jsonl" };
      expect(await bridge.openDroppedFile(file)).toEqual({ opened: true });
      expect(transport.pathForFile).toHaveBeenCalledWith(file);
      expect(transport.invokeOpenDroppedFile).toHaveBeenCalledWith("/home/u/s.jsonl");

      const refused = { code: "refused", message: '"/x" is not a regular file.' };
      const refusing = createArborBridge(
        fakeTransport({ invokeOpenDroppedFile: async () => ({ opened: false, error: refused }) }).transport,
      );
      expect(await refusing.openDroppedFile(file)).toEqual({ opened: false, error: refused });
    });

    it("refuses what is not a file on disk before asking the main process", async () => {
      const notAFile = fakeTransport({
        pathForFile: () => {
          throw new TypeError("not a File");
        },
      });
      expect(await createArborBridge(notAFile.transport).openDroppedFile("/etc/passwd")).toMatchObject({
        opened: false,
        error: { code: "invalid-request" },
      });
      const madeInJavaScript = fakeTransport({ pathForFile: () => "" });
      expect(await createArborBridge(madeInJavaScript.transport).openDroppedFile({})).toMatchObject({
        opened: false,
        error: { code: "invalid-request" },
      });
      expect(notAFile.transport.invokeOpenDroppedFile).not.toHaveBeenCalled();
      expect(madeInJavaScript.transport.invokeOpenDroppedFile).not.toHaveBeenCalled();
    });
  });
});

describe("installDropHandler", () => {
  function setUp() {
    const listeners = new Map<string, (event: DropEvent) => void>();
    const target: DropTarget = { addEventListener: (type, listener) => listeners.set(type, listener) };
    const bridge = { openDroppedFile: vi.fn(async () => ({ opened: true as const })) };
    installDropHandler(target, bridge);
    const fire = (
      type: string,
      init: { files?: unknown[]; types?: string[]; defaultPrevented?: boolean },
    ) => {
      const event = {
        defaultPrevented: init.defaultPrevented ?? false,
        preventDefault: vi.fn(),
        dataTransfer: { files: init.files ?? [], types: init.types ?? [] },
      };
      listeners.get(type)?.(event);
      return event;
    };
    return { bridge, fire };
  }

  it("accepts a file dragged over the window and opens the first file dropped", () => {
    const { bridge, fire } = setUp();
    expect(fire("dragover", { types: ["Files"] }).preventDefault).toHaveBeenCalled();
    const file = { name: "s.jsonl" };
    const drop = fire("drop", { types: ["Files"], files: [file, { name: "t.jsonl" }] });
    expect(drop.preventDefault).toHaveBeenCalled();
    expect(bridge.openDroppedFile).toHaveBeenCalledExactlyOnceWith(file);
  });

  it("leaves drops the page handled itself, and drags of text, alone", () => {
    const { bridge, fire } = setUp();
    expect(fire("dragover", { types: ["text/plain"] }).preventDefault).not.toHaveBeenCalled();
    fire("drop", { types: ["Files"], files: [{}], defaultPrevented: true });
    fire("drop", { types: ["text/plain"] });
    expect(bridge.openDroppedFile).not.toHaveBeenCalled();
  });
});
