/**
 * The only way Arbor writes into an existing session file: one whole line
 * (`JSON.stringify(entry) + "\n"`) per entry, in one `write` on a descriptor
 * opened for appending, each entry with Pi's field names and Pi's key order,
 * as a child of the given leaf (Pi appends to its current leaf).
 *
 * Before writing, the file is checked again, on the very descriptor that
 * will be written:
 * - it must still be the file the index was read from, at the size and
 *   mtime the index saw (else "conflict": let the follower read the new
 *   bytes first, then try again);
 * - its last byte must be "\n": otherwise someone is in the middle of a
 *   line (or the file is damaged) and appending would merge two lines into
 *   one invalid line (Pi 0.73 does that and loses the entry);
 * - version 3 with a header (Arbor does not write into legacy files: Pi
 *   rewrites them whole when it opens them);
 * - the parent and any target must be entries of the file.
 * A file modified in the last few seconds is still written, and the result
 * says so (`wasLive`): a Pi is probably writing it too, and will not see the
 * new entry until it reopens the file.
 *
 * What no check can rule out is another writer starting a line between the
 * check and the write (microseconds). Pi cannot: each of its lines is one
 * `write()` on an O_APPEND descriptor, which the kernel applies whole with
 * respect to other appenders, so there is no moment at which Pi's line is
 * half on disk while Arbor's write lands.
 */

import { randomUUID } from "node:crypto";
import { closeSync, constants, fstatSync, openSync, readSync, type Stats, writeSync } from "node:fs";
import { appendChanges, appendErrors } from "../../shared/error-texts.ts";
import { ArborError } from "../../shared/ipc/contract.ts";
import { pathToRoot, type SessionIndex } from "../../shared/session/tree-index.ts";
import { EDITED_CONTENT, editableRole } from "../../shared/session/entry-contribution.ts";
import { CURRENT_SESSION_VERSION, type SessionEntry } from "../../shared/session/types.ts";

export type AppendErrorCode = "refused" | "conflict" | "not-found" | "io";

/** Why an append was not made, for callers that react differently (retry, reload, tell the user). */
export type AppendFailure =
  | "no-header"
  | "legacy-version"
  | "unterminated-last-line"
  | "invalid-argument"
  | "not-on-branch"
  | "not-editable"
  | "changed-on-disk"
  | "missing-file"
  | "missing-parent"
  | "missing-target"
  | "write-failed"
  /** Written within `LIVE_WINDOW_MS`, or held open by another process, and not confirmed (live-file.ts). */
  | "live"
  /** The entry is not one an undo can reverse, or there is none (write-entry.ts). */
  | "not-undoable"
  /** The write would change nothing (archiving what is archived, continuing from the resume point). */
  | "no-change";

export class AppendError extends ArborError {
  declare readonly code: AppendErrorCode;
  readonly reason: AppendFailure;
  readonly path: string;

  constructor(code: AppendErrorCode, reason: AppendFailure, path: string, message: string) {
    super(code, message);
    this.name = "AppendError";
    this.reason = reason;
    this.path = path;
  }
}

/** A file written within this many milliseconds is reported as live (a Pi is probably writing it). */
export const LIVE_WINDOW_MS = 3000;

/** The file as the index saw it. `dev` is compared when given. */
export interface FileState {
  size: number;
  mtimeMs: number;
  ino: number;
  dev?: number;
}

export interface AppendTarget {
  path: string;
  index: SessionIndex;
  /** What the index was read from; `null` when the file is known to be deleted. */
  file: FileState | null;
  /** Size and mtime right after this writer's previous append: that write does not make the file "live". */
  lastOwnWrite?: { size: number; mtimeMs: number } | undefined;
  /**
   * Runs once the entry is known to be valid, just before the file is opened
   * to write it; throwing stops the write (the live-file check: a request
   * that would be refused anyway is refused for that first).
   */
  beforeWrite?: (() => void) | undefined;
}

export interface AppendResult {
  entryId: string;
  /** The entry as written (the line is `JSON.stringify(entry) + "\n"`). */
  entry: SessionEntry;
  /** Byte length of the written line, newline included. */
  bytes: number;
  /** The file was modified by someone else within `LIVE_WINDOW_MS` before the append. */
  wasLive: boolean;
  /** Size and mtime of the file right after the write. */
  size: number;
  mtimeMs: number;
}

// ---------------------------------------------------------------------------
// The entries, each built exactly as Pi 1.6's SessionManager builds it.

export interface LabelOptions {
  /** The current leaf: the new entry's parent (`null`: a new root, as after Pi's `resetLeaf`). */
  leafId: string | null;
  targetId: string;
  /** A non-empty string sets the label; `null`, `undefined` or "" clears it (the key is then absent, as Pi writes it). */
  label: string | null | undefined;
}

/** Pi's `appendLabelChange(targetId, label)`. */
export function appendLabel(target: AppendTarget, options: LabelOptions): AppendResult {
  const { leafId, targetId } = options;
  requireString(target, "targetId", targetId);
  if (options.label !== null && options.label !== undefined && typeof options.label !== "string") {
    invalid(target, appendErrors.labelForm);
  }
  const label = options.label ? options.label : undefined;
  requireParent(target, leafId);
  requireEntry(target, targetId, "missing-target", "label");
  return writeEntry(target, (id, timestamp) => ({
    type: "label",
    id,
    parentId: leafId,
    timestamp,
    targetId,
    label,
  }));
}

export interface SessionNameOptions {
  leafId: string | null;
  /** Line breaks become spaces and the name is trimmed, as in Pi; "" clears the name. */
  name: string;
}

/** Pi's `appendSessionInfo(name)`. */
export function appendSessionName(target: AppendTarget, options: SessionNameOptions): AppendResult {
  requireString(target, "name", options.name, true);
  const name = options.name.replace(/[\r\n]+/g, " ").trim();
  requireParent(target, options.leafId);
  return writeEntry(target, (id, timestamp) => ({
    type: "session_info",
    id,
    parentId: options.leafId,
    timestamp,
    name,
  }));
}

export interface CustomEntryOptions {
  leafId: string | null;
  customType: string;
  data?: unknown;
}

/** Pi's `appendCustomEntry(customType, data)`: extension state, never in the model context. */
export function appendCustomEntry(target: AppendTarget, options: CustomEntryOptions): AppendResult {
  requireString(target, "customType", options.customType);
  requireParent(target, options.leafId);
  return writeEntry(target, (id, timestamp) => ({
    type: "custom",
    customType: options.customType,
    data: options.data,
    id,
    parentId: options.leafId,
    timestamp,
  }));
}

export type CustomMessageContent =
  | string
  | Array<{ type: "text"; text: string } | { type: "image"; data: string; mimeType: string }>;

export interface CustomMessageOptions {
  leafId: string | null;
  customType: string;
  content: CustomMessageContent;
  /** Whether Pi shows it in its TUI. */
  display: boolean;
  details?: unknown;
}

/** Pi's `appendCustomMessageEntry(customType, content, display, details)`: in the context as a user message. */
export function appendCustomMessage(target: AppendTarget, options: CustomMessageOptions): AppendResult {
  requireString(target, "customType", options.customType);
  if (typeof options.content !== "string" && !Array.isArray(options.content)) {
    invalid(target, appendErrors.customMessageContent);
  }
  if (typeof options.display !== "boolean") invalid(target, appendErrors.customMessageDisplay);
  requireParent(target, options.leafId);
  return writeEntry(target, (id, timestamp) => ({
    type: "custom_message",
    customType: options.customType,
    content: options.content,
    display: options.display,
    details: options.details,
    id,
    parentId: options.leafId,
    timestamp,
  }));
}

export interface BranchSummaryOptions {
  /**
   * The entry the new branch starts from, which becomes the summary's parent
   * (Pi's `branchWithSummary(branchFromId, ...)` moves its leaf there first);
   * `null` starts from before the first entry.
   */
  branchFromId: string | null;
  /** The leaf being left, which the summary describes; Pi writes "root" when there was none. */
  fromId: string;
  summary: string;
  details?: unknown;
  fromHook?: boolean;
  usage?: unknown;
}

/** Pi's `branchWithSummary(branchFromId, summary, details, fromHook, usage)`. */
export function appendBranchSummary(target: AppendTarget, options: BranchSummaryOptions): AppendResult {
  requireString(target, "fromId", options.fromId);
  if (typeof options.summary !== "string") invalid(target, appendErrors.branchSummaryText);
  requireParent(target, options.branchFromId);
  if (options.fromId !== "root") requireEntry(target, options.fromId, "missing-target", "branch summary");
  return writeEntry(target, (id, timestamp) => ({
    type: "branch_summary",
    id,
    parentId: options.branchFromId,
    timestamp,
    fromId: options.fromId,
    summary: options.summary,
    details: options.details,
    usage: options.usage,
    fromHook: options.fromHook,
  }));
}

export interface ContextEditOptions {
  /** The current leaf: the edit's parent, and the branch the target must be on. */
  leafId: string;
  targetId: string;
  /** New content for the target's contribution, or `null` to drop it from the context. */
  replacement: { content: string | unknown[] } | null;
}

/**
 * Pi 1.x's `appendContextEdit(targetId, replacement)`, with its checks: the
 * replacement is `null` or has string/array content; the target is on the
 * branch ending at `leafId`; it is a user, assistant or toolResult message or
 * a custom_message; a string replacement of an assistant or toolResult
 * message is stored as one text block. Pi 0.73 ignores these entries.
 */
export function appendContextEdit(target: AppendTarget, options: ContextEditOptions): AppendResult {
  const { leafId, targetId, replacement } = options;
  requireString(target, "targetId", targetId);
  if (
    replacement !== null &&
    (typeof replacement !== "object" ||
      !("content" in replacement) ||
      (typeof replacement.content !== "string" && !Array.isArray(replacement.content)))
  ) {
    invalid(target, appendErrors.contextEditReplacement);
  }
  requireString(target, "leafId", leafId);
  requireParent(target, leafId);
  const node = requireEntry(target, targetId, "missing-target", "context edit");
  if (!pathToRoot(target.index, leafId).includes(targetId)) {
    throw new AppendError(
      "refused",
      "not-on-branch",
      target.path,
      appendErrors.notOnBranch(targetId, leafId),
    );
  }
  const role = editableRole(node);
  const edited = role === null ? null : EDITED_CONTENT[role];
  if (edited === null) {
    throw new AppendError("refused", "not-editable", target.path, appendErrors.notEditable(targetId));
  }
  const normalized =
    replacement !== null && edited === "blocks" && typeof replacement.content === "string"
      ? { content: [{ type: "text", text: replacement.content }] }
      : replacement;
  return writeEntry(target, (id, timestamp) => ({
    type: "context_edit",
    id,
    parentId: leafId,
    timestamp,
    targetId,
    replacement: normalized,
  }));
}

// ---------------------------------------------------------------------------
// Ids

/** Pi's `generateId`: 8 hex characters of a random UUID, unused in the file; a whole UUID after 100 collisions. */
export function generateEntryId(index: SessionIndex): string {
  for (let i = 0; i < 100; i++) {
    const id = randomUUID().slice(0, 8);
    if (!index.nodes.has(id) && !index.byId.has(id)) return id;
  }
  return randomUUID();
}

// ---------------------------------------------------------------------------
// Checks and the write

function invalid(target: AppendTarget, message: string): never {
  throw new AppendError("refused", "invalid-argument", target.path, message);
}

function requireString(target: AppendTarget, field: string, value: unknown, allowEmpty = false): void {
  if (typeof value !== "string" || (!allowEmpty && value.length === 0)) {
    invalid(target, appendErrors.fieldNotString(field, allowEmpty));
  }
}

function requireParent(target: AppendTarget, leafId: string | null): void {
  if (leafId === null) return;
  if (typeof leafId !== "string") invalid(target, appendErrors.leafIdForm);
  if (!target.index.nodes.has(leafId)) {
    throw new AppendError(
      "not-found",
      "missing-parent",
      target.path,
      appendErrors.missingParent(leafId, target.path),
    );
  }
}

function requireEntry(
  target: AppendTarget,
  id: string,
  reason: AppendFailure,
  what: string,
): SessionEntry & { type: string } {
  const node = target.index.nodes.get(id);
  if (!node) {
    throw new AppendError(
      "not-found",
      reason,
      target.path,
      appendErrors.missingTarget(id, what, target.path),
    );
  }
  return node.entry;
}

function requireWritableIndex(target: AppendTarget): void {
  const { index, path } = target;
  if (index.header === null) {
    throw new AppendError("refused", "no-header", path, appendErrors.noHeader(path));
  }
  if (index.version < CURRENT_SESSION_VERSION) {
    throw new AppendError(
      "refused",
      "legacy-version",
      path,
      appendErrors.legacyVersion(path, index.version, CURRENT_SESSION_VERSION),
    );
  }
}

const APPEND_FLAGS = constants.O_RDWR | constants.O_APPEND;

/**
 * Opens without O_CREAT (unlike `fs.openSync(path, "a")`): a deleted file
 * must not be re-created as a headerless file holding one entry. Read and
 * write on one descriptor, so the checks and the write see the same inode.
 */
function openForAppend(path: string): number {
  try {
    return openSync(path, APPEND_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") {
      throw new AppendError("not-found", "missing-file", path, appendErrors.fileGone(path));
    }
    throw new AppendError("io", "write-failed", path, appendErrors.cannotOpen(path, messageOf(error)));
  }
}

function checkUnchanged(target: AppendTarget, stats: Stats): void {
  const { file, index, path } = target;
  if (file === null) throw new AppendError("not-found", "missing-file", path, appendErrors.fileGone(path));
  const same =
    stats.ino === file.ino &&
    (file.dev === undefined || stats.dev === file.dev) &&
    stats.size === file.size &&
    file.size === index.byteLength &&
    stats.mtimeMs === file.mtimeMs;
  if (!same) {
    throw new AppendError(
      "conflict",
      "changed-on-disk",
      path,
      appendErrors.changedOnDisk(path, describeChange(file, index, stats)),
    );
  }
}

function describeChange(file: FileState, index: SessionIndex, stats: Stats): string {
  if (stats.ino !== file.ino || (file.dev !== undefined && stats.dev !== file.dev))
    return appendChanges.replaced;
  if (file.size !== index.byteLength) return appendChanges.notCovered;
  if (stats.size !== file.size) return appendChanges.resized(file.size, stats.size);
  return appendChanges.touched;
}

function checkLastByte(path: string, fd: number, size: number): void {
  if (size === 0) {
    throw new AppendError("refused", "no-header", path, appendErrors.emptyFile(path));
  }
  const last = new Uint8Array(1);
  if (readSync(fd, last, 0, 1, size - 1) !== 1 || last[0] !== 0x0a) {
    throw new AppendError("refused", "unterminated-last-line", path, appendErrors.unterminatedLastLine(path));
  }
}

function writeEntry(
  target: AppendTarget,
  build: (id: string, timestamp: string) => Record<string, unknown>,
): AppendResult {
  requireWritableIndex(target);
  target.beforeWrite?.();
  const entry = build(generateEntryId(target.index), new Date().toISOString());
  const bytes = Buffer.from(`${JSON.stringify(entry)}\n`, "utf8");
  const { path } = target;
  const fd = openForAppend(path);
  try {
    const before = fstatSync(fd);
    checkUnchanged(target, before);
    checkLastByte(path, fd, before.size);
    let written: number;
    try {
      written = writeSync(fd, bytes, 0, bytes.length);
    } catch (error) {
      throw new AppendError("io", "write-failed", path, appendErrors.writeFailed(path, messageOf(error)));
    }
    if (written !== bytes.length) {
      throw new AppendError(
        "io",
        "write-failed",
        path,
        appendErrors.partialWrite(path, written, bytes.length),
      );
    }
    const after = fstatSync(fd);
    const own = target.lastOwnWrite;
    const ownLastChange = own !== undefined && own.size === before.size && own.mtimeMs === before.mtimeMs;
    return {
      entryId: entry.id as string,
      entry: entry as SessionEntry,
      bytes: bytes.length,
      wasLive: !ownLastChange && Date.now() - before.mtimeMs < LIVE_WINDOW_MS,
      size: after.size,
      mtimeMs: after.mtimeMs,
    };
  } finally {
    closeSync(fd);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
