/**
 * What the library lists, built from the files it knows: sessions with their
 * fork lineage, grouped by project, and the files that are not sessions.
 * Pure: the library rebuilds it when something it shows has changed.
 */

import { basename, resolve } from "node:path";
import type { SessionSummary } from "./session-summary.ts";

export interface LibrarySession extends SessionSummary {
  /** The root folder the file was found under. */
  root: string;
  /** The file `parentSession` names, when the library has it. */
  parentPath: string | undefined;
  /** Sessions forked from this one (their paths, oldest first). */
  children: string[];
}

export interface ProjectGroup {
  /** The header's `cwd` ("" for sessions that name none). */
  cwd: string;
  /** Newest first, by `modified` (Pi's order). */
  sessions: LibrarySession[];
  /** The newest session's `modified`. */
  modified: number;
}

export interface LibraryListing {
  /** Projects, the most recently active first. */
  projects: ProjectGroup[];
  /** Every session that could be read, newest first. */
  sessions: LibrarySession[];
  /** Files that are not readable sessions, with their error. */
  failed: LibrarySession[];
}

/** One listed file: its summary and the root it was found under. */
export interface ListedFile {
  summary: SessionSummary;
  root: string;
}

/** The listing of `files`; `grown` holds summaries read further than theirs, by path. */
export function buildListing(
  files: Iterable<ListedFile>,
  grown: ReadonlyMap<string, SessionSummary>,
): LibraryListing {
  const all = Array.from(
    files,
    (file): LibrarySession => ({
      ...(grown.get(file.summary.path) ?? file.summary),
      root: file.root,
      parentPath: undefined,
      children: [],
    }),
  );
  const sessions = all.filter((session) => !session.error);
  linkForks(all, sessions);
  sessions.sort(newestFirst);
  const groups = new Map<string, ProjectGroup>();
  for (const session of sessions) {
    let group = groups.get(session.cwd);
    if (!group) {
      group = { cwd: session.cwd, sessions: [], modified: session.modified };
      groups.set(session.cwd, group);
    }
    group.sessions.push(session);
  }
  const failed = all.filter((session) => session.error).sort((a, b) => a.path.localeCompare(b.path));
  return { projects: [...groups.values()], sessions, failed };
}

/** Sets each session's `parentPath` and its parent's `children` (oldest first). */
function linkForks(all: readonly LibrarySession[], sessions: readonly LibrarySession[]): void {
  const byPath = new Map<string, LibrarySession>();
  const byName = new Map<string, LibrarySession | null>();
  for (const session of all) {
    byPath.set(session.path, session);
    const name = basename(session.path);
    byName.set(name, byName.has(name) ? null : session);
  }
  for (const session of sessions) {
    if (!session.parentSession) continue;
    // Pi writes the parent's absolute path; a library copied elsewhere still has the file name.
    const parent = byPath.get(resolve(session.parentSession)) ?? byName.get(basename(session.parentSession));
    if (!parent || parent === session || parent.error) continue;
    session.parentPath = parent.path;
    parent.children.push(session.path);
  }
  for (const session of sessions) {
    if (session.children.length > 1) {
      session.children.sort(
        (a, b) => (byPath.get(a)?.created ?? 0) - (byPath.get(b)?.created ?? 0) || a.localeCompare(b),
      );
    }
  }
}

/** Most recently active first; by path for a tie, so the order is stable. */
export function newestFirst(a: SessionSummary, b: SessionSummary): number {
  return b.modified - a.modified || a.path.localeCompare(b.path);
}
