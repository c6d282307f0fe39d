/**
 * The library as a window lists it: the demo library fallback, the first
 * scan, the open session's row following its appends, session ids resolved
 * to files (waiting for the first scan), and the scan after a change.
 */

import { appendFileSync, readFileSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { createEventHub } from "../ipc/event-sink.ts";
import { createWindowServices, preferencesIn } from "../ipc/host.ts";
import { IssuedIds } from "../ipc/issued-ids.ts";
import { items, hostsInTempFolder, waitForEvent } from "../ipc/testing.ts";
import { createSessionLibrary, type SessionLibrary } from "../library/index.ts";
import { skipReasons } from "../../shared/error-texts.ts";
import { SessionRuntime } from "../runtime/session-runtime.ts";
import { SAMPLE_IDS, writeSampleSession } from "../runtime/testing.ts";
import { ensureNoLeaks } from "../../shared/lifecycle/testing.ts";

const leaks = ensureNoLeaks();

const fixture = hostsInTempFolder("arbor-library-view-");

describe("the demo library", () => {
  it("is listed when no session exists, and the real library returns once it has sessions", async () => {
    const { library, actions } = fixture.host().windowServices;
    const listing = await library.rescan();
    expect(listing.demo).toBe(true);
    const demoSessions = items(listing).filter((item) => !item.error);
    expect(demoSessions.length).toBeGreaterThanOrEqual(3);
    const view = await actions.open(demoSessions[0]!.sessionId);
    expect(view.nodes.count).toBeGreaterThan(0);
    expect(view.path.startsWith(join(fixture.folder, "data", "demo-sessions"))).toBe(true);

    writeSampleSession(fixture.samplePath);
    const real = await library.rescan();
    expect(real.demo).toBe(false);
    expect(items(real).map((item) => item.path)).toEqual([fixture.samplePath]);
  });

  it("is not used when turned off", async () => {
    const listing = await fixture.host({ demo: false }).windowServices.library.rescan();
    expect(listing).toEqual({ projects: [], skipped: [], scanning: false, demo: false });
  });

  it("lists what the scan passed over, with why", async () => {
    writeSampleSession(fixture.samplePath);
    symlinkSync("/etc/passwd", join(dirname(fixture.samplePath), "passwd.jsonl"));
    const listing = await fixture.host({ demo: false }).windowServices.library.rescan();
    expect(items(listing).map((item) => item.path)).toEqual([fixture.samplePath]);
    expect(listing.skipped).toEqual([
      {
        path: join(dirname(fixture.samplePath), "passwd.jsonl"),
        reason: skipReasons.linkOutside("/etc/passwd"),
      },
    ]);
  });

  it("list starts the first scan and says so; library.changed brings the result", async () => {
    writeSampleSession(fixture.samplePath);
    const created = fixture.host();
    const changed = waitForEvent(created, "library.changed");
    const first = created.windowServices.library.list();
    expect(first.scanning).toBe(true);
    const done = await changed;
    expect(done.scanning).toBe(false);
    expect(items(done).map((item) => item.path)).toEqual([fixture.samplePath]);
  });
});

describe("the open session's row", () => {
  it("keeps up with the session: Pi's messages, Arbor's own name", async () => {
    const { samplePath } = fixture;
    writeSampleSession(samplePath);
    const created = fixture.host();
    const { library, actions } = created.windowServices;
    const [item] = items(await library.rescan());
    await actions.open(item!.sessionId);

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
    expect(items(library.list())).toContainEqual(row);

    const renamed = waitForEvent(created, "library.sessionChanged");
    // Pi wrote a moment ago: the user confirmed writing anyway.
    await created.windowServices.writes.write({ kind: "name", name: "Named in Arbor" }, true);
    expect(await renamed).toMatchObject({ sessionId: item!.sessionId, name: "Named in Arbor" });
  });
});

describe("naming a session", () => {
  it("a link opened before the first scan ends waits for it; the header's own id names the session too", async () => {
    const { samplePath } = fixture;
    writeSampleSession(samplePath);
    const { library, actions } = fixture.host().windowServices;
    // An id from an earlier run (ids are derived from the path), before this run listed anything.
    const linked = new IssuedIds().sessionId(samplePath);
    const view = await actions.open(linked);
    expect(view.sessionId).toBe(linked);
    expect(view.path).toBe(samplePath);

    const headerId = view.headerId!;
    await actions.open(items(library.list())[0]!.sessionId);
    expect(await library.sessionPath(headerId)).toBe(samplePath);
    const byHeader = await actions.open(headerId);
    expect(byHeader.path).toBe(samplePath);
    expect(byHeader.sessionId).toBe(linked);
    expect(await library.sessionPath("not-a-session")).toBeUndefined();
    await expect(actions.open("not-a-session")).rejects.toMatchObject({ code: "not-found" });
  });
});

describe("scans after a change", () => {
  it("a fork made while a scan runs is listed by the scan after it", async () => {
    writeSampleSession(fixture.samplePath);
    const real = createSessionLibrary({ roots: [fixture.root], cacheDir: null });
    // A scan that has listed the folder, before the fork, and is still running when the fork is written.
    let hold: Promise<void> | null = null;
    let scanned = () => {};
    const held = Object.create(real, {
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
    const services = createWindowServices({
      runtime,
      library: held,
      events: leaks.add(createEventHub()),
      transport: "serve",
      version: "0.1.0",
      preferences: leaks.add(preferencesIn(join(fixture.folder, "preferences"))),
    });
    const { library, actions } = services;
    const [item] = items(await library.rescan());
    await actions.open(item!.sessionId);
    let release = () => {};
    hold = new Promise((resolve) => {
      release = resolve;
    });
    const listedBefore = new Promise<void>((resolve) => {
      scanned = resolve;
    });
    const running = library.rescan();
    await listedBefore;
    hold = null;
    const fork = await actions.fork(SAMPLE_IDS.a2, "at");
    release();
    await running;
    await library.idle();
    expect(items(library.list()).map((entry) => entry.path)).toContain(fork.path);
    services.dispose();
    await runtime.close();
    await real.dispose();
  });
});
