/**
 * The Electron binding of the IPC contract: the only place ipcMain is
 * used. Every message is checked with `checkSender` (top frame of one of
 * our windows, showing our own page) before anything else runs; requests
 * then go to `dispatch` with the sending window's handler object, and
 * events go out on one channel as `{name, payload}` (the payload in its
 * wire form, as `dispatch`'s answers are: see app/ipc/bind.ts).
 */

import { type IpcMainInvokeEvent, ipcMain, type WebContents } from "electron";
import { desktopErrors, requestErrors, sessionErrors } from "../../shared/error-texts.ts";
import type { ArborEvents, EventName } from "../../shared/ipc/contract.ts";
import { wireEvent } from "../ipc/bind.ts";
import type { AppLocation } from "./app-location.ts";
import {
  type DroppedFileOutcome,
  EVENT_CHANNEL,
  type EventMessage,
  OPEN_DROPPED_FILE_CHANNEL,
  REQUEST_CHANNEL,
  type RequestOutcome,
} from "./ipc-channels.ts";
import { checkSender, type SenderFacts } from "./trusted-sender.ts";
import type { Dispatch, WindowRuntime } from "./window-runtime.ts";

export interface IpcBindingOptions {
  location: AppLocation;
  dispatch: Dispatch;
  /** The runtime of the window whose webContents has this id; undefined when it is not ours. */
  runtimeFor(webContentsId: number): WindowRuntime | undefined;
  /** The ids of our windows' webContents, now. */
  ourWebContentsIds(): ReadonlySet<number>;
  /** A file dropped on the window whose webContents has this id (the path is not checked yet). */
  openDroppedFile(webContentsId: number, path: unknown): Promise<DroppedFileOutcome>;
}

function senderFacts(event: IpcMainInvokeEvent): SenderFacts {
  const frame = event.senderFrame;
  return {
    webContentsId: event.sender.id,
    frameUrl: frame ? frame.url : null,
    isMainFrame: frame !== null && frame.parent === null,
  };
}

/** Binds both channels; returns the unbinding. */
export function bindIpcMain(options: IpcBindingOptions): () => void {
  const refusal = (event: IpcMainInvokeEvent): string | null => {
    const verdict = checkSender(senderFacts(event), options.ourWebContentsIds(), options.location);
    if (verdict.trusted) return null;
    console.warn(`Arbor refused an IPC message: ${verdict.reason}.`);
    return desktopErrors.senderRefused(verdict.reason);
  };

  ipcMain.handle(REQUEST_CHANNEL, async (event, name: unknown, params: unknown): Promise<RequestOutcome> => {
    const refused = refusal(event);
    if (refused !== null) return { error: { code: "refused", message: refused } };
    const runtime = options.runtimeFor(event.sender.id);
    if (!runtime) return { error: { code: "refused", message: sessionErrors.windowWithoutRuntime } };
    if (typeof name !== "string") {
      return { error: { code: "invalid-request", message: requestErrors.needsName } };
    }
    return options.dispatch(runtime.handlers, name, params);
  });

  ipcMain.handle(OPEN_DROPPED_FILE_CHANNEL, async (event, path: unknown): Promise<DroppedFileOutcome> => {
    const refused = refusal(event);
    if (refused !== null) return { opened: false, error: { code: "refused", message: refused } };
    return options.openDroppedFile(event.sender.id, path);
  });

  return () => {
    ipcMain.removeHandler(REQUEST_CHANNEL);
    ipcMain.removeHandler(OPEN_DROPPED_FILE_CHANNEL);
  };
}

export function sendEvent<E extends EventName>(
  contents: WebContents,
  name: E,
  payload: ArborEvents[E],
): void {
  if (contents.isDestroyed()) return;
  const message: EventMessage = { name, payload: wireEvent(name, payload) };
  contents.send(EVENT_CHANNEL, message);
}
