/**
 * Finding leaks: a `LeakTracker` records every disposable created while it
 * is installed and which of them were disposed or adopted by an owner, so a
 * test can assert that nothing was left behind (see `testing.ts`'s
 * `ensureNoLeaks`, which does it around every test of a file).
 */

import { type Disposable, type DisposableTracker, setDisposableTracker } from "./disposable.ts";

interface Tracked {
  /** Formatted only when reported: capturing is cheap, formatting is not. */
  createdAt: Error | undefined;
  owner: Disposable | null;
}

export interface Leak {
  disposable: Disposable;
  /** Where it was created (with `stacks: true`). */
  stack: string | undefined;
}

/**
 * Records every disposable created while installed. A leak is a disposable
 * still alive whose owner (if any) was disposed or never existed: alive and
 * reachable from nothing that will dispose it.
 */
export class LeakTracker implements DisposableTracker {
  private readonly alive = new Map<Disposable, Tracked>();
  private readonly stacks: boolean;
  private total = 0;

  constructor(options: { stacks?: boolean } = {}) {
    this.stacks = options.stacks ?? true;
  }

  created(disposable: Disposable): void {
    this.total += 1;
    const createdAt = this.stacks ? new Error("created here") : undefined;
    this.alive.set(disposable, { createdAt, owner: null });
  }

  disposed(disposable: Disposable): void {
    this.alive.delete(disposable);
  }

  adopted(child: Disposable, owner: Disposable | null): void {
    const tracked = this.alive.get(child);
    if (tracked) tracked.owner = owner;
  }

  /** How many tracked disposables are alive now. */
  get aliveCount(): number {
    return this.alive.size;
  }

  /** How many disposables were created while installed. */
  get createdCount(): number {
    return this.total;
  }

  /**
   * Alive disposables that nothing alive owns (what an owner holds is
   * reported through its owner). `roots` are disposables the test still
   * holds on purpose, a runtime it disposes later: they do not count.
   */
  leaks(roots: Iterable<Disposable> = []): Leak[] {
    const rootSet = new Set(roots);
    const leaks: Leak[] = [];
    for (const [disposable, tracked] of this.alive) {
      if (rootSet.has(disposable)) continue;
      if (tracked.owner !== null && this.alive.has(tracked.owner)) continue;
      leaks.push({ disposable, stack: tracked.createdAt?.stack });
    }
    return leaks;
  }

  /** Throws, with where the first few were created, when anything leaked. */
  assertNoLeaks(roots: Iterable<Disposable> = []): void {
    const leaks = this.leaks(roots);
    if (leaks.length === 0) return;
    const shown = leaks
      .slice(0, 5)
      .map((leak, i) => `#${i + 1}: ${leak.disposable.constructor?.name ?? "object"}\n${leak.stack ?? ""}`);
    throw new Error(`${leaks.length} disposable(s) leaked:\n${shown.join("\n")}`);
  }
}

/**
 * Installs a fresh `LeakTracker` until `stop()`; for tests. The tracker it
 * replaces (a suite's, when a test tracks a part of itself) still hears
 * everything meanwhile, so it misses no disposal.
 */
export function trackDisposables(options: { stacks?: boolean } = {}): LeakTracker & { stop(): void } {
  const leakTracker = new LeakTracker(options);
  let previous: DisposableTracker | null = null;
  const both: DisposableTracker = {
    created(disposable) {
      leakTracker.created(disposable);
      previous?.created(disposable);
    },
    disposed(disposable) {
      leakTracker.disposed(disposable);
      previous?.disposed(disposable);
    },
    adopted(child, owner) {
      leakTracker.adopted(child, owner);
      previous?.adopted(child, owner);
    },
  };
  previous = setDisposableTracker(both);
  return Object.assign(leakTracker, {
    stop() {
      setDisposableTracker(previous);
    },
  });
}
