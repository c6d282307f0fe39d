/**
 * Arbor's temporary files, and removing those a crash left behind.
 *
 * Every file Arbor writes whole goes first to a temporary name that carries
 * the writer's process id: a new session file `.<name>.jsonl.<pid>.<hex>.tmp`
 * beside its final name, a saved parse `<sha1>.json.<pid>.tmp` (or `.view`)
 * in the data folder. A temporary is stale, and removed, only when its name is
 * exactly one of those forms, it is older than a minute, and its writer is no
 * longer running (its pid is gone, or now belongs to a process that is not
 * Arbor's). Anything else in the folder is left alone: a user's own `.tmp`, a
 * temporary of another live Arbor window or `arbor serve`, an older Arbor's
 * temporary without a pid (whose owner cannot be known).
 */

import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { readdir, rm, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/** A temporary this young may still be in use by a writer that is just slow to show up as alive. */
export const STALE_TEMPORARY_MS = 60_000;

const NEW_FILE_TEMPORARY = /^\..+\.jsonl\.([1-9][0-9]{0,9})\.[0-9a-f]{12}\.tmp$/;
const SAVED_PARSE_TEMPORARY = /^[0-9a-f]{40}\.(?:json|view)\.([1-9][0-9]{0,9})\.tmp$/;

/** The temporary name a new file `finalPath` is written under before it is published. */
export function newFileTemporaryPath(finalPath: string): string {
  return join(
    dirname(finalPath),
    `.${basename(finalPath)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`,
  );
}

/** The temporary name a saved parse or view `file` is written under. */
export function savedParseTemporaryPath(file: string): string {
  return `${file}.${process.pid}.tmp`;
}

export type TemporaryKind = "new-file" | "saved-parse";

/** The writer's pid when `name` is a temporary Arbor writes (of that kind), else null. */
export function temporaryOwner(name: string, kind: TemporaryKind): number | null {
  const match = (kind === "new-file" ? NEW_FILE_TEMPORARY : SAVED_PARSE_TEMPORARY).exec(name);
  return match ? Number(match[1]) : null;
}

/** Whether the process `pid` may be an Arbor process still writing: unknown counts as yes. */
export type OwnerCheck = (pid: number) => boolean;

/**
 * A running process is taken for Arbor's unless it can be seen not to be:
 * where `/proc` shows its command line, one that names neither Arbor nor the
 * program this process runs (Electron, or Node for `arbor serve`) is a pid
 * reused by something else. Elsewhere a live pid keeps its files.
 */
export const ownerMayBeWriting: OwnerCheck = (pid) => {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: alive, someone else's; keep.
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
  let commandLine: string;
  try {
    commandLine = readFileSync(`/proc/${pid}/cmdline`, "utf8");
  } catch {
    return true;
  }
  if (commandLine === "") return true;
  const program = commandLine.split("\0", 1)[0] ?? "";
  return /arbor/i.test(commandLine) || program === process.execPath || program === process.argv0;
};

export interface StaleSweepOptions {
  now?: number;
  ownerMayBeWriting?: OwnerCheck;
}

/** Whether the file `name` (modified at `mtimeMs`) is a temporary of `kind` a dead writer left. */
export function isStaleTemporary(
  name: string,
  mtimeMs: number,
  kind: TemporaryKind,
  options: StaleSweepOptions = {},
): boolean {
  const owner = temporaryOwner(name, kind);
  if (owner === null) return false;
  if ((options.now ?? Date.now()) - mtimeMs <= STALE_TEMPORARY_MS) return false;
  return !(options.ownerMayBeWriting ?? ownerMayBeWriting)(owner);
}

/** Removes the stale temporaries of `kind` directly in `folder`; returns their paths. Never throws. */
export async function removeStaleTemporaries(
  folder: string,
  kind: TemporaryKind,
  options: StaleSweepOptions = {},
): Promise<string[]> {
  const names = await readdir(folder).catch(() => [] as string[]);
  const removed: string[] = [];
  for (const name of names) {
    if (temporaryOwner(name, kind) === null) continue;
    const path = join(folder, name);
    const stats = await stat(path).catch(() => null);
    if (!stats?.isFile() || !isStaleTemporary(name, stats.mtimeMs, kind, options)) continue;
    await rm(path, { force: true }).then(
      () => removed.push(path),
      () => {},
    );
  }
  return removed;
}

/**
 * Removes the stale new-file temporaries of a session root: in the root and
 * in its project folders (one level, as sessions are found; folders reached
 * through links are not entered).
 */
export async function removeStaleSessionTemporaries(
  root: string,
  options: StaleSweepOptions = {},
): Promise<string[]> {
  const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
  const folders = [
    root,
    ...entries.filter((entry) => entry.isDirectory()).map((entry) => join(root, entry.name)),
  ];
  const removed: string[] = [];
  for (const folder of folders) removed.push(...(await removeStaleTemporaries(folder, "new-file", options)));
  return removed;
}

const swept = new Set<string>();

/** `sweep(folder)` the first time `folder` is seen in this process; later calls resolve at once. */
export function oncePerProcess(folder: string, sweep: (folder: string) => Promise<unknown>): Promise<void> {
  if (swept.has(folder)) return Promise.resolve();
  swept.add(folder);
  return sweep(folder).then(
    () => {},
    () => {},
  );
}
