/**
 * The session runtime on real files in a temp folder: the order of a
 * replacement's steps, cancellation, stale contexts, failures while
 * preparing the target, and no leaks across a thousand switches.
 */

import { appendFileSync, readFileSync, truncateSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ArborError } from "../../shared/ipc/contract.ts";
import { nextEvent } from "../store/testing/files.ts";
import { toDisposable } from "../../shared/lifecycle/disposable.ts";
import { trackDisposables } from "../../shared/lifecycle/leak-tracker.ts";
import { StaleContextError } from "./errors.ts";
import type { ArborExtension, ExtensionContext } from "./extension.ts";
import { createFollowerExtension } from "./extensions/follower.ts";
import { createOpenMarks } from "./extensions/open-marks.ts";
import { createRecentSessions } from "./extensions/recent-sessions.ts";
import { createWindowTitleExtension } from "./extensions/window-title.ts";
import type { OpenSession, SessionFiles, SessionReloadEvent } from "./open-session.ts";
import { SessionRuntime, type SessionRuntimeOptions } from "./session-runtime.ts";
import { openFileSession, FileSession } from "./file-session.ts";
import {
  namesIn,
  openDescriptorCount,
  SAMPLE_IDS,
  sessionFilesIn,
  tempFolder,
  writeLinearSession,
  writeSampleSession,
} from "./testing.ts";
import { ensureNoLeaks } from "../../shared/lifecycle/testing.ts";

const leaks = ensureNoLeaks();

let folder: ReturnType<typeof tempFolder>;
let dir: string;
let pathA: string;
let pathB: string;
const runtimes: SessionRuntime[] = [];

beforeEach(() => {
  folder = tempFolder();
  dir = join(folder.path, "sessions", "--work-project--");
  pathA = writeSampleSession(join(dir, "2026-01-01T12-00-00-000Z_a.jsonl")).path;
  pathB = writeLinearSession(join(dir, "2026-01-01T13-00-00-000Z_b.jsonl")).path;
});

afterEach(async () => {
  for (const runtime of runtimes.splice(0)) await runtime.close();
  folder.cleanup();
});

function createRuntime(options: SessionRuntimeOptions = {}): SessionRuntime {
  const errors: unknown[] = [];
  const runtime = new SessionRuntime({
    onExtensionError: (error) => errors.push(error),
    ...options,
  });
  runtimes.push(runtime);
  return runtime;
}

/** An extension that logs every step it sees, naming the session by file. */
function loggingExtension(
  log: string[],
  id = "test.logger",
): ArborExtension & { contexts: ExtensionContext[] } {
  const contexts: ExtensionContext[] = [];
  const name = (path: string | undefined) =>
    path === undefined ? "-" : path === pathA ? "A" : path === pathB ? "B" : "new";
  return {
    id,
    contexts,
    activate(context) {
      contexts.push(context);
      const file = name(context.session.path);
      log.push(`activate ${file}`);
      context.register(toDisposable(() => log.push(`dispose ${file}`)));
      context.on("session_before_switch", (event) => {
        log.push(`before_switch ${event.reason} ${name(event.targetSessionFile)}`);
      });
      context.on("session_before_fork", (event) => {
        log.push(`before_fork ${event.position}${event.clone ? " clone" : ""}`);
      });
      context.on("session_shutdown", (event) => {
        log.push(`shutdown ${event.reason} ${file}`);
      });
      context.on("session_start", (event) => {
        log.push(`start ${event.reason} ${file} after ${name(event.previousSessionFile)}`);
      });
    },
  };
}

function cancelling(event: "session_before_switch" | "session_before_fork"): ArborExtension {
  return {
    id: "test.cancel",
    activate(context) {
      context.on(event, async () => ({ cancel: true }));
    },
  };
}

describe("SessionRuntime: the order of a replacement", () => {
  it("switchSession: before -> shutdown -> dispose -> start -> rebind -> withSession", async () => {
    const log: string[] = [];
    const runtime = createRuntime({ extensions: [loggingExtension(log)] });
    leaks.add(
      runtime.setRebindSession(({ reason, session }) => {
        log.push(`rebind ${reason} ${session.path === pathA ? "A" : "B"}`);
      }),
    );
    await runtime.switchSession(pathA);
    expect(log).toEqual(["activate A", "start startup A after -", "rebind startup A"]);
    log.length = 0;
    const result = await runtime.switchSession(pathB, {
      withSession: (context) => {
        log.push(`withSession ${context.session.path === pathB ? "B" : "?"}`);
      },
    });
    expect(result).toEqual({ cancelled: false, cancelledBy: undefined, selectedText: undefined });
    expect(log).toEqual([
      "before_switch resume B",
      "shutdown resume A",
      "dispose A",
      "activate B",
      "start resume B after A",
      "rebind resume B",
      "withSession B",
    ]);
    expect(runtime.session?.path).toBe(pathB);
  });

  it("newSession, fork and clone follow the same order", async () => {
    const log: string[] = [];
    const runtime = createRuntime({ extensions: [loggingExtension(log)] });
    leaks.add(
      runtime.setRebindSession(({ reason }) => {
        log.push(`rebind ${reason}`);
      }),
    );
    await runtime.switchSession(pathA);

    log.length = 0;
    await runtime.fork(SAMPLE_IDS.a2, { position: "at", withSession: () => log.push("withSession") });
    expect(log).toEqual([
      "before_fork at",
      "shutdown fork A",
      "dispose A",
      "activate new",
      "start fork new after A",
      "rebind fork",
      "withSession",
    ]);

    log.length = 0;
    await runtime.clone({ withSession: () => log.push("withSession") });
    expect(log).toEqual([
      "before_fork at clone",
      "shutdown clone new",
      "dispose new",
      "activate new",
      "start clone new after new",
      "rebind clone",
      "withSession",
    ]);

    log.length = 0;
    await runtime.newSession("/work/project", { withSession: () => log.push("withSession") });
    expect(log).toEqual([
      "before_switch new -",
      "shutdown new new",
      "dispose new",
      "activate new",
      "start new new after new",
      "rebind new",
      "withSession",
    ]);
    // Original two plus fork, clone and new: four... each a real file in the same folder.
    expect(sessionFilesIn(dir)).toHaveLength(5);
  });

  it("forks as Pi does: `at` keeps the entry, `before` a user message stops at its parent and returns its text", async () => {
    const runtime = createRuntime();
    await runtime.switchSession(pathA);
    await runtime.fork(SAMPLE_IDS.a2, { position: "at" });
    const forkedAt = runtime.session!;
    expect(forkedAt.index.header?.parentSession).toBe(pathA);
    expect(forkedAt.index.entries.map((entry) => entry.id).slice(0, 4)).toEqual([
      SAMPLE_IDS.u1,
      SAMPLE_IDS.a1,
      SAMPLE_IDS.u2,
      SAMPLE_IDS.a2,
    ]);
    // The label on u2 (on the path) is written again after the path.
    expect(forkedAt.index.labels.get(SAMPLE_IDS.u2)?.label).toBe("checkpoint");

    await runtime.switchSession(pathA);
    const result = await runtime.fork(SAMPLE_IDS.u3, { position: "before" });
    expect(result.selectedText).toBe("Take the right branch");
    expect(runtime.session!.index.leafId).toBe(SAMPLE_IDS.a1);

    await runtime.switchSession(pathA);
    await expect(runtime.fork(SAMPLE_IDS.a1, { position: "before" })).rejects.toMatchObject({
      code: "invalid-request",
    });
    await expect(runtime.fork("nope", { position: "at" })).rejects.toMatchObject({ code: "not-found" });
    expect(runtime.session!.path).toBe(pathA);
  });

  it("forking before the first user message makes an empty session that names its parent", async () => {
    const runtime = createRuntime();
    await runtime.switchSession(pathA);
    const result = await runtime.fork(SAMPLE_IDS.u1, { position: "before" });
    expect(result.selectedText).toBe("Hello tree");
    expect(runtime.session!.index.entries).toHaveLength(0);
    expect(runtime.session!.index.header?.parentSession).toBe(pathA);
  });
});

describe("SessionRuntime: clone at a leaf, fork at any entry, close", () => {
  it("clones the branch ending at a given leaf, with the events of a clone, and refuses an unknown one", async () => {
    const log: string[] = [];
    const runtime = createRuntime({ extensions: [loggingExtension(log)] });
    await runtime.switchSession(pathA);
    log.length = 0;
    await runtime.clone({ leafId: SAMPLE_IDS.a2 });
    expect(log).toEqual([
      "before_fork at clone",
      "shutdown clone A",
      "dispose A",
      "activate new",
      "start clone new after A",
    ]);
    const clone = runtime.session!;
    expect(clone.index.header?.parentSession).toBe(pathA);
    // The path to a2, then the label of u2 made again: the clone's leaf.
    expect(clone.index.entries.map((entry) => entry.type)).toEqual([
      "message",
      "message",
      "message",
      "message",
      "label",
    ]);
    expect(clone.index.labels.get(SAMPLE_IDS.u2)?.label).toBe("checkpoint");
    await expect(runtime.clone({ leafId: "nope" })).rejects.toMatchObject({ code: "not-found" });
    expect(runtime.session).toBe(clone);
  });

  it("forks at entries Pi's /fork does not offer: an assistant message, a thinking level change, a compaction", async () => {
    const runtime = createRuntime();
    for (const entryId of [SAMPLE_IDS.a3, SAMPLE_IDS.t1, SAMPLE_IDS.c1]) {
      await runtime.switchSession(pathA);
      await runtime.fork(entryId, { position: "at" });
      expect(runtime.session!.index.leafId).toBe(entryId);
      expect(runtime.session!.path).not.toBe(pathA);
    }
  });

  it("closeSession shuts the session down and makes its contexts stale; the runtime opens another after", async () => {
    const log: string[] = [];
    const extension = loggingExtension(log);
    const runtime = createRuntime({ extensions: [extension] });
    await runtime.switchSession(pathA);
    const context = runtime.context!;
    log.length = 0;
    await runtime.closeSession();
    expect(log).toEqual(["shutdown quit A", "dispose A"]);
    expect(runtime.session).toBeUndefined();
    expect(() => context.session.index).toThrow(StaleContextError);
    expect(() => extension.contexts[0]!.session.path).toThrow(StaleContextError);
    await runtime.closeSession();
    log.length = 0;
    await runtime.switchSession(pathB);
    expect(log).toEqual(["activate B", "start startup B after -"]);
  });
});

describe("SessionRuntime: cancellation", () => {
  for (const kind of ["switch", "new", "fork", "clone"] as const) {
    it(`a cancelled ${kind} leaves everything as it was`, async () => {
      const log: string[] = [];
      const logger = loggingExtension(log);
      const event = kind === "switch" || kind === "new" ? "session_before_switch" : "session_before_fork";
      let rebinds = 0;
      const runtime = createRuntime({ extensions: [logger, cancelling(event)] });
      leaks.add(
        runtime.setRebindSession(() => {
          rebinds++;
        }),
      );
      await runtime.switchSession(pathA);
      const session = runtime.session!;
      const context = runtime.context!;
      const files = namesIn(dir);
      const bytes = readFileSync(pathA, "utf8");
      log.length = 0;
      rebinds = 0;
      let ranWithSession = false;
      const withSession = () => {
        ranWithSession = true;
      };
      const result =
        kind === "switch"
          ? await runtime.switchSession(pathB, { withSession })
          : kind === "new"
            ? await runtime.newSession("/work/project", { withSession })
            : kind === "fork"
              ? await runtime.fork(SAMPLE_IDS.a2, { position: "at", withSession })
              : await runtime.clone({ withSession });
      expect(result).toEqual({ cancelled: true, cancelledBy: "test.cancel", selectedText: undefined });
      expect(log).toEqual([
        kind === "switch"
          ? "before_switch resume B"
          : kind === "new"
            ? "before_switch new -"
            : `before_fork at${kind === "clone" ? " clone" : ""}`,
      ]);
      expect(rebinds).toBe(0);
      expect(ranWithSession).toBe(false);
      expect(runtime.session).toBe(session);
      expect(runtime.context).toBe(context);
      expect(context.isStale).toBe(false);
      expect(logger.contexts[0]!.isStale).toBe(false);
      expect(context.session.index.leafId).toBe(SAMPLE_IDS.l1);
      expect(namesIn(dir)).toEqual(files);
      expect(readFileSync(pathA, "utf8")).toBe(bytes);
    });
  }
});

describe("SessionRuntime: stale contexts", () => {
  it("everything captured from a closed session throws StaleContextError, saying what to do", async () => {
    const log: string[] = [];
    const logger = loggingExtension(log);
    const runtime = createRuntime({ extensions: [logger] });
    await runtime.switchSession(pathA);
    const captured = logger.contexts[0]!;
    const hostContext = runtime.context!;
    const access = captured.session;
    expect(access.index.leafId).toBe(SAMPLE_IDS.l1);
    let fresh: ExtensionContext | undefined;
    await runtime.switchSession(pathB, {
      withSession: (context) => {
        fresh = context;
      },
    });

    expect(captured.isStale).toBe(true);
    expect(captured.signal.aborted).toBe(true);
    expect(hostContext.isStale).toBe(true);
    expect(() => access.index).toThrow(StaleContextError);
    expect(() => access.path).toThrow(StaleContextError);
    expect(() => captured.session.services).toThrow(StaleContextError);
    expect(() => captured.on("session_start", () => {})).toThrow(StaleContextError);
    // What is handed to a stale context is disposed, not left to leak.
    let handedOver = false;
    expect(() => captured.register(toDisposable(() => (handedOver = true)))).toThrow(StaleContextError);
    expect(handedOver).toBe(true);
    expect(() => access.onDidAppend(() => {})).toThrow(StaleContextError);
    await expect(access.appendLabel(SAMPLE_IDS.u1, "late")).rejects.toBeInstanceOf(StaleContextError);
    await expect(captured.runtime.switchSession(pathA)).rejects.toBeInstanceOf(StaleContextError);

    let error: unknown;
    try {
      void captured.session.index;
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(StaleContextError);
    expect(error).toBeInstanceOf(ArborError);
    const stale = error as StaleContextError;
    expect(stale.code).toBe("stale");
    expect(stale.reason).toBe("resume");
    expect(stale.sessionFile).toBe(pathA);
    expect(stale.message).toContain("test.logger");
    expect(stale.message).toContain("switched to another session");
    expect(stale.message).toContain("withSession");
    // The file was not touched by the late append.
    expect(readFileSync(pathA, "utf8")).not.toContain("late");

    expect(fresh!.isStale).toBe(false);
    expect(fresh!.session.path).toBe(pathB);
    await runtime.switchSession(pathA);
    expect(() => fresh!.session.index).toThrow(StaleContextError);
  });

  it("replacements run one at a time, each planned against the session the one before left", async () => {
    const log: string[] = [];
    const runtime = createRuntime({ extensions: [loggingExtension(log)] });
    await runtime.switchSession(pathA);
    log.length = 0;
    const [, cloned] = await Promise.all([runtime.switchSession(pathB), runtime.clone()]);
    expect(cloned.cancelled).toBe(false);
    // The clone is of B, which was open by the time the clone ran.
    expect(runtime.session!.index.header?.parentSession).toBe(pathB);
    expect(log.filter((line) => line.startsWith("start"))).toEqual([
      "start resume B after A",
      "start clone new after B",
    ]);
  });

  it("the context withSession gets hears the new session's events", async () => {
    const runtime = createRuntime();
    await runtime.switchSession(pathA);
    const heard: string[] = [];
    await runtime.switchSession(pathB, {
      withSession: (context) => {
        context.on("session_before_switch", (event) => {
          heard.push(`before ${event.reason}`);
        });
        context.on("session_shutdown", (event) => {
          heard.push(`shutdown ${event.reason}`);
        });
      },
    });
    await runtime.newSession("/work/project");
    expect(heard).toEqual(["before new", "shutdown new"]);
  });

  it("withSession can replace the session again, and gets a working context", async () => {
    const runtime = createRuntime();
    await runtime.switchSession(pathA);
    await runtime.switchSession(pathB, {
      withSession: async (context) => {
        await context.runtime.switchSession(pathA);
      },
    });
    expect(runtime.session!.path).toBe(pathA);
  });

  it("closing the runtime sends session_shutdown (quit) and makes the last contexts stale", async () => {
    const log: string[] = [];
    const logger = loggingExtension(log);
    const runtime = createRuntime({ extensions: [logger] });
    await runtime.switchSession(pathA);
    log.length = 0;
    await runtime.close();
    expect(log).toEqual(["shutdown quit A", "dispose A"]);
    expect(() => logger.contexts[0]!.session.index).toThrow(/session was closed/);
    await expect(runtime.switchSession(pathB)).rejects.toMatchObject({ code: "refused" });
  });
});

describe("SessionRuntime: failures while preparing the target", () => {
  async function expectOldSessionUsable(runtime: SessionRuntime, log: string[], session: OpenSession) {
    expect(runtime.session).toBe(session);
    expect(runtime.context!.isStale).toBe(false);
    expect(log.filter((line) => line.startsWith("shutdown") || line.startsWith("dispose"))).toEqual([]);
    expect(runtime.context!.session.index.leafId).toBe(SAMPLE_IDS.l1);
    const appended = await runtime.context!.session.appendLabel(SAMPLE_IDS.u1, "still usable");
    expect(session.index.labels.get(SAMPLE_IDS.u1)?.label).toBe("still usable");
    expect(session.index.leafId).toBe(appended.entryId);
  }

  it("a file that cannot be opened leaves the old session open and usable", async () => {
    const log: string[] = [];
    const runtime = createRuntime({ extensions: [loggingExtension(log)] });
    await runtime.switchSession(pathA);
    const session = runtime.session!;
    log.length = 0;
    await expect(runtime.switchSession(join(dir, "missing.jsonl"))).rejects.toMatchObject({ code: "ENOENT" });
    expect(log).toEqual(["before_switch resume new"]);
    await expectOldSessionUsable(runtime, log, session);
  });

  it("a new file that cannot be written leaves the old session open and usable", async () => {
    const log: string[] = [];
    const failing: SessionFiles = {
      createNew: async () => {
        throw new Error("disk full");
      },
      createFork: async () => {
        throw new Error("disk full");
      },
    };
    const runtime = createRuntime({ extensions: [loggingExtension(log)], files: failing });
    await runtime.switchSession(pathA);
    const session = runtime.session!;
    log.length = 0;
    await expect(runtime.fork(SAMPLE_IDS.a2, { position: "at" })).rejects.toThrow("disk full");
    await expect(runtime.clone()).rejects.toThrow("disk full");
    await expect(runtime.newSession("/work/project")).rejects.toThrow("disk full");
    await expectOldSessionUsable(runtime, log, session);
  });

  it("a new file that cannot be opened is removed again, and the old session stays", async () => {
    const log: string[] = [];
    let opens = 0;
    const runtime = createRuntime({
      extensions: [loggingExtension(log)],
      openSession: async (path) => {
        opens++;
        if (opens > 1) throw new Error("cannot open");
        return openFileSession(path);
      },
    });
    await runtime.switchSession(pathA);
    const session = runtime.session!;
    const before = namesIn(dir);
    log.length = 0;
    await expect(runtime.fork(SAMPLE_IDS.a2, { position: "at" })).rejects.toThrow("cannot open");
    expect(namesIn(dir)).toEqual(before);
    await expectOldSessionUsable(runtime, log, session);
  });

  it("an extension that throws is reported and the session opens anyway", async () => {
    const errors: { error: unknown; extensionId: string; during: string }[] = [];
    const broken: ArborExtension = {
      id: "test.broken",
      activate(context) {
        context.on("session_start", () => {
          throw new Error("start failed");
        });
        context.on("session_before_switch", () => {
          throw new Error("before failed");
        });
        throw new Error("activate failed");
      },
    };
    const runtime = createRuntime({
      extensions: [broken],
      onExtensionError: (error, where) => errors.push({ error, ...where }),
    });
    await runtime.switchSession(pathA);
    await runtime.switchSession(pathB);
    expect(runtime.session!.path).toBe(pathB);
    expect(errors.map((e) => `${e.extensionId} ${e.during} ${(e.error as Error).message}`)).toEqual([
      "test.broken activate activate failed",
      "test.broken session_start start failed",
      "test.broken session_before_switch before failed",
      "test.broken activate activate failed",
      "test.broken session_start start failed",
    ]);
  });
});

describe("SessionRuntime: extensions added and removed", () => {
  it("an added extension is activated for the open session and later ones; removing it makes its context stale", async () => {
    const log: string[] = [];
    const runtime = createRuntime();
    await runtime.switchSession(pathA);
    const logger = loggingExtension(log, "test.late");
    const added = runtime.addExtension(logger);
    await runtime.switchSession(pathB);
    expect(log).toEqual([
      "activate A",
      "before_switch resume B",
      "shutdown resume A",
      "dispose A",
      "activate B",
      "start resume B after A",
    ]);
    added.dispose();
    expect(log.at(-1)).toBe("dispose B");
    expect(() => logger.contexts[1]!.session.index).toThrow(/extension was removed/);
    expect(() => leaks.add(runtime.addExtension(createFollowerExtension()))).not.toThrow();
    expect(() => runtime.addExtension(createFollowerExtension())).toThrow(/already added/);
  });
});

describe("SessionRuntime: the session is the store's", () => {
  it("followed while open: Pi's appends arrive, a truncation reloads, a switch stops following", async () => {
    const runtime = createRuntime({ extensions: [createFollowerExtension()] });
    await runtime.switchSession(pathA);
    const session = runtime.session!;
    expect(session).toBeInstanceOf(FileSession);
    const store = (session as FileSession).store;
    expect(store.following).toBe(true);
    const context = runtime.context!;

    const appended = nextEvent<{ added: readonly string[] }>(
      (listener) => context.session.onDidAppend(listener),
      "append",
    );
    appendFileSync(
      pathA,
      `${JSON.stringify({
        type: "message",
        id: "cc000001",
        parentId: SAMPLE_IDS.l1,
        timestamp: "2026-01-01T13:00:00.000Z",
        message: { role: "user", content: "from Pi", timestamp: 1 },
      })}\n`,
    );
    expect((await appended).added).toEqual(["cc000001"]);
    expect(context.session.index.leafId).toBe("cc000001");
    // Arbor's label goes below Pi's entry.
    const label = await context.session.appendLabel(SAMPLE_IDS.u1, "after Pi");
    expect(context.session.index.nodes.get(label.entryId)!.parentId).toBe("cc000001");

    const reloaded = nextEvent<SessionReloadEvent>(
      (listener) => context.session.onDidReload(listener),
      "reload",
    );
    const text = readFileSync(pathA, "utf8");
    truncateSync(pathA, text.indexOf("\n") + 1);
    expect((await reloaded).reason).toBe("truncated");
    expect(context.session.index.entries).toHaveLength(0);

    await runtime.switchSession(pathB);
    expect(store.following).toBe(false);
    expect(() => session.index).toThrow(/was closed/);
    expect((runtime.session as FileSession).store.following).toBe(true);
  });

  it("forks and clones are written by app/store and name their source", async () => {
    const runtime = createRuntime();
    await runtime.switchSession(pathA);
    await runtime.clone();
    const clone = runtime.session!;
    expect(clone.index.header?.parentSession).toBe(pathA);
    expect(clone.index.leafId).not.toBeNull();
    // Pi's createBranchedSession: the path without label entries, then the labels again.
    expect(clone.index.entries.filter((entry) => entry.type !== "label").map((entry) => entry.id)).toEqual([
      SAMPLE_IDS.u1,
      SAMPLE_IDS.a1,
      SAMPLE_IDS.u3,
      SAMPLE_IDS.a3,
      SAMPLE_IDS.t1,
      SAMPLE_IDS.c1,
      SAMPLE_IDS.u4,
    ]);
    expect(clone.index.labels.size).toBe(0); // the label on u2 is not on this path
    expect(namesIn(dir).filter((name) => !name.endsWith(".jsonl"))).toEqual([]);
  });
});

describe("SessionRuntime: no leaks", () => {
  it("1,000 switches with Arbor's own extensions leave nothing behind", async () => {
    const tracker = trackDisposables({ stacks: false });
    try {
      const openMarks = createOpenMarks();
      const recent = createRecentSessions({ dataDir: join(folder.path, "data") });
      const titles: string[] = [];
      const runtime = new SessionRuntime({
        extensions: [
          createFollowerExtension(),
          openMarks.extension,
          recent.extension,
          createWindowTitleExtension((title) => titles.push(title)),
        ],
      });
      let rebinds = 0;
      const rebinding = runtime.setRebindSession(() => {
        rebinds++;
      });
      const roots = [runtime, openMarks, recent, rebinding];
      await runtime.switchSession(pathA);
      await runtime.switchSession(pathB);
      const aliveAfterTwo = tracker.aliveCount;
      const descriptorsAfterTwo = openDescriptorCount();
      for (let i = 0; i < 1000; i++) await runtime.switchSession(i % 2 === 0 ? pathA : pathB);
      expect(rebinds).toBe(1002);
      expect(tracker.aliveCount).toBe(aliveAfterTwo);
      expect(tracker.leaks(roots)).toEqual([]);
      if (descriptorsAfterTwo !== null) expect(openDescriptorCount()).toBe(descriptorsAfterTwo);
      expect(openMarks.openPaths()).toEqual([pathB]);
      expect(recent.list().map((item) => item.path)).toEqual([pathB, pathA]);
      expect(titles.at(-1)).toBe("Question 1 — project — Arbor");

      await runtime.close();
      rebinding.dispose();
      expect(openMarks.openPaths()).toEqual([]);
      expect(titles.at(-1)).toBe("Arbor");
      expect(tracker.leaks([openMarks, recent])).toEqual([]);
      openMarks.dispose();
      recent.dispose();
      tracker.assertNoLeaks();
      expect(tracker.aliveCount).toBe(0);
      expect(tracker.createdCount).toBeGreaterThan(10_000);
    } finally {
      tracker.stop();
    }
  });

  it("forks and clones dispose what they replace too", async () => {
    const tracker = trackDisposables();
    try {
      const runtime = new SessionRuntime({ extensions: [createFollowerExtension()] });
      await runtime.switchSession(pathA);
      for (let i = 0; i < 20; i++) {
        await runtime.fork(SAMPLE_IDS.a2, { position: "at" });
        await runtime.clone();
        await runtime.switchSession(pathA);
      }
      expect(tracker.leaks([runtime])).toEqual([]);
      await runtime.close();
      tracker.assertNoLeaks();
    } finally {
      tracker.stop();
    }
  });
});
