/**
 * Stale temporaries: a real writer killed mid-write leaves its temporary file,
 * and the next start (a library's first scan) removes it; a live writer's
 * temporary, a young one and any name Arbor does not write stay.
 */

import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { createSessionLibrary } from "../library/index.ts";
import {
  isStaleTemporary,
  newFileTemporaryPath,
  ownerMayBeWriting,
  removeStaleSessionTemporaries,
  removeStaleTemporaries,
  temporaryOwner,
} from "./stale-temporaries.ts";
import { tempDirs } from "./testing/files.ts";

const dirs = tempDirs("stale-temporaries");
afterAll(() => dirs.cleanup());

const WRITER = fileURLToPath(new URL("./testing/crashing-writer.ts", import.meta.url));
const LONG_AGO = new Date(Date.now() - 10 * 60_000);

function age(path: string): void {
  utimesSync(path, LONG_AGO, LONG_AGO);
}

/** The pid of a process that has exited. */
function deadPid(): number {
  const pid = spawnSync(process.execPath, ["-e", ""]).pid;
  expect(ownerMayBeWriting(pid)).toBe(false);
  return pid;
}

/** Starts the crashing writer on `finalPath`; resolves once its temporary holds the first part. */
async function halfWrite(finalPath: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", WRITER, finalPath], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  await new Promise<void>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes("half-written")) resolve();
    });
    child.on("exit", (code) => reject(new Error(`the writer exited early (${code})`)));
  });
  return child;
}

function kill(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.on("exit", () => resolve());
    child.kill("SIGKILL");
  });
}

describe("stale temporaries", () => {
  it("a writer killed mid-write leaves its temporary; the next start removes it, not a live writer's", {
    timeout: 60_000,
  }, async () => {
    const root = dirs.make();
    const project = join(root, "--project--");
    mkdirSync(project);
    const crashed = await halfWrite(join(project, "crashed.jsonl"));
    const live = await halfWrite(join(project, "live.jsonl"));
    let liveTemp = "";
    try {
      await kill(crashed);
      const names = readdirSync(project).sort();
      expect(names).toHaveLength(2);
      const crashedTemp = names.find((name) => name.startsWith(".crashed.jsonl."))!;
      liveTemp = names.find((name) => name.startsWith(".live.jsonl."))!;
      expect(temporaryOwner(crashedTemp, "new-file")).toBe(crashed.pid);
      expect(temporaryOwner(liveTemp, "new-file")).toBe(live.pid);
      // Just killed: younger than a minute, it may be a writer that has not shown up yet.
      expect(await removeStaleSessionTemporaries(root)).toEqual([]);
      age(join(project, crashedTemp));
      age(join(project, liveTemp));
      // A new start: the library's first scan of the root.
      const library = createSessionLibrary({ roots: [root], cacheDir: null });
      await library.scan();
      await library.dispose();
      expect(readdirSync(project)).toEqual([liveTemp]);
    } finally {
      if (live.exitCode === null) await kill(live);
    }
    // Its writer gone, the live one's goes as well (a sweep runs once per process and root, so directly).
    expect(await removeStaleSessionTemporaries(root)).toEqual([join(project, liveTemp)]);
    expect(existsSync(join(project, "crashed.jsonl"))).toBe(false);
  });

  it("leaves every name Arbor does not write, and a live non-Arbor pid's temporary goes", async () => {
    const root = dirs.make();
    const project = join(root, "--p--");
    mkdirSync(project);
    const dead = deadPid();
    const sleeper = spawn("sleep", ["30"]);
    try {
      expect(ownerMayBeWriting(sleeper.pid!)).toBe(false);
      const kept = [
        "notes.tmp",
        ".s.jsonl.tmp",
        // An older Arbor's form, without a pid: its owner cannot be known.
        ".s.jsonl.0123456789ab.tmp",
        `s.jsonl.${dead}.0123456789ab.tmp`,
        `.s.json.${dead}.0123456789ab.tmp`,
        `.s.jsonl.${dead}.0123456789ab.tmp.bak`,
        `.s.jsonl.${dead}.0123456789AB.tmp`,
        `.s.jsonl.${process.pid}.0123456789ab.tmp`,
      ];
      const gone = [`.s.jsonl.${dead}.0123456789ab.tmp`, `.t.jsonl.${sleeper.pid}.00000000aaaa.tmp`];
      for (const name of [...kept, ...gone]) {
        writeFileSync(join(project, name), "x");
        age(join(project, name));
      }
      mkdirSync(join(project, `.d.jsonl.${dead}.0123456789ab.tmp`));
      const removed = await removeStaleSessionTemporaries(root);
      expect(removed.sort()).toEqual(gone.map((name) => join(project, name)).sort());
      expect(readdirSync(project).sort()).toEqual([...kept, `.d.jsonl.${dead}.0123456789ab.tmp`].sort());
    } finally {
      sleeper.kill("SIGKILL");
    }
  });

  it("names new files' temporaries with the writer's pid; saved parses' likewise", async () => {
    const temp = newFileTemporaryPath("/x/2026_abc.jsonl");
    expect(temporaryOwner(temp.slice(3), "new-file")).toBe(process.pid);
    const dir = dirs.make();
    const dead = deadPid();
    const key = "0123456789abcdef0123456789abcdef01234567";
    const names = [`${key}.json.${dead}.tmp`, `${key}.view.${dead}.tmp`, `${key}.json.${process.pid}.tmp`];
    for (const name of names) {
      writeFileSync(join(dir, name), "{");
      age(join(dir, name));
    }
    writeFileSync(join(dir, `${key}.json.${dead}.young.tmp`), "{");
    expect((await removeStaleTemporaries(dir, "saved-parse")).sort()).toEqual(
      names.slice(0, 2).map((name) => join(dir, name)),
    );
    expect(isStaleTemporary(`${key}.json.${dead}.tmp`, Date.now() - 1000, "saved-parse")).toBe(false);
  });
});
