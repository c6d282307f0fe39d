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
import type { SessionManagement } from "../session-manage/session-management.ts";
import type { SessionActions } from "../session-view/session-actions.ts";
import type { SessionViews } from "../session-view/session-views.ts";
import type { SessionWrites } from "../session-view/session-writes.ts";

export interface HandlerServices {
  info: Omit<AppInfo, "theme">;
  preferences: PreferencesFile;
  library: LibraryView;
  sessions: SessionViews;
  actions: SessionActions;
  writes: SessionWrites;
  management: SessionManagement;
  branches: SessionBranches;
}

export function createArborHandlers({
  info,
  preferences,
  library,
  sessions,
  actions,
  writes,
  management,
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
    "session.contextPage": async (request) => sessions.requireCurrent().contextPage(request),
    "session.entry": async ({ entryId }) => sessions.requireCurrent().entry(entryId),
    "session.text": async ({ of, path, offset, length }) =>
      sessions.requireCurrent().text(of, path, offset, length),
    "session.search": async ({ query, limit }) => sessions.requireCurrent().search(query, limit),
    "session.new": ({ projectId }) => actions.newSession(projectId),
    // Managing sessions (issue 19)
    "session.setLabel": ({ targetId, label, confirmLive }) =>
      writes.write({ kind: "label", targetId, label }, confirmLive),
    "session.rename": ({ name, confirmLive }) => writes.write({ kind: "name", name }, confirmLive),
    "session.continueFrom": ({ entryId, summary, confirmLive }) =>
      writes.write({ kind: "continue", entryId, summary }, confirmLive),
    "session.archive": ({ entryId, confirmLive }) =>
      writes.write({ kind: "archive", targetId: entryId, archived: true }, confirmLive),
    "session.unarchive": ({ entryId, confirmLive }) =>
      writes.write({ kind: "archive", targetId: entryId, archived: false }, confirmLive),
    "session.addNote": ({ text, at, confirmLive }) => writes.write({ kind: "note", text, at }, confirmLive),
    "session.editContext": ({ targetId, replacement, at, confirmLive }) =>
      writes.write({ kind: "context-edit", targetId, replacement, at }, confirmLive),
    "session.undo": ({ entryId, confirmLive }) => writes.write({ kind: "undo", entryId }, confirmLive),
    "session.fork": ({ entryId, position }) => actions.fork(entryId, position),
    "session.clone": ({ leafId }) => actions.clone(leafId),
    "session.trash": ({ sessionId, confirmLive }) => management.trash(sessionId, confirmLive),
    "session.restore": ({ trashId }) => management.restore(trashId),
    "session.export": ({ sessionId, leafId, format }) => management.export(sessionId, leafId, format),
    "session.openInPi": ({ sessionId }) => management.openInPi(sessionId),
    "session.import": ({ projectId, content, fileName }) => management.import(projectId, content, fileName),
    "session.branches": async () => branches.map(),
    "session.branchFacts": async (of) => branches.facts(of),
    "session.compare": (request) => branches.compare(request),
  };
}
