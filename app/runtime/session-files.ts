/**
 * A simple `SessionFiles`: new, forked and cloned session files written the
 * way Pi writes them (`SessionManager.newSession` / `createBranchedSession`),
 * each to a temp file in the target folder and then renamed into place, so a
 * reader (the library, a follower, Pi) never sees a half-written file.
 * `app/store/new-file.ts` is to replace it.
 */

import { randomBytes, randomUUID } from "node:crypto";
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { ArborError } from "../../shared/ipc/contract.ts";
import { pathToRoot } from "../../shared/session/tree-index.ts";
import {
  CURRENT_SESSION_VERSION,
  type SessionEntry,
  type SessionHeader,
} from "../../shared/session/types.ts";
import type { SessionFiles } from "./open-session.ts";

export function createSessionFiles(options: { now?: () => Date } = {}): SessionFiles {
  const now = options.now ?? (() => new Date());
  return {
    async createNew({ cwd, sessionDir, parentSession }) {
      const header = newHeader(cwd, parentSession, now());
      return writeSessionFile(sessionDir, header, []);
    },

    async createFork({ source, leafId, sessionDir }) {
      const index = source.index;
      const cwd = typeof index.header?.cwd === "string" ? index.header.cwd : "";
      const header = newHeader(cwd, source.path, now());
      if (leafId === null) return writeSessionFile(sessionDir, header, []);
      if (!index.nodes.has(leafId)) {
        throw new ArborError("not-found", `There is no entry "${leafId}" in this session to fork from.`);
      }
      const path = pathToRoot(index, leafId).map((id) => index.entry(id)!);
      return writeSessionFile(sessionDir, header, branchedEntries(path, index.labels));
    },
  };
}

function newHeader(cwd: string, parentSession: string | undefined, time: Date): SessionHeader {
  const header: SessionHeader = {
    type: "session",
    version: CURRENT_SESSION_VERSION,
    id: uuidv7(time.getTime()),
    timestamp: time.toISOString(),
    cwd,
  };
  if (parentSession !== undefined) header.parentSession = parentSession;
  return header;
}

/**
 * Pi's `createBranchedSession` over a root-to-leaf path: label entries are
 * dropped and the rest re-chained (later entries can hang below a label), a
 * compaction's `firstKeptEntryId` that named a dropped label moves to the
 * entry that took its place, and each label that targets an entry on the
 * path is written again at the end, with its original timestamp.
 */
export function branchedEntries(
  path: readonly SessionEntry[],
  labels: ReadonlyMap<string, { label: string; timestamp: string }>,
): Record<string, unknown>[] {
  const kept: Record<string, unknown>[] = [];
  const replacementOfLabel = new Map<string, string>();
  const pendingLabels: string[] = [];
  let parentId: string | null = null;
  for (const entry of path) {
    if (entry.type === "label") {
      pendingLabels.push(entry.id);
      continue;
    }
    for (const labelId of pendingLabels) replacementOfLabel.set(labelId, entry.id);
    pendingLabels.length = 0;
    if (entry.type === "compaction") {
      const firstKept = entry.firstKeptEntryId;
      kept.push({
        ...entry,
        parentId,
        firstKeptEntryId:
          firstKept === entry.id ? entry.id : (replacementOfLabel.get(firstKept) ?? firstKept),
      });
    } else {
      kept.push({ ...entry, parentId });
    }
    parentId = entry.id;
  }
  const ids = new Set(kept.map((entry) => entry.id as string));
  const onPath = new Set(ids);
  const labelEntries: Record<string, unknown>[] = [];
  for (const [targetId, state] of labels) {
    if (!onPath.has(targetId)) continue;
    const id = uniqueId(ids);
    ids.add(id);
    labelEntries.push({
      type: "label",
      id,
      parentId,
      timestamp: state.timestamp,
      targetId,
      label: state.label,
    });
    parentId = id;
  }
  return [...kept, ...labelEntries];
}

function uniqueId(taken: ReadonlySet<string>): string {
  for (let attempt = 0; attempt < 100; attempt++) {
    const id = randomUUID().slice(0, 8);
    if (!taken.has(id)) return id;
  }
  return randomUUID();
}

/** Pi's file name: `<ISO time with : and . as ->_<header id>.jsonl`. */
export function sessionFileName(header: SessionHeader): string {
  return `${header.timestamp.replace(/[:.]/g, "-")}_${header.id}.jsonl`;
}

/** Writes header and entries to a temp file in `dir`, flushes it, and renames it to its final name. */
function writeSessionFile(
  dir: string,
  header: SessionHeader,
  entries: readonly Record<string, unknown>[],
): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, sessionFileName(header));
  if (existsSync(path)) throw new ArborError("conflict", `A session file named ${path} already exists.`);
  const temp = join(dir, `.arbor-${randomBytes(6).toString("hex")}.tmp`);
  const lines = [header, ...entries].map((value) => `${JSON.stringify(value)}\n`).join("");
  const fd = openSync(temp, "wx");
  try {
    try {
      const bytes = Buffer.from(lines, "utf8");
      let written = 0;
      while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  return path;
}

/** A version 7 UUID (time-ordered), as Pi's session ids are. */
export function uuidv7(milliseconds: number = Date.now()): string {
  const bytes = randomBytes(16);
  let time = milliseconds;
  for (let i = 5; i >= 0; i--) {
    bytes[i] = time % 256;
    time = Math.floor(time / 256);
  }
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
