/**
 * Finds the session files under the roots: `<root>/*.jsonl` (where Pi puts
 * sessions of a custom session folder) and `<root>/<folder>/*.jsonl` (Pi's
 * default layout, one `--<encoded cwd>--` folder per project). One `stat` per
 * file; a file reached twice (a user's folder inside a root, a hard link) is
 * listed once.
 *
 * What is passed over is said, with why: a FIFO or other special file named
 * like a session, a folder named like one, a link that loops or points at
 * nothing, a folder or file Arbor may not read. A symbolic link is followed
 * only when it stays inside the session folders (Pi's, or one the user
 * added): a link from a session folder to `/etc/passwd` is never opened.
 */

import type { Dirent, Stats } from "node:fs";
import { readdir, realpath, stat } from "node:fs/promises";
import { join, sep } from "node:path";
import type { SessionRoot } from "./roots.ts";
import type { FileSignature } from "./session-summary.ts";
import { skipReasons } from "../../shared/error-texts.ts";

export interface DiscoveredFile extends FileSignature {
  path: string;
  /** The root it was found under. */
  root: string;
}

/** A file or folder discovery passed over, and why (shown to the user). */
export interface SkippedFile {
  path: string;
  reason: string;
}

export interface RootStatus {
  root: SessionRoot;
  /** False when the folder does not exist (Pi's default before the first session, for one). */
  exists: boolean;
  /** Why the folder could not be listed, if it exists and could not. */
  error: string | undefined;
  files: number;
}

export interface Discovery {
  files: DiscoveredFile[];
  roots: RootStatus[];
  skipped: SkippedFile[];
}

const STAT_CONCURRENCY = 64;

/** The folders links may lead into: the roots themselves, wherever they really are. */
async function allowedFolders(roots: readonly SessionRoot[]): Promise<string[]> {
  const real = await Promise.all(roots.map((root) => realpath(root.path).catch(() => null)));
  return real.filter((path): path is string => path !== null);
}

function isInside(path: string, folders: readonly string[]): boolean {
  return folders.some(
    (folder) => path === folder || path.startsWith(folder.endsWith(sep) ? folder : folder + sep),
  );
}

function specialKind(entry: Dirent | Stats): string | null {
  if (entry.isFIFO()) return "a FIFO";
  if (entry.isSocket()) return "a socket";
  if (entry.isCharacterDevice() || entry.isBlockDevice()) return "a device";
  return null;
}

type Classified =
  | { kind: "file" }
  | { kind: "folder" }
  | { kind: "skip"; reason: string }
  | { kind: "ignore" };

/**
 * What a directory entry is to discovery: a session file candidate, a folder to
 * look into (at a root only), something to report as skipped, or nothing.
 */
async function classify(
  entry: Dirent,
  path: string,
  allowed: readonly string[],
  atRoot: boolean,
): Promise<Classified> {
  const named = entry.name.endsWith(".jsonl");
  if (entry.isSymbolicLink()) return classifyLink(path, named, allowed, atRoot);
  if (named && entry.isFile()) return { kind: "file" };
  if (entry.isDirectory()) {
    if (atRoot) return { kind: "folder" };
    return named ? { kind: "skip", reason: skipReasons.folder } : { kind: "ignore" };
  }
  const special = specialKind(entry);
  return named && special ? { kind: "skip", reason: skipReasons.specialFile(special) } : { kind: "ignore" };
}

async function classifyLink(
  path: string,
  named: boolean,
  allowed: readonly string[],
  atRoot: boolean,
): Promise<Classified> {
  let target: string;
  try {
    target = await realpath(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (!named && !atRoot) return { kind: "ignore" };
    if (code === "ELOOP") return { kind: "skip", reason: skipReasons.linkLoop };
    if (code === "ENOENT") return { kind: "skip", reason: skipReasons.linkToNothing };
    return { kind: "skip", reason: skipReasons.unreadable(code ?? "error") };
  }
  let stats: Stats;
  try {
    stats = await stat(target);
  } catch (error) {
    return named
      ? { kind: "skip", reason: skipReasons.unreadable((error as NodeJS.ErrnoException).code ?? "error") }
      : { kind: "ignore" };
  }
  const wanted = named ? stats.isFile() || stats.isDirectory() : atRoot && stats.isDirectory();
  if (!wanted) {
    const special = specialKind(stats);
    return named && special ? { kind: "skip", reason: skipReasons.specialFile(special) } : { kind: "ignore" };
  }
  if (!isInside(target, allowed)) return { kind: "skip", reason: skipReasons.linkOutside(target) };
  if (named && stats.isDirectory())
    return atRoot ? { kind: "folder" } : { kind: "skip", reason: skipReasons.folder };
  return named ? { kind: "file" } : { kind: "folder" };
}

interface Candidate {
  path: string;
  root: string;
}

/** Lists one folder's entries; a folder Arbor may not list is reported, one that vanished is not. */
async function listFolder(folder: string, skipped: SkippedFile[]): Promise<Dirent[]> {
  try {
    return await readdir(folder, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EACCES" || code === "EPERM")
      skipped.push({ path: folder, reason: skipReasons.folderNoPermission });
    else if (code !== "ENOENT" && code !== "ENOTDIR")
      skipped.push({ path: folder, reason: skipReasons.unreadable(code ?? "error") });
    return [];
  }
}

/** The candidate files and the project folders directly under one root. */
async function scanRoot(
  root: SessionRoot,
  status: RootStatus,
  allowed: readonly string[],
  skipped: SkippedFile[],
): Promise<Candidate[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(root.path, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") status.exists = false;
    else status.error = (error as Error).message;
    return [];
  }
  const candidates: Candidate[] = [];
  const folders: string[] = [];
  for (const entry of entries) {
    const path = join(root.path, entry.name);
    const classified = await classify(entry, path, allowed, true);
    if (classified.kind === "file") candidates.push({ path, root: root.path });
    else if (classified.kind === "folder") folders.push(path);
    else if (classified.kind === "skip") skipped.push({ path, reason: classified.reason });
  }
  const listed = await mapLimited(folders, STAT_CONCURRENCY, async (folder) => {
    const found: Candidate[] = [];
    for (const entry of await listFolder(folder, skipped)) {
      const path = join(folder, entry.name);
      const classified = await classify(entry, path, allowed, false);
      if (classified.kind === "file") found.push({ path, root: root.path });
      else if (classified.kind === "skip") skipped.push({ path, reason: classified.reason });
    }
    return found;
  });
  return [...candidates, ...listed.flat()];
}

export async function discoverSessionFiles(
  roots: readonly SessionRoot[],
  signal?: AbortSignal,
): Promise<Discovery> {
  const statuses: RootStatus[] = [];
  const candidates: Candidate[] = [];
  const skipped: SkippedFile[] = [];
  const allowed = await allowedFolders(roots);
  for (const root of roots) {
    signal?.throwIfAborted();
    const status: RootStatus = { root, exists: true, error: undefined, files: 0 };
    statuses.push(status);
    candidates.push(...(await scanRoot(root, status, allowed, skipped)));
  }
  signal?.throwIfAborted();
  const statsOf = await mapLimited(candidates, STAT_CONCURRENCY, async (candidate): Promise<Stats | null> => {
    try {
      return await stat(candidate.path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // Gone between the listing and now: nothing to say.
      if (code === "EACCES" || code === "EPERM")
        skipped.push({ path: candidate.path, reason: skipReasons.noPermission });
      else if (code !== "ENOENT")
        skipped.push({ path: candidate.path, reason: skipReasons.unreadable(code ?? "error") });
      return null;
    }
  });
  signal?.throwIfAborted();
  const files: DiscoveredFile[] = [];
  const seenPaths = new Set<string>();
  const seenFiles = new Set<string>();
  const statusOf = new Map(statuses.map((status) => [status.root.path, status]));
  candidates.forEach((candidate, index) => {
    const stats = statsOf[index];
    if (!stats?.isFile() || seenPaths.has(candidate.path)) return;
    const fileKey = `${stats.dev}:${stats.ino}`;
    if (stats.ino !== 0 && seenFiles.has(fileKey)) return;
    seenPaths.add(candidate.path);
    seenFiles.add(fileKey);
    files.push({ ...candidate, size: stats.size, mtimeMs: stats.mtimeMs, ino: stats.ino });
    const status = statusOf.get(candidate.root);
    if (status) status.files++;
  });
  skipped.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { files, roots: statuses, skipped };
}

/** `map` over `items` with at most `limit` calls in flight; results in input order. */
export async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  map: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await map(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
