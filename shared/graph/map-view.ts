/**
 * A read-only map answered by another structure (a grown list's ids, a
 * layout's changes over its last whole map): the rest of `ReadonlyMap` from
 * its `size`, `get` and `entries`. Its values are never `undefined`.
 */
export abstract class MapView<K, V> implements ReadonlyMap<K, V> {
  abstract readonly size: number;

  abstract get(key: K): V | undefined;

  abstract entries(): MapIterator<[K, V]>;

  has(key: K): boolean {
    return this.get(key) !== undefined;
  }

  *keys(): MapIterator<K> {
    for (const [key] of this.entries()) yield key;
  }

  *values(): MapIterator<V> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.entries();
  }

  forEach(run: (value: V, key: K, map: ReadonlyMap<K, V>) => void): void {
    for (const [key, value] of this.entries()) run(value, key, this);
  }
}
