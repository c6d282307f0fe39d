/**
 * The runtime's `SessionFiles` (over `app/store/new-file.ts`), from sessions
 * opened as the runtime opens them (`FileSession`): forks against Pi 1.6's
 * own `createBranchedSession`, the same entries in the same order (label
 * entries dropped and re-created, the path re-chained) whatever entry the
 * fork ends at and however the source was parsed; new sessions and forks
 * with no entries.
 */

import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateSession } from "../../shared/session/testing/generate-session.ts";
import type { ParseMode } from "../../shared/session/parse.ts";
import { createSessionFiles } from "./session-files.ts";
import { openFileSession, fileSessionFactory } from "./file-session.ts";
import { SAMPLE_IDS, tempFolder, writeSampleSession } from "./testing.ts";
import { ensureNoLeaks } from "../../shared/lifecycle/testing.ts";

ensureNoLeaks();

interface PiSessionManager {
  createBranchedSession(leafId: string): string | undefined;
}
interface PiSessionManagerStatics {
  open(path: string, sessionDir?: string): PiSessionManager;
}

const PI16_SESSION_MANAGER = new URL(
  "../../node_modules/@earendil-works/pi-coding-agent/dist/core/session-manager.js",
  import.meta.url,
);

let folder: ReturnType<typeof tempFolder>;
let Pi: PiSessionManagerStatics;

beforeAll(async () => {
  folder = tempFolder();
  Pi = ((await import(PI16_SESSION_MANAGER.href)) as { SessionManager: PiSessionManagerStatics })
    .SessionManager;
});

afterAll(() => folder.cleanup());

function readLines(path: string): Record<string, unknown>[] {
  return readFileSync(path, "utf8")
    .trimEnd()
    .split("\n")
    .map((text) => JSON.parse(text));
}

/** Entries with label ids replaced by their position, so files written apart compare equal. */
function comparable(lines: Record<string, unknown>[]): unknown[] {
  const [, ...entries] = lines;
  const renamed = new Map<string, string>();
  entries.forEach((entry, i) => {
    if (entry.type === "label") renamed.set(entry.id as string, `label-${i}`);
  });
  const name = (id: unknown) => (typeof id === "string" ? (renamed.get(id) ?? id) : id);
  return entries.map((entry) => ({ ...entry, id: name(entry.id), parentId: name(entry.parentId) }));
}

async function compareWithPi(source: string, leafId: string, tag: string, mode?: ParseMode) {
  const piDir = join(folder.path, `pi-${tag}`);
  const arborDir = join(folder.path, `arbor-${tag}`);
  mkdirSync(piDir, { recursive: true });
  // The runtime forks into the source's own folder, which exists: the writer does not make one.
  mkdirSync(arborDir, { recursive: true });
  const copy = join(piDir, "source.jsonl");
  copyFileSync(source, copy);
  const piPath = Pi.open(copy, piDir).createBranchedSession(leafId);
  const session = await (mode ? fileSessionFactory({ mode }) : openFileSession)(source);
  try {
    const arborPath = await createSessionFiles().createFork({
      source: session,
      leafId,
      sessionDir: arborDir,
    });
    const arbor = readLines(arborPath);
    expect(arbor[0]).toMatchObject({ type: "session", version: 3, parentSession: source });
    if (!piPath) throw new Error("Pi wrote no file");
    const pi = readLines(piPath);
    expect(comparable(arbor)).toEqual(comparable(pi));
  } finally {
    session.dispose();
  }
}

describe("createSessionFiles().createFork", () => {
  it("writes what Pi 1.6 writes for every leaf of the sample session", async () => {
    const source = writeSampleSession(join(folder.path, "sample.jsonl")).path;
    for (const mode of ["full", "structure"] as const) {
      for (const id of Object.values(SAMPLE_IDS)) {
        if (id === SAMPLE_IDS.u1) continue; // Pi writes nothing until the fork holds an assistant message
        await compareWithPi(source, id, `sample-${mode}-${id}`, mode);
      }
    }
  });

  it("writes what Pi 1.6 writes for generated sessions with labels, branches and compactions", async () => {
    let compared = 0;
    for (let seed = 1; seed <= 12; seed++) {
      const generated = generateSession({ seed });
      const source = join(folder.path, `generated-${seed}.jsonl`);
      writeFileSync(source, generated.text);
      const leaves = generated.entryIds.filter((_, i) => i % 7 === 3);
      const opened = await openFileSession(source);
      // Pi writes no file for a fork without a user or assistant message on its path.
      const withConversation = leaves.filter((leafId) => {
        for (let node = opened.index.nodes.get(leafId); node; node = node.parent ?? undefined) {
          const role =
            node.entry.type === "message" ? (node.entry.message as { role?: string }).role : undefined;
          if (role === "user" || role === "assistant") return true;
        }
        return false;
      });
      opened.dispose();
      for (const leafId of withConversation) {
        await compareWithPi(source, leafId, `generated-${seed}-${leafId}`);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(20);
  });
});

describe("createSessionFiles", () => {
  it("writes a header-only new session, creating its folder, through a temp file that does not stay behind", async () => {
    const files = createSessionFiles({ now: () => new Date(Date.UTC(2026, 4, 5, 6, 7, 8, 9)) });
    const sessionDir = join(folder.path, "new", "--work-other--");
    const path = await files.createNew({ cwd: "/work/other", sessionDir });
    expect(path).toMatch(/2026-05-05T06-07-08-009Z_[0-9a-f-]{36}\.jsonl$/);
    expect(readdirSync(sessionDir)).toHaveLength(1);
    const header = JSON.parse(readFileSync(path, "utf8"));
    expect(header).toMatchObject({ type: "session", version: 3, cwd: "/work/other" });
    expect(header.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(header.parentSession).toBeUndefined();

    const child = await files.createNew({ cwd: "/work/other", sessionDir, parentSession: path });
    expect(JSON.parse(readFileSync(child, "utf8")).parentSession).toBe(path);
  });

  it("a fork with no entries (before the first one) is a header naming its source, with the source's cwd", async () => {
    const source = writeSampleSession(join(folder.path, "empty-fork", "source.jsonl"), {
      cwd: "/work/elsewhere",
    }).path;
    const session = await openFileSession(source);
    try {
      const path = await createSessionFiles().createFork({
        source: session,
        leafId: null,
        sessionDir: join(folder.path, "empty-fork"),
      });
      expect(readFileSync(path, "utf8").trimEnd().split("\n")).toHaveLength(1);
      expect(JSON.parse(readFileSync(path, "utf8"))).toMatchObject({
        type: "session",
        version: 3,
        cwd: "/work/elsewhere",
        parentSession: source,
      });
    } finally {
      session.dispose();
    }
  });

  it("refuses an entry that is not in the source, and writes nothing", async () => {
    const dir = join(folder.path, "missing-entry");
    const source = writeSampleSession(join(dir, "source.jsonl")).path;
    const session = await openFileSession(source);
    try {
      await expect(
        createSessionFiles().createFork({ source: session, leafId: "nope", sessionDir: dir }),
      ).rejects.toMatchObject({ code: "not-found" });
      expect(readdirSync(dir)).toEqual(["source.jsonl"]);
    } finally {
      session.dispose();
    }
  });
});
