/**
 * Discovery on real folders: what it lists, what it passes over and why, and
 * the symbolic-link rule (followed only inside the session folders).
 */

import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { encodedCwd, tempFolder } from "../runtime/testing.ts";
import { discoverSessionFiles } from "./discover.ts";
import { skipReasons } from "../../shared/error-texts.ts";
import type { SessionRoot } from "./roots.ts";

const HEADER = `${JSON.stringify({ type: "session", version: 3, id: "x", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/p" })}\n`;
const asRoot = (path: string, source: SessionRoot["source"] = "given"): SessionRoot => ({
  path,
  source,
  note: undefined,
});
const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
const isRootUser = typeof process.getuid === "function" && process.getuid() === 0;

let folder: ReturnType<typeof tempFolder>;
let root: string;
let project: string;

beforeEach(() => {
  folder = tempFolder("arbor-discover-");
  root = join(folder.path, "sessions");
  project = join(root, encodedCwd("/work/p"));
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, "good.jsonl"), HEADER);
});

afterEach(() => {
  chmodSync(project, 0o755);
  folder.cleanup();
});

describe("discovery", () => {
  it("lists the session files, and says why it passed over what it passed over", async () => {
    spawnSync("mkfifo", [join(project, "pipe.jsonl")]);
    mkdirSync(join(project, "folder.jsonl"));
    symlinkSync("loop-b.jsonl", join(project, "loop-a.jsonl"));
    symlinkSync("loop-a.jsonl", join(project, "loop-b.jsonl"));
    symlinkSync(join(folder.path, "nowhere.jsonl"), join(project, "dangling.jsonl"));
    writeFileSync(join(project, "notes.txt"), "not a session");
    const found = await discoverSessionFiles([asRoot(root)]);
    expect(found.files.map((file) => file.path)).toEqual([join(project, "good.jsonl")]);
    expect(found.skipped).toEqual(
      [
        { path: join(project, "dangling.jsonl"), reason: skipReasons.linkToNothing },
        { path: join(project, "folder.jsonl"), reason: skipReasons.folder },
        { path: join(project, "loop-a.jsonl"), reason: skipReasons.linkLoop },
        { path: join(project, "loop-b.jsonl"), reason: skipReasons.linkLoop },
        { path: join(project, "pipe.jsonl"), reason: skipReasons.specialFile("a FIFO") },
      ].sort(byPath),
    );
  });

  it("follows no link out of the session folders: a link to /etc/passwd is never listed", async () => {
    symlinkSync("/etc/passwd", join(project, "passwd.jsonl"));
    const outside = join(folder.path, "elsewhere");
    mkdirSync(outside);
    writeFileSync(join(outside, "s.jsonl"), HEADER);
    symlinkSync(outside, join(root, "linked-project"));
    const found = await discoverSessionFiles([asRoot(root)]);
    expect(found.files.map((file) => file.path)).toEqual([join(project, "good.jsonl")]);
    expect(found.skipped).toEqual(
      [
        { path: join(root, "linked-project"), reason: skipReasons.linkOutside(outside) },
        { path: join(project, "passwd.jsonl"), reason: skipReasons.linkOutside("/etc/passwd") },
      ].sort(byPath),
    );
  });

  it("follows links that stay inside the session folders, or lead into a folder the user added", async () => {
    const added = join(folder.path, "added");
    mkdirSync(added);
    writeFileSync(join(added, "mine.jsonl"), HEADER);
    symlinkSync(join(project, "good.jsonl"), join(project, "alias.jsonl"));
    symlinkSync(join(added, "mine.jsonl"), join(project, "to-added.jsonl"));
    const found = await discoverSessionFiles([asRoot(root), asRoot(added, "folder")]);
    // A link to a file already listed is that file: each real file is listed once, under one of its names.
    expect(found.files.map((file) => realpathSync(file.path)).sort()).toEqual(
      [realpathSync(join(project, "good.jsonl")), realpathSync(join(added, "mine.jsonl"))].sort(),
    );
    expect(found.skipped).toEqual([]);
  });

  it.skipIf(isRootUser)(
    "says when a folder may not be listed (skipped as root: permissions do not apply)",
    async () => {
      chmodSync(project, 0o000);
      const found = await discoverSessionFiles([asRoot(root)]);
      expect(found.files).toEqual([]);
      expect(found.skipped).toEqual([{ path: project, reason: skipReasons.folderNoPermission }]);
    },
  );
});
