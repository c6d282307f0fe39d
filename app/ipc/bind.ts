/**
 * The transport-independent half of every binding: check a request's name
 * and parameters with the contract's schemas, then call the handler, and turn
 * whatever it throws into the `{code, message}` that crosses the wire (the
 * one place errors are translated). A file-system error leaves by its code;
 * any other error that is not an `ArborError` leaves as "internal" with a
 * generic message: its own text (paths, stack traces) stays in the main process.
 *
 * Results and events leave in their wire form (shared/ipc/wire.ts: node
 * lists columnar), which each client decodes: `dispatch` encodes answers,
 * `wireEvent` events, for the Electron binding and the WebSocket alike.
 */

import {
  ArborError,
  type ArborErrorPayload,
  type ArborEvents,
  type ArborHandlers,
  type EventName,
  type RequestName,
} from "../../shared/ipc/contract.ts";
import { fileErrors, requestErrors } from "../../shared/error-texts.ts";
import { validateRequest } from "../../shared/ipc/schemas.ts";
import { type EncodedNodesForm, encodeEvent, encodeResult, type WireEvent } from "../../shared/ipc/wire.ts";

export type DispatchResult = { result: unknown } | { error: ArborErrorPayload };

export interface DispatchOptions {
  /** Sees every error that is neither an `ArborError` nor a file-system error (for the log). */
  onInternalError?: ((error: unknown, request: string) => void) | undefined;
  /** How node lists already in wire form travel on this transport (default: as a string). */
  encodedNodes?: EncodedNodesForm | undefined;
}

export async function dispatch(
  handlers: ArborHandlers,
  name: string,
  params: unknown,
  options: DispatchOptions = {},
): Promise<DispatchResult> {
  let validated: unknown;
  try {
    validated = validateRequest(name, params);
  } catch (error) {
    return { error: toPayload(error, name, options) };
  }
  try {
    const handler = handlers[name as RequestName] as (params: unknown) => Promise<unknown>;
    const result = (await handler(validated)) as never;
    return { result: encodeResult(name as RequestName, result, options.encodedNodes ?? "string") };
  } catch (error) {
    return { error: toPayload(error, name, options) };
  }
}

function toPayload(error: unknown, name: string, options: DispatchOptions): ArborErrorPayload {
  const request = typeof name === "string" && name.length <= 64 ? `"${name}"` : "a request";
  return errorPayload(error, request, (internal) => options.onInternalError?.(internal, name));
}

/**
 * An error as the user reads it: Arbor's own as it is, a file-system error in
 * words, anything else as unexpected in `request` (reported to `onInternal`).
 * The one translation for requests and for the desktop's files opened from
 * outside the contract (dropped, named on the command line).
 */
export function errorPayload(
  error: unknown,
  request: string,
  onInternal?: (error: unknown) => void,
): ArborErrorPayload {
  if (error instanceof ArborError) return error.toPayload();
  const fileError = fileErrorPayload(error);
  if (fileError) return fileError;
  onInternal?.(error);
  return { code: "internal", message: requestErrors.unexpected(request) };
}

/** A file-system error (Node's `code`, such as `ENOENT`) as the user reads it; undefined for any other error. */
function fileErrorPayload(error: unknown): ArborErrorPayload | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === "ENOENT") {
    return { code: "not-found", message: fileErrors.sessionFileGone };
  }
  if (code === "EACCES" || code === "EPERM") {
    return { code: "io", message: fileErrors.notAllowed };
  }
  if (code === "ENOSPC") return { code: "io", message: fileErrors.diskFull };
  if (typeof code === "string" && /^E[A-Z]+$/.test(code)) {
    return { code: "io", message: fileErrors.operationFailed(code) };
  }
  return undefined;
}

/** An event's payload as it crosses either transport. */
export function wireEvent<E extends EventName>(
  name: E,
  payload: ArborEvents[E],
  encodedNodes: EncodedNodesForm = "string",
): WireEvent<E> {
  return encodeEvent(name, payload, encodedNodes);
}
