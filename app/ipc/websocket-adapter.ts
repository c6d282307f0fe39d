/**
 * The WebSocket binding of the contract, for `arbor serve`. One JSON message
 * per frame:
 *
 *   client -> server   {id, name, params}
 *   server -> client   {id, result} | {id, error: {code, message}}
 *                      {event, payload}
 *
 * Results and payloads are in their wire form (shared/ipc/wire.ts), which
 * the client (shared/ipc/websocket-client.ts) decodes; a saved view's nodes
 * are written into the frame as the JSON text they were saved as.
 *
 * `id` is the client's (a number or a string) and is echoed back. Requests
 * are answered as they finish, not necessarily in order. Who may connect is
 * decided before the upgrade (`app/serve`): this side only speaks the protocol.
 */

import type { WebSocket } from "ws";
import { requestErrors } from "../../shared/error-texts.ts";
import { type ArborErrorPayload, type ArborHandlers, MAX_IMPORT_BYTES } from "../../shared/ipc/contract.ts";
import { type Disposable, DisposableObject, NONE, toDisposable } from "../../shared/lifecycle/disposable.ts";
import { stringifyWire } from "../../shared/ipc/wire-json.ts";
import { type DispatchOptions, dispatch, wireEvent } from "./bind.ts";
import type { EventHub } from "./event-sink.ts";

/**
 * Largest request accepted (the server also limits frames): room for a
 * `session.import` of `MAX_IMPORT_BYTES` with the escapes JSON adds to it.
 */
export const MAX_MESSAGE_BYTES = 3 * MAX_IMPORT_BYTES;

export interface WebSocketAdapterOptions extends DispatchOptions {
  handlers: ArborHandlers;
  events: EventHub;
}

export class WebSocketAdapter extends DisposableObject {
  private readonly sockets = new Set<WebSocket>();
  /** Frames handed to a socket and not yet written out. */
  private unsent = 0;
  private readonly afterSent: (() => void)[] = [];

  constructor(private readonly options: WebSocketAdapterOptions) {
    super();
    this.register(
      options.events.subscribe((event, payload) => {
        const frame = stringifyWire({ event, payload: wireEvent(event, payload, "spliced") });
        for (const socket of this.sockets) this.send(socket, frame);
      }),
    );
  }

  get connectionCount(): number {
    return this.sockets.size;
  }

  /**
   * Runs `work` once every frame sent so far has been written out to its
   * socket (on the next turn when none is waiting): long work then does not
   * hold an answer back in this process.
   */
  whenSent(work: () => void): void {
    this.afterSent.push(work);
    if (this.unsent === 0) setImmediate(() => this.runAfterSent());
  }

  private runAfterSent(): void {
    if (this.unsent > 0 || this.isDisposed) return;
    for (const work of this.afterSent.splice(0)) work();
  }

  private send(socket: WebSocket, frame: string): void {
    if (socket.readyState !== socket.OPEN) return;
    this.unsent++;
    socket.send(frame, () => {
      this.unsent--;
      if (this.unsent === 0 && this.afterSent.length > 0) setImmediate(() => this.runAfterSent());
    });
  }

  /** Serves one connected socket until it closes (or the adapter is disposed). */
  accept(socket: WebSocket): Disposable {
    if (this.isDisposed) {
      socket.close(1001, "Arbor is shutting down");
      return NONE;
    }
    this.sockets.add(socket);
    const onMessage = (data: unknown, isBinary: boolean) => {
      void this.answer(socket, data, isBinary);
    };
    const connection = toDisposable(() => {
      socket.off("message", onMessage);
      this.sockets.delete(socket);
    });
    socket.on("message", onMessage);
    socket.once("close", () => this.disposables.delete(connection));
    socket.on("error", () => socket.terminate());
    return this.register(connection);
  }

  private async answer(socket: WebSocket, data: unknown, isBinary: boolean): Promise<void> {
    const request = parseRequest(data, isBinary);
    if ("error" in request) {
      this.send(socket, JSON.stringify({ id: request.id, error: request.error }));
      return;
    }
    const outcome = await dispatch(this.options.handlers, request.name, request.params, {
      ...this.options,
      encodedNodes: "spliced",
    });
    if (!this.sockets.has(socket)) return;
    let frame: string;
    try {
      frame = stringifyWire({ id: request.id, ...outcome });
    } catch {
      frame = JSON.stringify({
        id: request.id,
        error: { code: "internal", message: requestErrors.answerNotJson },
      });
    }
    this.send(socket, frame);
  }

  override dispose(): void {
    for (const socket of this.sockets) socket.close(1001, "Arbor is shutting down");
    super.dispose();
  }
}

type ParsedRequest =
  | { id: string | number; name: string; params: unknown }
  | { id: string | number | null; error: ArborErrorPayload };

function parseRequest(data: unknown, isBinary: boolean): ParsedRequest {
  const invalid = (id: string | number | null, message: string): ParsedRequest => ({
    id,
    error: { code: "invalid-request", message },
  });
  if (isBinary) return invalid(null, requestErrors.binary);
  const text = Buffer.isBuffer(data)
    ? data.toString("utf8")
    : Array.isArray(data)
      ? Buffer.concat(data).toString("utf8")
      : String(data);
  if (text.length > MAX_MESSAGE_BYTES) return invalid(null, requestErrors.tooLarge);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return invalid(null, requestErrors.notJson);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return invalid(null, requestErrors.notAnObject);
  }
  const { id, name, params } = value as { id?: unknown; name?: unknown; params?: unknown };
  const validId =
    (typeof id === "number" && Number.isFinite(id)) || (typeof id === "string" && id.length <= 64);
  if (!validId) return invalid(null, requestErrors.needsId);
  if (typeof name !== "string") return invalid(id as string | number, requestErrors.needsName);
  return { id: id as string | number, name, params };
}
