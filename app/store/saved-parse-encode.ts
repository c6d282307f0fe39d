/**
 * Writes a parse in its saved form (`saved-parse-form.ts`), or declines when
 * it would not read back exactly. Runs of entries repeat a handful of stub
 * shapes, fact shapes and tool sets: each is stored once and numbered.
 */

import type { EntryFacts, UsageFacts } from "../../shared/session/facts.ts";
import type { ParsedSession } from "../../shared/session/parse.ts";
import { DEFERRED_VALUE } from "../../shared/session/stub.ts";
import { CURRENT_SESSION_VERSION, type SessionHeader } from "../../shared/session/types.ts";
import { contentHash } from "./content-hash.ts";
import {
  FORMAT,
  type FactShape,
  HAS_TEXT,
  IS_ERROR,
  PARSE_CACHE_VERSION,
  type SavedForm,
  type ShapeItem,
  STORED_CONSTANT,
  STORED_DEFERRED,
  STORED_MESSAGE_DEFERRED_ROLE,
  STORED_MESSAGE_NO_ROLE,
  STORED_MESSAGE_ROLE,
  STORED_MESSAGE_VALUE_ROLE,
  STORED_VALUE,
  type Stored,
  TOOL_CALLS_ONLY,
} from "./saved-parse-form.ts";

/** The text of a saved parse file for `path`; null when the parse cannot be saved exactly (see `canSave`). */
export function savedParseText(path: string, parsed: ParsedSession, digest: string): string | null {
  const saved = encodeSavedParse(path, parsed, digest);
  if (saved === null) return null;
  const body = JSON.stringify(saved);
  return `${contentHash().update(body).digest("hex")}\n${body}`;
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
  const tables = factTables();
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
    usage: [],
    model: [],
    filesRead: [],
    filesModified: [],
  };
  const values = records.values;
  let line = 0;
  let end = 0;
  let piIndex = 0;
  const table = parsed.records;
  for (let i = 0; i < count; i++) {
    if (!table.deferred(i)) throw new NotSaveable();
    records.shape.push(shapes.add(table.value(i), values));
    const recordLine = table.line(i);
    const offset = table.offset(i);
    const byteLength = table.byteLength(i);
    const recordPiIndex = table.piIndex(i);
    records.lineStep.push(recordLine - line);
    records.offsetGap.push(offset - end);
    records.byteLength.push(byteLength);
    records.piStep.push(recordPiIndex - piIndex);
    line = recordLine;
    end = offset + byteLength + 1;
    piIndex = recordPiIndex;
    pushFacts(records, table.facts(i), tables);
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
    factShapes: tables.factShapes.items,
    toolSets: tables.toolSets.items,
    models: tables.models.items,
    fileSets: tables.fileSets.items,
    records,
  };
}

/** The tables the facts' repeated values are numbered in. */
function factTables() {
  return {
    factShapes: new Interned<FactShape>(sameItems),
    toolSets: new Interned<readonly string[]>(sameItems),
    fileSets: new Interned<readonly string[]>(sameItems),
    models: new Interned<string>((a, b) => a === b),
  };
}

/** Appends one record's facts (or their absence) to the fact columns. */
function pushFacts(
  records: SavedForm["records"],
  facts: EntryFacts | undefined,
  tables: ReturnType<typeof factTables>,
): void {
  if (facts === undefined) {
    records.facts.push(-1);
    records.preview.push("");
    records.toolSet.push(-1);
    records.tokenEstimate.push(0);
    records.usage.push(null);
    records.model.push(-1);
    records.filesRead.push(-1);
    records.filesModified.push(-1);
    return;
  }
  if (!isExactPrimitive(facts.tokenEstimate)) throw new NotSaveable();
  const flags =
    (facts.isError ? IS_ERROR : 0) |
    (facts.toolCallsOnly ? TOOL_CALLS_ONLY : 0) |
    (facts.hasText ? HAS_TEXT : 0);
  records.facts.push(tables.factShapes.indexOf([facts.kind, facts.role ?? null, facts.stopReason, flags]));
  records.preview.push(facts.preview);
  records.toolSet.push(tables.toolSets.indexOf(facts.toolNames));
  records.tokenEstimate.push(facts.tokenEstimate);
  records.usage.push(savedUsage(facts.usage));
  records.model.push(facts.model === null ? -1 : tables.models.indexOf(facts.model));
  records.filesRead.push(tables.fileSets.indexOf(facts.filesRead));
  records.filesModified.push(tables.fileSets.indexOf(facts.filesModified));
}

function savedUsage(usage: UsageFacts | null): number[] | null {
  if (usage === null) return null;
  const saved = [usage.input, usage.output, usage.cacheRead, usage.cacheWrite, usage.cost];
  if (!saved.every(isExactPrimitive)) throw new NotSaveable();
  return saved;
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
