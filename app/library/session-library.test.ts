import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { contextView, sessionViewContent, treeNodeViews } from "../../shared/ipc/views.ts";
import { decodeNodes } from "../../shared/ipc/node-table.ts";
import { ensureNoLeaks } from "../../shared/lifecycle/testing.ts";
import { openIndexedFile } from "../store/open-indexed-file.ts";
import { SessionStore } from "../store/session-store.ts";
import { writeSessionEntry } from "../store/write-entry.ts";
import { createParseCache } from "../store/parse-cache.ts";
import { snapshot } from "../store/testing/files.ts";
import { CACHE_FILE } from "./cache.ts";
import { createSessionLibrary, type ScanProgress, type SessionLibraryOptions } from "./session-library.ts";
import { encodedCwd, type PiSessionInfo, piSessionManager, SessionBuilder, tempFolder } from "./testing.ts";

// The archive test opens a store of its own.
ensureNoLeaks();

let folder: ReturnType<typeof tempFolder>;
let agentDir: string;
let sessionsDir: string;
let cacheDir: string;
let home: string;

beforeEach(() => {
  folder = tempFolder();
  agentDir = join(folder.path, "agent");
  sessionsDir = join(agentDir, "sessions");
  cacheDir = join(folder.path, "cache");
  home = join(folder.path, "home");
  mkdirSync(sessionsDir, { recursive: true });
  mkdirSync(home);
});
afterEach(() => folder.cleanup());

function library(options: Partial<SessionLibraryOptions> = {}) {
  return createSessionLibrary({
    cacheDir,
    env: { PI_CODING_AGENT_DIR: agentDir },
    homeDir: home,
    ...options,
  });
}

const usage = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { total: 0 } };

interface PiWriter {
  appendMessage(message: Record<string, unknown>): string;
  appendSessionInfo(name: string): string;
  createBranchedSession(leafId: string): string | undefined;
  getSessionFile(): string | undefined;
  getEntries(): { id: string }[];
  branch(entryId: string): void;
}
interface PiStatics {
  create(cwd: string, dir: string): PiWriter;
  open(path: string, dir?: string): PiWriter;
  forkFrom(source: string, cwd: string, dir: string): PiWriter;
  listAll(dir?: string): Promise<PiSessionInfo[]>;
}

const Pi = (await piSessionManager()) as unknown as PiStatics;

/** A session written by Pi 1.6 itself into Pi's folder for `cwd`; returns its manager (file written). */
function piSession(cwd: string, prompt: string, start: number): PiWriter {
  const manager = Pi.create(cwd, join(sessionsDir, encodedCwd(cwd)));
  manager.appendMessage({ role: "user", content: prompt, timestamp: start });
  manager.appendMessage({
    role: "assistant",
    content: [{ type: "text", text: `answer to ${prompt}` }],
    api: "anthropic-messages",
    provider: "anthropic",
    model: "claude",
    usage,
    stopReason: "stop",
    timestamp: start + 1000,
  });
  return manager;
}

/** Pi 1.6's listAll() over a copy of the agent folder (so Pi never sees the files Arbor reads), paths mapped back. */
async function piListAll(): Promise<PiSessionInfo[]> {
  const copy = join(folder.path, "pi-copy");
  rmSync(copy, { recursive: true, force: true });
  cpSync(agentDir, copy, { recursive: true, preserveTimestamps: true });
  const saved = process.env.PI_CODING_AGENT_DIR;
  process.env.PI_CODING_AGENT_DIR = copy;
  try {
    const sessions = await Pi.listAll();
    return sessions.map((session) => ({
      ...session,
      path: join(agentDir, session.path.slice(copy.length + 1)),
    }));
  } finally {
    if (saved === undefined) delete process.env.PI_CODING_AGENT_DIR;
    else process.env.PI_CODING_AGENT_DIR = saved;
    rmSync(copy, { recursive: true, force: true });
  }
}

function writeHandmade(path: string, id: string, cwd: string, prompt: string, start: number): string {
  const session = new SessionBuilder(id, cwd, { start });
  session.user(prompt);
  session.assistant(`answer to ${prompt}`);
  return session.write(path);
}

describe("listing", () => {
  it("groups sessions by the header's cwd, in Pi's order, across project folders and flat folders", async () => {
    const t = Date.UTC(2026, 2, 1);
    piSession("/home/u/alpha", "alpha one", t);
    piSession("/home/u/alpha", "alpha two", t + 3_600_000);
    piSession("/home/u/beta", "beta one", t + 1_800_000);
    // A session that was moved into another project's folder is still alpha's.
    writeHandmade(
      join(sessionsDir, encodedCwd("/home/u/beta"), "moved.jsonl"),
      "019b-moved",
      "/home/u/alpha",
      "moved",
      t + 60_000,
    );
    // A custom session folder keeps files flat, as Pi does with --session-dir.
    const flat = join(folder.path, "flat");
    writeHandmade(join(flat, "f1.jsonl"), "019b-flat1", "/home/u/beta", "flat one", t + 7_200_000);
    writeHandmade(join(flat, "f2.jsonl"), "019b-flat2", "/home/u/gamma", "flat two", t + 100);

    const lib = library({ extraFolders: [flat] });
    const report = await lib.scan();
    expect(report).toMatchObject({ total: 6, read: 6, fromCache: 0, failed: 0 });
    expect(report.roots.map((r) => [r.root.source, r.files])).toEqual([
      ["default", 4],
      ["folder", 2],
    ]);
    const { projects, sessions } = lib.list();

    const pi = [...(await piListAll()), ...(await Pi.listAll(flat))];
    const piGroups = new Map<string, string[]>();
    for (const session of pi.sort((a, b) => b.modified.getTime() - a.modified.getTime())) {
      piGroups.set(session.cwd, [...(piGroups.get(session.cwd) ?? []), session.path]);
    }
    expect(new Map(projects.map((project) => [project.cwd, project.sessions.map((s) => s.path)]))).toEqual(
      piGroups,
    );
    expect(projects.map((project) => project.cwd)).toEqual([
      "/home/u/beta",
      "/home/u/alpha",
      "/home/u/gamma",
    ]);
    expect(sessions.map((s) => s.firstMessage)).toEqual(
      pi.sort((a, b) => b.modified.getTime() - a.modified.getTime()).map((s) => s.firstMessage),
    );
    expect(sessions.find((s) => s.id === "019b-flat1")?.root).toBe(flat);
    await lib.dispose();
  });

  it("links forks to their parents (Pi's own forks), children oldest first", async () => {
    const parent = piSession("/home/u/alpha", "the original", Date.UTC(2026, 2, 1));
    const parentPath = parent.getSessionFile()!;
    const leaf = parent.appendSessionInfo("Original");
    const fork1 = Pi.open(parentPath, join(sessionsDir, encodedCwd("/home/u/alpha")));
    const fork1Path = fork1.createBranchedSession(leaf)!;
    const fork2Path = Pi.forkFrom(
      fork1Path,
      "/home/u/beta",
      join(sessionsDir, encodedCwd("/home/u/beta")),
    ).getSessionFile()!;
    const fork3 = Pi.open(parentPath, join(sessionsDir, encodedCwd("/home/u/alpha")));
    const fork3Path = fork3.createBranchedSession(leaf)!;
    writeHandmade(
      join(sessionsDir, "orphan.jsonl"),
      "019b-orphan",
      "/home/u/alpha",
      "orphan",
      Date.UTC(2026, 2, 2),
    );
    const orphan = new SessionBuilder("019b-lost", "/home/u/alpha", { parentSession: "/nowhere/gone.jsonl" });
    orphan.user("my parent is gone");
    orphan.write(join(sessionsDir, encodedCwd("/home/u/alpha"), "lost.jsonl"));

    const lib = library();
    await lib.scan();
    const byPath = (path: string) => lib.session(path)!;
    expect(byPath(parentPath)).toMatchObject({ parentPath: undefined, children: [fork1Path, fork3Path] });
    expect(byPath(fork1Path)).toMatchObject({ parentSession: parentPath, parentPath, children: [fork2Path] });
    expect(byPath(fork2Path)).toMatchObject({ parentPath: fork1Path, children: [], cwd: "/home/u/beta" });
    expect(byPath(fork3Path).parentPath).toBe(parentPath);
    const lost = lib.list().sessions.find((s) => s.id === "019b-lost")!;
    expect(lost).toMatchObject({ parentSession: "/nowhere/gone.jsonl", parentPath: undefined });
    // Pi's own listing names the same parents.
    for (const session of await piListAll()) {
      expect(byPath(session.path).parentSession).toBe(session.parentSessionPath);
    }
    const fork2Id = byPath(fork2Path).id;
    await lib.dispose();

    // A library copied elsewhere: Pi's absolute parent paths no longer exist, the file names still match.
    const moved = join(folder.path, "moved");
    cpSync(sessionsDir, moved, { recursive: true });
    const copy = createSessionLibrary({ roots: [moved], cacheDir: null });
    await copy.scan();
    const movedChild = copy.list().sessions.find((s) => s.id === fork2Id)!;
    expect(movedChild.parentPath).toBe(fork1Path.replace(sessionsDir, moved));
    await copy.dispose();
  });
});

describe("cache", () => {
  function threeSessions(): string[] {
    const dir = join(sessionsDir, encodedCwd("/home/u/alpha"));
    return [1, 2, 3].map((n) =>
      writeHandmade(
        join(dir, `s${n}.jsonl`),
        `019c-000${n}`,
        "/home/u/alpha",
        `prompt ${n}`,
        Date.UTC(2026, 3, n),
      ),
    );
  }

  it("a second start reads only the files that changed", async () => {
    const paths = threeSessions();
    const first = library();
    expect(await first.scan()).toMatchObject({ cache: "absent", read: 3, fromCache: 0 });
    const listed = first.list();
    await first.dispose();
    expect(existsSync(join(cacheDir, CACHE_FILE))).toBe(true);

    const second = library();
    expect(await second.scan()).toMatchObject({ cache: "loaded", read: 0, fromCache: 3, removed: 0 });
    expect(second.list()).toEqual(listed);
    await second.dispose();

    // Touched: same bytes, new mtime.
    const later = new Date(Date.UTC(2026, 5, 1));
    utimesSync(paths[0]!, later, later);
    // Appended to: Pi wrote another message.
    appendFileSync(
      paths[1]!,
      `${JSON.stringify({ type: "message", id: "extra001", parentId: null, timestamp: "2026-06-02T00:00:00.000Z", message: { role: "user", content: "one more", timestamp: Date.UTC(2026, 5, 2) } })}\n`,
    );
    const third = library();
    expect(await third.scan()).toMatchObject({ cache: "loaded", read: 2, fromCache: 1 });
    expect(third.session(paths[1]!)?.messageCount).toBe(3);
    expect(third.session(paths[1]!)?.modified).toBe(Date.UTC(2026, 5, 2));
    // The index came from the cache, the changed files' terms on top.
    expect((await third.search("one more")).map((hit) => hit.entryId)).toEqual(["extra001"]);
    expect(await third.search("answer")).toHaveLength(3);
    // Within one library, nothing changed means nothing read.
    expect(await third.scan()).toMatchObject({ cache: "in-memory", read: 0, fromCache: 3 });
    await third.dispose();

    // Replaced by another file of the same size and mtime: the inode tells.
    const stats = statSync(paths[2]!);
    const replacement = `${paths[2]}.new`;
    writeFileSync(replacement, readFileSync(paths[2]!, "utf8").replace("prompt 3", "prompt X"));
    renameSync(replacement, paths[2]!);
    utimesSync(paths[2]!, stats.atime, stats.mtime);
    rmSync(paths[0]!);
    const fourth = library();
    expect(await fourth.scan()).toMatchObject({ read: 1, fromCache: 1, removed: 1, total: 2 });
    expect(fourth.session(paths[2]!)?.firstMessage).toBe("prompt X");
    await fourth.dispose();
  });

  it("a corrupt cache is ignored and rebuilt", async () => {
    threeSessions();
    const first = library();
    await first.scan();
    const listed = first.list();
    await first.dispose();
    const good = readFileSync(join(cacheDir, CACHE_FILE), "utf8");

    for (const damage of [
      "",
      "{ not json",
      good.slice(0, good.length / 2),
      JSON.stringify({ format: "arbor-session-library", version: 999, files: [] }),
      JSON.stringify({ format: "something else", version: 1, files: [] }),
      JSON.stringify([1, 2, 3]),
    ]) {
      writeFileSync(join(cacheDir, CACHE_FILE), damage);
      const lib = library();
      const report = await lib.scan();
      expect(report, JSON.stringify(damage.slice(0, 40))).toMatchObject({ cache: "ignored", read: 3 });
      expect(lib.list()).toEqual(listed);
      await lib.dispose();
      const again = library();
      expect(await again.scan()).toMatchObject({ cache: "loaded", read: 0 });
      await again.dispose();
    }
  });

  it("a damaged record or a lost search index costs only the files concerned", async () => {
    threeSessions();
    await library().scan();
    const cache = JSON.parse(readFileSync(join(cacheDir, CACHE_FILE), "utf8")) as {
      files: Record<string, unknown>[];
    };
    cache.files[0]!.messageCount = "many";
    writeFileSync(join(cacheDir, CACHE_FILE), JSON.stringify(cache));
    expect(await library().scan()).toMatchObject({ cache: "loaded", read: 1, fromCache: 2 });

    const index = readdirSync(cacheDir).find((name) => name.startsWith("search-"))!;
    writeFileSync(join(cacheDir, index), "{ broken");
    const lib = library();
    expect(await lib.scan()).toMatchObject({ cache: "loaded", read: 3, fromCache: 0 });
    expect(await lib.search("answer")).toHaveLength(3);
    // Only the current index file is kept.
    expect(readdirSync(cacheDir).filter((name) => name.startsWith("search-"))).toHaveLength(1);
    await lib.dispose();
  });

  it("loads the search index only when a search needs it, and rebuilds one damaged in place", async () => {
    threeSessions();
    await library().scan();
    const indexPath = () => join(cacheDir, readdirSync(cacheDir).find((name) => name.startsWith("search-"))!);
    // Same size, other bytes: only parsing it can tell.
    writeFileSync(indexPath(), " ".repeat(statSync(indexPath()).size));
    const lib = library();
    expect(await lib.scan()).toMatchObject({ read: 0, fromCache: 3 });
    expect(await lib.search("answer")).toHaveLength(3);
    await lib.dispose();
    const after = library();
    expect(await after.scan()).toMatchObject({ read: 0, fromCache: 3 });
    // Removed after the scan: the warm scan did not need it, the search does.
    rmSync(indexPath());
    expect(await after.search("answer")).toHaveLength(3);
    await after.dispose();
    expect(await library().scan()).toMatchObject({ read: 0, fromCache: 3 });
  });

  it("works without a cache folder, and survives one it cannot write", async () => {
    threeSessions();
    const memory = library({ cacheDir: null });
    expect(await memory.scan()).toMatchObject({ cache: "disabled", read: 3 });
    await memory.dispose();
    expect(existsSync(cacheDir)).toBe(false);

    writeFileSync(join(folder.path, "a-file"), "");
    const blocked = library({ cacheDir: join(folder.path, "a-file", "cache") });
    const report = await blocked.scan();
    expect(report.read).toBe(3);
    expect(report.cacheWriteError).toBeTruthy();
    expect(blocked.list().sessions).toHaveLength(3);
    await blocked.dispose();
  });
});

describe("scanning", () => {
  function manySessions(count: number): void {
    for (let n = 0; n < count; n++) {
      const cwd = `/home/u/p${n % 3}`;
      writeHandmade(
        join(sessionsDir, encodedCwd(cwd), `s${n}.jsonl`),
        `019d-${n}`,
        cwd,
        `prompt ${n}`,
        Date.UTC(2026, 4, 1) + n,
      );
    }
  }

  it("reports progress from 0 to the total", async () => {
    manySessions(12);
    const events: ScanProgress[] = [];
    const lib = library({ concurrency: 3 });
    await lib.scan({ onProgress: (progress) => events.push(progress) });
    expect(events[0]).toEqual({ loaded: 0, total: 12 });
    expect(events.at(-1)).toEqual({ loaded: 12, total: 12 });
    expect(events.map((e) => e.loaded)).toEqual([...events.map((e) => e.loaded)].sort((a, b) => a - b));
    expect(events.every((e) => e.total === 12)).toBe(true);
    await lib.dispose();

    const warm: ScanProgress[] = [];
    const again = library();
    await again.scan({ onProgress: (progress) => warm.push(progress) });
    expect(warm).toEqual([
      { loaded: 0, total: 12 },
      { loaded: 12, total: 12 },
    ]);
    await again.dispose();
  });

  it("stops on abort, keeps what it read, and scans fully afterwards", async () => {
    manySessions(20);
    const lib = library({ concurrency: 1 });
    const controller = new AbortController();
    const scan = lib.scan({
      signal: controller.signal,
      onProgress: ({ loaded }) => {
        if (loaded === 5) controller.abort();
      },
    });
    await expect(scan).rejects.toMatchObject({ name: "AbortError" });
    const partial = lib.list().sessions.length;
    expect(partial).toBeGreaterThanOrEqual(5);
    expect(partial).toBeLessThan(20);
    expect(existsSync(join(cacheDir, CACHE_FILE))).toBe(false);
    const report = await lib.scan();
    expect(report).toMatchObject({ total: 20, read: 20 - partial, fromCache: partial });
    expect(lib.list().sessions).toHaveLength(20);

    const aborted = AbortSignal.abort();
    await expect(lib.scan({ signal: aborted })).rejects.toMatchObject({ name: "AbortError" });
    await lib.dispose();
  });

  it("runs scans one at a time", async () => {
    manySessions(6);
    const lib = library();
    const [a, b] = await Promise.all([lib.scan(), lib.scan()]);
    expect(a.read).toBe(6);
    expect(b).toMatchObject({ read: 0, fromCache: 6 });
    await lib.dispose();
  });

  it("dispose stops a running scan and refuses further calls", async () => {
    manySessions(10);
    const lib = library({ concurrency: 1 });
    let dispose: Promise<void> | undefined;
    const scan = lib.scan({
      onProgress: ({ loaded }) => {
        if (loaded === 2) dispose = lib.dispose();
      },
    });
    await expect(scan).rejects.toThrow();
    await dispose;
    expect(() => lib.scan()).toThrow(/disposed/);
    await expect(lib.search("prompt")).rejects.toThrow(/disposed/);
  });

  it("finds nothing, without failing, when Pi's folder does not exist yet", async () => {
    rmSync(sessionsDir, { recursive: true });
    const lib = library();
    const report = await lib.scan();
    expect(report).toMatchObject({ total: 0 });
    expect(report.roots[0]).toMatchObject({ exists: false, error: undefined });
    expect(lib.list()).toEqual({ projects: [], sessions: [], failed: [] });
    await lib.dispose();
  });
});

describe("refresh", () => {
  /** The file's session as a library that reads it whole for the first time lists it. */
  async function readWhole(path: string) {
    const fresh = library({ cacheDir: null });
    await fresh.scan();
    const session = fresh.session(path);
    await fresh.dispose();
    return session;
  }

  it("reads only what Pi appended, and lists the file as a full read would", async () => {
    const pi = piSession("/home/u/live", "first prompt", Date.UTC(2026, 6, 1));
    const path = pi.getSessionFile()!;
    const lib = library();
    await lib.scan();
    expect(lib.session(path)).toMatchObject({ messageCount: 2, name: undefined });

    pi.appendMessage({ role: "user", content: "second prompt", timestamp: Date.UTC(2026, 6, 2) });
    pi.appendSessionInfo("  Live one  ");
    pi.appendMessage({
      role: "toolResult",
      toolCallId: "c1",
      toolName: "bash",
      content: [{ type: "text", text: "ok" }],
      isError: false,
      timestamp: Date.UTC(2026, 6, 3),
    });
    const refreshed = await lib.refresh(path);
    expect(refreshed).toMatchObject({ messageCount: 4, name: "Live one", modified: Date.UTC(2026, 6, 2) });
    expect(refreshed).toEqual(await readWhole(path));
    expect(lib.list().sessions[0]).toEqual(refreshed);

    // Nothing new: the same summary. A line still being written counts once it ends.
    expect(await lib.refresh(path)).toEqual(refreshed);
    const line = JSON.stringify({
      type: "message",
      id: "late0001",
      parentId: null,
      timestamp: "2026-07-04T00:00:00.000Z",
      message: {
        role: "assistant",
        content: [{ type: "text", text: "late answer" }],
        timestamp: Date.UTC(2026, 6, 4),
      },
    });
    appendFileSync(path, line.slice(0, 40));
    expect(await lib.refresh(path)).toMatchObject({ messageCount: 4 });
    appendFileSync(path, `${line.slice(40)}\n`);
    const ended = await lib.refresh(path);
    expect(ended).toMatchObject({ messageCount: 5, modified: Date.UTC(2026, 6, 4) });
    expect(ended).toEqual(await readWhole(path));

    // Its search terms wait for the next scan, which reads the file whole.
    expect(await lib.scan()).toMatchObject({ read: 1 });
    expect((await lib.search("late answer")).map((hit) => hit.entryId)).toEqual(["late0001"]);
    expect(lib.session(path)).toEqual(ended);
    await lib.dispose();
  });

  it("leaves the messages of archived branches out of the count, at a scan and a refresh", async () => {
    const pi = piSession("/home/u/archive", "first prompt", Date.UTC(2026, 6, 1));
    const path = pi.getSessionFile()!;
    const firstId = pi.getEntries()[0]!.id;
    pi.branch(firstId);
    const sideId = pi.appendMessage({
      role: "user",
      content: "side question",
      timestamp: Date.UTC(2026, 6, 2),
    });
    pi.appendMessage({ role: "user", content: "side again", timestamp: Date.UTC(2026, 6, 3) });
    const lib = library();
    await lib.scan();
    expect(lib.session(path)).toMatchObject({ messageCount: 4, archivedMessageCount: 0 });

    const writeArchive = (archived: boolean) => {
      const store = SessionStore.open(path);
      try {
        store.append(writeSessionEntry, {
          write: { kind: "archive", targetId: sideId, archived },
          reader: store.reader,
        });
      } finally {
        store.dispose();
      }
    };
    writeArchive(true);
    const refreshed = await lib.refresh(path);
    // Pi's count stays (every message); the archived branch holds two of them.
    expect(refreshed).toMatchObject({ messageCount: 4, archivedMessageCount: 2 });
    expect(refreshed).toEqual(await readWhole(path));
    // A message Pi appends elsewhere is counted; one more marker shows the branch again.
    writeArchive(false);
    expect(await lib.refresh(path)).toMatchObject({ messageCount: 4, archivedMessageCount: 0 });
    await lib.dispose();
  });

  it("gives a session Pi started empty its first message, and counts damaged lines by number", async () => {
    const dir = join(sessionsDir, encodedCwd("/home/u/new"));
    const session = new SessionBuilder("019e-0001", "/home/u/new", { start: Date.UTC(2026, 7, 1) });
    const path = session.write(join(dir, "new.jsonl"));
    const lib = library();
    await lib.scan();
    expect(lib.session(path)).toMatchObject({ firstMessage: "(no messages)", messageCount: 0 });

    appendFileSync(
      path,
      `${JSON.stringify({ type: "message", id: "u1", parentId: null, timestamp: "2026-08-01T00:05:00.000Z", message: { role: "user", content: "hello there" } })}\nnot json\n`,
    );
    const refreshed = await lib.refresh(path);
    expect(refreshed).toMatchObject({
      firstMessage: "hello there",
      messageCount: 1,
      badLines: 1,
      firstBadLine: 3,
    });
    expect(refreshed).toEqual(await readWhole(path));
    await lib.dispose();
  });

  it("leaves a replaced or unknown file to the next scan", async () => {
    const pi = piSession("/home/u/gone", "a prompt", Date.UTC(2026, 6, 1));
    const path = pi.getSessionFile()!;
    const lib = library();
    await lib.scan();
    const before = lib.session(path);
    expect(await lib.refresh(join(sessionsDir, "nowhere.jsonl"))).toBeUndefined();
    const replacement = `${path}.new`;
    writeFileSync(
      replacement,
      `${readFileSync(path, "utf8")}${JSON.stringify({ type: "session_info", id: "n1", parentId: null, timestamp: "2026-07-09T00:00:00.000Z", name: "Other" })}\n`,
    );
    renameSync(replacement, path);
    expect(await lib.refresh(path)).toBeUndefined();
    expect(lib.session(path)).toEqual(before);
    await lib.scan();
    expect(lib.session(path)).toMatchObject({ name: "Other" });
    await lib.dispose();
  });
});

describe("saved parses for the explorer", () => {
  it("a scan saves the parse and view of a session that has none; the store then opens it without parsing; a gone file loses it", async () => {
    const first = piSession("/home/u/alpha", "alpha one", Date.UTC(2026, 2, 1)).getSessionFile()!;
    const second = piSession("/home/u/beta", "beta one", Date.UTC(2026, 2, 2)).getSessionFile()!;
    const parseCache = createParseCache(join(folder.path, "open-cache"), { minBytes: 0 });
    const scanned = library({ parseCache });
    await scanned.scan();
    expect(parseCache.has(first)).toBe(true);
    expect(parseCache.has(second)).toBe(true);

    const opened = openIndexedFile(first, { mode: "structure-with-facts", parseCache });
    // The view the explorer is sent, without an index built for it.
    const saved = opened.savedView!;
    const fresh = openIndexedFile(first, { mode: "structure-with-facts" });
    expect(decodeNodes(saved.nodesJson)).toEqual(treeNodeViews(fresh.index, fresh.reader));
    expect(saved.content).toEqual(sessionViewContent(fresh.index, fresh.reader));
    expect(JSON.parse(saved.leafContextJson!)).toEqual(
      JSON.parse(JSON.stringify(contextView(fresh.index, fresh.reader, fresh.index.leafId, false))),
    );
    expect(opened.read).toEqual({ from: "saved", tailBytes: 0 });
    expect(snapshot(opened.index)).toEqual(snapshot(fresh.index));
    opened.close();
    fresh.close();

    rmSync(second);
    await scanned.scan();
    expect(parseCache.has(second)).toBe(false);
    await scanned.dispose();
  });

  it("a legacy (version 1) session is not parsed for it: it could not be saved", async () => {
    const path = join(sessionsDir, encodedCwd("/home/u/old"), "old.jsonl");
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(
      path,
      '{"type":"session","id":"old","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/home/u/old"}\n' +
        '{"type":"message","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"hi"}}\n',
    );
    const parseCache = createParseCache(join(folder.path, "open-cache"), { minBytes: 0 });
    const scanned = library({ parseCache });
    await scanned.scan();
    expect(scanned.list().sessions.map((session) => session.path)).toContain(path);
    expect(parseCache.has(path)).toBe(false);
    await scanned.dispose();
  });

  it("files below the cache's size are not parsed for it", async () => {
    const path = piSession("/home/u/alpha", "alpha one", Date.UTC(2026, 2, 1)).getSessionFile()!;
    const parseCache = createParseCache(join(folder.path, "open-cache"), { minBytes: 1024 * 1024 });
    const scanned = library({ parseCache });
    await scanned.scan();
    expect(parseCache.has(path)).toBe(false);
    await scanned.dispose();
  });
});
