/**
 * Finds the session files under the roots: `<root>/*.jsonl` (where Pi puts
 * sessions of a custom session folder) and `<root>/<folder>/*.jsonl` (Pi's
 * default layout, one `--<encoded cwd>--` folder per project; a symbolic
 * link to a folder counts, as in Pi's `listAll`). One `stat` per file; a file
 * reached twice (a user's folder inside a root, a hard link) is listed once.
 */

import type { Dirent, Stats } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import type { SessionRoot } from "./roots.ts";
import type { FileSignature } from "./session-summary.ts";

export interface DiscoveredFile extends FileSignature {
  path: string;
  /** The root it was found under. */
  root: string;
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
}

const STAT_CONCURRENCY = 64;

export async function discoverSessionFiles(
  roots: readonly SessionRoot[],
  signal?: AbortSignal,
): Promise<Discovery> {
  const statuses: RootStatus[] = [];
  const candidates: { path: string; root: string }[] = [];
  for (const root of roots) {
    signal?.throwIfAborted();
    const status: RootStatus = { root, exists: true, error: undefined, files: 0 };
    statuses.push(status);
    let entries: Dirent[];
    try {
      entries = await readdir(root.path, { withFileTypes: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") status.exists = false;
      else status.error = (error as Error).message;
      continue;
    }
    const folders: string[] = [];
    for (const entry of entries) {
      const path = join(root.path, entry.name);
      if (entry.name.endsWith(".jsonl") && (entry.isFile() || entry.isSymbolicLink())) {
        candidates.push({ path, root: root.path });
      } else if (entry.isDirectory() || entry.isSymbolicLink()) {
        folders.push(path);
      }
    }
    const listed = await mapLimited(folders, STAT_CONCURRENCY, async (folder) => {
      try {
        return (await readdir(folder))
          .filter((name) => name.endsWith(".jsonl"))
          .map((name) => join(folder, name));
      } catch {
        return [];
      }
    });
    for (const paths of listed) for (const path of paths) candidates.push({ path, root: root.path });
  }
  signal?.throwIfAborted();
  const statsOf = await mapLimited(candidates, STAT_CONCURRENCY, async (candidate): Promise<Stats | null> => {
    try {
      return await stat(candidate.path);
    } catch {
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
  return { files, roots: statuses };
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
