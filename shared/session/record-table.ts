/**
 * The parse records of a session, one row per entry line, stored by column:
 * a million record objects would cost ~88 B an entry (object and slot), the
 * columns ~29 B. The parser appends rows as it reads; the tree index keeps
 * the table (`SessionIndex.source.records`) and its nodes read their line,
 * bytes and deferral from their row.
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

/** Whole numbers below 2^32 fit the narrow columns; a larger one widens its column to doubles. */
type CountColumn = Uint32Array | Float64Array;

const MIN_CAPACITY = 16;

export class RecordTable {
  private count = 0;
  private lines: CountColumn;
  private offsets: Float64Array;
  private byteLengths: CountColumn;
  private piIndexes: CountColumn;
  private deferreds: Uint8Array;
  private values: Record<string, unknown>[];
  /** Null until a row has facts (only `structure-with-facts` parses keep any). */
  private factsOfRows: (EntryFacts | undefined)[] | null = null;
  /**
   * Rows below this are shared with a snapshot (`snapshot()`): writing one,
   * or pushing onto it, first copies the columns. Infinity for a snapshot.
   */
  private copyBelow = 0;

  /** `capacity`: the rows expected, when known (a table grown by doubling leaves its old columns behind). */
  constructor(capacity = MIN_CAPACITY) {
    const size = Math.max(MIN_CAPACITY, capacity);
    this.lines = new Uint32Array(size);
    this.offsets = new Float64Array(size);
    this.byteLengths = new Uint32Array(size);
    this.piIndexes = new Uint32Array(size);
    this.deferreds = new Uint8Array(size);
    this.values = [];
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
    if (row < this.copyBelow) this.ownColumns(this.lines.length);
    if (row === this.lines.length) this.ownColumns(row * 2);
    this.lines = setCount(this.lines, row, line);
    this.offsets[row] = offset;
    this.byteLengths = setCount(this.byteLengths, row, byteLength);
    this.piIndexes = setCount(this.piIndexes, row, piIndex);
    this.deferreds[row] = deferred ? 1 : 0;
    // Written by index, not pushed: after a truncation the array may be longer than the rows.
    this.values[row] = value;
    if (facts !== undefined || this.factsOfRows !== null) this.factsColumn()[row] = facts;
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
    other.checked(row);
    this.push(
      other.values[row]!,
      other.lines[row]!,
      other.offsets[row]!,
      other.byteLengths[row]!,
      other.piIndexes[row]!,
      other.deferreds[row] === 1,
      other.facts(row),
    );
  }

  /** Every row of `other` after this table's rows. */
  append(other: RecordTable): void {
    for (let row = 0; row < other.count; row++) this.pushRow(other, row);
  }

  value(row: number): Record<string, unknown> {
    return this.values[this.checked(row)]!;
  }

  /** Replaces a row's value (an in-memory migration). */
  setValue(row: number, value: Record<string, unknown>): void {
    this.checked(row);
    if (row < this.copyBelow) this.ownColumns(this.lines.length);
    this.values[row] = value;
  }

  line(row: number): number {
    return this.lines[this.checked(row)]!;
  }

  offset(row: number): number {
    return this.offsets[this.checked(row)]!;
  }

  byteLength(row: number): number {
    return this.byteLengths[this.checked(row)]!;
  }

  piIndex(row: number): number {
    return this.piIndexes[this.checked(row)]!;
  }

  deferred(row: number): boolean {
    return this.deferreds[this.checked(row)] === 1;
  }

  facts(row: number): EntryFacts | undefined {
    return this.factsOfRows?.[this.checked(row)];
  }

  /** Whether any row is deferred (a structure-first parse). */
  someDeferred(): boolean {
    return this.deferreds.subarray(0, this.count).includes(1);
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
    // The values array of a table sharing rows with a snapshot is the snapshot's too.
    if (this.copyBelow > 0) this.ownColumns(this.lines.length);
    this.count = length;
    this.values.length = length;
    if (this.factsOfRows !== null) this.factsOfRows.length = length;
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
   * table share their columns until either writes a shared row (then it
   * copies them first). Rows pushed onto this table later are not the snapshot's.
   */
  snapshot(): RecordTable {
    const snapshot = new RecordTable(0);
    snapshot.count = this.count;
    snapshot.lines = this.lines;
    snapshot.offsets = this.offsets;
    snapshot.byteLengths = this.byteLengths;
    snapshot.piIndexes = this.piIndexes;
    snapshot.deferreds = this.deferreds;
    snapshot.values = this.values;
    snapshot.factsOfRows = this.factsOfRows;
    snapshot.copyBelow = Infinity;
    this.copyBelow = Math.max(this.copyBelow, this.count);
    return snapshot;
  }

  private checked(row: number): number {
    if (!(row >= 0 && row < this.count)) throw new RangeError(`No row ${row} in a table of ${this.count}`);
    return row;
  }

  private factsColumn(): (EntryFacts | undefined)[] {
    if (this.factsOfRows === null)
      this.factsOfRows = new Array<EntryFacts | undefined>(this.count).fill(undefined);
    return this.factsOfRows;
  }

  /** Moves the rows to columns of this table's own with room for `capacity` rows. */
  private ownColumns(capacity: number): void {
    const size = Math.max(MIN_CAPACITY, capacity, this.count);
    this.lines = resized(this.lines, size, this.count);
    this.offsets = resized(this.offsets, size, this.count);
    this.byteLengths = resized(this.byteLengths, size, this.count);
    this.piIndexes = resized(this.piIndexes, size, this.count);
    this.deferreds = resized(this.deferreds, size, this.count);
    if (this.copyBelow > 0) {
      this.values = this.values.slice(0, this.count);
      if (this.factsOfRows !== null) this.factsOfRows = this.factsOfRows.slice(0, this.count);
    }
    this.copyBelow = 0;
  }
}

function resized<T extends CountColumn | Uint8Array>(column: T, size: number, rows: number): T {
  const next = new (column.constructor as new (size: number) => T)(size);
  next.set(column.subarray(0, rows) as never);
  return next;
}

/** Writes `value` at `row`, widening the column to doubles first when it does not fit 32 bits. */
function setCount(column: CountColumn, row: number, value: number): CountColumn {
  let target = column;
  if (target instanceof Uint32Array && !(value >= 0 && value <= 0xffffffff)) {
    target = new Float64Array(column.length);
    target.set(column);
  }
  target[row] = value;
  return target;
}
