/** Disposables: ownership, order, and the leak tracker the other tests rely on. */

import { describe, expect, it } from "vitest";
import {
  combinedDisposable,
  DisposableObject,
  DisposableStore,
  MutableDisposable,
  toDisposable,
} from "./disposable.ts";
import { Emitter } from "./event.ts";
import { trackDisposables } from "./leak-tracker.ts";
import { ensureNoLeaks, ownedByTest } from "./testing.ts";

describe("DisposableStore", () => {
  it("disposes newest first, once, and disposes what is added after it was disposed", () => {
    const log: string[] = [];
    const store = new DisposableStore();
    store.add(toDisposable(() => log.push("first")));
    store.add(toDisposable(() => log.push("second")));
    store.dispose();
    store.dispose();
    expect(log).toEqual(["second", "first"]);
    store.add(toDisposable(() => log.push("late")));
    expect(log).toEqual(["second", "first", "late"]);
  });

  it("disposes every item even when one throws, then rethrows", () => {
    const log: string[] = [];
    const store = new DisposableStore();
    store.add(toDisposable(() => log.push("a")));
    store.add(
      toDisposable(() => {
        throw new Error("boom");
      }),
    );
    store.add(toDisposable(() => log.push("c")));
    expect(() => store.dispose()).toThrow("boom");
    expect(log).toEqual(["c", "a"]);
  });

  it("delete disposes, release hands over without disposing", () => {
    const log: string[] = [];
    const store = new DisposableStore();
    const a = store.add(toDisposable(() => log.push("a")));
    const b = store.add(toDisposable(() => log.push("b")));
    store.delete(a);
    expect(log).toEqual(["a"]);
    store.release(b);
    store.dispose();
    expect(log).toEqual(["a"]);
    b.dispose();
    expect(log).toEqual(["a", "b"]);
  });
});

describe("MutableDisposable", () => {
  it("disposes the old value when a new one is set, and a value set after disposal at once", () => {
    const log: string[] = [];
    const holder = new MutableDisposable();
    holder.value = toDisposable(() => log.push("one"));
    holder.value = toDisposable(() => log.push("two"));
    expect(log).toEqual(["one"]);
    holder.clear();
    expect(log).toEqual(["one", "two"]);
    holder.value = toDisposable(() => log.push("three"));
    holder.dispose();
    holder.value = toDisposable(() => log.push("four"));
    expect(log).toEqual(["one", "two", "three", "four"]);
    expect(holder.value).toBeUndefined();
  });
});

describe("Emitter", () => {
  it("delivers to every listener, even after one throws, until unsubscribed", () => {
    const errors: unknown[] = [];
    const emitter = new Emitter<number>((error) => errors.push(error));
    const seen: number[] = [];
    emitter.event(() => {
      throw new Error("listener failed");
    });
    const subscription = emitter.event((value) => seen.push(value));
    emitter.fire(1);
    subscription.dispose();
    emitter.fire(2);
    expect(seen).toEqual([1]);
    expect(errors).toHaveLength(2);
    emitter.dispose();
    expect(() => emitter.event(() => {})).toThrow(/disposed/);
  });
});

describe("LeakTracker", () => {
  it("reports what nobody owns and nobody disposed, with where it was created", () => {
    const tracker = trackDisposables();
    try {
      const store = new DisposableStore();
      store.add(toDisposable(() => {}));
      const forgotten = toDisposable(() => {});
      const leaks = tracker.leaks([store]);
      expect(leaks.map((leak) => leak.disposable)).toEqual([forgotten]);
      expect(leaks[0]!.stack).toContain("disposable.test.ts");
      expect(() => tracker.assertNoLeaks([store])).toThrow(/1 disposable\(s\) leaked/);
      forgotten.dispose();
      tracker.assertNoLeaks([store]);
      store.dispose();
      tracker.assertNoLeaks();
      expect(tracker.aliveCount).toBe(0);
    } finally {
      tracker.stop();
    }
  });

  it("follows ownership through objects, combined and mutable disposables", () => {
    class Owner extends DisposableObject {
      readonly slot = this.register(new MutableDisposable());
      readonly both = this.register(
        combinedDisposable(
          toDisposable(() => {}),
          toDisposable(() => {}),
        ),
      );
    }
    const tracker = trackDisposables({ stacks: false });
    try {
      const owner = new Owner();
      owner.slot.value = toDisposable(() => {});
      expect(tracker.leaks([owner])).toEqual([]);
      // Something the owner gave up is nobody's now.
      const released = owner.slot.release()!;
      expect(tracker.leaks([owner]).map((leak) => leak.disposable)).toEqual([released]);
      released.dispose();
      owner.dispose();
      tracker.assertNoLeaks();
    } finally {
      tracker.stop();
    }
  });

  it("a tracker installed over another leaves the outer one hearing everything", () => {
    const outer = trackDisposables({ stacks: false });
    try {
      const early = toDisposable(() => {});
      const inner = trackDisposables({ stacks: false });
      let late: ReturnType<typeof toDisposable>;
      try {
        late = toDisposable(() => {});
        early.dispose();
        expect(inner.leaks()).toEqual([{ disposable: late, stack: undefined }]);
      } finally {
        inner.stop();
      }
      expect(outer.leaks().map((leak) => leak.disposable)).toEqual([late]);
      late.dispose();
      outer.assertNoLeaks();
    } finally {
      outer.stop();
    }
  });

  it("counts a subscription nobody disposed as a leak, even after its emitter is gone", () => {
    const tracker = trackDisposables({ stacks: false });
    try {
      const emitter = new Emitter<void>();
      emitter.event(() => {});
      emitter.dispose();
      expect(tracker.leaks()).toHaveLength(1);
    } finally {
      tracker.stop();
    }
  });
});

describe("ensureNoLeaks", () => {
  const leaks = ensureNoLeaks();

  it("tracks what the test creates; add() disposes at the end of the test, root() is held on purpose", () => {
    const emitter = leaks.add(new Emitter<number>());
    const seen: number[] = [];
    leaks.add(emitter.event((value) => seen.push(value)));
    // A test helper's subscription, owned by the running test.
    ownedByTest(emitter.event(() => {}));
    emitter.fire(1);
    expect(seen).toEqual([1]);
    const held = new DisposableStore();
    expect(leaks.leaks().map((leak) => leak.disposable)).toEqual([held]);
    // Held on purpose: left alone by the check at the end.
    leaks.root(held);
    expect(leaks.leaks()).toEqual([]);
  });
});
