/**
 * The preload of every Arbor window (sandboxed: built as one CommonJS file
 * that requires nothing but "electron"). It exposes `window.arbor`, made by
 * `createArborBridge`, and nothing else: never ipcRenderer, never an event
 * object. See bridge.ts for what the three functions do.
 */

import { contextBridge, ipcRenderer, webUtils } from "electron";
import { type ArborBridge, createArborBridge, type DropTarget, installDropHandler } from "./bridge.ts";
import { EVENT_CHANNEL, OPEN_DROPPED_FILE_CHANNEL, REQUEST_CHANNEL } from "./ipc-channels.ts";

const bridge: ArborBridge = createArborBridge({
  invokeRequest: (name, params) => ipcRenderer.invoke(REQUEST_CHANNEL, name, params),
  invokeOpenDroppedFile: (path) => ipcRenderer.invoke(OPEN_DROPPED_FILE_CHANNEL, path),
  listenForEvents: (listener) => {
    ipcRenderer.on(EVENT_CHANNEL, (_event, message: unknown) => listener(message));
  },
  pathForFile: (file) => webUtils.getPathForFile(file as File),
});

contextBridge.exposeInMainWorld("arbor", bridge);
installDropHandler(globalThis as unknown as DropTarget, bridge);
