/**
 * Owned disposal, in the manner of VS Code's `lifecycle.ts`: everything that
 * holds a resource (a file descriptor, a watcher, a listener, a timer) is a
 * `Disposable`, and every disposable is registered with an owner that
 * disposes it. A runtime owns a `DisposableStore` per session; replacing the
 * session disposes that store, so nothing outlives its session by accident.
 * The store, the runtime and the window services all use this one
 * vocabulary (and `event.ts`'s `Emitter`); it is pure TypeScript, so the
 * renderer may use it too.
 *
 * A `DisposableTracker` hears every creation, disposal and adoption; the
 * `LeakTracker` (leak-tracker.ts, installed by tests) uses it to assert that
 * nothing leaked.
 */

export interface Disposable {
  dispose(): void;
}

/**
 * Receives every disposable's creation, disposal and adoption by an owner.
 * Only one is installed at a time (see `setDisposableTracker`).
 */
export interface DisposableTracker {
  created(disposable: Disposable): void;
  disposed(disposable: Disposable): void;
  /** `owner` took `child` (a store added it, a mutable holds it); `null` when released. */
  adopted(child: Disposable, owner: Disposable | null): void;
}

let tracker: DisposableTracker | null = null;

/** Installs `next` (or none); returns the one it replaces. */
export function setDisposableTracker(next: DisposableTracker | null): DisposableTracker | null {
  const previous = tracker;
  tracker = next;
  return previous;
}

function trackCreated<T extends Disposable>(disposable: T): T {
  tracker?.created(disposable);
  return disposable;
}

function trackDisposed(disposable: Disposable): void {
  tracker?.disposed(disposable);
}

function trackAdopted(child: Disposable, owner: Disposable | null): void {
  tracker?.adopted(child, owner);
}

/** A disposable that does nothing: for "nothing to undo". */
export const NONE: Disposable = Object.freeze({ dispose() {} });

/** Runs `cleanup` once, on the first `dispose()`. */
export function toDisposable(cleanup: () => void): Disposable {
  let done = false;
  const disposable: Disposable = {
    dispose() {
      if (done) return;
      done = true;
      trackDisposed(disposable);
      cleanup();
    },
  };
  return trackCreated(disposable);
}

/**
 * Disposes every item, all of them even when some throw; rethrows the first
 * error (or an `AggregateError` when several threw).
 */
export function disposeAll(items: Iterable<Disposable>): void {
  const errors: unknown[] = [];
  for (const item of items) {
    try {
      item.dispose();
    } catch (error) {
      errors.push(error);
    }
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new AggregateError(errors, "Several disposables failed to dispose.");
}

/** One disposable that disposes all of `items`. */
export function combinedDisposable(...items: Disposable[]): Disposable {
  const combined = toDisposable(() => disposeAll(items));
  for (const item of items) trackAdopted(item, combined);
  return combined;
}

/**
 * A set of disposables disposed together, newest first (what was created
 * last usually depends on what came before). Adding to a store that was
 * already disposed disposes the item at once: it can no longer be owned.
 */
export class DisposableStore implements Disposable {
  private readonly items = new Set<Disposable>();
  private disposed = false;

  constructor() {
    trackCreated(this);
  }

  get isDisposed(): boolean {
    return this.disposed;
  }

  get size(): number {
    return this.items.size;
  }

  add<T extends Disposable>(item: T): T {
    if ((item as Disposable) === this) throw new Error("A DisposableStore cannot own itself.");
    if (this.disposed) {
      item.dispose();
      return item;
    }
    this.items.add(item);
    trackAdopted(item, this);
    return item;
  }

  /** Disposes `item` and forgets it. */
  delete(item: Disposable): void {
    if (!this.items.delete(item)) return;
    item.dispose();
  }

  /** Forgets `item` without disposing it: the caller owns it now. */
  release<T extends Disposable>(item: T): T {
    if (this.items.delete(item)) trackAdopted(item, null);
    return item;
  }

  /** Disposes every item; the store stays usable. */
  clear(): void {
    const items = [...this.items].reverse();
    this.items.clear();
    disposeAll(items);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    trackDisposed(this);
    this.clear();
  }
}

/** Base class for objects that own disposables: `register` them, and `dispose()` releases them all. */
export abstract class DisposableObject implements Disposable {
  protected readonly disposables = new DisposableStore();

  constructor() {
    trackCreated(this);
    trackAdopted(this.disposables, this);
  }

  protected register<T extends Disposable>(item: T): T {
    return this.disposables.add(item);
  }

  protected get isDisposed(): boolean {
    return this.disposables.isDisposed;
  }

  dispose(): void {
    if (this.disposables.isDisposed) return;
    trackDisposed(this);
    this.disposables.dispose();
  }
}

/**
 * Holds at most one disposable: setting a new value disposes the old one.
 * Once disposed, a value set is disposed at once.
 */
export class MutableDisposable<T extends Disposable = Disposable> implements Disposable {
  private current: T | undefined;
  private disposed = false;

  constructor() {
    trackCreated(this);
  }

  get value(): T | undefined {
    return this.disposed ? undefined : this.current;
  }

  set value(next: T | undefined) {
    if (this.disposed) {
      next?.dispose();
      return;
    }
    if (next === this.current) return;
    const previous = this.current;
    this.current = next;
    if (next) trackAdopted(next, this);
    previous?.dispose();
  }

  /** Disposes the value, if any; the holder stays usable. */
  clear(): void {
    this.value = undefined;
  }

  /** Gives up the value without disposing it. */
  release(): T | undefined {
    const value = this.current;
    this.current = undefined;
    if (value) trackAdopted(value, null);
    return value;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    trackDisposed(this);
    const value = this.current;
    this.current = undefined;
    value?.dispose();
  }
}
