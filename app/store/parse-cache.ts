/**
 * Saved parses of large session files. Reading a 100k-entry file structure
 * first is mostly `JSON.parse` of every line (about a second); a saved parse
 * of the same bytes reads back in a tenth of that. A saved parse is used
 * only for the exact bytes it was made from: it records their SHA-256 (see
 * `content-hash.ts`), and `openIndexedFile` hashes the file's first
 * `byteLength` bytes before trusting it (lines appended since are parsed as a
 * follower parses them). Anything else (another format version, a damaged or
 * foreign cache file, bytes that differ) and the file is parsed as if there
 * were no cache.
 *
 * This module is the storage: which file holds what, writing whole, pruning
 * the least recently used. The files' format is `saved-parse-form.ts` (a parse)
 * and `saved-view.ts` (a view).
 *
 * Only Arbor's own data folder is written; session files are never touched.
 * One file per session, written to a temporary name and renamed, and beside
 * it the session's saved view, under the same name with `.view`.
 */

import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import type { ParsedSession } from "../../shared/session/parse.ts";
import { readSavedParseText } from "./saved-parse-decode.ts";
import { savedParseText } from "./saved-parse-encode.ts";
import type { SavedParse } from "./saved-parse-form.ts";
import { decodeSavedView, encodeSavedView, type SavedView } from "./saved-view.ts";
import { isStaleTemporary, savedParseTemporaryPath } from "./stale-temporaries.ts";

export { decodeSavedParse } from "./saved-parse-decode.ts";
export { canSave, encodeSavedParse } from "./saved-parse-encode.ts";
export { PARSE_CACHE_VERSION, type SavedParse } from "./saved-parse-form.ts";

/** Files below this size parse fast enough; they are not cached. */
export const PARSE_CACHE_MIN_BYTES = 8 * 1024 * 1024;

/** How many sessions keep what is saved of them, and how many bytes they take at most; the least recently used go first. */
const MAX_SAVED = 64;
const MAX_SAVED_BYTES = 1024 * 1024 * 1024;

export interface ParseCache {
  /** Files smaller than this are parsed as they are, never cached. */
  readonly minBytes: number;
  /** The saved parse of `path`, if there is one and it reads back whole. Not yet checked against the file. */
  load(path: string): SavedParse | undefined;
  /** Whether `path` has a saved parse (current or not). */
  has(path: string): boolean;
  /**
   * Saves the parse of `path`'s first `parsed.byteLength` bytes (SHA-256 `digest`).
   * False when it cannot be saved exactly (see `canSave`) or the folder cannot be written.
   */
  save(path: string, parsed: ParsedSession, digest: string): boolean;
  /** The saved view of `path`, if there is one and it reads back whole. Not yet checked against the file. */
  loadView(path: string): SavedView | undefined;
  /** Saves a view of `path`'s first `view.content.bytes` bytes. False when the folder cannot be written. */
  saveView(path: string, view: SavedView): boolean;
  /** Forgets `path`'s saved parse and view (its file was deleted). */
  remove(path: string): void;
}

const PARSE_SUFFIX = ".json";
const VIEW_SUFFIX = ".view";

/** The folder's cache, created on first save. `minBytes`: tests cache small files. */
export function createParseCache(dir: string, options: { minBytes?: number } = {}): ParseCache {
  const keyOf = (path: string) => join(dir, createHash("sha1").update(path).digest("hex"));
  const fileOf = (path: string) => `${keyOf(path)}${PARSE_SUFFIX}`;
  const viewFileOf = (path: string) => `${keyOf(path)}${VIEW_SUFFIX}`;
  /** Writes `text` under `file` whole (a temporary name, then renamed), ranked as used at `usedMs`. */
  const write = (file: string, text: string, usedMs: number): boolean => {
    const temporary = savedParseTemporaryPath(file);
    try {
      mkdirSync(dir, { recursive: true });
      writeFileSync(temporary, text);
      renameSync(temporary, file);
      touch(file, usedMs);
      prune(dir);
      return true;
    } catch {
      rmSync(temporary, { force: true });
      return false;
    }
  };
  return {
    minBytes: options.minBytes ?? PARSE_CACHE_MIN_BYTES,
    load(path) {
      let text: string;
      try {
        text = readFileSync(fileOf(path), "utf8");
      } catch {
        return undefined;
      }
      try {
        const saved = readSavedParseText(text, path);
        // Opened: among the last to go when the folder is pruned.
        if (saved) touch(fileOf(path), Date.now());
        return saved;
      } catch {
        return undefined;
      }
    },
    has(path) {
      return existsSync(fileOf(path));
    },
    save(path, parsed, digest) {
      const text = savedParseText(path, parsed, digest);
      if (text === null) return false;
      // Ranked by the session's own last change until an open uses it (a scan saves the newest first).
      return write(fileOf(path), text, modifiedAt(path) || Date.now());
    },
    loadView(path) {
      let bytes: Buffer;
      try {
        bytes = readFileSync(viewFileOf(path));
      } catch {
        return undefined;
      }
      const view = decodeSavedView(bytes, path);
      if (view) touch(viewFileOf(path), Date.now());
      return view;
    },
    saveView(path, view) {
      return write(viewFileOf(path), encodeSavedView(path, view), modifiedAt(path) || Date.now());
    },
    remove(path) {
      rmSync(fileOf(path), { force: true });
      rmSync(viewFileOf(path), { force: true });
    },
  };
}

/**
 * Keeps what is saved of the `MAX_SAVED` most recently used sessions (a parse,
 * a view), within `MAX_SAVED_BYTES`. A file's mtime is its use: the session's
 * own mtime when saved, the time of the last open that read it.
 */
function prune(dir: string): void {
  const now = Date.now();
  const sessions = new Map<string, { names: string[]; at: number; size: number }>();
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    let stats: ReturnType<typeof statSync>;
    try {
      stats = statSync(path);
    } catch {
      continue;
    }
    if (name.endsWith(".tmp")) {
      if (isStaleTemporary(name, stats.mtimeMs, "saved-parse", { now })) rmSync(path, { force: true });
      continue;
    }
    const suffix = [PARSE_SUFFIX, VIEW_SUFFIX].find((candidate) => name.endsWith(candidate));
    if (suffix === undefined) continue;
    const key = name.slice(0, -suffix.length);
    const session = sessions.get(key) ?? { names: [], at: 0, size: 0 };
    session.names.push(name);
    session.at = Math.max(session.at, stats.mtimeMs);
    session.size += stats.size;
    sessions.set(key, session);
  }
  const ranked = [...sessions.values()].sort((a, b) => b.at - a.at);
  let bytes = 0;
  ranked.forEach(({ names, size }, rank) => {
    bytes += size;
    if (rank >= MAX_SAVED || bytes > MAX_SAVED_BYTES) {
      for (const name of names) rmSync(join(dir, name), { force: true });
    }
  });
}

/** Sets the file's times to `ms` (milliseconds since the epoch). */
function touch(path: string, ms: number): void {
  try {
    const time = new Date(ms);
    utimesSync(path, time, time);
  } catch {
    // Only the pruning order suffers.
  }
}

function modifiedAt(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}
