/** The dispatcher: validation before any handler, every error as `{code, message}`, results in their wire form. */

import { describe, expect, it, vi } from "vitest";
import {
  ArborError,
  type ArborHandlers,
  REQUEST_NAMES,
  type SessionView,
} from "../../shared/ipc/contract.ts";
import { plainView, sessionViewOf } from "../../shared/ipc/testing/session-view.ts";
import { decodeEvent, decodeResult, type WireSessionView } from "../../shared/ipc/wire.ts";
import { readSession } from "../../shared/session/index.ts";
import { generateSession } from "../../shared/session/testing/generate-session.ts";
import { dispatch, errorPayload, wireEvent } from "./bind.ts";
import { fileErrors, requestErrors } from "../../shared/error-texts.ts";

function sessionView(seed: number): SessionView {
  return sessionViewOf("s1", readSession(generateSession({ seed }).text));
}

function fakeHandlers(overrides: Partial<Record<string, (params: never) => Promise<unknown>>> = {}) {
  const calls: { name: string; params: unknown }[] = [];
  const handlers = {} as Record<string, (params: unknown) => Promise<unknown>>;
  for (const name of REQUEST_NAMES) {
    handlers[name] = vi.fn(async (params: unknown) => {
      calls.push({ name, params });
      const override = overrides[name] as ((params: unknown) => Promise<unknown>) | undefined;
      return override ? override(params) : { ok: name };
    });
  }
  return { handlers: handlers as unknown as ArborHandlers, calls };
}

describe("dispatch", () => {
  it("calls the handler with the validated parameters and returns its result", async () => {
    const { handlers, calls } = fakeHandlers();
    expect(await dispatch(handlers, "session.entry", { entryId: "ab12cd34" })).toEqual({
      result: { ok: "session.entry" },
    });
    // No parameters at all are the empty object.
    expect(await dispatch(handlers, "app.info", undefined)).toEqual({ result: { ok: "app.info" } });
    expect(calls).toEqual([
      { name: "session.entry", params: { entryId: "ab12cd34" } },
      { name: "app.info", params: {} },
    ]);
  });

  it("answers with a session view in its wire form, which decodes to the view", async () => {
    const view = sessionView(21);
    const { handlers } = fakeHandlers({
      "session.fork": async () => view,
      "session.current": async () => null,
    });
    const outcome = await dispatch(handlers, "session.fork", { entryId: "ab12cd34", position: "at" });
    const wire = (outcome as { result: WireSessionView }).result;
    expect(Array.isArray(wire.nodes)).toBe(false);
    expect(JSON.stringify(wire).length).toBeLessThan(JSON.stringify(plainView(view)).length / 2);
    expect(plainView(decodeResult("session.fork", JSON.parse(JSON.stringify(wire))))).toEqual(
      plainView(view),
    );
    expect(await dispatch(handlers, "session.current", {})).toEqual({ result: null });
  });

  it("puts events in their wire form", () => {
    const view = sessionView(22);
    const reloaded = { sessionId: "s1", reason: "replaced" as const, view };
    const wire = wireEvent("session.reloaded", reloaded);
    expect(Array.isArray(wire.view!.nodes)).toBe(false);
    const decoded = decodeEvent("session.reloaded", JSON.parse(JSON.stringify(wire)));
    expect({ ...decoded, view: plainView(decoded.view) }).toEqual({ ...reloaded, view: plainView(view) });
  });

  it("refuses unknown names and bad parameters as invalid-request, without calling anything", async () => {
    const { handlers, calls } = fakeHandlers();
    const cases: [string, unknown][] = [
      ["session.remove", {}],
      ["__proto__", {}],
      ["constructor", {}],
      ["toString", {}],
      ["session.open", { sessionId: "/etc/passwd" }],
      ["session.open", { sessionId: "s1", path: "/etc/passwd" }],
      ["session.open", []],
      ["session.open", "s1"],
      ["session.context", { leafId: 1 }],
      ["session.setLabel", { targetId: "x", label: "y".repeat(201) }],
      ["library.search", { query: "x", limit: 1.5 }],
      ["session.new", {}],
    ];
    for (const [name, params] of cases) {
      const outcome = await dispatch(handlers, name, params);
      expect(outcome, `${name} ${JSON.stringify(params)}`).toMatchObject({
        error: { code: "invalid-request" },
      });
    }
    expect(calls).toEqual([]);
  });

  it("passes ArborErrors through and hides anything else behind a generic internal error", async () => {
    const seen: unknown[] = [];
    const { handlers } = fakeHandlers({
      "session.entry": async () => {
        throw new ArborError("not-found", "There is no entry x.");
      },
      "session.current": async () => {
        throw new Error("EACCES /home/someone/.pi/secret at Object.<anonymous> (file.ts:1:1)");
      },
      "session.clone": async () => {
        throw "a string";
      },
    });
    const options = { onInternalError: (error: unknown) => seen.push(error) };
    expect(await dispatch(handlers, "session.entry", { entryId: "x" }, options)).toEqual({
      error: { code: "not-found", message: "There is no entry x." },
    });
    const internal = await dispatch(handlers, "session.current", {}, options);
    expect(internal).toEqual({
      error: {
        code: "internal",
        message:
          'Arbor hit an unexpected error while handling "session.current"; try again, or see its log for details.',
      },
    });
    expect(JSON.stringify(internal)).not.toContain("secret");
    expect(await dispatch(handlers, "session.clone", {}, options)).toMatchObject({
      error: { code: "internal" },
    });
    expect(seen).toHaveLength(2);
  });

  it("turns file-system errors into their payload by code, without reporting them", async () => {
    const seen: unknown[] = [];
    const failure = (code: string) => Object.assign(new Error(`${code}: /home/someone/.pi/file`), { code });
    const cases: [string, { code: string; message: string }][] = [
      ["ENOENT", { code: "not-found", message: "The session file no longer exists; rescan the library." }],
      [
        "EACCES",
        { code: "io", message: "Arbor is not allowed to read or write that file; check its permissions." },
      ],
      [
        "EPERM",
        { code: "io", message: "Arbor is not allowed to read or write that file; check its permissions." },
      ],
      [
        "ENOSPC",
        { code: "io", message: "The disk is full, so nothing was written; free some space, then try again." },
      ],
      ["EBUSY", { code: "io", message: "A file operation failed (EBUSY); try again." }],
    ];
    for (const [code, payload] of cases) {
      const { handlers } = fakeHandlers({
        "session.rename": async () => {
          throw failure(code);
        },
      });
      const outcome = await dispatch(
        handlers,
        "session.rename",
        { name: "x" },
        {
          onInternalError: (error) => seen.push(error),
        },
      );
      expect(outcome, code).toEqual({ error: payload });
    }
    expect(seen).toEqual([]);
    // A code that is not an error number is no file error: internal, and reported.
    const { handlers } = fakeHandlers({
      "session.rename": async () => {
        throw failure("ERR_INVALID_ARG_TYPE");
      },
    });
    expect(
      await dispatch(
        handlers,
        "session.rename",
        { name: "x" },
        { onInternalError: (error) => seen.push(error) },
      ),
    ).toMatchObject({ error: { code: "internal" } });
    expect(seen).toHaveLength(1);
  });
});

describe("errorPayload", () => {
  it("translates once: Arbor's errors as they are, file errors in words, anything else as unexpected", () => {
    const internal: unknown[] = [];
    const note = (error: unknown) => internal.push(error);
    const own = new ArborError("not-found", "No such entry.");
    expect(errorPayload(own, "opening the file", note)).toEqual(own.toPayload());
    const gone = Object.assign(new Error("ENOENT: no such file"), { code: "ENOENT" });
    expect(errorPayload(gone, "opening the file", note)).toEqual({
      code: "not-found",
      message: fileErrors.sessionFileGone,
    });
    const bug = new TypeError("x is undefined");
    expect(errorPayload(bug, "opening the file", note)).toEqual({
      code: "internal",
      message: requestErrors.unexpected("opening the file"),
    });
    // Only the unexpected one is reported as internal; its raw message never reaches the user.
    expect(internal).toEqual([bug]);
  });
});
