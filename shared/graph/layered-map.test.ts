import { describe, expect, it } from "vitest";
import { Rng } from "../session/testing/generate-session.ts";
import { changesHeldOver, LayeredMap } from "./layered-map.ts";

/** Everything a reader of a `ReadonlyMap` can ask, as plain values (the order of the entries included). */
function readAll(map: ReadonlyMap<string, number>, probes: readonly string[]) {
  const each: [string, number][] = [];
  map.forEach((value, key) => {
    each.push([key, value]);
  });
  return {
    size: map.size,
    entries: [...map],
    keys: [...map.keys()],
    values: [...map.values()],
    each,
    got: probes.map((key) => [map.get(key), map.has(key)]),
  };
}

describe("LayeredMap", () => {
  it("reads as a map changed in place after every change, each earlier version as it was", () => {
    for (let seed = 1; seed <= 8; seed++) {
      const rng = new Rng(seed);
      const keys = Array.from({ length: 400 }, (_, k) => `k${k}`);
      const start = new Map(keys.slice(0, rng.int(0, 300)).map((key, k) => [key, k] as [string, number]));
      const versions: { map: ReadonlyMap<string, number>; expected: ReturnType<typeof readAll> }[] = [];
      let model = new Map(start);
      let map: ReadonlyMap<string, number> = start;
      let layered = 0;
      for (let step = 0; step < 120; step++) {
        const removed = Array.from({ length: rng.int(0, 4) }, () => rng.pick(keys));
        const added = Array.from({ length: rng.int(0, 4) }, (): [string, number] => [
          rng.pick(keys),
          step * 10,
        ]);
        model = new Map(model);
        for (const key of removed) model.delete(key);
        for (const [key, value] of added) model.set(key, value);
        map = LayeredMap.changed(map, removed, added);
        if (map instanceof LayeredMap) layered++;
        // The same entries in the same order as the map changed in place, but for keys removed and set
        // again: those keep their first place.
        const read = readAll(map, keys);
        const expected = readAll(model, keys);
        expect(new Map(read.entries), `seed ${seed}, step ${step}`).toEqual(new Map(expected.entries));
        expect({ ...read, entries: 0, keys: 0, values: 0, each: 0 }).toEqual({
          ...expected,
          entries: 0,
          keys: 0,
          values: 0,
          each: 0,
        });
        expect(read.keys).toEqual(read.entries.map(([key]) => key));
        expect(read.values).toEqual(read.entries.map(([, value]) => value));
        expect(read.each).toEqual(read.entries);
        versions.push({ map, expected: read });
      }
      for (const { map: version, expected } of versions) expect(readAll(version, keys)).toEqual(expected);
      // Most versions are layered; some folded their changes into a whole map.
      expect(layered).toBeGreaterThan(60);
      expect(layered).toBeLessThan(120);
    }
  });

  it("leaves the plain map it was given as it was", () => {
    const start = new Map([
      ["a", 1],
      ["b", 2],
    ]);
    const changed = LayeredMap.changed(start, ["a"], [["c", 3]]);
    expect([...start]).toEqual([
      ["a", 1],
      ["b", 2],
    ]);
    expect([...changed]).toEqual([
      ["b", 2],
      ["c", 3],
    ]);
  });

  it("holds about 2√n changes over a whole map of n before it copies it", () => {
    const whole = new Map(Array.from({ length: 10_000 }, (_, k) => [`k${k}`, k] as [string, number]));
    expect(changesHeldOver(whole.size)).toBe(200);
    let map: ReadonlyMap<string, number> = whole;
    // One entry replaced by another per change, as a chain grown by an append: two changes each.
    for (let k = 0; k < 100; k++) map = LayeredMap.changed(map, [`k${k}`], [[`n${k}`, k]]);
    expect(map).toBeInstanceOf(LayeredMap);
    map = LayeredMap.changed(map, ["k100"], [["n100", 100]]);
    expect(map).toBeInstanceOf(Map);
    expect(map.size).toBe(10_000);
    expect(map.get("k0")).toBeUndefined();
    expect(map.get("n100")).toBe(100);
  });

  it("holds no undefined values", () => {
    expect(() => LayeredMap.changed(new Map<string, number | undefined>(), [], [["a", undefined]])).toThrow(
      TypeError,
    );
  });
});
