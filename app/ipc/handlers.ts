/**
 * The one object behind the IPC contract: each request is one call to the
 * window's services (the library as listed, the open session's view, the
 * session actions). Both transports (Electron's IPC and the WebSocket of
 * `arbor serve`) bind this same object through `dispatch` (bind.ts), which
 * validates parameters before and turns errors into their payload after.
 * Sessions and projects arrive as ids Arbor issued, never as paths.
 */

import type { AppInfo, ArborHandlers } from "../../shared/ipc/contract.ts";
import type { SessionBranches } from "../branches/session-branches.ts";
import type { LibraryView } from "../library-view/library-view.ts";
import type { PreferencesFile } from "../preferences/preferences-file.ts";
import type { SessionActions } from "../session-view/session-actions.ts";
import type { SessionViews } from "../session-view/session-views.ts";

export interface HandlerServices {
  info: Omit<AppInfo, "theme">;
  preferences: PreferencesFile;
  library: LibraryView;
  sessions: SessionViews;
  actions: SessionActions;
  branches: SessionBranches;
}

export function createArborHandlers({
  info,
  preferences,
  library,
  sessions,
  actions,
  branches,
}: HandlerServices): ArborHandlers {
  return {
    "app.info": async () => ({ ...info, theme: preferences.current.theme }),
    "app.setTheme": async ({ theme }) => ({
      theme: preferences.update((current) => ({ ...current, theme })).theme,
    }),
    "library.list": async () => library.list(),
    "library.rescan": () => library.rescan(),
    "library.search": ({ query, limit }) => library.search(query, limit),
    "session.open": ({ sessionId }) => actions.open(sessionId),
    "session.current": async () => sessions.current()?.view() ?? null,
    "session.context": async ({ leafId, llm }) => sessions.requireCurrent().context(leafId, llm ?? false),
    "session.entry": async ({ entryId }) => sessions.requireCurrent().entry(entryId),
    "session.search": async ({ query, limit }) => sessions.requireCurrent().search(query, limit),
    "session.setLabel": ({ targetId, label }) => actions.setLabel(targetId, label),
    "session.rename": ({ name }) => actions.rename(name),
    "session.fork": ({ entryId, position }) => actions.fork(entryId, position),
    "session.clone": () => actions.clone(),
    "session.new": ({ projectId }) => actions.newSession(projectId),
    "session.branches": async () => branches.map(),
    "session.branchFacts": async (of) => branches.facts(of),
    "session.compare": (request) => branches.compare(request),
  };
}
