/**
 * Maps kept by version, for what a layout grows by appends (its positions
 * and rows, layout-grown.ts): a changed version holds its changes over the
 * last whole map, until they are about twice the square root of its size,
 * when it becomes a whole map again. A change then costs the changes held so
 * far (and, spread over the changes, the copies made when they fold in):
 * about 2√n at n entries, not a copy of the whole map as before. Whoever
 * holds an earlier version still reads it as it was.
 */

import { MapView } from "./map-view.ts";

/** A key the changes removed from the whole map under them. */
const GONE: unique symbol = Symbol("gone");

/** The fewest changes held before they fold into a whole map. */
const MIN_CHANGES = 32;

/** How many changes a version over a whole map of `size` entries holds before they fold in. */
export function changesHeldOver(size: number): number {
  return Math.max(MIN_CHANGES, Math.ceil(2 * Math.sqrt(size)));
}

/** A map of no `undefined` values, read through its changes over a whole map. */
export class LayeredMap<K, V> extends MapView<K, V> {
  private constructor(
    /** Never changed: a plain map given to `changed` or made when the changes folded in. */
    private readonly whole: ReadonlyMap<K, V>,
    private readonly changes: ReadonlyMap<K, V | typeof GONE>,
    readonly size: number,
  ) {
    super();
  }

  /**
   * `map` with the keys `removed` deleted, then the entries `added` set;
   * `map` itself stays as it was (a plain map given here must not be changed
   * afterwards: the result may read through it).
   */
  static changed<K, V>(
    map: ReadonlyMap<K, V>,
    removed: Iterable<K>,
    added: Iterable<readonly [K, V]>,
  ): ReadonlyMap<K, V> {
    const layered = map instanceof LayeredMap ? (map as LayeredMap<K, V>) : null;
    const whole = layered ? layered.whole : map;
    const changes = new Map<K, V | typeof GONE>(layered?.changes);
    const has = (key: K) => {
      const change = changes.get(key);
      return change === undefined ? whole.has(key) : change !== GONE;
    };
    let size = map.size;
    for (const key of removed) {
      if (!has(key)) continue;
      size--;
      if (whole.has(key)) changes.set(key, GONE);
      else changes.delete(key);
    }
    for (const [key, value] of added) {
      if (value === undefined) throw new TypeError("A layered map holds no undefined values.");
      if (!has(key)) size++;
      changes.set(key, value);
    }
    if (changes.size > changesHeldOver(whole.size)) return new Map(entriesOf(whole, changes));
    return new LayeredMap(whole, changes, size);
  }

  get(key: K): V | undefined {
    const change = this.changes.get(key);
    if (change === undefined) return this.whole.get(key);
    return change === GONE ? undefined : change;
  }

  entries(): MapIterator<[K, V]> {
    return entriesOf(this.whole, this.changes);
  }
}

/** The whole map's entries as the changes leave them (changed ones in their place), then the keys they added. */
function* entriesOf<K, V>(
  whole: ReadonlyMap<K, V>,
  changes: ReadonlyMap<K, V | typeof GONE>,
): MapIterator<[K, V]> {
  for (const [key, value] of whole) {
    const change = changes.get(key);
    if (change === undefined) yield [key, value];
    else if (change !== GONE) yield [key, change];
  }
  for (const [key, change] of changes) if (change !== GONE && !whole.has(key)) yield [key, change];
}
