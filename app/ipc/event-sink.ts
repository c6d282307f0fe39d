/** Where the handlers send contract events; each transport subscribes and forwards them to its clients. */

import type { ArborEvents, EventName } from "../../shared/ipc/contract.ts";
import { type Disposable, toDisposable } from "../runtime/disposable.ts";

export interface EventSink {
  emit<E extends EventName>(name: E, payload: ArborEvents[E]): void;
}

/** Sees every event; `payload` is `ArborEvents[name]`. */
export type EventListener = (name: EventName, payload: ArborEvents[EventName]) => void;

/** An `EventSink` that fans events out to every subscriber (one per connected client or window). */
export interface EventHub extends EventSink {
  subscribe(listener: EventListener): Disposable;
  readonly subscriberCount: number;
}

export function createEventHub(onListenerError: (error: unknown) => void = () => {}): EventHub {
  const listeners = new Set<EventListener>();
  return {
    emit(name, payload) {
      for (const listener of [...listeners]) {
        try {
          listener(name, payload);
        } catch (error) {
          onListenerError(error);
        }
      }
    },
    subscribe(listener) {
      const wrapped: EventListener = (name, payload) => listener(name, payload);
      listeners.add(wrapped);
      return toDisposable(() => listeners.delete(wrapped));
    },
    get subscriberCount() {
      return listeners.size;
    },
  };
}
