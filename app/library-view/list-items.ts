/**
 * The library's sessions as the contract lists them: rows named by issued
 * ids (`SessionListItem`), grouped by project (`ProjectGroup`), with the
 * files that are not readable sessions listed too.
 */

import { basename, dirname } from "node:path";
import type { ProjectGroup, SessionListItem } from "../../shared/ipc/contract.ts";
import type { LibraryListing, LibrarySession } from "../library/index.ts";
import type { IssuedIds } from "../ipc/issued-ids.ts";
import { piSessionFolderName } from "../library/pi-folders.ts";

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
    // Archived branches are hidden from the default views; the library's count leaves them out too.
    messageCount: session.messageCount - session.archivedMessageCount,
    archivedMessageCount: session.archivedMessageCount,
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
  // Files that are not readable sessions are listed too, with their error: under their header's cwd, or
  // without one under the project whose Pi session folder they are in (Pi names the folder after the cwd),
  // or else under no project; never under a heading borrowed from whatever else shares their folder.
  const groupOf = (cwd: string) => {
    let group = groups.find((candidate) => candidate.cwd === cwd);
    if (!group) {
      group = { projectId: ids.projectId(cwd), cwd, sessions: [] };
      groups.push(group);
    }
    return group;
  };
  for (const session of listing.failed) {
    const folder = basename(dirname(session.path));
    const cwd =
      session.cwd !== ""
        ? session.cwd
        : (groups.find((candidate) => candidate.cwd !== "" && piSessionFolderName(candidate.cwd) === folder)
            ?.cwd ?? "");
    groupOf(cwd).sessions.push(listItem(session, sources));
  }
  return groups;
}
