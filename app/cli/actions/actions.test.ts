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

describe("the rest of the writes: clearing a name, a summary, a note elsewhere, undo", () => {
  it("rename to nothing clears the name; continue --summary is Pi's branch summary; note --at moves the resume point", async () => {
    const { path, ids } = session();
    await json("rename", path, "Named");
    const before = readFileSync(path);
    const cleared = await json("rename", path, "");
    expect(cleared).toMatchObject({ type: "session_info", movedResumePoint: false });
    expect(readFileSync(path).subarray(0, before.length)).toEqual(before);
    for (const { name, manager } of piManagers(path)) expect(manager.getSessionName(), name).toBeUndefined();

    const summary = await json("continue", path, ids.a2!, "--summary", "The right way failed.");
    expect(summary).toMatchObject({ type: "branch_summary", movedResumePoint: true });
    for (const { name, module, manager } of piManagers(path)) {
      const atA2 = module.buildSessionContext(manager.getEntries(), ids.a2!).messages;
      const context = manager.buildSessionContext().messages;
      expect(context.slice(0, -1), name).toEqual(atA2);
      expect(context.at(-1), name).toMatchObject({ role: "branchSummary", summary: "The right way failed." });
    }

    const note = await json("note", path, "Left it is.", "--at", ids.a3!);
    expect(note).toMatchObject({ type: "custom_message", movedResumePoint: true });
    for (const { name, module, manager } of piManagers(path)) {
      expect(manager.getLeafId(), name).toBe(note.entryId);
      const atA3 = module.buildSessionContext(manager.getEntries(), ids.a3!).messages;
      expect(manager.buildSessionContext().messages.slice(0, -1), name).toEqual(atA3);
    }
    await refused(path, /Entry nope is not in/, "note", path, "x", "--at", "nope");
  });

  it("undo reverses the last name, label, archive or continue (or the one named), each by a new entry", async () => {
    const { path, ids } = session();
    const contextBefore = piManagers(path).map(({ manager }) => manager.buildSessionContext());
    await refused(path, /no name, label, archive or continue to undo/, "undo", path);
    await json("rename", path, "First");
    await json("rename", path, "Second");
    const label = await json("label", path, ids.a1!, "kept");
    await json("archive", path, ids.u2!);

    const archive = await json("undo", path);
    expect(archive).toMatchObject({ type: "custom", undid: { kind: "archive" }, movedResumePoint: false });
    const index = readSession(readFileSync(path));
    expect(archivedTargets(index, inMemoryEntryReader(index)).size).toBe(0);

    const unlabelled = await json("undo", path, label.entryId as string);
    expect(unlabelled).toMatchObject({ type: "label", undid: { entryId: label.entryId, kind: "label" } });
    const name = await json(
      "undo",
      path,
      piManagers(path)[1]!
        .manager.getEntries()
        .find((e) => e.type === "session_info" && e.name === "Second")!.id,
    );
    expect(name.undid).toMatchObject({ kind: "name" });
    for (const [i, { name: pi, manager }] of piManagers(path).entries()) {
      expect(manager.getSessionName(), pi).toBe("First");
      expect(manager.getLabel(ids.a1!), pi).toBeUndefined();
      expect(manager.buildSessionContext(), pi).toEqual(contextBefore[i]);
    }

    await json("continue", path, ids.a2!);
    const back = await json("undo", path);
    expect(back).toMatchObject({ undid: { kind: "continue" }, movedResumePoint: true });
    for (const [i, { name: pi, manager }] of piManagers(path).entries())
      expect(manager.buildSessionContext(), pi).toEqual(contextBefore[i]);
    await refused(path, /cannot be undone|not.*undo/i, "undo", path, ids.a1!);
    await refused(path, /expected FILE \[ENTRY\]/, "undo", path, ids.a1!, "extra");
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

describe("import", () => {
  it("copies a checked session, byte for byte, into the folder given or Pi's folder for its cwd; the original only read", async () => {
    const { path, ids } = session();
    const original = readFileSync(path);
    const dir = join(folder.path, "imported");
    const into = await json("import", path, "--dir", dir);
    const header = readSession(original).header!;
    expect(into).toMatchObject({ source: path, sessionId: header.id, counts: { errors: 0 } });
    expect(dirname(into.file as string)).toBe(dir);
    expect((into.file as string).endsWith(`_${header.id}.jsonl`)).toBe(true);
    expect(readFileSync(into.file as string)).toEqual(original);
    expect(readFileSync(path)).toEqual(original);
    for (const { name, module } of PI_GENERATIONS) {
      expect(module.SessionManager.open(into.file as string).getLeafId(), name).toBe(ids.a3);
    }
    // Once is enough: the same session is not imported twice into one folder.
    await refused(join(dir, "none"), /already/, "import", path, "--dir", dir);

    process.env.PI_CODING_AGENT_DIR = join(folder.path, "agent");
    try {
      const inPi = await json("import", path);
      expect(dirname(inPi.file as string)).toBe(
        join(folder.path, "agent", "sessions", "--home-user-project--"),
      );
    } finally {
      delete process.env.PI_CODING_AGENT_DIR;
    }
  });

  it("refuses a file with errors, or that is not a session, with one line and no new file", async () => {
    const dir = join(folder.path, "refused-imports");
    mkdirSync(dir, { recursive: true });
    const damaged = join(folder.path, "damaged.jsonl");
    const { path } = session();
    writeFileSync(damaged, `${readFileSync(path, "utf8")}{"type":"message",\n`);
    await refused(
      damaged,
      /damaged\.jsonl has 1 error .*Nothing was imported/,
      "import",
      damaged,
      "--dir",
      dir,
    );
    const notSession = join(folder.path, "notes.jsonl");
    writeFileSync(notSession, '{"hello":1}\n');
    await refused(notSession, /not a Pi session/, "import", notSession, "--dir", dir);
    expect(readdirSync(dir)).toEqual([]);
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
