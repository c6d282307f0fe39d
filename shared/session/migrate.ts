/**
 * In-memory migration of version 1 and 2 files to version 3, with Pi's
 * semantics. Pi rewrites the file when it migrates; Arbor never does. Pi gives
 * v1 entries random ids; Arbor derives them from the line's bytes and
 * position, so the same file gets the same ids every time it is opened.
 */

import type { ParsedSession } from "./parse.ts";
import type { EntryRecord, RecordTable } from "./record-table.ts";
import { type Problem, problem } from "./problems.ts";
import { CURRENT_SESSION_VERSION } from "./types.ts";

export function sessionVersion(parsed: ParsedSession): number {
  if (parsed.header === null) {
    // No header declares a version: entries that carry ids are version 2 or later.
    const records = parsed.records;
    for (let row = 0; row < records.length; row++) {
      if (typeof records.value(row).id === "string") return CURRENT_SESSION_VERSION;
    }
    return 1;
  }
  const version = parsed.header.version;
  return typeof version === "number" ? version : 1;
}

/** Migrates `parsed.records` in place (objects are copied before they change). Returns the original version. */
export function migrateInMemory(parsed: ParsedSession): number {
  const version = sessionVersion(parsed);
  // Without a header no version was declared: the missing header is the problem to report, not a version.
  const declared = parsed.header !== null;
  if (declared && version < CURRENT_SESSION_VERSION) {
    parsed.problems.push(
      problem(
        "legacy-version",
        parsed.headerLine ?? 1,
        `A version ${version} session; it is read as version ${CURRENT_SESSION_VERSION} in memory and the file is left as it is (Pi would rewrite it).`,
      ),
    );
  } else if (declared && version > CURRENT_SESSION_VERSION) {
    parsed.problems.push(
      problem(
        "future-version",
        parsed.headerLine ?? 1,
        `A version ${version} session, newer than this Arbor knows (${CURRENT_SESSION_VERSION}); it is read as version ${CURRENT_SESSION_VERSION}.`,
      ),
    );
  }
  if (version < 2) migrateV1ToV2(parsed.records);
  if (version === 2) chainUnidentifiedEntries(parsed.records, parsed.problems);
  if (version < 3) migrateV2ToV3(parsed.records);
  return version;
}

/**
 * A version 2 file whose entries lack an id or a parentId (lines written the
 * version 1 way into a version 2 file): as Pi now reads it, such an entry gets
 * an id and follows the entry before it in the file. Each repair is reported;
 * the file keeps its bytes.
 */
function chainUnidentifiedEntries(records: RecordTable, problems: Problem[]): void {
  const used = new Set<string>();
  for (const record of records) if (isUsableId(record.value.id)) used.add(record.value.id);
  let previousId: string | null = null;
  for (let row = 0; row < records.length; row++) {
    const record = records.at(row);
    const hasId = isUsableId(record.value.id);
    const hasParent = "parentId" in record.value;
    if (!hasId || !hasParent) {
      const value: Record<string, unknown> = { ...record.value };
      if (!hasId) value.id = deterministicId(record, used);
      if (!hasParent) value.parentId = previousId;
      const id = value.id as string;
      const follows =
        previousId === null
          ? "it is the first entry, so a root"
          : `it follows "${previousId}", the entry before it`;
      problems.push(
        hasId
          ? problem(
              "missing-parent-id",
              record.line,
              `The entry has no parentId; ${follows}, as Pi reads a version 2 file.`,
              {
                entryId: id,
              },
            )
          : problem(
              "missing-id",
              record.line,
              `The entry has no id; it is read as "${id}"${hasParent ? "" : ` and ${follows}`}, as Pi reads a version 2 file.`,
              { entryId: id },
            ),
      );
      records.setValue(row, value);
    }
    previousId = records.value(row).id as string;
  }
}

function isUsableId(id: unknown): id is string {
  return typeof id === "string" && id.length > 0;
}

function migrateV1ToV2(records: RecordTable): void {
  const used = new Set<string>();
  const byPiIndex = new Map<number, number>();
  for (let row = 0; row < records.length; row++) byPiIndex.set(records.piIndex(row), row);
  let previousId: string | null = null;
  for (let row = 0; row < records.length; row++) {
    const record = records.at(row);
    const value: Record<string, unknown> = { ...record.value };
    const id = deterministicId(record, used);
    value.id = id;
    value.parentId = previousId;
    previousId = id;
    if (value.type === "compaction" && typeof value.firstKeptEntryIndex === "number") {
      // Pi resolves the index against its list as it migrates, so only earlier
      // entries have their new id yet; a later target keeps whatever id it had.
      const target = byPiIndex.get(value.firstKeptEntryIndex);
      if (target !== undefined) value.firstKeptEntryId = records.value(target).id;
      delete value.firstKeptEntryIndex;
    }
    records.setValue(row, value);
  }
}

function migrateV2ToV3(records: RecordTable): void {
  for (let row = 0; row < records.length; row++) {
    const value = records.value(row);
    if (value.type !== "message") continue;
    const message = value.message;
    if (
      typeof message === "object" &&
      message !== null &&
      (message as { role?: unknown }).role === "hookMessage"
    ) {
      records.setValue(row, { ...value, message: { ...message, role: "custom" } });
    }
  }
}

/** 8 hex characters from FNV-1a over the line's position and its first bytes of JSON, unique within the file. */
function deterministicId(record: EntryRecord, used: Set<string>): string {
  const seed = `${record.line}:${record.offset}:${record.byteLength}:${String(record.value.timestamp ?? "")}`;
  for (let salt = 0; ; salt++) {
    const id = fnv1a32(salt === 0 ? seed : `${seed}#${salt}`)
      .toString(16)
      .padStart(8, "0");
    if (!used.has(id)) {
      used.add(id);
      return id;
    }
  }
}

function fnv1a32(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}
