/**
 * The ids Arbor issues for session files and projects. The renderer names a
 * session only by an id it was given; an id maps back to a path here or not
 * at all, so no path from the renderer is ever opened.
 *
 * Ids are derived from the path (or cwd), so the same file keeps its id for
 * the whole run and across launches, but only ids issued in this run resolve.
 */

import { createHash } from "node:crypto";

export class IssuedIds {
  private readonly paths = new Map<string, string>();
  private readonly cwds = new Map<string, string>();

  /** The id of a session file, issued now if it was not before. */
  sessionId(path: string): string {
    const id = `s${digest(path)}`;
    this.paths.set(id, path);
    return id;
  }

  /** The id of a project (a cwd), issued now if it was not before. */
  projectId(cwd: string): string {
    const id = `p${digest(cwd)}`;
    this.cwds.set(id, cwd);
    return id;
  }

  /** The path behind an issued session id, or `undefined` for any other string. */
  pathOf(sessionId: string): string | undefined {
    return this.paths.get(sessionId);
  }

  /** The cwd behind an issued project id, or `undefined` for any other string. */
  cwdOf(projectId: string): string | undefined {
    return this.cwds.get(projectId);
  }
}

function digest(text: string): string {
  return createHash("sha256").update(text).digest("base64url").slice(0, 22);
}
