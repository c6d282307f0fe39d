/**
 * The contract over a WebSocket, as the renderer of `arbor serve` holds it:
 * an `ArborClient` that sends `{id, name, params}` and matches each
 * `{id, result}` / `{id, error}` to its request, and hands `{event, payload}`
 * to the event's listeners.
 *
 * Answers and events arrive in their wire form (wire.ts) and are decoded
 * here, so listeners and callers see the contract's own types.
 *
 * Pure TypeScript on the standard WebSocket API: a browser's `WebSocket`
 * (the default), or any constructor with the same shape, such as the `ws`
 * package's in Node.
 */

import {
  ArborError,
  type ArborClient,
  type ArborErrorPayload,
  type ArborEvents,
  type EventName,
  type RequestName,
  type RequestParams,
  type RequestResult,
} from "./contract.ts";
import { decodeEvent, decodeResult } from "./wire.ts";
import { connectionErrors } from "../error-texts.ts";

/** The part of the standard WebSocket this client uses. */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  // biome-ignore lint/suspicious/noExplicitAny: the standard API's events differ by environment (DOM, ws)
  addEventListener(type: "open" | "message" | "close" | "error", listener: (event: any) => void): void;
}

export type WebSocketConstructor = new (url: string) => WebSocketLike;

export interface WebSocketClientOptions {
  /** Default: the global `WebSocket` (browsers, Electron's renderer, Node 22+). */
  WebSocket?: WebSocketConstructor | undefined;
  /** Give up connecting after this long (default 10 s). */
  connectTimeoutMs?: number | undefined;
}

const OPEN = 1;

/** Timers exist everywhere this runs; shared/ compiles without the DOM and Node type libraries. */
interface Timers {
  setTimeout(callback: () => void, milliseconds: number): unknown;
  clearTimeout(handle: unknown): void;
}
const timers = globalThis as unknown as Timers;

interface Pending {
  name: RequestName;
  resolve(value: unknown): void;
  reject(error: ArborError): void;
}

type AnyListener = (payload: never) => void;

export class WebSocketClient implements ArborClient {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Map<EventName, Set<AnyListener>>();
  private readonly closeListeners = new Set<(reason: string) => void>();
  private closedReason: string | null = null;

  private constructor(private readonly socket: WebSocketLike) {
    socket.addEventListener("message", (event: { data?: unknown }) => this.receive(event.data));
    socket.addEventListener("close", (event: { code?: number; reason?: string }) => {
      this.shut(connectionErrors.closed(event.reason ?? ""));
    });
  }

  /** Connects to `url` (`ws://127.0.0.1:PORT/ws`); resolves once the socket is open. */
  static connect(url: string, options: WebSocketClientOptions = {}): Promise<WebSocketClient> {
    const Socket =
      options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor | undefined }).WebSocket;
    if (!Socket) {
      return Promise.reject(new ArborError("io", connectionErrors.noWebSocket));
    }
    return new Promise((resolve, reject) => {
      let socket: WebSocketLike;
      try {
        socket = new Socket(url);
      } catch (error) {
        reject(new ArborError("io", connectionErrors.cannotConnect(String(error))));
        return;
      }
      let settled = false;
      const timer = timers.setTimeout(() => {
        if (settled) return;
        settled = true;
        socket.close();
        reject(new ArborError("io", connectionErrors.timedOut));
      }, options.connectTimeoutMs ?? 10_000);
      const settle = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        timers.clearTimeout(timer);
        outcome();
      };
      // Listening from the start, so that nothing sent right after opening is missed.
      const client = new WebSocketClient(socket);
      socket.addEventListener("open", () => settle(() => resolve(client)));
      socket.addEventListener("error", () =>
        settle(() => reject(new ArborError("io", connectionErrors.connectionRefused))),
      );
      socket.addEventListener("close", () =>
        settle(() => reject(new ArborError("io", connectionErrors.arborRefused))),
      );
    });
  }

  get isClosed(): boolean {
    return this.closedReason !== null;
  }

  request<N extends RequestName>(name: N, params: RequestParams<N>): Promise<RequestResult<N>> {
    if (this.closedReason !== null || this.socket.readyState !== OPEN) {
      return Promise.reject(new ArborError("io", this.closedReason ?? connectionErrors.notOpen));
    }
    const id = this.nextId++;
    return new Promise<RequestResult<N>>((resolve, reject) => {
      this.pending.set(id, { name, resolve: resolve as (value: unknown) => void, reject });
      try {
        this.socket.send(JSON.stringify({ id, name, params }));
      } catch (error) {
        this.pending.delete(id);
        reject(new ArborError("io", connectionErrors.sendFailed(String(error))));
      }
    });
  }

  on<E extends EventName>(name: E, listener: (payload: ArborEvents[E]) => void): () => void {
    let set = this.listeners.get(name);
    if (!set) {
      set = new Set();
      this.listeners.set(name, set);
    }
    const entry = ((payload: ArborEvents[E]) => listener(payload)) as AnyListener;
    set.add(entry);
    return () => {
      set.delete(entry);
    };
  }

  /** Called once when the connection closes, for whatever reason; returns its unsubscribe. */
  onClose(listener: (reason: string) => void): () => void {
    this.closeListeners.add(listener);
    return () => {
      this.closeListeners.delete(listener);
    };
  }

  close(): void {
    this.socket.close(1000, "closed by the client");
    this.shut(connectionErrors.closedByClient);
  }

  private receive(data: unknown): void {
    if (typeof data !== "string") return;
    let message: unknown;
    try {
      message = JSON.parse(data);
    } catch {
      return;
    }
    if (typeof message !== "object" || message === null) return;
    const frame = message as {
      id?: unknown;
      result?: unknown;
      error?: ArborErrorPayload;
      event?: unknown;
      payload?: unknown;
    };
    if (typeof frame.event === "string") {
      const listeners = this.listeners.get(frame.event as EventName);
      if (!listeners || listeners.size === 0) return;
      let payload: unknown;
      try {
        payload = decodeEvent(frame.event as EventName, frame.payload as never);
      } catch (error) {
        // An event this client cannot read is dropped; the failure is reported, not swallowed.
        queueMicrotask(() => {
          throw error;
        });
        return;
      }
      for (const listener of [...listeners]) {
        try {
          (listener as (payload: unknown) => void)(payload);
        } catch (error) {
          // A listener's failure is its own; the next one still runs.
          queueMicrotask(() => {
            throw error;
          });
        }
      }
      return;
    }
    if (typeof frame.id !== "number") return;
    const pending = this.pending.get(frame.id);
    if (!pending) return;
    this.pending.delete(frame.id);
    if (frame.error) {
      pending.reject(ArborError.from(frame.error));
      return;
    }
    let result: unknown;
    try {
      result = decodeResult(pending.name, frame.result as never);
    } catch (error) {
      pending.reject(new ArborError("internal", error instanceof Error ? error.message : String(error)));
      return;
    }
    pending.resolve(result);
  }

  private shut(reason: string): void {
    if (this.closedReason !== null) return;
    this.closedReason = reason;
    for (const pending of this.pending.values()) pending.reject(new ArborError("io", reason));
    this.pending.clear();
    for (const listener of [...this.closeListeners]) listener(reason);
    this.closeListeners.clear();
  }
}
