/**
 * The types of the contract's session-management requests (issue 19): what
 * a window asks to change a session, and what it is told was done. The
 * requests themselves are listed in contract.ts, grouped together.
 *
 * Writes into the open session each append one entry and never rewrite
 * anything (app/store/write-entry.ts). Each takes `confirmLive`: without
 * it, a session a Pi is probably writing (changed in the last few seconds,
 * or open in another process) is refused with code "conflict" and a sentence
 * saying why, and nothing is written; ask the user, then send it again with
 * `confirmLive: true`. Every other refusal (a half-written last line, a
 * legacy file, an unknown entry, the file changed on disk) is one sentence
 * too, with nothing written.
 */

/** What a write into the open session appended. */
export interface WriteResult {
  /** The new entry. */
  entryId: string;
  /** The file was changed by someone else within the last few seconds before the write. */
  wasLive: boolean;
  /** The file's leaf before the write: where Pi resumed. */
  previousLeafId: string | null;
  /**
   * Pi now resumes on another branch than before: always for `continueFrom`,
   * and for a note or a context edit placed `at` an entry other than the leaf.
   * Every other write leaves Pi's resume point and context as they were.
   */
  movedResumePoint: boolean;
  /** `session.undo`: the entry it reversed, and what kind of entry that was. */
  undid: { entryId: string; kind: "label" | "name" | "archive" | "continue" } | null;
}

/** A replacement for an entry's contribution to the context (`session.editContext`). */
export interface ContextReplacement {
  content: string;
}

/** What `session.fork` answers besides the new session's view. */
export interface ForkFields {
  /** Forking before a user message: that message's text, to offer for editing (Pi's `/fork`). */
  selectedText: string | null;
}

export type ExportFormat = "markdown" | "html" | "jsonl";

export const EXPORT_FORMATS: readonly ExportFormat[] = ["markdown", "html", "jsonl"];

/**
 * An export's content, for the window to save (a download under `arbor
 * serve`, the save dialog in the desktop app) under `fileName`.
 */
export interface ExportResult {
  fileName: string;
  mimeType: string;
  content: string;
}

export interface TrashResult {
  /** Names the trashed file for `session.restore` while Arbor runs. */
  trashId: string;
  /** The session's id as it was listed (no longer listed once the library rescans). */
  sessionId: string;
  /** For display only. */
  path: string;
  /** This window had the session open: it was closed first (`session.closed` was sent). */
  closed: boolean;
  /** Arbor knows where the file went and can move it back. */
  restorable: boolean;
}

export interface RestoreResult {
  /** The restored session's id (listed again once the library rescans). */
  sessionId: string;
  path: string;
}

export interface OpenInPiResult {
  /** A terminal was started running Pi on the session. */
  launched: boolean;
  /** Pi's command for the session, quoted for a shell: to copy when no terminal started. */
  command: string;
  /** Why no terminal started, and what to do; null when one did. */
  message: string | null;
}

/** The problems an import found (as `arbor check` reports them); errors refuse an import. */
export interface ImportReport {
  entries: number;
  lines: number;
  counts: { errors: number; warnings: number; notes: number };
  problems: { line: number; severity: string; code: string; message: string }[];
}

export interface ImportResult {
  sessionId: string;
  /** For display only. */
  path: string;
  report: ImportReport;
}

/**
 * The largest file a window may send as `session.import`'s `content` (its
 * UTF-8 bytes). A larger one is refused with a sentence saying so; the
 * desktop app imports any size by path, through its own open dialog.
 */
export const MAX_IMPORT_BYTES = 8 * 1024 * 1024;
