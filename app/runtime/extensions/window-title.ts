/**
 * Keeps the window title saying which session is open: its name (or, until
 * it has one, its first user message), and the project folder. The host
 * decides what a title is (Electron: the window's; serve has none).
 *
 * A session that just started is titled a moment later, once the open has
 * been answered: its index may not be built yet (a saved view is sent
 * without it), and the title needs it.
 */

import { basename } from "node:path";
import type { SessionIndex } from "../../../shared/session/tree-index.ts";
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
      context.on("session_start", () => {
        setImmediate(() => {
          if (!context.isStale) update();
        });
      });
      context.session.onDidAppend(update);
      context.session.onDidReload(update);
      context.on("session_shutdown", (event) => {
        if (event.reason === "quit") setTitle(APP_TITLE);
      });
    },
  };
}

/** `<name or first message> — <project folder> — Arbor`. */
export function windowTitle(session: Pick<SessionAccess, "index" | "path" | "cwd">): string {
  const index = session.index;
  const what = index.sessionName ?? firstUserText(index) ?? basename(session.path);
  const project = session.cwd ? basename(session.cwd) || session.cwd : "";
  return [what, project, APP_TITLE].filter(Boolean).join(" — ");
}

function firstUserText(index: SessionIndex): string | undefined {
  for (const entry of index.entries) {
    if (entry.type !== "message") continue;
    const role = (entry.message as { role?: unknown } | undefined)?.role;
    if (role !== "user") continue;
    const preview = index.facts(entry.id)?.preview;
    if (preview) return preview.length > 80 ? `${preview.slice(0, 79)}…` : preview;
  }
  return undefined;
}
