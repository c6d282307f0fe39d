/**
 * Whole sessions through the handlers, as a window asks: trash (the open
 * session closed first, `session.closed` sent) and restore for real in a
 * temp XDG data home, export, Open in Pi with a fake launcher, and import
 * of content a window sends into a project's folder.
 */

import { existsSync, mkdirSync, readFileSync, utimesSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ArborError, MAX_IMPORT_BYTES } from "../../shared/ipc/contract.ts";
import { ensureNoLeaks } from "../../shared/lifecycle/testing.ts";
import { readSession } from "../../shared/session/index.ts";
import { collect, hostsInTempFolder, items, request } from "../ipc/testing.ts";
import { SAMPLE_IDS, tempFolder, writeLinearSession, writeSampleSession } from "../runtime/testing.ts";
import type { Launcher } from "./open-in-pi.ts";

ensureNoLeaks();

const fixture = hostsInTempFolder("arbor-manage-");
let home: ReturnType<typeof tempFolder>;
const savedEnv = { HOME: process.env.HOME, XDG_DATA_HOME: process.env.XDG_DATA_HOME };

beforeAll(() => {
  home = tempFolder("arbor-manage-home-");
  process.env.HOME = home.path;
  process.env.XDG_DATA_HOME = join(home.path, ".local", "share");
  mkdirSync(process.env.XDG_DATA_HOME, { recursive: true });
});

afterAll(() => {
  for (const [key, value] of Object.entries(savedEnv)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  home.cleanup();
});

async function refused(promise: Promise<unknown>, code: string): Promise<ArborError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ArborError);
    expect((error as ArborError).code).toBe(code);
    return error as ArborError;
  }
  throw new Error(`expected ${code}`);
}

function oldSample(): string {
  const path = writeSampleSession(fixture.samplePath).path;
  const old = new Date(Date.now() - 60_000);
  utimesSync(path, old, old);
  return path;
}

describe.skipIf(process.platform !== "linux")("trash and restore", () => {
  it("closes the open session first, moves it to the trash, and restores it; a live one waits for confirmation", async () => {
    const path = oldSample();
    const bytes = readFileSync(path);
    const created = fixture.host({ demo: false });
    const { handlers } = created;
    const [item] = items(await request(handlers, "library.rescan", {}));
    await request(handlers, "session.open", { sessionId: item!.sessionId });
    const seen = collect(created);
    const trashed = await request(handlers, "session.trash", { sessionId: item!.sessionId });
    expect(trashed).toMatchObject({ sessionId: item!.sessionId, path, closed: true, restorable: true });
    expect(existsSync(path)).toBe(false);
    expect(seen[0]).toEqual({
      name: "session.closed",
      payload: { sessionId: item!.sessionId, reason: "trashed" },
    });
    expect(await request(handlers, "session.current", {})).toBeNull();
    expect(created.runtime.session).toBeUndefined();

    const restored = await request(handlers, "session.restore", { trashId: trashed.trashId });
    expect(restored).toEqual({ sessionId: item!.sessionId, path });
    expect(readFileSync(path)).toEqual(bytes);
    await refused(request(handlers, "session.restore", { trashId: trashed.trashId }), "not-found");

    // Written just now (a Pi may be writing it): refused until confirmed, the file left where it is.
    const linear = writeLinearSession(join(dirname(path), "2026-01-02T00-00-00-000Z_l.jsonl")).path;
    await request(handlers, "library.rescan", {});
    const linearId = items(await request(handlers, "library.list", {})).find(
      (row) => row.path === linear,
    )!.sessionId;
    const error = await refused(request(handlers, "session.trash", { sessionId: linearId }), "conflict");
    expect(error.message).toMatch(/Confirm to move it to the trash anyway/);
    expect(existsSync(linear)).toBe(true);
    const confirmed = await request(handlers, "session.trash", { sessionId: linearId, confirmLive: true });
    expect(confirmed.closed).toBe(false);
    expect(existsSync(linear)).toBe(false);
  });
});

describe("export, Open in Pi, import", () => {
  it("exports a library session's branch by id, and the open session's when no id is given", async () => {
    oldSample();
    const { handlers } = fixture.host({ demo: false });
    const [item] = items(await request(handlers, "library.rescan", {}));
    const markdown = await request(handlers, "session.export", {
      sessionId: item!.sessionId,
      leafId: SAMPLE_IDS.a2,
      format: "markdown",
    });
    expect(markdown.content).toContain("Went left.");
    expect(markdown.content).not.toContain("Went right.");
    await refused(request(handlers, "session.export", { format: "jsonl" }), "refused");
    await request(handlers, "session.open", { sessionId: item!.sessionId });
    const jsonl = await request(handlers, "session.export", { format: "jsonl" });
    const index = readSession(jsonl.content);
    // Pi's fork of the branch to l1: label entries left out, and u2's label is not on the path.
    expect(index.leafId).toBe(SAMPLE_IDS.u4);
    expect(index.entries.some((entry) => entry.type === "label")).toBe(false);
    expect(index.header?.parentSession).toBe(fixture.samplePath);
    await refused(request(handlers, "session.export", { leafId: "nope", format: "html" }), "not-found");
  });

  it("opens Pi in a terminal through the launcher, or answers with the command to run", async () => {
    oldSample();
    const started: (readonly string[])[] = [];
    let fail = false;
    const launcher: Launcher = async (argv) => {
      if (fail) throw new Error("no terminal");
      started.push(argv);
    };
    const { handlers } = fixture.host({ demo: false, launcher });
    const [item] = items(await request(handlers, "library.rescan", {}));
    const opened = await request(handlers, "session.openInPi", { sessionId: item!.sessionId });
    expect(opened).toMatchObject({ launched: true, message: null });
    expect(started[0]!.slice(-3)).toEqual(["pi", "--session", fixture.samplePath]);
    fail = true;
    const failed = await request(handlers, "session.openInPi", { sessionId: item!.sessionId });
    expect(failed.launched).toBe(false);
    expect(failed.message).toContain(failed.command);
  });

  it("imports content a window sends into the project's folder, refusing what is too large or damaged", async () => {
    oldSample();
    const created = fixture.host({ demo: false });
    const { handlers } = created;
    const [item] = items(await request(handlers, "library.rescan", {}));
    const content = readFileSync(
      writeLinearSession(join(fixture.folder, "elsewhere", "x.jsonl"), {
        headerId: "019b7a4e-0000-7000-8000-0000000000aa",
      }).path,
      "utf8",
    );
    const imported = await request(handlers, "session.import", {
      projectId: item!.projectId,
      content,
      fileName: "x.jsonl",
    });
    expect(imported!.path.startsWith(dirname(fixture.samplePath))).toBe(true);
    expect(imported!.path).toMatch(/_019b7a4e-0000-7000-8000-0000000000aa\.jsonl$/);
    expect(readFileSync(imported!.path, "utf8")).toBe(content);
    expect(imported!.report.counts).toEqual({ errors: 0, warnings: 0, notes: 0 });
    expect(await created.windowServices.library.sessionPath(imported!.sessionId)).toBe(imported!.path);

    const large = await refused(
      request(handlers, "session.import", {
        projectId: item!.projectId,
        content: "x".repeat(MAX_IMPORT_BYTES + 1),
      }),
      "refused",
    );
    expect(large.message).toMatch(/at most 8 MB/);
    await refused(
      request(handlers, "session.import", {
        projectId: item!.projectId,
        content: "{broken\n",
        fileName: "b.jsonl",
      }),
      "refused",
    );
    // Under arbor serve there is no dialog to choose a file with.
    await refused(request(handlers, "session.import", { projectId: item!.projectId }), "invalid-request");
  });
});
