/**
 * Saved parses of large session files. Reading a 100k-entry file structure
 * first is mostly `JSON.parse` of every line (about a second); a saved parse
 * of the same bytes reads back in a tenth of that. A saved parse is used
 * only for the exact bytes it was made from: it records their SHA-1, and
 * `openSessionFile` hashes the file's first `byteLength` bytes before trusting
 * it (lines appended since are parsed as a follower parses them). SHA-256:
 * see `content-hash.ts`. Anything
 * else (another format version, a damaged or foreign cache file, bytes that
 * differ) and the file is parsed as if there were no cache.
 *
 * Only Arbor's own data folder is written; session files are never touched.
 * One file per session, written to a temporary name and renamed: the SHA-256
 * of the saved form, a newline, the saved form as JSON. Beside it, the
 * session's saved view (`saved-view.ts`), under the same name with `.view`.
 *
 * The records are stored by column: a table of stub shapes (keys, and the
 * entry type and message role, which repeat), then one array per field.
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
import type { EntryFacts } from "../../shared/session/facts.ts";
import type { EntryRecord, ParsedSession } from "../../shared/session/parse.ts";
import { isProblemShaped, type Problem } from "../../shared/session/problems.ts";
import { DEFERRED_VALUE, messageStub } from "../../shared/session/stub.ts";
import { CURRENT_SESSION_VERSION, type SessionHeader } from "../../shared/session/types.ts";
import { contentHash, DIGEST_HEX_LENGTH } from "./content-hash.ts";
import { decodeSavedView, encodeSavedView, type SavedView } from "./saved-view.ts";

/**
 * The saved form's version. Bump it whenever what the parser keeps changes
 * (parse.ts, skim.ts, stub.ts, facts.ts): a saved parse is only valid for the
 * parser that made it. `parse-cache.test.ts` holds a digest of the parser's
 * output on the fixtures and fails until both are updated.
 */
export const PARSE_CACHE_VERSION = 2;

/** Files below this size parse fast enough; they are not cached. */
export const PARSE_CACHE_MIN_BYTES = 8 * 1024 * 1024;

/** How many sessions keep what is saved of them, and how many bytes they take at most; the least recently used go first. */
const MAX_SAVED = 64;
const MAX_SAVED_BYTES = 1024 * 1024 * 1024;
/** A temporary file this old was left by a process that stopped while writing. */
const STALE_TEMPORARY_MS = 60_000;

export interface SavedParse {
  /** The parse of the file's first `parsed.byteLength` bytes. */
  parsed: ParsedSession;
  /** SHA-256 (hex) of those bytes. */
  digest: string;
}

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
    const temporary = `${file}.${process.pid}.tmp`;
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
        // The first line is the SHA-256 of the rest: a file damaged on disk or edited is not read.
        const newline = text.indexOf("\n");
        const body = text.slice(newline + 1);
        if (
          newline !== DIGEST_HEX_LENGTH ||
          contentHash().update(body).digest("hex") !== text.slice(0, DIGEST_HEX_LENGTH)
        )
          return undefined;
        const saved = decodeSavedParse(JSON.parse(body), path);
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
      const saved = encodeSavedParse(path, parsed, digest);
      if (saved === null) return false;
      const body = JSON.stringify(saved);
      const text = `${contentHash().update(body).digest("hex")}\n${body}`;
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
      if (now - stats.mtimeMs > STALE_TEMPORARY_MS) rmSync(path, { force: true });
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

// ------------------------------------------------------------------ the saved form

const FORMAT = "arbor-saved-parse";

/** How a stub key's value is stored (a shape entry's second item; the third, when there is one, is a constant). */
const STORED_VALUE = 0; // the next item of `values`
const STORED_CONSTANT = 1; // the shape's constant (entry types)
const STORED_DEFERRED = 2; // `DEFERRED_VALUE`: a container whose body is read later
const STORED_MESSAGE_ROLE = 3; // a message stub whose role is the shape's constant
const STORED_MESSAGE_NO_ROLE = 4; // a message stub without a role
const STORED_MESSAGE_DEFERRED_ROLE = 5; // a message stub whose role is a container
const STORED_MESSAGE_VALUE_ROLE = 6; // a message stub whose role (not a string) is the next item of `values`
type Stored = 0 | 1 | 2 | 3 | 4 | 5 | 6;

type ShapeItem = [key: string, stored: Stored] | [key: string, stored: Stored, constant: string];

/** A fact shape: kind, role (null: none), stop reason, flags. */
type FactShape = [kind: string, role: string | null, stopReason: string | null, flags: number];
const IS_ERROR = 1;
const TOOL_CALLS_ONLY = 2;
const HAS_TEXT = 4;

interface SavedForm {
  format: typeof FORMAT;
  version: number;
  path: string;
  digest: string;
  byteLength: number;
  lineCount: number;
  header: SessionHeader;
  headerLine: number | null;
  problems: Problem[];
  trailingNonEntryLine: number | null;
  shapes: ShapeItem[][];
  factShapes: FactShape[];
  toolSets: (readonly string[])[];
  records: {
    count: number;
    shape: number[];
    /** The stubs' stored values, record after record, in shape order. */
    values: unknown[];
    /** `line` minus the previous record's. */
    lineStep: number[];
    /** `offset` minus the end of the previous record's line (its `\n` included). */
    offsetGap: number[];
    byteLength: number[];
    /** `piIndex` minus the previous record's. */
    piStep: number[];
    /** Index in `factShapes`, -1 for a record without facts. */
    facts: number[];
    preview: string[];
    toolSet: number[];
    tokenEstimate: number[];
  };
}

/** Thrown inside the encoder for a parse that would not read back exactly; `encodeSavedParse` returns null. */
class NotSaveable extends Error {}

/**
 * Whether `parsed` can be saved and read back exactly: a version-3 file read
 * structure first (every record a stub), ending in a whole line, holding only
 * values JSON writes back as they are (no -0, no number too large for a double).
 */
export function canSave(parsed: ParsedSession): boolean {
  return encodeSavedParse("", parsed, "") !== null;
}

export function encodeSavedParse(path: string, parsed: ParsedSession, digest: string): SavedForm | null {
  const header = parsed.header;
  if (header === null || typeof header.version !== "number" || header.version < CURRENT_SESSION_VERSION)
    return null;
  if (parsed.unterminatedLastLine !== null || !isExactJson(header) || !isExactJson(parsed.problems))
    return null;
  try {
    return encodeRecords(path, parsed, header, digest);
  } catch (error) {
    if (error instanceof NotSaveable) return null;
    throw error;
  }
}

function encodeRecords(
  path: string,
  parsed: ParsedSession,
  header: SessionHeader,
  digest: string,
): SavedForm {
  const shapes = new ShapeTable();
  const factShapes = new Interned<FactShape>(sameItems);
  const toolSets = new Interned<readonly string[]>(sameItems);
  const count = parsed.records.length;
  // Grown by push: `new Array(100_000)` would start out as a slow dictionary.
  const records: SavedForm["records"] = {
    count,
    shape: [],
    values: [],
    lineStep: [],
    offsetGap: [],
    byteLength: [],
    piStep: [],
    facts: [],
    preview: [],
    toolSet: [],
    tokenEstimate: [],
  };
  const values = records.values;
  let line = 0;
  let end = 0;
  let piIndex = 0;
  for (let i = 0; i < count; i++) {
    const record = parsed.records[i]!;
    if (!record.deferred) throw new NotSaveable();
    records.shape.push(shapes.add(record.value, values));
    records.lineStep.push(record.line - line);
    records.offsetGap.push(record.offset - end);
    records.byteLength.push(record.byteLength);
    records.piStep.push(record.piIndex - piIndex);
    line = record.line;
    end = record.offset + record.byteLength + 1;
    piIndex = record.piIndex;
    const facts = record.facts;
    if (facts === undefined) {
      records.facts.push(-1);
      records.preview.push("");
      records.toolSet.push(-1);
      records.tokenEstimate.push(0);
      continue;
    }
    if (!isExactPrimitive(facts.tokenEstimate)) throw new NotSaveable();
    const flags =
      (facts.isError ? IS_ERROR : 0) |
      (facts.toolCallsOnly ? TOOL_CALLS_ONLY : 0) |
      (facts.hasText ? HAS_TEXT : 0);
    const factAt = factShapes.indexOf([facts.kind, facts.role ?? null, facts.stopReason, flags]);
    const toolAt = toolSets.indexOf(facts.toolNames);
    records.facts.push(factAt);
    records.preview.push(facts.preview);
    records.toolSet.push(toolAt);
    records.tokenEstimate.push(facts.tokenEstimate);
  }
  return {
    format: FORMAT,
    version: PARSE_CACHE_VERSION,
    path,
    digest,
    byteLength: parsed.byteLength,
    lineCount: parsed.lineCount,
    header,
    headerLine: parsed.headerLine,
    problems: parsed.problems,
    trailingNonEntryLine: parsed.trailingNonEntryLine,
    shapes: shapes.shapes,
    factShapes: factShapes.items,
    toolSets: toolSets.items,
    records,
  };
}

/**
 * Values numbered in the order met, each once. Runs of entries repeat the
 * same few, so the values used last are compared before a key is built.
 */
class Interned<T> {
  readonly items: T[] = [];
  private readonly byKey = new Map<string, number>();
  private readonly recent: number[] = [];

  constructor(private readonly same: (a: T, b: T) => boolean) {}

  indexOf(item: T): number {
    for (const at of this.recent) if (this.same(this.items[at]!, item)) return at;
    const key = JSON.stringify(item);
    let at = this.byKey.get(key);
    if (at === undefined) {
      at = this.items.length;
      this.items.push(item);
      this.byKey.set(key, at);
    }
    this.recent.unshift(at);
    if (this.recent.length > RECENT_SHAPES) this.recent.pop();
    return at;
  }
}

function sameItems(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The stub shapes met so far. Entries of a file take a handful of shapes, in
 * runs (user, assistant, tool result...): a stub is compared with the few
 * shapes used last before any string is built for a lookup.
 */
class ShapeTable {
  readonly shapes: ShapeItem[][] = [];
  private readonly bySignature = new Map<string, number>();
  private readonly recent: number[] = [];

  /** The stub's shape index; its stored values are pushed onto `values`. */
  add(stub: Record<string, unknown>, values: unknown[]): number {
    let shape = -1;
    for (const candidate of this.recent) {
      if (fits(this.shapes[candidate]!, stub)) {
        shape = candidate;
        break;
      }
    }
    if (shape === -1) {
      const items: ShapeItem[] = [];
      let signature = "";
      for (const key in stub) {
        const field = stub[key];
        const stored = storedAs(key, field);
        const constant = constantOf(stored, field);
        items.push(constant === undefined ? [key, stored] : [key, stored, constant]);
        signature += `${JSON.stringify(key)}${stored}${constant === undefined ? "" : JSON.stringify(constant)},`;
      }
      shape = this.bySignature.get(signature) ?? -1;
      if (shape === -1) {
        shape = this.shapes.length;
        this.shapes.push(items);
        this.bySignature.set(signature, shape);
      }
      this.recent.unshift(shape);
      if (this.recent.length > RECENT_SHAPES) this.recent.pop();
    }
    for (const key in stub) {
      const field = stub[key];
      const stored = storedAs(key, field);
      if (stored === STORED_VALUE) values.push(field);
      else if (stored === STORED_MESSAGE_VALUE_ROLE) values.push((field as { role: unknown }).role);
    }
    return shape;
  }
}

const RECENT_SHAPES = 8;

/** Whether `stub` has exactly `shape`'s keys, in its order, stored the same way. */
function fits(shape: readonly ShapeItem[], stub: Record<string, unknown>): boolean {
  let at = 0;
  for (const key in stub) {
    const item = shape[at++];
    if (item === undefined || item[0] !== key) return false;
    const field = stub[key];
    const stored = storedAs(key, field);
    if (stored !== item[1] || constantOf(stored, field) !== item[2]) return false;
  }
  return at === shape.length;
}

/** How one stub field is stored; throws `NotSaveable` for a value that would not read back as it is. */
function storedAs(key: string, field: unknown): Stored {
  if (field === DEFERRED_VALUE) return STORED_DEFERRED;
  if (key === "type" && typeof field === "string") return STORED_CONSTANT;
  if (typeof field === "object" && field !== null) {
    if (key !== "message") throw new NotSaveable();
    let keys = 0;
    for (const messageKey in field) {
      if (messageKey !== "role") throw new NotSaveable();
      keys++;
    }
    if (keys === 0) return STORED_MESSAGE_NO_ROLE;
    const role = (field as { role: unknown }).role;
    if (role === DEFERRED_VALUE) return STORED_MESSAGE_DEFERRED_ROLE;
    if (typeof role === "string") return STORED_MESSAGE_ROLE;
    if (!isExactPrimitive(role)) throw new NotSaveable();
    return STORED_MESSAGE_VALUE_ROLE;
  }
  if (!isExactPrimitive(field)) throw new NotSaveable();
  return STORED_VALUE;
}

/** The constant a shape holds for a field stored as `stored` (the entry type, the message role). */
function constantOf(stored: Stored, field: unknown): string | undefined {
  if (stored === STORED_CONSTANT) return field as string;
  if (stored === STORED_MESSAGE_ROLE) return (field as { role: string }).role;
  return undefined;
}

function isExactPrimitive(value: unknown): boolean {
  if (typeof value === "number") return Number.isFinite(value) && !Object.is(value, -0);
  return typeof value === "string" || typeof value === "boolean" || value === null;
}

/** Whether `JSON.parse(JSON.stringify(value))` equals `value` (plain JSON values only). */
function isExactJson(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return isExactPrimitive(value);
  if (Array.isArray(value)) return value.every(isExactJson);
  for (const key in value) {
    const field = (value as Record<string, unknown>)[key];
    if (field !== undefined && !isExactJson(field)) return false;
  }
  return true;
}

/** Reads a saved form back; throws on anything malformed (the caller then parses the file). */
export function decodeSavedParse(form: unknown, path: string): SavedParse | undefined {
  const saved = form as SavedForm;
  if (!isRecord(saved) || saved.format !== FORMAT || saved.version !== PARSE_CACHE_VERSION) return undefined;
  if (saved.path !== path || typeof saved.digest !== "string") return undefined;
  const { shapes, factShapes, toolSets } = saved;
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
  ]) {
    expect(Array.isArray(column) && column.length === count);
  }
  expect(Array.isArray(shapes) && Array.isArray(factShapes) && Array.isArray(toolSets));
  expect(Array.isArray(columns.values) && isRecord(saved.header) && Array.isArray(saved.problems));
  const version = (saved.header as { version?: unknown }).version;
  expect(typeof version === "number" && version >= CURRENT_SESSION_VERSION);
  expect(
    saved.problems.every(isProblemShaped) &&
      isLineOrNull(saved.headerLine) &&
      isLineOrNull(saved.trailingNonEntryLine),
  );
  expect(Number.isSafeInteger(saved.lineCount));
  const values = columns.values;
  let nextValue = 0;
  const records: EntryRecord[] = [];
  let line = 0;
  let end = 0;
  let piIndex = 0;
  for (let i = 0; i < count; i++) {
    const shape = shapes[columns.shape[i]!];
    expect(Array.isArray(shape));
    const value: Record<string, unknown> = {};
    for (const item of shape!) {
      const key = item[0];
      expect(typeof key === "string" && key !== "__proto__");
      switch (item[1]) {
        case STORED_VALUE:
          expect(nextValue < values.length);
          value[key] = values[nextValue++];
          break;
        case STORED_CONSTANT:
          expect(typeof item[2] === "string");
          value[key] = item[2];
          break;
        case STORED_DEFERRED:
          value[key] = DEFERRED_VALUE;
          break;
        case STORED_MESSAGE_ROLE:
          value[key] = messageStub(item[2]);
          break;
        case STORED_MESSAGE_NO_ROLE:
          value[key] = messageStub(undefined);
          break;
        case STORED_MESSAGE_DEFERRED_ROLE:
          value[key] = messageStub(DEFERRED_VALUE);
          break;
        case STORED_MESSAGE_VALUE_ROLE:
          expect(nextValue < values.length);
          value[key] = messageStub(values[nextValue++]);
          break;
        default:
          expect(false);
      }
    }
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
    records.push({
      value,
      line,
      offset,
      byteLength,
      piIndex,
      deferred: true,
      facts: factsOf(columns, i, factShapes, toolSets),
    });
  }
  expect(nextValue === values.length);
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

function factsOf(
  columns: SavedForm["records"],
  i: number,
  factShapes: readonly FactShape[],
  toolSets: readonly (readonly string[])[],
): EntryFacts | undefined {
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
  };
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
