/**
 * Leak checks for test files, in the manner of VS Code's
 * `ensureNoDisposablesAreLeakedInTestSuite`: `ensureNoLeaks()` at the top of
 * a file tracks the disposables each test creates and fails the test when
 * one is still alive, and owned by nothing alive, once the test and its
 * `afterEach` hooks are done (the check is the cleanup of a `beforeEach`,
 * which vitest runs after them).
 */

import { beforeAll, beforeEach } from "vitest";
import { type Disposable, DisposableStore } from "./disposable.ts";
import { type Leak, type LeakTracker, trackDisposables } from "./leak-tracker.ts";

export interface LeakCheck {
  /** Disposed when the test ends, before the check: what a test opens or subscribes and does not close itself. */
  add<T extends Disposable>(disposable: T): T;
  /** Held on purpose past the end of the test (or suite): not a leak, nor is what it owns. */
  root<T extends Disposable>(disposable: T): T;
  /** What would be reported as leaked if the test ended now (what `add()` holds is not). */
  leaks(): Leak[];
  /** The tracker of the running test (or suite). */
  readonly tracker: LeakTracker;
}

export interface LeakCheckOptions {
  /**
   * "test" (default): every test is checked on its own. "suite": once for
   * all the tests of the file (or `describe`) it is called in, for suites
   * that share a host made in a `beforeAll`.
   */
  per?: "test" | "suite";
  /** Record where each disposable was created, for the report (default true). */
  stacks?: boolean;
}

interface Running {
  readonly tracker: LeakTracker & { stop(): void };
  readonly owned: DisposableStore;
  readonly roots: Set<Disposable>;
  readonly outer: Running | undefined;
}

/** The innermost check running now, for `ownedByTest`. */
let current: Running | undefined;

export function ensureNoLeaks(options: LeakCheckOptions = {}): LeakCheck {
  let running: Running | undefined;
  const start = () => {
    const tracker = trackDisposables({ stacks: options.stacks ?? true });
    const owned = new DisposableStore();
    running = { tracker, owned, roots: new Set([owned]), outer: current };
    current = running;
    return finish;
  };
  const finish = () => {
    const ended = running;
    if (!ended) return;
    running = undefined;
    if (current === ended) current = ended.outer;
    try {
      ended.owned.dispose();
      ended.tracker.assertNoLeaks(ended.roots);
    } finally {
      ended.tracker.stop();
    }
  };
  if (options.per === "suite") beforeAll(start);
  else beforeEach(start);
  const live = (): Running => {
    if (!running) throw new Error("ensureNoLeaks: use add() and root() inside a test.");
    return running;
  };
  return {
    add: (disposable) => live().owned.add(disposable),
    root(disposable) {
      live().roots.add(disposable);
      return disposable;
    },
    leaks() {
      const { tracker, roots } = live();
      return tracker.leaks(roots);
    },
    get tracker() {
      return live().tracker;
    },
  };
}

/**
 * Makes the running test own `disposable` (disposed when it ends, before the
 * leak check): for test helpers that subscribe on a test's behalf. Without
 * a leak check running it is the caller's, as before.
 */
export function ownedByTest<T extends Disposable>(disposable: T): T {
  return current ? current.owned.add(disposable) : disposable;
}
