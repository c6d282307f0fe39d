/**
 * What the preload puts on `window.arbor`: three named functions, never
 * ipcRenderer itself (Signal's minimal preload contexts and Mattermost's
 * external API are the model; a generic "send on any channel" bridge is the
 * counter-example). Request and event names are checked against the
 * contract's lists before anything is sent, events reach listeners without
 * Electron's event object (whose `sender` is ipcRenderer), and every `on`
 * returns its unsubscribe.
 *
 * Pure: preload.ts supplies the Electron transport, tests a fake one.
 */

import { desktopErrors, requestErrors } from "../../shared/error-texts.ts";
import type { ArborBridge, BridgeOutcome, DroppedFileOutcome } from "../../shared/ipc/bridge.ts";
import {
  type ArborErrorPayload,
  EVENT_NAMES,
  type EventName,
  REQUEST_NAMES,
  type RequestName,
  type RequestParams,
} from "../../shared/ipc/contract.ts";
import type { WireEvent, WireResult } from "../../shared/ipc/wire.ts";

export type { ArborBridge, BridgeOutcome, DroppedFileOutcome };

export interface BridgeTransport {
  invokeRequest(name: RequestName, params: unknown): Promise<unknown>;
  invokeOpenDroppedFile(path: string): Promise<unknown>;
  /** Registers the one listener for every event message; called once. */
  listenForEvents(listener: (message: unknown) => void): void;
  /** `webUtils.getPathForFile`: throws for anything but a File, "" for a File not backed by disk. */
  pathForFile(file: unknown): string;
}

const requestNames: ReadonlySet<string> = new Set(REQUEST_NAMES);
const eventNames: ReadonlySet<string> = new Set(EVENT_NAMES);

function errorOutcome(code: ArborErrorPayload["code"], message: string): { error: ArborErrorPayload } {
  return { error: { code, message } };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

function asRequestOutcome<N extends RequestName>(value: unknown): BridgeOutcome<N> {
  if (isRecord(value)) {
    if ("result" in value) return { result: value.result as WireResult<N> };
    const error = value.error;
    if (isRecord(error) && typeof error.code === "string" && typeof error.message === "string") {
      return { error: { code: error.code as ArborErrorPayload["code"], message: error.message } };
    }
  }
  return errorOutcome("internal", desktopErrors.answerNotUnderstood);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function createArborBridge(transport: BridgeTransport): ArborBridge {
  const listeners = new EventListeners();
  transport.listenForEvents((message) => listeners.deliver(message));

  async function request<N extends RequestName>(
    name: N,
    params: RequestParams<N>,
  ): Promise<BridgeOutcome<N>> {
    if (typeof name !== "string" || !requestNames.has(name)) {
      return errorOutcome("invalid-request", requestErrors.unknown(String(name)));
    }
    try {
      return asRequestOutcome<N>(await transport.invokeRequest(name, params));
    } catch (error) {
      return errorOutcome("internal", desktopErrors.requestNotDelivered(name, messageOf(error)));
    }
  }

  function on<E extends EventName>(name: E, listener: (payload: WireEvent<E>) => void): () => void {
    return listeners.add(name, listener);
  }

  return Object.freeze({
    request,
    on,
    openDroppedFile: (file: unknown) => openDroppedFile(transport, file),
  });
}

/** The renderer's event listeners, by event name; every event message from the main process is delivered here. */
class EventListeners {
  private readonly byName = new Map<EventName, Set<(payload: unknown) => void>>();

  /** Delivers an event message to the listeners of its name; anything that is not a known event is dropped. */
  deliver(message: unknown): void {
    if (!isRecord(message) || typeof message.name !== "string" || !eventNames.has(message.name)) return;
    const forName = this.byName.get(message.name as EventName);
    if (!forName) return;
    for (const listener of [...forName]) {
      try {
        listener(message.payload);
      } catch (error) {
        // One failing listener must not keep the event from the others.
        console.error(`An "${message.name}" listener failed:`, error);
      }
    }
  }

  /** Throws a TypeError for a name the contract does not have; returns the unsubscribe. */
  add<E extends EventName>(name: E, listener: (payload: WireEvent<E>) => void): () => void {
    if (typeof name !== "string" || !eventNames.has(name)) {
      throw new TypeError(`Unknown event "${String(name)}".`);
    }
    if (typeof listener !== "function") {
      throw new TypeError(`The listener for "${name}" is not a function.`);
    }
    const forName = this.byName.get(name) ?? new Set();
    this.byName.set(name, forName);
    // A wrapper per subscription: subscribing the same function twice gives two independent subscriptions.
    const entry = (payload: unknown) => listener(payload as WireEvent<E>);
    forName.add(entry);
    return () => {
      forName.delete(entry);
    };
  }
}

/** Asks the main process to open a dropped file; it does not reject. */
async function openDroppedFile(transport: BridgeTransport, file: unknown): Promise<DroppedFileOutcome> {
  let path: string;
  try {
    path = transport.pathForFile(file);
  } catch {
    return {
      opened: false,
      error: { code: "invalid-request", message: desktopErrors.dropNotAFile },
    };
  }
  if (path === "") {
    return {
      opened: false,
      error: { code: "invalid-request", message: desktopErrors.dropNotOnDisk },
    };
  }
  try {
    const outcome = await transport.invokeOpenDroppedFile(path);
    if (isRecord(outcome) && outcome.opened === true) return { opened: true };
    if (isRecord(outcome) && isRecord(outcome.error) && typeof outcome.error.message === "string") {
      return {
        opened: false,
        error: { code: outcome.error.code as ArborErrorPayload["code"], message: outcome.error.message },
      };
    }
    return { opened: false, error: { code: "internal", message: desktopErrors.noAnswer } };
  } catch (error) {
    return { opened: false, error: { code: "internal", message: messageOf(error) } };
  }
}

/** The part of `window` the drop handler uses (the preload compiles without the DOM library). */
export interface DropTarget {
  addEventListener(type: "dragover" | "drop", listener: (event: DropEvent) => void): void;
}

export interface DropEvent {
  readonly defaultPrevented: boolean;
  preventDefault(): void;
  readonly dataTransfer: { readonly files: ArrayLike<unknown>; readonly types: ArrayLike<string> } | null;
}

function carriesFiles(event: DropEvent): boolean {
  const types = event.dataTransfer?.types;
  return types !== undefined && Array.from(types).includes("Files");
}

/**
 * Dropping a session file anywhere on the window opens it. Without this the
 * drop would navigate the window to the file (which the main process
 * refuses anyway). A renderer that handles a drop itself calls
 * `preventDefault()` and this handler, listening last (on window, bubbling),
 * leaves it alone. The main process tells the user when a dropped file
 * cannot be opened.
 */
export function installDropHandler(target: DropTarget, bridge: Pick<ArborBridge, "openDroppedFile">): void {
  target.addEventListener("dragover", (event) => {
    if (!event.defaultPrevented && carriesFiles(event)) event.preventDefault();
  });
  target.addEventListener("drop", (event) => {
    if (event.defaultPrevented || !carriesFiles(event)) return;
    event.preventDefault();
    const file = event.dataTransfer?.files[0];
    if (file !== undefined) void bridge.openDroppedFile(file);
  });
}
