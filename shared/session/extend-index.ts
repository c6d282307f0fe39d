/**
 * Adding lines appended to a session file to its index: where a reader of
 * the new bytes starts (`resumePoint`), and the index extended with what it
 * parsed (`extendSessionIndex`), in place when the new lines fit the tree as
 * it is, else rebuilt from the kept records plus the new.
 */

import { validateEntry } from "./entry-validation.ts";
import type { ParsedSession } from "./parse.ts";
import type { Problem } from "./problems.ts";
import type { RecordTable } from "./record-table.ts";
import {
  applyLabelOrName,
  buildSessionIndex,
  createNode,
  type SessionIndex,
  type TreeNode,
} from "./tree-index.ts";
import { declaredParentId, orderChildren, orphanProblem, selfParentProblem } from "./tree-links.ts";
import { CURRENT_SESSION_VERSION, type SessionHeader } from "./types.ts";

/** Where a reader of appended bytes starts: after the last complete line (an unterminated one is read again). */
export function resumePoint(index: SessionIndex): {
  offset: number;
  lineNumber: number;
  piIndex: number;
  header: SessionHeader | null;
  headerLine: number | null;
} {
  const partial = index.unterminatedLastLine;
  const offset = partial ? partial.offset : index.byteLength;
  const lineNumber = partial ? partial.line : index.lineCount + 1;
  // Records are in line order: the last one before the resumed line carries the count.
  const records = index.source.records;
  let at = records.length - 1;
  while (at >= 0 && records.line(at) >= lineNumber) at--;
  const piIndex = at >= 0 ? records.piIndex(at) + 1 : 1;
  return { offset, lineNumber, piIndex, header: index.header, headerLine: index.source.headerLine };
}

/**
 * Adds the lines parsed from `resumePoint(index)` onwards. In the common case
 * (new ids, parents already known or earlier in the tail) the index is updated
 * in place, in time proportional to the new lines; otherwise (a re-read
 * unterminated line that had parsed, duplicate ids, an orphan's parent
 * arriving, a legacy file) it is rebuilt from the kept records plus the new.
 * Returns the index to use from now on (a rebuilt one needs a new `EntryReader`).
 */
export function extendSessionIndex(
  index: SessionIndex,
  tail: ParsedSession,
): { index: SessionIndex; rebuilt: boolean } {
  const source = index.source;
  const partial = index.unterminatedLastLine;
  const resumedLine = partial ? partial.line : index.lineCount + 1;
  // Whatever the old index said about a line being re-read no longer holds.
  const keptParseProblems = source.parseProblems.filter(
    (p) => p.line < resumedLine && p.kind !== "unterminated-last-line",
  );
  // Only records of a re-read last line go; found from the end, so an append costs what it adds.
  let kept = source.records.length;
  while (kept > 0 && source.records.line(kept - 1) >= resumedLine) kept--;
  const rereads = kept !== source.records.length;
  if (rereads || needsRebuild(index, tail)) {
    // A table of its own: the old index stays whole for whoever still reads it.
    const records = source.records.slice(0, kept);
    records.append(tail.records);
    const parsed: ParsedSession = {
      header: tail.header ?? source.header,
      headerLine: source.headerLine ?? tail.headerLine,
      records,
      problems: [...keptParseProblems, ...tail.problems],
      byteLength: tail.byteLength,
      lineCount: tail.lineCount,
      unterminatedLastLine: tail.unterminatedLastLine,
      trailingNonEntryLine: trailingAfter(index, tail, resumedLine),
    };
    return { index: buildSessionIndex(parsed), rebuilt: true };
  }
  extendInPlace(index, tail, keptParseProblems, resumedLine);
  return { index, rebuilt: false };
}

/** Whether the tail cannot go into the index as it is (see `extendSessionIndex`). */
function needsRebuild(index: SessionIndex, tail: ParsedSession): boolean {
  return (
    index.version < CURRENT_SESSION_VERSION ||
    tail.header !== index.source.header ||
    index.trailingNonEntryLine !== null ||
    tail.trailingNonEntryLine !== null ||
    !appendsCleanly(index, tail.records)
  );
}

/** Adds the tail's records to the index itself. Problems of the old lines stay; those of a re-read (unparsed) last line go. */
function extendInPlace(
  index: SessionIndex,
  tail: ParsedSession,
  keptParseProblems: Problem[],
  resumedLine: number,
): void {
  for (let i = index.problems.length - 1; i >= 0; i--) {
    if (index.problems[i]!.line >= resumedLine) index.problems.splice(i, 1);
  }
  index.source.parseProblems = [...keptParseProblems, ...tail.problems];
  const problems = index.problems;
  const problemsBefore = problems.length;
  problems.push(...tail.problems);
  const added = addRecords(index, tail.records);
  linkAppended(index, added);
  const last = added[added.length - 1];
  if (last) index.leafId = last.id;
  index.byteLength = tail.byteLength;
  index.lineCount = Math.max(index.lineCount, tail.lineCount);
  index.unterminatedLastLine = tail.unterminatedLastLine;
  index.trailingNonEntryLine = trailingAfter(index, tail, resumedLine);
  if (problems.length > problemsBefore) problems.sort((a, b) => a.line - b.line);
}

/** Validates each new record and makes its node (fresh ids: `appendsCleanly` said so); returns the nodes. */
function addRecords(index: SessionIndex, records: RecordTable): TreeNode[] {
  const added: TreeNode[] = [];
  const table = index.source.records;
  for (let row = 0; row < records.length; row++) {
    table.pushRow(records, row);
    const value = records.value(row);
    const line = records.line(row);
    const entry = validateEntry(value, line, index.problems);
    index.entries.push(entry);
    const node = createNode(table, table.length - 1, entry);
    index.nodes.set(entry.id, node);
    added.push(node);
    applyLabelOrName(index, entry);
  }
  return added;
}

/** Links new nodes to their parents (all indexed by now, or missing for good) and keeps child lists in order. */
function linkAppended(index: SessionIndex, added: readonly TreeNode[]): void {
  const problems = index.problems;
  for (const node of added) {
    const parentId = declaredParentId(node.entry);
    const parent = parentId === null ? undefined : index.nodes.get(parentId);
    if (parentId === null || parentId === node.id || !parent) {
      if (parentId === node.id) {
        problems.push(selfParentProblem(node));
      } else if (parentId !== null) {
        index.orphans.push(node.id);
        problems.push(orphanProblem(node, parentId));
      }
      index.roots.push(node.id);
      node.depth = 0;
      continue;
    }
    node.parent = parent;
    node.depth = parent.depth + 1;
    parent.addChild(node.id);
    orderChildren(index.nodes, parent);
  }
}

/** A non-entry value after the last entry stays the last thing read until an entry follows it. */
function trailingAfter(index: SessionIndex, tail: ParsedSession, resumedLine: number): number | null {
  if (tail.trailingNonEntryLine !== null || tail.records.length > 0) return tail.trailingNonEntryLine;
  const kept = index.trailingNonEntryLine;
  return kept !== null && kept < resumedLine ? kept : null;
}

/**
 * Whether new records can go into the index as they are: fresh ids, each
 * parent already indexed, earlier in the tail, or missing for good (not
 * something an existing orphan waits for).
 */
function appendsCleanly(index: SessionIndex, records: RecordTable): boolean {
  const waitedFor = new Set<string>();
  for (const id of index.orphans) {
    const parentId = declaredParentId(index.nodes.get(id)!.entry);
    if (parentId !== null) waitedFor.add(parentId);
  }
  const tailIds = new Set<string>();
  for (let row = 0; row < records.length; row++) {
    const id = records.value(row).id;
    if (typeof id !== "string" || id === "" || index.nodes.has(id) || tailIds.has(id) || waitedFor.has(id)) {
      return false;
    }
    tailIds.add(id);
  }
  // A parent named before it appears (later in the same tail) would be an orphan now but not in a fresh read.
  const seen = new Set<string>();
  for (let row = 0; row < records.length; row++) {
    const value = records.value(row);
    const parentId = value.parentId;
    if (typeof parentId === "string" && tailIds.has(parentId) && !seen.has(parentId)) return false;
    seen.add(value.id as string);
  }
  return true;
}
