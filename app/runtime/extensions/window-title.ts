/**
 * Keeps the window title saying which session is open: its name (or, until
 * it has one, its first user message), and the project folder. The host
 * decides what a title is (Electron: the window's; serve has none). It
 * reads what a saved view holds when the session has one, so an open from
 * it builds no index for the title.
 */

import { basename } from "node:path";
import { showBidiControls } from "../../../shared/text/bidi.ts";
import type { ArborExtension, SessionAccess } from "../extension.ts";

export const WINDOW_TITLE_EXTENSION_ID = "arbor.window-title";
export const APP_TITLE = "Arbor";

export function createWindowTitleExtension(setTitle: (title: string) => void): ArborExtension {
  return {
    id: WINDOW_TITLE_EXTENSION_ID,
    activate(context) {
      let shown: string | undefined;
      const update = () => {
        const title = windowTitle(context.session);
        if (title === shown) return;
        shown = title;
        setTitle(title);
      };
      context.on("session_start", update);
      context.session.onDidAppend(update);
      context.session.onDidReload(update);
      context.on("session_shutdown", (event) => {
        if (event.reason === "quit") setTitle(APP_TITLE);
      });
    },
  };
}

/** `<name or first message> — <project folder> — Arbor`. */
export function windowTitle(session: Pick<SessionAccess, "name" | "firstUserText" | "path" | "cwd">): string {
  const what = session.name ?? session.firstUserText ?? basename(session.path);
  const project = session.cwd ? basename(session.cwd) || session.cwd : "";
  // A direction control in a name (U+202E...) would reorder the whole title bar: shown, not applied.
  return showBidiControls([what, project, APP_TITLE].filter(Boolean).join(" — "));
}
