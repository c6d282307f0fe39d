/**
 * The commands that change sessions, through `runCli` on real files written
 * by Pi 1.6 in temp folders, read back by Pi 0.73 and 1.6; one of them
 * through the real executable too. A refused command exits 2 with one line
 * and leaves the file's bytes as they were.
 */

import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { archivedTargets, readSession, inMemoryEntryReader } from "../../../shared/session/index.ts";
import { tempFolder } from "../../runtime/testing.ts";
import { assistantMessage, PI_GENERATIONS, pi16, userMessage } from "../../store/testing/pi.ts";
import { runCli } from "../main.ts";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
let folder: ReturnType<typeof tempFolder>;
const savedEnv = { HOME: process.env.HOME, XDG_DATA_HOME: process.env.XDG_DATA_HOME };

beforeAll(() => {
  folder = tempFolder("arbor-cli-actions-");
  process.env.HOME = join(folder.path, "home");
  process.env.XDG_DATA_HOME = join(folder.path, "home", ".local", "share");
  mkdirSync(process.env.XDG_DATA_HOME, { recursive: true });
});

afterAll(() => {
  for (const [key, value] of Object.entries(savedEnv)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  folder.cleanup();
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function arbor(...argv: string[]): Promise<Run> {
  let stdout = "";
  let stderr = "";
  const code = await runCli(argv, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
  });
  return { code, stdout, stderr };
}

async function json(...argv: string[]): Promise<Record<string, unknown>> {
  const run = await arbor(...argv, "--json");
  if (argv[1] !== undefined && existsSync(argv[1])) settle(argv[1]);
  expect(run.stderr).toBe("");
  expect(run.code).toBe(0);
  expect(run.stdout.endsWith("\n") && run.stdout.split("\n").length === 2).toBe(true);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

/** Exit 2, one line on stderr (then the usage text, for wrong arguments), the file's bytes unchanged. */
async function refused(file: string, pattern: RegExp, ...argv: string[]): Promise<void> {
  const before = existsSync(file) ? readFileSync(file) : null;
  const run = await arbor(...argv);
  expect(run.code).toBe(2);
  const [first, ...rest] = run.stderr.trimEnd().split("\n");
  expect(first).toMatch(pattern);
  if (rest.length > 0) expect(rest[0]).toBe("usage:");
  expect(run.stdout).toBe("");
  expect(existsSync(file) ? readFileSync(file) : null).toEqual(before);
}

/**
 * A change a few seconds old: the CLI, a new process each time, cannot tell
 * its own last write from a Pi's, so a file it wrote just now is live too.
 */
function settle(path: string): void {
  const old = new Date(Date.now() - 60_000);
  utimesSync(path, old, old);
}

/** u1 ─ a1 ┬ u2 ─ a2 ; └ u3 ─ a3 (the file's leaf). Written a minute ago unless `live`. */
function session(live = false): { path: string; ids: Record<string, string> } {
  const dir = join(folder.path, "sessions", `s${Math.random().toString(16).slice(2)}`);
  mkdirSync(dir, { recursive: true });
  const manager = pi16.SessionManager.create("/home/user/project", dir);
  const ids: Record<string, string> = {};
  ids.u1 = manager.appendMessage(userMessage("first question"));
  ids.a1 = manager.appendMessage(assistantMessage("first answer"));
  ids.u2 = manager.appendMessage(userMessage("left question"));
  ids.a2 = manager.appendMessage(assistantMessage("left answer"));
  manager.branch(ids.a1);
  ids.u3 = manager.appendMessage(userMessage("right question"));
  ids.a3 = manager.appendMessage(assistantMessage("right answer"));
  const path = manager.getSessionFile()!;
  if (!live) {
    const old = new Date(Date.now() - 60_000);
    utimesSync(path, old, old);
  }
  return { path, ids };
}

function piManagers(path: string) {
  return PI_GENERATIONS.map(({ name, module }) => ({
    name,
    module,
    manager: module.SessionManager.open(path),
  }));
}

describe("writes", () => {
  it("rename, label, archive, note, continue, edit-context: one entry each, read by Pi as meant", async () => {
    const { path, ids } = session();
    const before = readFileSync(path);
    const contextBefore = piManagers(path).map(({ manager }) => manager.buildSessionContext());

    const renamed = await json("rename", path, "Tidy work");
    expect(renamed).toMatchObject({
      file: path,
      type: "session_info",
      wasLive: false,
      movedResumePoint: false,
    });
    await json("label", path, ids.a1!, "good point");
    await json("archive", path, ids.u2!);
    expect(readFileSync(path).subarray(0, before.length)).toEqual(before);
    for (const [i, { name, manager }] of piManagers(path).entries()) {
      expect(manager.getSessionName(), name).toBe("Tidy work");
      expect(manager.getLabel(ids.a1!), name).toBe("good point");
      expect(manager.buildSessionContext(), name).toEqual(contextBefore[i]);
    }
    const index = readSession(readFileSync(path));
    expect([...archivedTargets(index, inMemoryEntryReader(index))]).toEqual([ids.u2]);
    await json("unarchive", path, ids.u2!);
    await json("label", path, ids.a1!, "--clear");
    expect(piManagers(path)[1]!.manager.getLabel(ids.a1!)).toBeUndefined();

    const note = await json("note", path, "Mind the tests.");
    expect(note.movedResumePoint).toBe(false);
    const resumed = await json("continue", path, ids.a2!);
    expect(resumed).toMatchObject({ type: "custom", movedResumePoint: true, previousLeafId: note.entryId });
    for (const { name, module, manager } of piManagers(path)) {
      expect(manager.buildSessionContext(), name).toEqual(
        module.buildSessionContext(manager.getEntries(), ids.a2!),
      );
    }
    const dropped = await json("edit-context", path, ids.u2!, "--drop");
    const pi16Context = pi16.SessionManager.open(path).buildSessionContext();
    expect(pi16Context.messages.map((message) => message.content)).not.toContainEqual("left question");
    expect(dropped.type).toBe("context_edit");
    await json("edit-context", path, ids.a2!, "--text", "shorter");
    expect(JSON.stringify(pi16.SessionManager.open(path).buildSessionContext())).toContain("shorter");
  });

  it("refuses with one line and writes nothing: a live file without --force, an unknown entry, bad arguments", async () => {
    const { path, ids } = session(true);
    await refused(path, /Pi is writing this session.*--force/, "label", path, ids.a1!, "x");
    const forced = await json("label", path, ids.a1!, "x", "--force");
    expect(forced.wasLive).toBe(true);
    await refused(path, /no entry "nope"/, "archive", path, "nope", "--force");
    await refused(path, /already archived|not archived/, "unarchive", path, ids.a1!, "--force");
    await refused(path, /either --text TEXT .* or --drop/, "edit-context", path, ids.a1!, "--force");
    await refused(path, /expected FILE ENTRY TEXT/, "label", path, ids.a1!);
    await refused(path, /not a user message/, "fork", path, ids.a1!, "--before");
    await refused(
      join(folder.path, "missing.jsonl"),
      /ENOENT/,
      "rename",
      join(folder.path, "missing.jsonl"),
      "x",
    );
  });
});

describe("new files", () => {
  it("fork, clone and new print the new file and its session id; the files are Pi's", async () => {
    const { path, ids } = session();
    const fork = await json("fork", path, ids.a2!);
    expect(dirname(fork.file as string)).toBe(dirname(path));
    const forkIndex = readSession(readFileSync(fork.file as string));
    expect(forkIndex.header).toMatchObject({ id: fork.sessionId, parentSession: path });
    expect(forkIndex.leafId).toBe(ids.a2);

    const before = await json("fork", path, ids.u3!, "--before");
    expect(before).toMatchObject({ leafId: ids.a1, selectedText: "right question" });

    const clone = await json("clone", path, "--leaf", ids.a2!);
    expect(clone).toMatchObject({ leafId: ids.a2, entries: 4 });
    for (const { name, module } of PI_GENERATIONS) {
      expect(module.SessionManager.open(clone.file as string).buildSessionContext(), name).toEqual(
        module.buildSessionContext(module.SessionManager.open(path).getEntries(), ids.a2!),
      );
    }

    const dir = join(folder.path, "new-sessions");
    const created = await json("new", "--cwd", "/home/user/other", "--dir", dir);
    expect(readdirSync(dir)).toEqual([`${(created.file as string).slice(dir.length + 1)}`]);
    expect(readSession(readFileSync(created.file as string)).header).toMatchObject({
      cwd: "/home/user/other",
    });
    // Without --dir: Pi's own folder for the project.
    process.env.PI_CODING_AGENT_DIR = join(folder.path, "agent");
    try {
      const inPi = await json("new", "--cwd", "/home/user/other");
      expect(dirname(inPi.file as string)).toBe(
        join(folder.path, "agent", "sessions", "--home-user-other--"),
      );
    } finally {
      delete process.env.PI_CODING_AGENT_DIR;
    }
  });

  it("export writes md, html and jsonl to new files, never over one", async () => {
    const { path, ids } = session();
    const out = join(folder.path, "exports");
    mkdirSync(out, { recursive: true });
    for (const format of ["md", "html", "jsonl"]) {
      const file = join(out, `branch.${format}`);
      const result = await json("export", path, "--leaf", ids.a2!, "--format", format, "-o", file);
      expect(result).toMatchObject({ file, bytes: readFileSync(file).length });
    }
    expect(readFileSync(join(out, "branch.md"), "utf8")).toContain("left answer");
    expect(readFileSync(join(out, "branch.html"), "utf8")).not.toMatch(/<script|https?:/i);
    const jsonl = readFileSync(join(out, "branch.jsonl"), "utf8");
    const copy = join(out, "branch-copy.jsonl");
    writeFileSync(copy, jsonl);
    expect(pi16.SessionManager.open(copy).buildSessionContext()).toEqual(
      pi16.buildSessionContext(pi16.SessionManager.open(path).getEntries(), ids.a2!),
    );
    await refused(
      join(out, "branch.md"),
      /already exists/,
      "export",
      path,
      "--format",
      "md",
      "-o",
      join(out, "branch.md"),
    );
    await refused(join(out, "x"), /--format must be md, html or jsonl/, "export", path, "--format", "pdf");
    const stdout = await arbor("export", path, "--format", "md");
    expect(stdout.code).toBe(0);
    expect(stdout.stdout).toContain("right answer");
  });
});

describe.skipIf(process.platform !== "linux")("trash", () => {
  it("moves the file to the freedesktop trash; a live one only with --force", async () => {
    const { path } = session();
    const moved = await json("trash", path);
    expect(existsSync(path)).toBe(false);
    expect(moved.trashedTo).toMatch(new RegExp(`^${join(process.env.XDG_DATA_HOME!, "Trash", "files")}`));
    expect(readFileSync(moved.trashedTo as string, "utf8")).toContain('"type":"session"');

    const live = session(true).path;
    await refused(live, /Pi is writing this session.*--force to move it to the trash anyway/, "trash", live);
    await json("trash", live, "--force");
    expect(existsSync(live)).toBe(false);
    await refused(live, /does not exist/, "trash", live);
  });
});

describe("the real executable", () => {
  it("bin/arbor.js labels a session and exits 2 with one line when refused", { timeout: 120_000 }, () => {
    const { path, ids } = session();
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [join(REPO, "bin", "arbor.js"), ...args], { encoding: "utf8" });
    const labelled = run("label", path, ids.a1!, "from the shell", "--json");
    expect(labelled.stderr).toBe("");
    expect(labelled.status).toBe(0);
    expect(JSON.parse(labelled.stdout)).toMatchObject({ file: path, type: "label" });
    const refusal = run("archive", path, "nope");
    expect(refusal.status).toBe(2);
    expect(refusal.stderr).toMatch(/^arbor: There is no entry "nope".*\n$/);
  });
});
