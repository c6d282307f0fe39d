/** Arbor's own features as extensions: following, recent sessions, the window title, the "open" marks. */

import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ArborExtension } from "./extension.ts";
import { createFollowerExtension } from "./extensions/follower.ts";
import { createOpenMarks } from "./extensions/open-marks.ts";
import { createRecentSessions, RECENT_SESSIONS_FILE } from "./extensions/recent-sessions.ts";
import { createWindowTitleExtension } from "./extensions/window-title.ts";
import type { SessionAppendEvent } from "./open-session.ts";
import { SessionRuntime } from "./session-runtime.ts";
import { SAMPLE_IDS, tempFolder, writeLinearSession, writeSampleSession } from "./testing.ts";
import { ensureNoLeaks } from "../../shared/lifecycle/testing.ts";

const leaks = ensureNoLeaks();

let folder: ReturnType<typeof tempFolder>;
let pathA: string;
let pathB: string;
const runtimes: SessionRuntime[] = [];

beforeEach(() => {
  folder = tempFolder();
  pathA = writeSampleSession(join(folder.path, "a.jsonl"), { cwd: "/work/alpha" }).path;
  pathB = writeLinearSession(join(folder.path, "b.jsonl"), { cwd: "/work/beta" }).path;
});

afterEach(async () => {
  for (const runtime of runtimes.splice(0)) await runtime.close();
  folder.cleanup();
});

function runtimeWith(...extensions: ArborExtension[]): SessionRuntime {
  const runtime = new SessionRuntime({ extensions });
  runtimes.push(runtime);
  return runtime;
}

describe("follower", () => {
  it("follows the open session from session_start and stops at session_shutdown", async () => {
    const runtime = runtimeWith(createFollowerExtension());
    await runtime.switchSession(pathA);
    const appended = new Promise<SessionAppendEvent>((resolve) => {
      runtime.context!.session.onDidAppend(resolve);
    });
    appendFileSync(
      pathA,
      `${JSON.stringify({ type: "session_info", id: "dd000001", parentId: SAMPLE_IDS.l1, timestamp: "2026-01-02T00:00:00.000Z", name: "Live" })}\n`,
    );
    expect((await appended).added).toEqual(["dd000001"]);
    expect(runtime.session!.index.sessionName).toBe("Live");

    const old = runtime.session!;
    await runtime.switchSession(pathB);
    // The old session is closed: its follower is gone with it.
    expect(() => old.index).toThrow(/closed/);
  });
});

describe("recent sessions", () => {
  it("lists opened sessions newest first, persists them, and survives a damaged file", async () => {
    const dataDir = join(folder.path, "data");
    let clock = Date.UTC(2026, 1, 1);
    const tick = () => {
      clock += 1000;
      return new Date(clock);
    };
    const recent = createRecentSessions({ dataDir, limit: 2, now: tick });
    const runtime = runtimeWith(recent.extension);
    await runtime.switchSession(pathA);
    await runtime.switchSession(pathB);
    await runtime.switchSession(pathA);
    expect(recent.list().map((item) => item.path)).toEqual([pathA, pathB]);
    await runtime.fork(SAMPLE_IDS.a2, { position: "at" });
    const forked = runtime.session!.path;
    expect(recent.list().map((item) => item.path)).toEqual([forked, pathA]);
    expect(recent.writeError).toBeUndefined();

    const again = createRecentSessions({ dataDir });
    expect(again.list()).toEqual(recent.list());
    again.forget(pathA);
    expect(
      leaks
        .add(createRecentSessions({ dataDir }))
        .list()
        .map((item) => item.path),
    ).toEqual([forked]);

    writeFileSync(join(dataDir, RECENT_SESSIONS_FILE), "{not json");
    const damaged = createRecentSessions({ dataDir });
    expect(damaged.list()).toEqual([]);
    const other = runtimeWith(damaged.extension);
    await other.switchSession(pathB);
    const saved = JSON.parse(readFileSync(join(dataDir, RECENT_SESSIONS_FILE), "utf8"));
    expect(saved).toMatchObject({ version: 1, sessions: [{ path: pathB }] });
    for (const list of [recent, again, damaged]) list.dispose();
  });
});

describe("window title", () => {
  it("names the session and its project, follows renames, and goes back to Arbor on close", async () => {
    const titles: string[] = [];
    const runtime = runtimeWith(createWindowTitleExtension((title) => titles.push(title)));
    await runtime.switchSession(pathA);
    expect(titles).toEqual(["Hello tree — alpha — Arbor"]);
    await runtime.context!.session.appendSessionName("Tree work");
    expect(titles.at(-1)).toBe("Tree work — alpha — Arbor");
    // A direction control in a name would reorder the title bar: shown, never applied.
    await runtime.context!.session.appendSessionName("invoice\u202Etxt.exe");
    expect(titles.at(-1)).toBe("invoice⟨RLO⟩txt.exe — alpha — Arbor");
    await runtime.switchSession(pathB);
    expect(titles.at(-1)).toBe("Question 1 — beta — Arbor");
    await runtime.close();
    expect(titles.at(-1)).toBe("Arbor");
  });
});

describe("open marks", () => {
  it("marks a file open while any window has it open", async () => {
    const marks = createOpenMarks();
    const changes: number[] = [];
    const subscription = marks.onDidChange(() => changes.push(marks.openPaths().length));
    const first = runtimeWith(marks.extension);
    const second = runtimeWith(marks.extension);
    await first.switchSession(pathA);
    await second.switchSession(pathA);
    expect(marks.isOpen(pathA)).toBe(true);
    await first.switchSession(pathB);
    expect(marks.isOpen(pathA)).toBe(true);
    expect(marks.openPaths().sort()).toEqual([pathA, pathB].sort());
    await second.close();
    expect(marks.isOpen(pathA)).toBe(false);
    expect(marks.openPaths()).toEqual([pathB]);
    expect(changes).toEqual([1, 2, 1]);
    subscription.dispose();
    marks.dispose();
  });
});
