/**
 * Reads a saved parse back (`saved-parse-form.ts`), checking everything it
 * reads: a saved parse that is damaged, foreign or of another version reads
 * as none, and the file is then parsed.
 */

import { type EntryFacts, NO_FILES, type UsageFacts } from "../../shared/session/facts.ts";
import type { ParsedSession } from "../../shared/session/parse.ts";
import { isProblemShaped } from "../../shared/session/problems.ts";
import { RecordTable } from "../../shared/session/record-table.ts";
import { DEFERRED_VALUE, messageStub } from "../../shared/session/stub.ts";
import { CURRENT_SESSION_VERSION } from "../../shared/session/types.ts";
import { contentHash, DIGEST_HEX_LENGTH } from "./content-hash.ts";
import {
  FORMAT,
  HAS_TEXT,
  IS_ERROR,
  PARSE_CACHE_VERSION,
  type SavedForm,
  type SavedParse,
  type ShapeItem,
  STORED_CONSTANT,
  STORED_DEFERRED,
  STORED_MESSAGE_DEFERRED_ROLE,
  STORED_MESSAGE_NO_ROLE,
  STORED_MESSAGE_ROLE,
  STORED_MESSAGE_VALUE_ROLE,
  STORED_VALUE,
  TOOL_CALLS_ONLY,
} from "./saved-parse-form.ts";

/** Reads a saved parse file's text back; undefined, or a throw, for anything that is not one for `path`. */
export function readSavedParseText(text: string, path: string): SavedParse | undefined {
  // The first line is the SHA-256 of the rest: a file damaged on disk or edited is not read.
  const newline = text.indexOf("\n");
  const body = text.slice(newline + 1);
  if (
    newline !== DIGEST_HEX_LENGTH ||
    contentHash().update(body).digest("hex") !== text.slice(0, DIGEST_HEX_LENGTH)
  )
    return undefined;
  return decodeSavedParse(JSON.parse(body), path);
}

/** Reads a saved form back; throws on anything malformed (the caller then parses the file). */
export function decodeSavedParse(form: unknown, path: string): SavedParse | undefined {
  const saved = form as SavedForm;
  if (!isRecord(saved) || saved.format !== FORMAT || saved.version !== PARSE_CACHE_VERSION) return undefined;
  if (saved.path !== path || typeof saved.digest !== "string") return undefined;
  checkOutline(saved);
  const { records, end } = decodeRecords(saved);
  expect(Number.isSafeInteger(saved.byteLength) && saved.byteLength >= end - 1);
  const parsed: ParsedSession = {
    header: saved.header,
    headerLine: saved.headerLine,
    records,
    problems: saved.problems,
    byteLength: saved.byteLength,
    lineCount: saved.lineCount,
    unterminatedLastLine: null,
    trailingNonEntryLine: saved.trailingNonEntryLine,
  };
  return { parsed, digest: saved.digest };
}

/** Checks everything but the records themselves: the columns' lengths, the tables, the header, the problems. */
function checkOutline(saved: SavedForm): void {
  const columns = saved.records;
  const count = columns.count;
  expect(Number.isSafeInteger(count) && count >= 0);
  for (const column of [
    columns.shape,
    columns.lineStep,
    columns.offsetGap,
    columns.byteLength,
    columns.piStep,
    columns.facts,
    columns.preview,
    columns.toolSet,
    columns.tokenEstimate,
    columns.usage,
    columns.model,
    columns.filesRead,
    columns.filesModified,
  ]) {
    expect(Array.isArray(column) && column.length === count);
  }
  expect(Array.isArray(saved.shapes) && Array.isArray(saved.factShapes) && Array.isArray(saved.toolSets));
  expect(Array.isArray(saved.models) && saved.models.every((model) => typeof model === "string"));
  expect(Array.isArray(saved.fileSets) && saved.fileSets.every(isStringList));
  expect(Array.isArray(columns.values) && isRecord(saved.header) && Array.isArray(saved.problems));
  const version = (saved.header as { version?: unknown }).version;
  expect(typeof version === "number" && version >= CURRENT_SESSION_VERSION);
  expect(
    saved.problems.every(isProblemShaped) &&
      isLineOrNull(saved.headerLine) &&
      isLineOrNull(saved.trailingNonEntryLine),
  );
  expect(Number.isSafeInteger(saved.lineCount));
}

/** The records from their columns, and where the last one's line ends (its `\n` included). */
function decodeRecords(saved: SavedForm): { records: RecordTable; end: number } {
  const { shapes } = saved;
  const columns = saved.records;
  const values = columns.values;
  let nextValue = 0;
  // Made at its final size: a table grown by doubling leaves its old columns behind.
  const records = new RecordTable(columns.count);
  let line = 0;
  let end = 0;
  let piIndex = 0;
  for (let i = 0; i < columns.count; i++) {
    const value: Record<string, unknown> = {};
    nextValue = decodeStub(shapes[columns.shape[i]!], values, nextValue, value);
    // Lines, offsets and Pi's value positions only grow, record after record.
    const lineStep = columns.lineStep[i]!;
    const offsetGap = columns.offsetGap[i]!;
    const byteLength = columns.byteLength[i]!;
    const piStep = columns.piStep[i]!;
    expect(lineStep >= 1 && offsetGap >= 0 && byteLength >= 0 && piStep >= 1);
    line += lineStep;
    const offset = end + offsetGap;
    piIndex += piStep;
    expect(Number.isSafeInteger(line) && Number.isSafeInteger(offset) && Number.isSafeInteger(byteLength));
    expect(Number.isSafeInteger(piIndex));
    end = offset + byteLength + 1;
    records.push(value, line, offset, byteLength, piIndex, true, factsOf(saved, i));
  }
  expect(nextValue === values.length);
  return { records, end };
}

/**
 * Fills `stub` with the keys of `shape`, taking the stored values it needs
 * from `values` at `nextValue`; returns where the next stub's values start.
 */
function decodeStub(
  shape: readonly ShapeItem[] | undefined,
  values: readonly unknown[],
  nextValue: number,
  stub: Record<string, unknown>,
): number {
  expect(Array.isArray(shape));
  let next = nextValue;
  for (const item of shape!) {
    const key = item[0];
    expect(typeof key === "string" && key !== "__proto__");
    switch (item[1]) {
      case STORED_VALUE:
        expect(next < values.length);
        stub[key] = values[next++];
        break;
      case STORED_CONSTANT:
        expect(typeof item[2] === "string");
        stub[key] = item[2];
        break;
      case STORED_DEFERRED:
        stub[key] = DEFERRED_VALUE;
        break;
      case STORED_MESSAGE_ROLE:
        stub[key] = messageStub(item[2]);
        break;
      case STORED_MESSAGE_NO_ROLE:
        stub[key] = messageStub(undefined);
        break;
      case STORED_MESSAGE_DEFERRED_ROLE:
        stub[key] = messageStub(DEFERRED_VALUE);
        break;
      case STORED_MESSAGE_VALUE_ROLE:
        expect(next < values.length);
        stub[key] = messageStub(values[next++]);
        break;
      default:
        expect(false);
    }
  }
  return next;
}

function factsOf(saved: SavedForm, i: number): EntryFacts | undefined {
  const { factShapes, toolSets } = saved;
  const columns = saved.records;
  const at = columns.facts[i]!;
  if (at === -1) return undefined;
  const shape = factShapes[at];
  const tools = toolSets[columns.toolSet[i]!];
  const preview = columns.preview[i];
  const tokenEstimate = columns.tokenEstimate[i];
  expect(Array.isArray(shape) && Array.isArray(tools) && typeof preview === "string");
  expect(typeof tokenEstimate === "number");
  const [kind, role, stopReason, flags] = shape!;
  // The same fields in the same order as `entryFacts` makes them.
  return {
    kind,
    role: role ?? undefined,
    preview: preview!,
    toolNames: tools!.length === 0 ? [] : tools!.slice(),
    tokenEstimate: tokenEstimate!,
    isError: (flags & IS_ERROR) !== 0,
    toolCallsOnly: (flags & TOOL_CALLS_ONLY) !== 0,
    hasText: (flags & HAS_TEXT) !== 0,
    stopReason,
    usage: usageOf(columns.usage[i]),
    model: modelOf(saved.models, columns.model[i]!),
    // Shared between the records of one list: nobody writes to a fact's file list.
    filesRead: fileSetOf(saved.fileSets, columns.filesRead[i]!),
    filesModified: fileSetOf(saved.fileSets, columns.filesModified[i]!),
  };
}

function usageOf(saved: unknown): UsageFacts | null {
  if (saved === null) return null;
  expect(Array.isArray(saved) && saved.length === 5 && saved.every((n) => typeof n === "number"));
  const [input, output, cacheRead, cacheWrite, cost] = saved as number[];
  return { input: input!, output: output!, cacheRead: cacheRead!, cacheWrite: cacheWrite!, cost: cost! };
}

function modelOf(models: readonly string[], at: number): string | null {
  if (at === -1) return null;
  const model = models[at];
  expect(typeof model === "string");
  return model!;
}

function fileSetOf(fileSets: readonly (readonly string[])[], at: number): readonly string[] {
  const files = fileSets[at];
  expect(files !== undefined);
  return files!.length === 0 ? NO_FILES : files!;
}

function isStringList(value: unknown): boolean {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

function isLineOrNull(value: unknown): boolean {
  return value === null || Number.isSafeInteger(value);
}

function expect(condition: boolean): void {
  if (!condition) throw new Error("The saved parse is damaged.");
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
