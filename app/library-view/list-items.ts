/**
 * The library's sessions as the contract lists them: rows named by issued
 * ids (`SessionListItem`), grouped by project (`ProjectGroup`), with the
 * files that are not readable sessions listed too.
 */

import { dirname } from "node:path";
import type { ProjectGroup, SessionListItem } from "../../shared/ipc/contract.ts";
import type { LibraryListing, LibrarySession } from "../library/index.ts";
import type { IssuedIds } from "../ipc/issued-ids.ts";

/** What a row needs besides the library's summary: the ids to name it by, and whether a window has it open. */
export interface RowSources {
  ids: IssuedIds;
  isOpen(path: string): boolean;
}

export function listItem(session: LibrarySession, sources: RowSources): SessionListItem {
  const { ids } = sources;
  return {
    sessionId: ids.sessionId(session.path),
    headerId: session.id,
    path: session.path,
    projectId: ids.projectId(session.cwd),
    cwd: session.cwd,
    name: session.name ?? null,
    firstMessage: session.firstMessage,
    messageCount: session.messageCount,
    created: session.created === null ? "" : new Date(session.created).toISOString(),
    modified: new Date(session.modified).toISOString(),
    bytes: session.size,
    parentSessionId: session.parentPath ? ids.sessionId(session.parentPath) : null,
    error: session.error?.message ?? null,
    damagedLines: session.badLines,
    open: sources.isOpen(session.path),
  };
}

export function projectGroups(listing: LibraryListing, sources: RowSources): ProjectGroup[] {
  const { ids } = sources;
  const groups: ProjectGroup[] = listing.projects.map((project) => ({
    projectId: ids.projectId(project.cwd),
    cwd: project.cwd,
    sessions: project.sessions.map((session) => listItem(session, sources)),
  }));
  // Files that are not readable sessions are listed too, with their error, under their cwd; without
  // one (no header), under the project of the sessions in their folder, as Pi keeps one folder per project.
  for (const session of listing.failed) {
    const folder = dirname(session.path);
    let group =
      session.cwd === ""
        ? groups.find(
            (candidate) =>
              candidate.cwd !== "" && candidate.sessions.some((item) => dirname(item.path) === folder),
          )
        : undefined;
    group ??= groups.find((candidate) => candidate.cwd === session.cwd);
    if (!group) {
      group = { projectId: ids.projectId(session.cwd), cwd: session.cwd, sessions: [] };
      groups.push(group);
    }
    group.sessions.push(listItem(session, sources));
  }
  return groups;
}
