/**
 * Whether an IPC message may reach the handlers: it must come from the top
 * frame of one of Arbor's own windows, showing Arbor's own page. GitHub
 * Desktop's trusted-ipc-sender and VS Code's validated ipcMain make the same
 * check before any handler runs; a page that somehow got into a window
 * (a navigation that slipped through, an injected frame) gets nothing.
 *
 * Pure: the Electron side (ipc-main.ts) reads these facts off the event.
 */

import { type AppLocation, isAppPageUrl } from "./app-location.ts";
import { desktopErrors } from "../../shared/error-texts.ts";

export interface SenderFacts {
  /** `event.sender.id`. */
  webContentsId: number;
  /** `event.senderFrame?.url`; null when the frame is gone (navigated away or destroyed). */
  frameUrl: string | null;
  /** The sending frame is the top frame of its webContents (`senderFrame === sender.mainFrame`). */
  isMainFrame: boolean;
}

export type SenderVerdict = { trusted: true } | { trusted: false; reason: string };

export function checkSender(
  sender: SenderFacts,
  ourWebContentsIds: ReadonlySet<number>,
  location: AppLocation,
): SenderVerdict {
  if (!ourWebContentsIds.has(sender.webContentsId)) {
    return { trusted: false, reason: desktopErrors.senderNotOurWindow };
  }
  if (sender.frameUrl === null) {
    return { trusted: false, reason: desktopErrors.senderFrameGone };
  }
  if (!sender.isMainFrame) {
    return { trusted: false, reason: desktopErrors.senderSubFrame };
  }
  if (!isAppPageUrl(sender.frameUrl, location)) {
    return { trusted: false, reason: desktopErrors.senderNotOurPage };
  }
  return { trusted: true };
}
