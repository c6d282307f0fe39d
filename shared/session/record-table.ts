/**
 * The parse records of a session, one row per entry line, stored by column:
 * a million record objects would cost ~88 B an entry (object and slot), the
 * columns ~17 B. The parser appends rows as it reads; the tree index keeps
 * the table (`SessionIndex.source.records`) and its nodes read their line,
 * bytes and deferral from their row. The columns are kept in chunks of a
 * fixed number of rows: growing never copies the rows already read, and
 * leaves no old columns behind at the open's peak.
 */

import type { EntryFacts } from "./facts.ts";

/** One row of a `RecordTable` as an object: for the few callers that need one (`RecordTable.at`). */
export interface EntryRecord {
  /** The parsed object, exactly as `JSON.parse` returned it (migrations may replace it in memory). */
  value: Record<string, unknown>;
  line: number;
  offset: number;
  /** Bytes of the line, without its `\n`. */
  byteLength: number;
  /**
   * Position in Pi's own list of parsed values (header included), which
   * version-1 compactions address by `firstKeptEntryIndex`.
   */
  piIndex: number;
  /**
   * True when `value` is a skim (see `skim.ts`): the entry's small fields
   * only, its body to be parsed from `offset`/`byteLength` when needed.
   */
  deferred: boolean;
  /**
   * In `structure-with-facts` mode, the facts of a deferred entry whose line
   * was parsed whole (see `EAGER_LINE_MAX_BYTES`), so they need no second read.
   */
  facts?: EntryFacts | undefined;
}

/**
 * A column of whole numbers, as narrow as its values allow: a value that does
 * not fit widens it (of one chunk), up to doubles for anything. Lines and Pi
 * positions are kept as their distance from the row number, offsets from the
 * chunk's first, so most take a byte or two instead of eight.
 */
type NumberColumn = Uint8Array | Uint16Array | Uint32Array | Float64Array;

const CHUNK_BITS = 14;
/** Rows of every chunk but a small table's first, which starts smaller and doubles up to this. */
const CHUNK_ROWS = 1 << CHUNK_BITS;
const ROW_MASK = CHUNK_ROWS - 1;
const MIN_CAPACITY = 16;

/** The columns of up to `CHUNK_ROWS` consecutive rows, from `firstRow` on. */
class Chunk {
  private lineDistances: NumberColumn;
  private offsetDistances: NumberColumn;
  private byteLengths: NumberColumn;
  private piDistances: NumberColumn;
  readonly deferreds: Uint8Array;
  readonly values: (Record<string, unknown> | undefined)[];
  /** Null until a row has facts (only `structure-with-facts` parses keep any). */
  facts: (EntryFacts | undefined)[] | null;
  /** The offset of the chunk's first row, from which the others are counted. */
  private baseOffset = 0;
  /** Also in a snapshot's chunk list (`RecordTable.snapshot`): a table writing it copies it first. */
  shared = false;

  constructor(
    private readonly firstRow: number,
    capacity: number,
    from?: Chunk,
  ) {
    if (from === undefined) {
      this.lineDistances = new Uint8Array(capacity);
      this.offsetDistances = new Uint32Array(capacity);
      this.byteLengths = new Uint16Array(capacity);
      this.piDistances = new Uint8Array(capacity);
      this.deferreds = new Uint8Array(capacity);
      this.values = new Array(capacity);
      this.facts = null;
      return;
    }
    this.lineDistances = resized(from.lineDistances, capacity);
    this.offsetDistances = resized(from.offsetDistances, capacity);
    this.byteLengths = resized(from.byteLengths, capacity);
    this.piDistances = resized(from.piDistances, capacity);
    this.deferreds = resized(from.deferreds, capacity);
    this.values = from.values.slice();
    this.values.length = capacity;
    this.facts = from.facts === null ? null : from.facts.slice();
    this.baseOffset = from.baseOffset;
  }

  get capacity(): number {
    return this.deferreds.length;
  }

  write(at: number, line: number, offset: number, byteLength: number, piIndex: number): void {
    const row = this.firstRow + at;
    if (at === 0) this.baseOffset = offset;
    this.lineDistances = stored(this.lineDistances, at, line - row);
    this.offsetDistances = stored(this.offsetDistances, at, offset - this.baseOffset);
    this.byteLengths = stored(this.byteLengths, at, byteLength);
    this.piDistances = stored(this.piDistances, at, piIndex - row);
  }

  line(at: number): number {
    return this.lineDistances[at]! + this.firstRow + at;
  }

  offset(at: number): number {
    return this.offsetDistances[at]! + this.baseOffset;
  }

  byteLength(at: number): number {
    return this.byteLengths[at]!;
  }

  piIndex(at: number): number {
    return this.piDistances[at]! + this.firstRow + at;
  }
}

export class RecordTable {
  private count = 0;
  private chunks: Chunk[];
  /**
   * Facts computed after the parse (`setLaterFacts`), by chunk of rows: kept
   * apart from the parse's own, which a saved parse holds, and never shared
   * with a snapshot or copied into a slice.
   */
  private readonly laterFactsChunks: ((EntryFacts | undefined)[] | undefined)[] = [];

  /** `capacity`: the rows expected, when known (sizes a first chunk smaller than a whole one). */
  constructor(capacity = MIN_CAPACITY) {
    this.chunks = [new Chunk(0, Math.min(CHUNK_ROWS, Math.max(MIN_CAPACITY, capacity)))];
  }

  /** A table of these records, in order (tests, legacy callers). */
  static of(records: Iterable<EntryRecord>): RecordTable {
    const table = new RecordTable();
    for (const record of records) table.pushRecord(record);
    return table;
  }

  get length(): number {
    return this.count;
  }

  push(
    value: Record<string, unknown>,
    line: number,
    offset: number,
    byteLength: number,
    piIndex: number,
    deferred: boolean,
    facts: EntryFacts | undefined,
  ): void {
    const row = this.count;
    const chunk = this.writableChunk(row, true);
    const at = row & ROW_MASK;
    chunk.write(at, line, offset, byteLength, piIndex);
    chunk.deferreds[at] = deferred ? 1 : 0;
    chunk.values[at] = value;
    if (facts !== undefined || chunk.facts !== null) factsOf(chunk)[at] = facts;
    this.count = row + 1;
  }

  pushRecord(record: EntryRecord): void {
    this.push(
      record.value,
      record.line,
      record.offset,
      record.byteLength,
      record.piIndex,
      record.deferred,
      record.facts,
    );
  }

  /** Row `row` of `other` after this table's rows. */
  pushRow(other: RecordTable, row: number): void {
    const chunk = other.chunkOf(row);
    const at = row & ROW_MASK;
    this.push(
      chunk.values[at]!,
      chunk.line(at),
      chunk.offset(at),
      chunk.byteLength(at),
      chunk.piIndex(at),
      chunk.deferreds[at] === 1,
      chunk.facts?.[at],
    );
  }

  /** Every row of `other` after this table's rows. */
  append(other: RecordTable): void {
    for (let row = 0; row < other.count; row++) this.pushRow(other, row);
  }

  value(row: number): Record<string, unknown> {
    return this.chunkOf(row).values[row & ROW_MASK]!;
  }

  /** Replaces a row's value (an in-memory migration). */
  setValue(row: number, value: Record<string, unknown>): void {
    this.chunkOf(row);
    this.writableChunk(row, false).values[row & ROW_MASK] = value;
  }

  line(row: number): number {
    return this.chunkOf(row).line(row & ROW_MASK);
  }

  offset(row: number): number {
    return this.chunkOf(row).offset(row & ROW_MASK);
  }

  byteLength(row: number): number {
    return this.chunkOf(row).byteLength(row & ROW_MASK);
  }

  piIndex(row: number): number {
    return this.chunkOf(row).piIndex(row & ROW_MASK);
  }

  deferred(row: number): boolean {
    return this.chunkOf(row).deferreds[row & ROW_MASK] === 1;
  }

  facts(row: number): EntryFacts | undefined {
    return this.chunkOf(row).facts?.[row & ROW_MASK];
  }

  /** Facts computed for a row after the parse (`setLaterFacts`). */
  laterFacts(row: number): EntryFacts | undefined {
    this.chunkOf(row);
    return this.laterFactsChunks[row >>> CHUNK_BITS]?.[row & ROW_MASK];
  }

  setLaterFacts(row: number, facts: EntryFacts | undefined): void {
    this.chunkOf(row);
    const k = row >>> CHUNK_BITS;
    this.laterFactsChunks[k] ??= new Array<EntryFacts | undefined>(CHUNK_ROWS).fill(undefined);
    this.laterFactsChunks[k]![row & ROW_MASK] = facts;
  }

  /** Whether any row is deferred (a structure-first parse). */
  someDeferred(): boolean {
    for (let k = 0; k < this.chunks.length; k++) {
      const rows = Math.min(CHUNK_ROWS, this.count - k * CHUNK_ROWS);
      if (rows > 0 && this.chunks[k]!.deferreds.subarray(0, rows).includes(1)) return true;
    }
    return false;
  }

  /** A row as an object of its own (a copy: changing it changes no row). */
  at(row: number): EntryRecord {
    return {
      value: this.value(row),
      line: this.line(row),
      offset: this.offset(row),
      byteLength: this.byteLength(row),
      piIndex: this.piIndex(row),
      deferred: this.deferred(row),
      facts: this.facts(row),
    };
  }

  *[Symbol.iterator](): IterableIterator<EntryRecord> {
    for (let row = 0; row < this.count; row++) yield this.at(row);
  }

  /** Drops the rows from `length` on (the records of a last line read again). */
  truncate(length: number): void {
    if (length < 0 || length > this.count) throw new RangeError(`No row ${length} to truncate at`);
    this.chunks.length = Math.max(1, Math.ceil(length / CHUNK_ROWS));
    const last = this.chunks[this.chunks.length - 1]!;
    // The dropped rows' values go (a shared chunk keeps them for the snapshot's sake).
    const cut = length - (this.chunks.length - 1) * CHUNK_ROWS;
    if (!last.shared) last.values.fill(undefined, cut);
    this.laterFactsChunks.length = Math.min(this.laterFactsChunks.length, this.chunks.length);
    this.laterFactsChunks[this.chunks.length - 1]?.fill(undefined, cut);
    this.count = length;
  }

  /** Rows `[start, end)` as a table of their own. */
  slice(start = 0, end = this.count): RecordTable {
    const from = Math.max(0, Math.min(start, this.count));
    const to = Math.max(from, Math.min(end, this.count));
    const table = new RecordTable(to - from);
    for (let row = from; row < to; row++) table.pushRow(this, row);
    return table;
  }

  /**
   * The rows as they are now, without copying them: the snapshot and this
   * table share their chunks until either writes one (then it copies that
   * chunk first). Rows pushed onto this table later are not the snapshot's.
   */
  snapshot(): RecordTable {
    const snapshot = new RecordTable(0);
    for (const chunk of this.chunks) chunk.shared = true;
    snapshot.chunks = this.chunks.slice();
    snapshot.count = this.count;
    return snapshot;
  }

  private chunkOf(row: number): Chunk {
    if (!(row >= 0 && row < this.count)) throw new RangeError(`No row ${row} in a table of ${this.count}`);
    return this.chunks[row >>> CHUNK_BITS]!;
  }

  /** The chunk of `row`, this table's own; `adding`: the row is the next one, its chunk made or grown if needed. */
  private writableChunk(row: number, adding: boolean): Chunk {
    const k = row >>> CHUNK_BITS;
    let chunk = this.chunks[k];
    if (chunk === undefined) {
      chunk = new Chunk(row, CHUNK_ROWS);
      this.chunks.push(chunk);
      return chunk;
    }
    const at = row & ROW_MASK;
    if (chunk.shared || (adding && at === chunk.capacity)) {
      // A small first chunk doubles; a shared one is copied at its size.
      const capacity = adding && at === chunk.capacity ? Math.min(CHUNK_ROWS, at * 2) : chunk.capacity;
      chunk = new Chunk(row - at, capacity, chunk);
      this.chunks[k] = chunk;
    }
    return chunk;
  }
}

function factsOf(chunk: Chunk): (EntryFacts | undefined)[] {
  if (chunk.facts === null) chunk.facts = new Array<EntryFacts | undefined>(chunk.capacity).fill(undefined);
  return chunk.facts;
}

function resized<T extends NumberColumn>(column: T, size: number): T {
  const next = new (column.constructor as new (size: number) => T)(size);
  next.set(column.subarray(0, Math.min(size, column.length)) as never);
  return next;
}

/** The largest value a column holds, by its bytes per element (doubles: any number). */
const LIMIT_BY_WIDTH = [0, 0xff, 0xffff, 0, 0xffffffff, 0, 0, 0, Infinity];

/** Writes `value` at `at`, first widening the column to the narrowest kind that holds it and its values. */
function stored(column: NumberColumn, at: number, value: number): NumberColumn {
  // One load to know the column's kind: `instanceof` on each row cost more than the write.
  const limit = LIMIT_BY_WIDTH[column.BYTES_PER_ELEMENT]!;
  if (limit === Infinity || (value >= 0 && value <= limit && Number.isInteger(value))) {
    column[at] = value;
    return column;
  }
  const wider =
    !Number.isInteger(value) || value < 0 || value > 0xffffffff
      ? new Float64Array(column.length)
      : value > 0xffff || column instanceof Uint32Array
        ? new Uint32Array(column.length)
        : new Uint16Array(column.length);
  wider.set(column);
  wider[at] = value;
  return wider;
}
