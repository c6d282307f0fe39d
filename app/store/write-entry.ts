/**
 * Every change a user makes to a session, as one entry appended through
 * `append.ts` (whole lines, all its checks): a name, a label, a continue
 * marker, an archive marker, a note, a context edit, and the undo of the
 * last name, label, archive or continue by the entry that reverses it.
 *
 * Where each goes, and what it does to Pi's resume point (the file's last
 * entry; see shared/session/arbor-entries.ts for Arbor's own entries):
 * - name, label, archive, undo of any of these: a child of the file's leaf,
 *   contributing nothing to the model's context, so Pi resumes with the same
 *   context as before;
 * - continue: a child of the chosen entry, so Pi resumes there;
 * - note, context edit: a child of `at` (default the file's leaf); they change
 *   the context by design, and away from the leaf they move the resume point too.
 */

import { manageErrors } from "../../shared/error-texts.ts";
import {
  ARBOR_ARCHIVE,
  ARBOR_CONTINUE,
  ARBOR_NOTE,
  archivedTargets,
  archiveMarkerOf,
  CONTINUE_SUMMARY_DETAILS,
  continueFromIdOf,
} from "../../shared/session/arbor-entries.ts";
import type { EntryReader } from "../../shared/session/entry-reader.ts";
import { entryLineAt, type SessionIndex } from "../../shared/session/tree-index.ts";
import { assertNever, type SessionEntry } from "../../shared/session/types.ts";
import {
  AppendError,
  type AppendResult,
  type AppendTarget,
  appendBranchSummary,
  appendContextEdit,
  appendCustomEntry,
  appendCustomMessage,
  appendLabel,
  appendSessionName,
} from "./append.ts";

export type SessionWrite =
  /** A non-empty label sets it; null or "" clears it. */
  | { kind: "label"; targetId: string; label: string | null }
  /** "" clears the name (Pi's rule). */
  | { kind: "name"; name: string }
  /** Pi resumes from `entryId` next time; with a summary, as Pi's branch summary of the branch left. */
  | { kind: "continue"; entryId: string; summary?: string | undefined }
  | { kind: "archive"; targetId: string; archived: boolean }
  | { kind: "note"; text: string; at?: string | undefined }
  /** Pi 1.x only: a `context_edit` (Pi 0.73 ignores it). `null` drops the target from the context. */
  | {
      kind: "context-edit";
      targetId: string;
      replacement: { content: string | unknown[] } | null;
      at?: string | undefined;
    }
  /** Reverses `entryId`, by default the last name, label, archive or continue entry of the file. */
  | { kind: "undo"; entryId?: string | undefined };

export type UndoableKind = "label" | "name" | "archive" | "continue";

export interface WriteOutcome extends AppendResult {
  /** The file's leaf (Pi's resume point) before the write. */
  previousLeafId: string | null;
  /** The new entry is not a child of the previous leaf: Pi now resumes on another branch. */
  movedResumePoint: boolean;
  /** An undo: the entry it reversed. */
  undid: { entryId: string; kind: UndoableKind } | null;
}

export interface WriteRequest {
  write: SessionWrite;
  /** The whole entries of `target.index` (undo and archive read Arbor's markers). */
  reader: EntryReader;
  /** Runs after every check of the request, before the write (see `AppendTarget.beforeWrite`). */
  beforeWrite?: (() => void) | undefined;
}

/** Appends the entry `write` stands for; throws `AppendError` (nothing written) when it cannot. */
export function writeSessionEntry(appendTarget: AppendTarget, request: WriteRequest): WriteOutcome {
  const { write, reader, beforeWrite } = request;
  const target = beforeWrite ? { ...appendTarget, beforeWrite } : appendTarget;
  const leafId = target.index.leafId;
  switch (write.kind) {
    case "label":
      return outcome(target, appendLabel(target, { leafId, targetId: write.targetId, label: write.label }));
    case "name":
      return outcome(target, appendSessionName(target, { leafId, name: write.name }));
    case "continue":
      return outcome(target, appendContinue(target, write.entryId, write.summary));
    case "archive":
      return outcome(target, appendArchive(target, reader, write.targetId, write.archived));
    case "note":
      if (typeof write.text !== "string" || write.text.trim() === "") {
        refuse(target, "invalid-argument", "A note needs some text; nothing was written.");
      }
      return outcome(
        target,
        appendCustomMessage(target, {
          leafId: write.at ?? leafId,
          customType: ARBOR_NOTE,
          content: write.text,
          display: true,
        }),
      );
    case "context-edit": {
      const at = write.at ?? leafId;
      if (at === null) refuse(target, "missing-target", manageErrors.nothingToEdit);
      const edit = { leafId: at, targetId: write.targetId, replacement: write.replacement };
      return outcome(target, appendContextEdit(target, edit));
    }
    case "undo":
      return undo(target, reader, write.entryId);
    default:
      return assertNever(write, "session write");
  }
}

function outcome(
  target: AppendTarget,
  result: AppendResult,
  undid: WriteOutcome["undid"] = null,
): WriteOutcome {
  const previousLeafId = target.index.leafId;
  return { ...result, previousLeafId, movedResumePoint: result.entry.parentId !== previousLeafId, undid };
}

function refuse(target: AppendTarget, reason: AppendError["reason"], message: string): never {
  const code = reason === "missing-target" ? "not-found" : "refused";
  throw new AppendError(code, reason, target.path, message);
}

function requireTarget(target: AppendTarget, id: string): void {
  if (typeof id !== "string" || !target.index.nodes.has(id)) {
    refuse(target, "missing-target", manageErrors.noEntryNothingWritten(id));
  }
}

/** A continue marker as the chosen entry's child, or with a summary Pi's branch summary there. */
function appendContinue(target: AppendTarget, entryId: string, summary: string | undefined): AppendResult {
  requireTarget(target, entryId);
  const fromId = target.index.leafId;
  if (entryId === fromId) {
    refuse(target, "no-change", manageErrors.alreadyResumesFrom(entryId));
  }
  if (summary !== undefined && summary.trim() !== "") {
    return appendBranchSummary(target, {
      branchFromId: entryId,
      fromId: fromId ?? "root",
      summary,
      details: CONTINUE_SUMMARY_DETAILS,
    });
  }
  return appendCustomEntry(target, { leafId: entryId, customType: ARBOR_CONTINUE, data: { fromId } });
}

function appendArchive(
  target: AppendTarget,
  reader: EntryReader,
  targetId: string,
  archived: boolean,
  check = true,
): AppendResult {
  requireTarget(target, targetId);
  if (check && archivedTargets(target.index, reader).has(targetId) === archived) {
    refuse(target, "no-change", manageErrors.archiveUnchanged(targetId, archived));
  }
  return appendCustomEntry(target, {
    leafId: target.index.leafId,
    customType: ARBOR_ARCHIVE,
    data: { targetId, archived },
  });
}

// ---------------------------------------------------------------------------
// Undo

interface Undoable {
  /** Position in `index.entries`. */
  at: number;
  entry: SessionEntry;
  kind: UndoableKind;
}

function undo(target: AppendTarget, reader: EntryReader, entryId: string | undefined): WriteOutcome {
  const found =
    entryId === undefined ? lastUndoable(target.index, reader) : undoableAt(target, reader, entryId);
  if (!found) {
    refuse(target, "not-undoable", manageErrors.nothingToUndo);
  }
  const undid = { entryId: found.entry.id, kind: found.kind };
  const leafId = target.index.leafId;
  const entry = found.entry;
  switch (found.kind) {
    case "label": {
      const targetId = String(entry.targetId);
      const previous = previousOf(target.index, found.at, (earlier) =>
        earlier.type === "label" && earlier.targetId === targetId
          ? [earlier.label ? String(earlier.label) : null]
          : null,
      );
      return outcome(target, appendLabel(target, { leafId, targetId, label: previous?.[0] ?? null }), undid);
    }
    case "name": {
      const previous = previousOf(target.index, found.at, (earlier) =>
        earlier.type === "session_info" ? [typeof earlier.name === "string" ? earlier.name : ""] : null,
      );
      return outcome(target, appendSessionName(target, { leafId, name: previous?.[0] ?? "" }), undid);
    }
    case "archive": {
      const marker = archiveMarkerOf(entry)!;
      const previous = previousOf(target.index, found.at, (earlier) => {
        if (earlier.type !== "custom" || earlier.customType !== ARBOR_ARCHIVE) return null;
        const state = archiveMarkerOf(whole(target.index, reader, earlier));
        return state?.targetId === marker.targetId ? [state.archived] : null;
      });
      const archived = previous?.[0] ?? false;
      return outcome(target, appendArchive(target, reader, marker.targetId, archived, false), undid);
    }
    case "continue": {
      const fromId = continueFromIdOf(entry)?.fromId ?? null;
      if (fromId === null || !target.index.nodes.has(fromId)) {
        refuse(target, "not-undoable", manageErrors.noEarlierResumePoint);
      }
      const marker = { leafId: fromId, customType: ARBOR_CONTINUE, data: { fromId: leafId } };
      return outcome(target, appendCustomEntry(target, marker), undid);
    }
    default:
      return assertNever(found.kind, "undoable entry");
  }
}

/** The whole entry of an index entry (a stub's data is read from the file). */
function whole(index: SessionIndex, reader: EntryReader, entry: SessionEntry): SessionEntry {
  const node = index.nodes.get(entry.id);
  return node && node.entry === entry ? reader.entryOfNode(node) : entry;
}

/** What kind of undoable entry this is (reading the body only of a branch summary), or null. */
function undoableKind(
  index: SessionIndex,
  reader: EntryReader,
  entry: SessionEntry,
): Undoable["kind"] | null {
  switch (entry.type) {
    case "label":
      return "label";
    case "session_info":
      return "name";
    case "custom":
      if (entry.customType === ARBOR_ARCHIVE)
        return archiveMarkerOf(whole(index, reader, entry)) ? "archive" : null;
      return entry.customType === ARBOR_CONTINUE ? "continue" : null;
    case "branch_summary":
      return continueFromIdOf(whole(index, reader, entry)) ? "continue" : null;
    default:
      return null;
  }
}

/** Whether position `at` of `index.entries` is the entry its id names (not a line a later duplicate replaced). */
function isCurrent(index: SessionIndex, at: number): boolean {
  const entry = index.entries[at]!;
  return index.nodes.get(entry.id)?.line === entryLineAt(index, at);
}

function lastUndoable(index: SessionIndex, reader: EntryReader): Undoable | null {
  for (let at = index.entries.length - 1; at >= 0; at--) {
    if (!isCurrent(index, at)) continue;
    const entry = whole(index, reader, index.entries[at]!);
    const kind = undoableKind(index, reader, entry);
    if (kind) return { at, entry, kind };
  }
  return null;
}

/** The position in `index.entries` of the entry read from `line`; -1 if none. */
function lastEntryAtLine(index: SessionIndex, line: number): number {
  let at = index.entries.length - 1;
  while (at >= 0 && entryLineAt(index, at) !== line) at--;
  return at;
}

function undoableAt(target: AppendTarget, reader: EntryReader, entryId: string): Undoable {
  const { index } = target;
  const node = index.nodes.get(entryId);
  if (!node) refuse(target, "missing-target", manageErrors.noEntryToUndo(entryId));
  const at = lastEntryAtLine(index, node.line);
  const entry = reader.entryOfNode(node);
  const kind = undoableKind(index, reader, entry);
  if (at < 0 || !kind) {
    refuse(target, "not-undoable", manageErrors.notUndoable(entryId));
  }
  return { at, entry, kind };
}

/** The nearest entry before position `at` that `match` recognises, as what `match` made of it. */
function previousOf<T>(
  index: SessionIndex,
  at: number,
  match: (entry: SessionEntry) => [T] | null,
): [T] | null {
  for (let i = at - 1; i >= 0; i--) {
    if (!isCurrent(index, i)) continue;
    const found = match(index.entries[i]!);
    if (found) return found;
  }
  return null;
}
