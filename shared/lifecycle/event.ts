/**
 * Typed events in VS Code's shape: an `Emitter` fires, its `event` is what
 * others subscribe to, and every subscription is a `Disposable` that the
 * subscriber registers with its owner (disposing the emitter drops the
 * listeners, but the subscriptions still belong to their subscribers).
 */

import { type Disposable, DisposableObject, toDisposable } from "./disposable.ts";

/** Subscribe with a listener; dispose the result to unsubscribe. */
export type Event<T> = (listener: (value: T) => void) => Disposable;

export class Emitter<T> extends DisposableObject {
  private readonly listeners = new Set<(value: T) => void>();

  /** Listener errors go here; they never stop the other listeners (default: rethrown later). */
  constructor(private readonly onListenerError: (error: unknown) => void = rethrowLater) {
    super();
  }

  readonly event: Event<T> = (listener) => {
    if (this.isDisposed) throw new Error("Cannot subscribe to an event whose emitter was disposed.");
    // A wrapper, so the same function can subscribe twice and unsubscribe once.
    const wrapped = (value: T) => listener(value);
    this.listeners.add(wrapped);
    // Owned by the subscriber, not by the emitter: a forgotten subscription shows up as a leak.
    return toDisposable(() => this.listeners.delete(wrapped));
  };

  get listenerCount(): number {
    return this.listeners.size;
  }

  fire(value: T): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(value);
      } catch (error) {
        this.onListenerError(error);
      }
    }
  }

  override dispose(): void {
    this.listeners.clear();
    super.dispose();
  }
}

function rethrowLater(error: unknown): void {
  queueMicrotask(() => {
    throw error;
  });
}
