/** Where the handlers send contract events; each transport subscribes and forwards them to its clients. */

import type { ArborEvents, EventName } from "../../shared/ipc/contract.ts";
import type { Disposable } from "../../shared/lifecycle/disposable.ts";
import { Emitter } from "../../shared/lifecycle/event.ts";

export interface EventSink {
  emit<E extends EventName>(name: E, payload: ArborEvents[E]): void;
}

/** Sees every event; `payload` is `ArborEvents[name]`. */
export type EventListener = (name: EventName, payload: ArborEvents[EventName]) => void;

/**
 * An `EventSink` that fans events out to every subscriber (one per connected
 * client or window). Disposing it drops the subscribers; their subscriptions
 * stay theirs to dispose.
 */
export interface EventHub extends EventSink, Disposable {
  subscribe(listener: EventListener): Disposable;
  readonly subscriberCount: number;
}

interface SentEvent {
  name: EventName;
  payload: ArborEvents[EventName];
}

export function createEventHub(onListenerError: (error: unknown) => void = () => {}): EventHub {
  const sent = new Emitter<SentEvent>(onListenerError);
  return {
    emit(name, payload) {
      sent.fire({ name, payload });
    },
    subscribe(listener) {
      return sent.event((event) => listener(event.name, event.payload));
    },
    get subscriberCount() {
      return sent.listenerCount;
    },
    dispose() {
      sent.dispose();
    },
  };
}
