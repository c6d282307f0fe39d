/**
 * The session actions: opens (the open session read again, a later open
 * winning over one still waiting for the scan), replacements answered with
 * the new session's view and announced with `session.switched`, the library
 * listing the new file after it, and replacements an extension cancels.
 */

import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sessionViewOf } from "../../shared/ipc/testing/session-view.ts";
import { readSession } from "../../shared/session/index.ts";
import { IssuedIds } from "../ipc/issued-ids.ts";
import { collect, items, hostsInTempFolder, waitForEvent } from "../ipc/testing.ts";
import { encodedCwd, SAMPLE_IDS, writeLinearSession, writeSampleSession } from "../runtime/testing.ts";
import { ensureNoLeaks } from "../../shared/lifecycle/testing.ts";

const leaks = ensureNoLeaks();

const fixture = hostsInTempFolder("arbor-session-actions-");

describe("opening a session", () => {
  it("opening the open session again reads its file first: deleted, it is not found; recreated, its new content", async () => {
    const { samplePath } = fixture;
    writeSampleSession(samplePath);
    const { library, actions } = fixture.host().windowServices;
    const [item] = items(await library.rescan());
    const first = await actions.open(item!.sessionId);
    expect(first.nodes.count).toBeGreaterThan(1);
    rmSync(samplePath);
    await expect(actions.open(item!.sessionId)).rejects.toMatchObject({ code: "not-found" });
    // Written again (as another program might), with other entries: those are what opens.
    writeLinearSession(samplePath, { turns: 2, prefix: "dd" });
    const again = await actions.open(item!.sessionId);
    const fresh = sessionViewOf("fresh", readSession(readFileSync(samplePath, "utf8")));
    expect(again.nodes.ids).toEqual(fresh.nodes.ids);
    expect(again.nodes.toArray().every((node) => node.id.startsWith("dd"))).toBe(true);
  });

  it("a later open wins: an earlier one still looking for its session is stale", async () => {
    const { samplePath, root } = fixture;
    writeSampleSession(samplePath);
    const otherPath = join(root, encodedCwd("/work/project"), "2026-01-02T12-00-00-000Z_other.jsonl");
    writeLinearSession(otherPath, { turns: 1, prefix: "ot" });
    const created = fixture.host();
    const { actions, sessions } = created.windowServices;
    const ids = new IssuedIds();
    const first = actions.open(ids.sessionId(samplePath));
    const second = actions.open(ids.sessionId(otherPath));
    await expect(first).rejects.toMatchObject({ code: "stale" });
    expect((await second).path).toBe(otherPath);
    expect(sessions.current()?.view().path).toBe(otherPath);
  });
});

describe("replacing the session", () => {
  it("a fork sends session.switched, then library.changed once the new file is listed", async () => {
    writeSampleSession(fixture.samplePath);
    const created = fixture.host();
    const { library, actions } = created.windowServices;
    const [item] = items(await library.rescan());
    await actions.open(item!.sessionId);
    const seen = collect(created);
    const changed = waitForEvent(created, "library.changed");
    const fork = await actions.fork(SAMPLE_IDS.a2, "at");
    const listing = await changed;
    expect(seen[0]).toMatchObject({ name: "session.switched", payload: { reason: "fork" } });
    expect(items(listing).find((entry) => entry.path === fork.path)).toMatchObject({
      open: true,
      parentSessionId: item!.sessionId,
    });
    expect(items(listing).find((entry) => entry.path === fixture.samplePath)!.open).toBe(false);
  });

  it("a cancelled replacement is refused and names the extension", async () => {
    writeSampleSession(fixture.samplePath);
    const created = fixture.host();
    const { library, actions } = created.windowServices;
    const [item] = items(await library.rescan());
    await actions.open(item!.sessionId);
    leaks.add(
      created.runtime.addExtension({
        id: "test.guard",
        activate(context) {
          context.on("session_before_fork", () => ({ cancel: true }));
        },
      }),
    );
    const error = await actions.clone().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "refused" });
    expect((error as Error).message).toContain("test.guard");
  });
});
