/**
 * What every part of the controller needs: the client, the stores, the
 * graph selectors, `notify`, and a lifetime whose timers and subscriptions
 * end with the controller. Built once in `createController` and handed to
 * each part.
 */

import { screenErrors } from "../../../../shared/error-texts.ts";
import type { ArborClient } from "../../../../shared/ipc/contract.ts";
import type { GraphModel, GraphSelectors } from "../graph-model.ts";
import type { Stores } from "../stores.ts";
import type { ControllerOptions } from "./api.ts";

export type Timer = ReturnType<typeof setTimeout>;

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The timers and subscriptions of one controller: `dispose()` ends them all, and later answers are dropped. */
export interface Lifetime {
  /** Runs `run` after `ms` unless the controller is disposed first. */
  later(ms: number, run: () => void): Timer;
  /** Stops a timer made by `later` before it runs. */
  cancel(timer: Timer): void;
  /** Keeps disposers (unsubscribes) until the controller is disposed. */
  own(...disposers: (() => void)[]): void;
  isDisposed(): boolean;
}

export function createLifetime(): Lifetime & { dispose(): void } {
  const disposers: (() => void)[] = [];
  const timers = new Set<Timer>();
  let disposed = false;
  return {
    later(ms, run) {
      const timer = setTimeout(() => {
        timers.delete(timer);
        if (!disposed) run();
      }, ms);
      timers.add(timer);
      return timer;
    },
    cancel(timer) {
      clearTimeout(timer);
      timers.delete(timer);
    },
    own(...owned) {
      disposers.push(...owned);
    },
    isDisposed: () => disposed,
    dispose() {
      disposed = true;
      for (const dispose of disposers.splice(0)) dispose();
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}

export interface ControllerKit extends Lifetime {
  readonly client: ArborClient;
  readonly stores: Stores;
  readonly options: ControllerOptions;
  readonly selectors: GraphSelectors;
  /** The graph of the session on view (null while none is). */
  model(): GraphModel | null;
  /** Runs `run` with the graph and the cursor when a session is on view. */
  withModel(run: (graph: GraphModel, cursor: string | null) => void): void;
  notify(kind: "info" | "error", text: string): void;
  writeClipboard(text: string): Promise<void>;
}

export function createKit(
  client: ArborClient,
  stores: Stores,
  options: ControllerOptions,
  base: { lifetime: Lifetime; selectors: GraphSelectors; notify: ControllerKit["notify"] },
): ControllerKit {
  const { lifetime, selectors, notify } = base;
  const model = () => selectors.model(stores.session.getState());
  return {
    later: lifetime.later,
    cancel: lifetime.cancel,
    own: lifetime.own,
    isDisposed: lifetime.isDisposed,
    client,
    stores,
    options,
    selectors,
    model,
    withModel(run) {
      const current = model();
      if (current) run(current, stores.session.getState().cursorId);
    },
    notify,
    writeClipboard:
      options.writeClipboard ??
      (async (text: string) => {
        if (!navigator.clipboard) throw new Error(screenErrors.noClipboard);
        await navigator.clipboard.writeText(text);
      }),
  };
}
