/**
 * Arrays kept by version: a change makes a new array that shares every
 * chunk but the one it changed with the array before, so whoever holds the
 * earlier version (the graph model before an append) still reads it as it
 * was, and a change costs one chunk and the table of chunks (a few
 * microseconds at 100k items), not a copy of the whole. What the graph
 * model grows by appends (shared/graph/*-grown.ts) is kept in these.
 */

const SHIFT = 10;
/** Items per chunk. */
const CHUNK = 1 << SHIFT;
const MASK = CHUNK - 1;

/** Integers by position, -1 (or the `fill` given) where nothing was set. */
export class PersistentInts {
  private constructor(
    private readonly chunks: readonly Int32Array[],
    readonly length: number,
    private readonly fill: number,
  ) {}

  /** An array of `values` (kept, not copied: not to be changed afterwards). */
  static of(values: Int32Array, fill = -1): PersistentInts {
    const chunks: Int32Array[] = [];
    for (let from = 0; from < values.length; from += CHUNK) chunks.push(values.subarray(from, from + CHUNK));
    return new PersistentInts(chunks, values.length, fill);
  }

  static filled(length: number, fill = -1): PersistentInts {
    return PersistentInts.of(new Int32Array(length).fill(fill), fill);
  }

  /** Item `i`; `fill` beyond the end. */
  get(i: number): number {
    if (i >= this.length || i < 0) return this.fill;
    return this.chunks[i >> SHIFT]![i & MASK]!;
  }

  set(i: number, value: number): PersistentInts {
    if (!(i >= 0 && i < this.length)) throw new RangeError(`No item ${i} in ${this.length}.`);
    if (this.get(i) === value) return this;
    const chunks = this.chunks.slice();
    const chunk = full(chunks[i >> SHIFT]!, this.fill);
    chunk[i & MASK] = value;
    chunks[i >> SHIFT] = chunk;
    return new PersistentInts(chunks, this.length, this.fill);
  }

  /** The array with `values` set at their positions (each chunk copied once). */
  setAll(changes: Iterable<readonly [number, number]>): PersistentInts {
    let chunks: Int32Array[] | null = null;
    const owned = new Set<number>();
    for (const [i, value] of changes) {
      if (!(i >= 0 && i < this.length)) throw new RangeError(`No item ${i} in ${this.length}.`);
      chunks ??= this.chunks.slice();
      const c = i >> SHIFT;
      if (!owned.has(c)) {
        chunks[c] = full(chunks[c]!, this.fill);
        owned.add(c);
      }
      chunks[c]![i & MASK] = value;
    }
    return chunks === null ? this : new PersistentInts(chunks, this.length, this.fill);
  }

  /** The array with `values` added at its end. */
  push(values: ArrayLike<number>): PersistentInts {
    if (values.length === 0) return this;
    const chunks = this.chunks.slice();
    let length = this.length;
    let owned = -1;
    for (let k = 0; k < values.length; k++) {
      const value = values[k]!;
      const c = length >> SHIFT;
      if (c !== owned) {
        if (c === chunks.length) chunks.push(new Int32Array(CHUNK).fill(this.fill));
        else chunks[c] = full(chunks[c]!, this.fill);
        owned = c;
      }
      chunks[c]![length & MASK] = value;
      length++;
    }
    return new PersistentInts(chunks, length, this.fill);
  }

  /** The first `length` items. */
  truncate(length: number): PersistentInts {
    if (length >= this.length) return this;
    // Items past the end are read as `fill`: the chunks beyond are dropped, the last one is copied on its next write.
    return new PersistentInts(this.chunks.slice(0, (length + MASK) >> SHIFT), length, this.fill);
  }

  /** Every item, in one new array. */
  toInt32Array(): Int32Array {
    const out = new Int32Array(this.length);
    for (let c = 0; c < this.chunks.length; c++) {
      const chunk = this.chunks[c]!;
      const from = c << SHIFT;
      out.set(chunk.subarray(0, Math.min(chunk.length, this.length - from)), from);
    }
    return out;
  }
}

/** A full-size copy of a chunk (a view of the array it was made of may be shorter). */
function full(chunk: Int32Array, fill: number): Int32Array {
  const copy = new Int32Array(CHUNK);
  copy.set(chunk);
  if (chunk.length < CHUNK) copy.fill(fill, chunk.length);
  return copy;
}

/** Items of any kind by position, undefined where nothing was set. */
export class PersistentList<T> {
  private constructor(
    private readonly chunks: readonly (readonly (T | undefined)[])[],
    readonly length: number,
  ) {}

  static empty<T>(): PersistentList<T> {
    return new PersistentList<T>([], 0);
  }

  /** A list of `values` (copied). */
  static of<T>(values: readonly T[]): PersistentList<T> {
    const chunks: T[][] = [];
    for (let from = 0; from < values.length; from += CHUNK) chunks.push(values.slice(from, from + CHUNK));
    return new PersistentList<T>(chunks, values.length);
  }

  /** A list of `length` items, those `entries` name set (for lists that are mostly empty). */
  static sparse<T>(length: number, entries: Iterable<readonly [number, T]>): PersistentList<T> {
    const chunks: (readonly (T | undefined)[])[] = [];
    for (let c = 0; c < (length + MASK) >> SHIFT; c++) chunks.push(NO_ITEMS);
    const owned = new Set<number>();
    for (const [i, value] of entries) {
      if (!(i >= 0 && i < length)) throw new RangeError(`No item ${i} in ${length}.`);
      const c = i >> SHIFT;
      if (!owned.has(c)) {
        chunks[c] = [];
        owned.add(c);
      }
      (chunks[c] as (T | undefined)[])[i & MASK] = value;
    }
    return new PersistentList<T>(chunks, length);
  }

  get(i: number): T | undefined {
    if (i >= this.length || i < 0) return undefined;
    return this.chunks[i >> SHIFT]![i & MASK];
  }

  set(i: number, value: T | undefined): PersistentList<T> {
    if (!(i >= 0 && i < this.length)) throw new RangeError(`No item ${i} in ${this.length}.`);
    if (this.get(i) === value) return this;
    const chunks = this.chunks.slice();
    const chunk = chunks[i >> SHIFT]!.slice();
    chunk[i & MASK] = value;
    chunks[i >> SHIFT] = chunk;
    return new PersistentList(chunks, this.length);
  }

  /** The list with `values` set at their positions (each chunk copied once). */
  setAll(changes: Iterable<readonly [number, T | undefined]>): PersistentList<T> {
    let chunks: (readonly (T | undefined)[])[] | null = null;
    const owned = new Set<number>();
    for (const [i, value] of changes) {
      if (!(i >= 0 && i < this.length)) throw new RangeError(`No item ${i} in ${this.length}.`);
      chunks ??= this.chunks.slice();
      const c = i >> SHIFT;
      if (!owned.has(c)) {
        chunks[c] = chunks[c]!.slice();
        owned.add(c);
      }
      (chunks[c] as (T | undefined)[])[i & MASK] = value;
    }
    return chunks === null ? this : new PersistentList(chunks, this.length);
  }

  push(values: readonly (T | undefined)[]): PersistentList<T> {
    if (values.length === 0) return this;
    const chunks = this.chunks.slice();
    let length = this.length;
    let owned = -1;
    for (const value of values) {
      const c = length >> SHIFT;
      if (c !== owned) {
        if (c === chunks.length) chunks.push([]);
        else chunks[c] = chunks[c]!.slice(0, length & MASK);
        owned = c;
      }
      (chunks[c] as (T | undefined)[])[length & MASK] = value;
      length++;
    }
    return new PersistentList(chunks, length);
  }

  /** The list `length` items long: cut, or grown with unset items. */
  resize(length: number): PersistentList<T> {
    if (length === this.length) return this;
    if (length < this.length)
      return new PersistentList(this.chunks.slice(0, (length + MASK) >> SHIFT), length);
    const chunks = this.chunks.slice();
    while (chunks.length < (length + MASK) >> SHIFT) chunks.push(NO_ITEMS);
    return new PersistentList(chunks, length);
  }

  /** Items `from .. to`, in one new array. */
  slice(from = 0, to = this.length): (T | undefined)[] {
    const out: (T | undefined)[] = [];
    for (let i = from; i < to; i++) out.push(this.get(i));
    return out;
  }
}

/** The chunk every unset stretch of a sparse list shares. */
const NO_ITEMS: readonly never[] = Object.freeze([]);
