import { describe, expect, it } from "vitest";
import { ArborError, type ArborHandlers, REQUEST_NAMES } from "../../shared/ipc/contract.ts";
import { createUnwiredWindowRuntime, dispatchRequest } from "./window-runtime.ts";

function handlers(overrides: Partial<ArborHandlers>): ArborHandlers {
  return { ...createUnwiredWindowRuntime("0.0.0").handlers, ...overrides };
}

describe("dispatchRequest (stand-in for app/ipc/bind.ts)", () => {
  it("validates, then answers with the handler's result", async () => {
    const received: unknown[] = [];
    const outcome = await dispatchRequest(
      handlers({
        "session.open": async (params) => {
          received.push(params);
          throw new ArborError("not-found", "No session s1.");
        },
      }),
      "session.open",
      { sessionId: "s1" },
    );
    expect(received).toEqual([{ sessionId: "s1" }]);
    expect(outcome).toEqual({ error: { code: "not-found", message: "No session s1." } });
  });

  it("refuses unknown names and parameters the schema does not allow, before any handler runs", async () => {
    expect(await dispatchRequest(handlers({}), "fs.read", {})).toMatchObject({
      error: { code: "invalid-request" },
    });
    const outcome = await dispatchRequest(handlers({}), "session.open", {
      sessionId: "s1",
      path: "/etc/passwd",
    });
    expect(outcome).toMatchObject({ error: { code: "invalid-request" } });
  });

  it("reports a handler's unexpected failure as internal", async () => {
    const outcome = await dispatchRequest(
      handlers({
        "app.info": async () => {
          throw new TypeError("x is undefined");
        },
      }),
      "app.info",
      {},
    );
    expect(outcome).toEqual({
      error: { code: "internal", message: "Arbor failed unexpectedly: x is undefined" },
    });
  });
});

describe("createUnwiredWindowRuntime", () => {
  it("has a handler for every request; only app.info answers until the runtime is wired", async () => {
    const runtime = createUnwiredWindowRuntime("1.2.3");
    expect(Object.keys(runtime.handlers).sort()).toEqual([...REQUEST_NAMES].sort());
    expect(await dispatchRequest(runtime.handlers, "app.info", {})).toEqual({
      result: { version: "1.2.3", transport: "electron" },
    });
    expect(await dispatchRequest(runtime.handlers, "library.list", {})).toMatchObject({
      error: { code: "internal" },
    });
    await expect(runtime.openSessionFile("/x.jsonl")).rejects.toBeInstanceOf(ArborError);
  });
});
