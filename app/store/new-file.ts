/**
 * Writing NEW session files: a new session, a fork, a clone, an export.
 * Never into an existing file (that is `append.ts`), and never over one.
 *
 * Every file is written whole to a temporary file in the target directory
 * (a dot-name not ending in .jsonl, so no session listing picks it up),
 * fsynced, then published under its final name, and the directory fsynced
 * where the platform allows it. A reader therefore sees either no file or
 * the complete file, never a half-written one, and a crash leaves at most a
 * stray temporary file, named with the writer's pid so that the next start
 * can tell it is stale (`stale-temporaries.ts`).
 *
 * Publishing uses `link(temp, final)` then `unlink(temp)`: `link` fails with
 * EEXIST when the final name exists, atomically, so two writers (two Arbor
 * windows, or Arbor and a Pi that happens to choose the same name) can never
 * overwrite each other. `rename` would silently replace an existing file, and
 * `existsSync` then `rename` has a window between the check and the rename.
 * Where hard links are not supported (some FAT/exFAT and network file
 * systems), the name is reserved first with an exclusive create (`wx`, which
 * also fails if it exists) and the complete temporary file renamed over that
 * empty placeholder: the only file that can be replaced is the one we just
 * created, at the cost of a moment in which the name holds an empty file.
 */

import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, linkSync, openSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { newFileErrors, sessionErrors } from "../../shared/error-texts.ts";
import { ArborError } from "../../shared/ipc/contract.ts";
import type { EntryReader } from "../../shared/session/entry-reader.ts";
import { isNestedTooDeep } from "../../shared/session/nesting.ts";
import { pathToRoot, type SessionIndex, type TreeNode } from "../../shared/session/tree-index.ts";
import {
  CURRENT_SESSION_VERSION,
  type SessionEntry,
  type SessionHeader,
} from "../../shared/session/types.ts";
import type { FileEntryReader } from "./entry-reader.ts";
import { completeLinesEnd } from "./follower.ts";
import { newFileTemporaryPath } from "./stale-temporaries.ts";

export type NewFileErrorCode = "conflict" | "refused" | "not-found" | "io";

export class NewFileError extends ArborError {
  declare readonly code: NewFileErrorCode;
  readonly path: string;

  constructor(code: NewFileErrorCode, path: string, message: string) {
    super(code, message);
    this.name = "NewFileError";
    this.path = path;
  }
}

// ---------------------------------------------------------------------------
// Ids and names, as Pi makes them

/**
 * A version-7 UUID (RFC 9562): 48 bits of Unix milliseconds, the version,
 * then random bits with the variant. Pi names sessions with these.
 */
export function uuidv7(now: number = Date.now()): string {
  const bytes = randomBytes(16);
  let ms = Math.max(0, Math.floor(now));
  for (let i = 5; i >= 0; i--) {
    bytes[i] = ms % 256;
    ms = Math.floor(ms / 256);
  }
  bytes[6] = 0x70 | (bytes[6]! & 0x0f);
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Pi's file name: `<ISO timestamp with : and . replaced by ->_<session id>.jsonl`. */
export function sessionFileName(timestamp: string, sessionId: string): string {
  return `${timestamp.replace(/[:.]/g, "-")}_${sessionId}.jsonl`;
}

/** Pi's header, in Pi's key order; `parentSession` only when there is one. */
export function sessionHeader(options: {
  id: string;
  timestamp: string;
  cwd: string;
  parentSession?: string | undefined;
}): SessionHeader {
  const header: SessionHeader = {
    type: "session",
    version: CURRENT_SESSION_VERSION,
    id: options.id,
    timestamp: options.timestamp,
    cwd: options.cwd,
  };
  if (options.parentSession !== undefined) header.parentSession = options.parentSession;
  return header;
}

/** Pi's `resolvePath`: `~` expanded, then made absolute. */
function resolvePiPath(path: string): string {
  let expanded = path;
  if (path === "~") expanded = homedir();
  else if (path.startsWith("~/") || path.startsWith("~\\")) expanded = join(homedir(), path.slice(2));
  return isAbsolute(expanded) ? resolve(expanded) : resolve(process.cwd(), expanded);
}

// ---------------------------------------------------------------------------
// The writer

export type FileContent = string | Uint8Array;

/**
 * Writes `content` (one string or buffer, or a sequence of them, written in
 * order) to a new file at `finalPath`. Throws `NewFileError` "conflict" if
 * `finalPath` exists (it is left untouched), "not-found" if its directory does
 * not, "io" otherwise; the temporary file is removed in every case.
 */
export function writeNewFile(
  finalPath: string,
  content: FileContent | Iterable<FileContent>,
): { bytes: number } {
  const dir = dirname(finalPath);
  const temp = newFileTemporaryPath(finalPath);
  let fd: number;
  try {
    fd = openSync(temp, "wx");
  } catch (error) {
    throw fileError(error, dir, newFileErrors.cannotCreateIn(dir));
  }
  let bytes = 0;
  try {
    try {
      const parts = typeof content === "string" || content instanceof Uint8Array ? [content] : content;
      for (const part of parts) bytes += writeAll(fd, part);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    publish(temp, finalPath);
  } catch (error) {
    throw error instanceof NewFileError
      ? error
      : fileError(error, finalPath, newFileErrors.cannotWrite(finalPath));
  } finally {
    removeQuietly(temp);
  }
  fsyncDirectory(dir);
  return { bytes };
}

function writeAll(fd: number, part: FileContent): number {
  const buffer = typeof part === "string" ? Buffer.from(part, "utf8") : part;
  let done = 0;
  while (done < buffer.length) done += writeSync(fd, buffer, done, buffer.length - done);
  return buffer.length;
}

/** Gives the complete temporary file its final name, failing if that name exists. */
export function publish(temp: string, finalPath: string): void {
  try {
    linkSync(temp, finalPath);
    return;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") throw exists(finalPath);
    if (!LINK_UNSUPPORTED.has(code ?? ""))
      throw fileError(error, finalPath, newFileErrors.cannotCreate(finalPath));
  }
  publishByRename(temp, finalPath);
}

/** Error codes meaning "this file system has no hard links" rather than "this link failed". */
const LINK_UNSUPPORTED = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EMLINK", "EXDEV", "EINVAL"]);

/** The fallback: reserve the name exclusively, then rename the complete file over the placeholder. */
export function publishByRename(temp: string, finalPath: string): void {
  let placeholder: number;
  try {
    placeholder = openSync(finalPath, "wx");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") throw exists(finalPath);
    throw fileError(error, finalPath, newFileErrors.cannotCreate(finalPath));
  }
  closeSync(placeholder);
  try {
    renameSync(temp, finalPath);
  } catch (error) {
    removeQuietly(finalPath);
    throw fileError(error, finalPath, newFileErrors.cannotCreate(finalPath));
  }
}

function exists(path: string): NewFileError {
  return new NewFileError("conflict", path, newFileErrors.alreadyExists(path));
}

function fileError(error: unknown, path: string, what: string): NewFileError {
  const code = (error as NodeJS.ErrnoException).code;
  const reason = error instanceof Error ? error.message : String(error);
  if (code === "ENOENT" || code === "ENOTDIR")
    return new NewFileError("not-found", path, newFileErrors.failed(what, reason));
  if (code === "EEXIST") return exists(path);
  return new NewFileError("io", path, newFileErrors.failed(what, reason));
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone (published by rename), or never created.
  }
}

/** Makes the new name durable. Windows cannot open a directory for fsync; there the rename is all we get. */
function fsyncDirectory(dir: string): void {
  let fd: number;
  try {
    fd = openSync(dir, "r");
  } catch {
    return;
  }
  try {
    fsyncSync(fd);
  } catch {
    // EISDIR / EINVAL / EPERM on platforms and file systems that do not support it.
  } finally {
    closeSync(fd);
  }
}

function jsonLines(header: SessionHeader, entries: readonly object[]): string[] {
  return [header, ...entries].map((value) => `${JSON.stringify(value)}\n`);
}

// ---------------------------------------------------------------------------
// New session, fork, clone, export

export interface NewSessionFile {
  path: string;
  header: SessionHeader;
  /** The entries written after the header, in file order. */
  entries: SessionEntry[];
  /** The new file's leaf (its last entry), `null` for a header-only file. */
  leafId: string | null;
}

export interface CreateSessionOptions {
  /** The session directory (Pi's `<agentDir>/sessions/--<cwd>--/`, or any other). It must exist. */
  dir: string;
  cwd: string;
  parentSession?: string;
  /** For tests: the creation time. */
  now?: Date;
}

/**
 * A new, empty session: Pi's `newSession()` header (version 3, a UUIDv7 id),
 * in a file named like Pi's. Pi itself defers writing until the first
 * message; Arbor writes the header at once so the session can be opened.
 */
export function createSessionFile(options: CreateSessionOptions): NewSessionFile {
  const now = options.now ?? new Date();
  const timestamp = now.toISOString();
  const header = sessionHeader({
    id: uuidv7(now.getTime()),
    timestamp,
    cwd: resolvePiPath(options.cwd),
    parentSession: options.parentSession,
  });
  const path = join(resolve(options.dir), sessionFileName(timestamp, header.id));
  writeNewFile(path, jsonLines(header, []));
  return { path, header, entries: [], leafId: null };
}

export interface ForkOptions {
  /**
   * "at": the fork ends at the entry (Pi's `/clone` at the current leaf, or
   * `fork(id, {position: "at"})`). "before": the entry must be a user
   * message and the fork ends at its parent (Pi's `/fork`, which puts the
   * message's text back in the editor); forking before the first message
   * gives an empty session with `parentSession` set.
   */
  position: "before" | "at";
  /** Where the new file goes; default the source's directory, as in Pi. */
  dir?: string;
  now?: Date;
}

/**
 * Pi 1.6's `createBranchedSession(leafId)`, written as a new file: the path
 * from the root to the leaf without its label entries, each entry re-chained
 * to the previous one kept (later entries can be children of labels), a
 * compaction's `firstKeptEntryId` moved off a removed label onto the entry
 * that took its place, then one fresh label entry per label that targets an
 * entry of the path (with the label's own timestamp). The header names the
 * source file as `parentSession`. Entry ids are kept, so the fork and its
 * source share ids up to the fork point.
 */
export function forkSession(
  index: SessionIndex,
  reader: EntryReader,
  sourcePath: string,
  entryId: string,
  options: ForkOptions,
): NewSessionFile {
  const source = resolvePiPath(sourcePath);
  const node = index.nodes.get(entryId);
  if (!node) throw new NewFileError("not-found", source, newFileErrors.entryNotIn(entryId, source));
  let leafId: string | null = entryId;
  if (options.position === "before") {
    const entry = node.entry;
    if (entry.type !== "message" || (entry.message as { role?: unknown } | undefined)?.role !== "user") {
      throw new NewFileError("refused", source, sessionErrors.forkBeforeNotUser(entryId));
    }
    const parentId: unknown = entry.parentId;
    leafId = typeof parentId === "string" && parentId !== "" ? parentId : null;
    if (leafId !== null && !index.nodes.has(leafId)) {
      throw new NewFileError("not-found", source, newFileErrors.parentNotIn(entryId, leafId, source));
    }
  }
  const now = options.now ?? new Date();
  const timestamp = now.toISOString();
  const header = sessionHeader({
    id: uuidv7(now.getTime()),
    timestamp,
    cwd: sessionCwd(index),
    parentSession: source,
  });
  const entries = leafId === null ? [] : branchedEntries(index, reader, leafId, source);
  const dir = resolve(options.dir ?? dirname(source));
  const path = join(dir, sessionFileName(timestamp, header.id));
  writeNewFile(path, jsonLines(header, entries));
  return { path, header, entries, leafId: entries.at(-1)?.id ?? null };
}

/** Pi's `/clone`: a fork at the leaf (by default the file's leaf). */
export function cloneSession(
  index: SessionIndex,
  reader: EntryReader,
  sourcePath: string,
  options: { leafId?: string; dir?: string; now?: Date } = {},
): NewSessionFile {
  const leafId = options.leafId ?? index.leafId;
  if (leafId === null) {
    throw new NewFileError("refused", resolvePiPath(sourcePath), newFileErrors.nothingToClone(sourcePath));
  }
  const { leafId: _ignored, ...rest } = options;
  return forkSession(index, reader, sourcePath, leafId, { ...rest, position: "at" });
}

/** The header's cwd as Pi's SessionManager resolves it (its process's cwd when missing). */
function sessionCwd(index: SessionIndex): string {
  const cwd = index.header?.cwd;
  return typeof cwd === "string" ? resolvePiPath(cwd) : process.cwd();
}

/** The entries `createBranchedSession(leafId)` writes after the header (exports build on it too). */
export function branchedEntries(
  index: SessionIndex,
  reader: EntryReader,
  leafId: string,
  source: string,
): SessionEntry[] {
  const path = pathToRoot(index, leafId).map((id) => wholeEntry(reader, index.nodes.get(id)!, source));
  const kept: SessionEntry[] = [];
  const replacementByLabelId = new Map<string, string>();
  const pendingLabelIds: string[] = [];
  let pathParentId: string | null = null;
  for (const entry of path) {
    if (entry.type === "label") {
      pendingLabelIds.push(entry.id);
      continue;
    }
    for (const labelId of pendingLabelIds) replacementByLabelId.set(labelId, entry.id);
    pendingLabelIds.length = 0;
    if (entry.type === "compaction") {
      const firstKept = entry.firstKeptEntryId;
      kept.push({
        ...entry,
        parentId: pathParentId,
        firstKeptEntryId:
          firstKept === entry.id ? entry.id : (replacementByLabelId.get(firstKept) ?? firstKept),
      });
    } else {
      kept.push({ ...entry, parentId: pathParentId });
    }
    pathParentId = entry.id;
  }
  const pathIds = new Set(kept.map((entry) => entry.id));
  let parentId: string | null = kept.at(-1)?.id ?? null;
  const labels: SessionEntry[] = [];
  for (const [targetId, state] of index.labels) {
    if (!pathIds.has(targetId)) continue;
    const id = freshId(pathIds);
    pathIds.add(id);
    labels.push({ type: "label", id, parentId, timestamp: state.timestamp, targetId, label: state.label });
    parentId = id;
  }
  return [...kept, ...labels];
}

function freshId(taken: ReadonlySet<string>): string {
  for (let i = 0; i < 100; i++) {
    const id = randomBytes(4).toString("hex");
    if (!taken.has(id)) return id;
  }
  return uuidv7();
}

/**
 * The whole entry behind a node. A structure-first index reads the body from
 * the file; if that read no longer matches what was indexed (the file
 * changed underneath), the fork is refused rather than written from mixed data.
 */
function wholeEntry(reader: EntryReader, node: TreeNode, source: string): SessionEntry {
  const entry = reader.entryOfNode(node);
  // Its deep fields were replaced by a note: written out, the copy would lose them.
  if (isNestedTooDeep(entry))
    throw new NewFileError("refused", source, newFileErrors.nestedTooDeep(source, node.line));
  if (!node.deferred) return entry;
  const stub = node.entry;
  if (entry === stub || entry.parentId !== stub.parentId || entry.timestamp !== stub.timestamp) {
    throw new NewFileError("conflict", source, newFileErrors.changedSinceRead(source, node.line));
  }
  return entry;
}

export interface ExportOptions {
  /** The new file. It must not exist. */
  destination: string;
  /**
   * Export only the branch ending here, written as a fork (`forkSession`
   * "at" this entry, with a fresh header naming the source). Without it the
   * whole session is copied as it is.
   */
  leafId?: string;
  now?: Date;
}

export interface ExportResult {
  path: string;
  bytes: number;
  /** A half-written last line (another program still writing it) was left out of the copy. */
  omittedPartialLine: boolean;
}

/**
 * A copy of a session in a new file. Whole: the bytes the index was read
 * from (through `reader`, the index's file), exactly (a complete but
 * unterminated last line gets its "\n"; a half-written one is left out).
 * One branch: as `forkSession`.
 */
export function exportSession(
  index: SessionIndex,
  reader: FileEntryReader,
  sourcePath: string,
  options: ExportOptions,
): ExportResult {
  const destination = resolve(options.destination);
  if (options.leafId !== undefined) {
    const node = index.nodes.get(options.leafId);
    if (!node)
      throw new NewFileError("not-found", sourcePath, newFileErrors.entryNotIn(options.leafId, sourcePath));
    const now = options.now ?? new Date();
    const header = sessionHeader({
      id: uuidv7(now.getTime()),
      timestamp: now.toISOString(),
      cwd: sessionCwd(index),
      parentSession: resolvePiPath(sourcePath),
    });
    const lines = jsonLines(header, branchedEntries(index, reader, options.leafId, sourcePath));
    return { path: destination, ...writeNewFile(destination, lines), omittedPartialLine: false };
  }
  const readBody = reader.readBody;
  const end = completeLinesEnd(index);
  const partial = index.unterminatedLastLine;
  const copyEnd = partial?.parsed ? index.byteLength : end;
  function* chunks(): Generator<Uint8Array> {
    const step = 1 << 20;
    for (let at = 0; at < copyEnd; at += step) {
      try {
        yield readBody(at, Math.min(step, copyEnd - at));
      } catch (error) {
        throw new NewFileError(
          "conflict",
          sourcePath,
          newFileErrors.changedWhileCopied(sourcePath, String(error)),
        );
      }
    }
    if (copyEnd > end) yield new Uint8Array([0x0a]);
  }
  return {
    path: destination,
    ...writeNewFile(destination, chunks()),
    omittedPartialLine: partial !== null && !partial.parsed,
  };
}
