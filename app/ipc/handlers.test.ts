/**
 * The handler table as the bindings reach it: requests that need an open
 * session, and errors, translated once at the binding (`dispatch`): file
 * errors by their code, anything unexpected as a generic internal error
 * reported once. (The services behind the table have their own tests in
 * app/library-view and app/session-view; every request runs in the contract suite.)
 */

import { rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ArborError } from "../../shared/ipc/contract.ts";
import type { SessionLibrary } from "../library/index.ts";
import { SessionRuntime } from "../runtime/session-runtime.ts";
import { encodedCwd, writeSampleSession } from "../runtime/testing.ts";
import { dispatch } from "./bind.ts";
import { createEventHub } from "./event-sink.ts";
import { createWindowServices, preferencesIn } from "./host.ts";
import { items, request, hostsInTempFolder } from "./testing.ts";
import { ensureNoLeaks } from "../../shared/lifecycle/testing.ts";

const leaks = ensureNoLeaks();

const fixture = hostsInTempFolder();

describe("errors", () => {
  it("session requests without an open session are refused", async () => {
    const { handlers } = fixture.host();
    for (const call of [
      () => handlers["session.context"]({ leafId: null }),
      () => handlers["session.entry"]({ entryId: "x" }),
      () => handlers["session.search"]({ query: "x" }),
      () => handlers["session.setLabel"]({ targetId: "x", label: "y" }),
      () => handlers["session.rename"]({ name: "x" }),
      () => handlers["session.clone"]({}),
      () => handlers["session.fork"]({ entryId: "x", position: "at" }),
      () => handlers["session.continueFrom"]({ entryId: "x" }),
      () => handlers["session.archive"]({ entryId: "x" }),
      () => handlers["session.unarchive"]({ entryId: "x" }),
      () => handlers["session.addNote"]({ text: "x" }),
      () => handlers["session.editContext"]({ targetId: "x", replacement: null }),
      () => handlers["session.undo"]({}),
      () => handlers["session.export"]({ format: "markdown" }),
      () => handlers["session.openInPi"]({}),
    ]) {
      await expect(call()).rejects.toMatchObject({ code: "refused" });
    }
    expect(await handlers["session.current"]({})).toBeNull();
  });

  it("a file gone since it was listed is not-found at the binding, and the open session stays", async () => {
    const { samplePath, root } = fixture;
    writeSampleSession(samplePath);
    const otherPath = join(root, encodedCwd("/work/project"), "other.jsonl");
    writeSampleSession(otherPath, { headerId: "019b7a4e-0000-7000-8000-00000000aaaa" });
    const { handlers } = fixture.host();
    const listing = items(await handlers["library.rescan"]({}));
    const sample = listing.find((item) => item.path === samplePath)!;
    const other = listing.find((item) => item.path === otherPath)!;
    await handlers["session.open"]({ sessionId: sample.sessionId });
    rmSync(otherPath);
    const reported: unknown[] = [];
    const error = await request(
      handlers,
      "session.open",
      { sessionId: other.sessionId },
      { onInternalError: (internal) => reported.push(internal) },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ArborError);
    expect(error).toMatchObject({
      code: "not-found",
      message: "The session file no longer exists; rescan the library.",
    });
    expect(reported).toEqual([]);
    expect((await handlers["session.current"]({}))!.path).toBe(samplePath);
  });

  it("anything unexpected leaves as a generic internal error, reported once to the binding's log", async () => {
    const reported: { error: unknown; request: string }[] = [];
    const onInternalError = (error: unknown, request: string) => reported.push({ error, request });
    const failing = {
      roots: () => [],
      setExtraFolders() {},
      scan: async () => {
        throw new Error("/private/path exploded");
      },
      list: () => ({ projects: [], sessions: [], failed: [] }),
      skipped: () => [],
      session: () => undefined,
      search: async () => {
        throw new TypeError("cannot read properties of undefined");
      },
      dispose: async () => {},
    } as unknown as SessionLibrary;
    const runtime = new SessionRuntime();
    const services = createWindowServices({
      runtime,
      library: failing,
      events: leaks.add(createEventHub()),
      transport: "electron",
      version: "0.1.0",
      preferences: leaks.add(preferencesIn(join(fixture.folder, "preferences"))),
      onInternalError,
    });
    const { handlers } = services;
    // Straight from the table, the error is as thrown: only the binding translates it.
    await expect(handlers["library.search"]({ query: "x" })).rejects.toBeInstanceOf(TypeError);
    const search = await request(handlers, "library.search", { query: "x" }, { onInternalError }).catch(
      (e: unknown) => e,
    );
    expect(search).toBeInstanceOf(ArborError);
    expect(search).toMatchObject({ code: "internal" });
    expect((search as Error).message).not.toContain("undefined");
    const scan = await dispatch(handlers, "library.rescan", {}, { onInternalError });
    expect(scan).toMatchObject({ error: { code: "internal" } });
    expect(JSON.stringify(scan)).not.toContain("/private/path");
    expect(reported.map((report) => report.request)).toEqual(["library.search", "library.rescan"]);
    expect(reported[1]!.error).toMatchObject({ message: "/private/path exploded" });
    services.dispose();
    await runtime.close();
  });
});
