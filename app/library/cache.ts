/**
 * The library's cache in the app's data folder: `session-library.json` holds
 * one summary per file keyed by path, size, mtime and inode, and names the
 * search index file (`search-<stamp>.json`, MiniSearch's own JSON) that goes
 * with it. Both are written whole to a temporary file and renamed over the
 * old one, the index first, so a crash leaves either the old pair or the new
 * one. Anything unreadable, of another format version or of the wrong shape
 * is ignored: the scan then reads the files again and writes a fresh cache.
 */

import { randomBytes } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { SessionError, SessionSummary } from "./session-summary.ts";

export const CACHE_FILE = "session-library.json";
const CACHE_FORMAT = "arbor-session-library";
/** Bump when a summary or the search terms would come out differently from the same file. */
export const CACHE_VERSION = 2;
const INDEX_FILE = /^search-[0-9a-f]{16}\.json$/;

export interface CachedFile {
  summary: SessionSummary;
  /** The file's document in the search index, `null` when it has none. */
  docId: number | null;
}

/** The search index file in the cache folder that goes with a cache. */
export interface SearchIndexFile {
  name: string;
  bytes: number;
}

export interface LibraryCache {
  files: Map<string, CachedFile>;
  searchIndex: SearchIndexFile | null;
}

interface CacheFileShape {
  format: string;
  version: number;
  searchIndex: string | null;
  searchIndexBytes: number | null;
  files: unknown[];
}

/** The cache, or why there is none: no file yet, or one that cannot be used (damaged, another version). */
export async function loadLibraryCache(dir: string): Promise<LibraryCache | "absent" | "ignored"> {
  let text: string;
  try {
    text = await readFile(join(dir, CACHE_FILE), "utf8");
  } catch {
    return "absent";
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return "ignored";
  }
  if (!isRecord(data) || data.format !== CACHE_FORMAT || data.version !== CACHE_VERSION) return "ignored";
  if (!Array.isArray(data.files)) return "ignored";
  const searchIndex =
    typeof data.searchIndex === "string" &&
    INDEX_FILE.test(data.searchIndex) &&
    isNumber(data.searchIndexBytes)
      ? { name: data.searchIndex, bytes: data.searchIndexBytes }
      : null;
  const files = new Map<string, CachedFile>();
  for (const record of data.files) {
    const cached = cachedFile(record);
    if (cached) files.set(cached.summary.path, cached);
  }
  return { files, searchIndex };
}

/** Whether the index file is there with the size the cache recorded (checked without reading it). */
export async function searchIndexPresent(dir: string, file: SearchIndexFile): Promise<boolean> {
  try {
    return (await stat(join(dir, file.name))).size === file.bytes;
  } catch {
    return false;
  }
}

/** The search index's JSON text, or `null` if it cannot be read. */
export async function loadSearchIndexText(dir: string, file: SearchIndexFile): Promise<string | null> {
  try {
    return await readFile(join(dir, file.name), "utf8");
  } catch {
    return null;
  }
}

/**
 * Writes the cache: with a new search index (`{json}`), or naming the index
 * file already on disk (`{keep}`) when the index did not change. Returns the
 * index file's name.
 */
export async function saveLibraryCache(
  dir: string,
  files: Iterable<CachedFile>,
  searchIndex: { json: string } | { keep: SearchIndexFile | null },
): Promise<SearchIndexFile | null> {
  await mkdir(dir, { recursive: true });
  let index: SearchIndexFile | null;
  if ("json" in searchIndex) {
    index = {
      name: `search-${randomBytes(8).toString("hex")}.json`,
      bytes: Buffer.byteLength(searchIndex.json),
    };
    await writeAtomically(join(dir, index.name), searchIndex.json);
  } else {
    index = searchIndex.keep;
  }
  const indexName = index?.name ?? null;
  const shape: CacheFileShape = {
    format: CACHE_FORMAT,
    version: CACHE_VERSION,
    searchIndex: indexName,
    searchIndexBytes: index?.bytes ?? null,
    files: [...files].map(({ summary, docId }) => ({ ...summary, docId })),
  };
  await writeAtomically(join(dir, CACHE_FILE), JSON.stringify(shape));
  // Index files of earlier caches (and of a run that died before renaming) go.
  const names = await readdir(dir).catch(() => [] as string[]);
  await Promise.all(
    names
      .filter((name) => name !== indexName && (INDEX_FILE.test(name) || name.endsWith(".arbor-tmp")))
      .map((name) => rm(join(dir, name), { force: true }).catch(() => {})),
  );
  return index;
}

async function writeAtomically(path: string, text: string): Promise<void> {
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.arbor-tmp`;
  try {
    await writeFile(temporary, text, { encoding: "utf8", flush: true });
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => {});
    throw error;
  }
}

function cachedFile(record: unknown): CachedFile | null {
  if (!isRecord(record)) return null;
  const r = record;
  const docId = r.docId === null || r.docId === undefined ? null : r.docId;
  if (docId !== null && !(typeof docId === "number" && Number.isInteger(docId) && docId >= 0)) return null;
  if (
    typeof r.path !== "string" ||
    !isNumber(r.size) ||
    !isNumber(r.mtimeMs) ||
    !isNumber(r.ino) ||
    typeof r.id !== "string" ||
    typeof r.cwd !== "string" ||
    !optional(r.name, "string") ||
    typeof r.firstMessage !== "string" ||
    !isNumber(r.messageCount) ||
    !isNumber(r.archivedMessageCount) ||
    !(r.created === null || isNumber(r.created)) ||
    !isNumber(r.modified) ||
    !optional(r.parentSession, "string") ||
    !isNumber(r.version) ||
    !isNumber(r.entryCount) ||
    !isNumber(r.badLines) ||
    !optional(r.firstBadLine, "number")
  ) {
    return null;
  }
  let error: SessionError | undefined;
  if (r.error !== undefined && r.error !== null) {
    if (!isRecord(r.error) || typeof r.error.message !== "string") return null;
    if (r.error.code !== "empty" && r.error.code !== "not-a-session") return null;
    error = { code: r.error.code, message: r.error.message };
  }
  const summary: SessionSummary = {
    path: r.path,
    size: r.size,
    mtimeMs: r.mtimeMs,
    ino: r.ino,
    id: r.id,
    cwd: r.cwd,
    name: r.name as string | undefined,
    firstMessage: r.firstMessage,
    messageCount: r.messageCount,
    archivedMessageCount: r.archivedMessageCount,
    created: r.created as number | null,
    modified: r.modified,
    parentSession: r.parentSession as string | undefined,
    version: r.version,
    entryCount: r.entryCount,
    badLines: r.badLines,
    firstBadLine: r.firstBadLine as number | undefined,
    error,
  };
  return { summary, docId };
}

function isNumber(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value);
}

function optional(value: unknown, type: "string" | "number"): boolean {
  if (value === undefined) return true;
  return type === "string" ? typeof value === "string" : isNumber(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
