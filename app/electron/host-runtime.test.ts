/**
 * The window runtime over app/ipc's host, without Electron: a file the shell
 * hands it is open for the window's requests, its events reach the window,
 * and the window-title extension sets the title.
 */

import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ArborError, type EventName } from "../../shared/ipc/contract.ts";
import { decodeSessionView, type WireSessionView } from "../../shared/ipc/wire.ts";
import { dispatch } from "../ipc/bind.ts";
import { createSharedHostParts } from "../ipc/host.ts";
import { encodedCwd, SAMPLE_IDS, tempFolder, writeSampleSession } from "../runtime/testing.ts";
import { createHostWindowRuntimes } from "./host-runtime.ts";
import type { WindowRuntime } from "./window-runtime.ts";
import { ensureNoLeaks } from "../../shared/lifecycle/testing.ts";

ensureNoLeaks();

let folder: ReturnType<typeof tempFolder>;
let sessionPath: string;
let runtime: WindowRuntime | undefined;
let shared: ReturnType<typeof createSharedHostParts>;
let events: { name: EventName; payload: unknown }[];
let titles: string[];

beforeEach(() => {
  folder = tempFolder("arbor-host-runtime-");
  const root = join(folder.path, "sessions");
  sessionPath = join(root, encodedCwd("/work/project"), "2026-01-01T12-00-00-000Z_sample.jsonl");
  writeSampleSession(sessionPath);
  events = [];
  titles = [];
  const dataDir = join(folder.path, "user-data");
  // What the app's windows share lives as long as the app: here, as long as the test.
  shared = createSharedHostParts({ dataDir, roots: [root] });
  runtime = createHostWindowRuntimes({ version: "9.9.9", dataDir, roots: [root], demo: false, shared })({
    emit: (name, payload) => events.push({ name, payload }),
    setTitle: (title) => titles.push(title),
  });
});

afterEach(async () => {
  await runtime?.close();
  await shared.dispose();
  folder.cleanup();
});

describe("createHostWindowRuntimes", () => {
  it("answers as the Electron transport", async () => {
    expect(await dispatch(runtime!.handlers, "app.info", {})).toEqual({
      result: { version: "9.9.9", transport: "electron", theme: "system" },
    });
  });

  it("opens the file the shell hands it, tells the window and titles it", async () => {
    await runtime!.switchToFile(sessionPath);
    const current = await dispatch(runtime!.handlers, "session.current", {});
    expect(current).toMatchObject({ result: { path: sessionPath } });
    // Answers leave in their wire form (the renderer decodes them).
    const wire = (current as { result: WireSessionView }).result;
    const ids = decodeSessionView(wire)
      .nodes.toArray()
      .map((node) => node.id);
    expect(ids).toContain(SAMPLE_IDS.u1);
    expect(events.map((event) => event.name)).toContain("session.switched");
    expect(titles.length).toBeGreaterThan(0);
  });

  it("starts a new session in the project of the one on view, and refuses with none open", async () => {
    await expect(runtime!.newSession()).rejects.toBeInstanceOf(ArborError);
    await runtime!.switchToFile(sessionPath);
    await runtime!.newSession();
    const current = await dispatch(runtime!.handlers, "session.current", {});
    expect(current).toMatchObject({ result: { cwd: "/work/project" } });
    expect((current as { result: { path: string } }).result.path).not.toBe(sessionPath);
  });

  it("reports a file that cannot be opened as an error", async () => {
    await expect(runtime!.switchToFile(join(folder.path, "missing.jsonl"))).rejects.toThrow();
  });
});
