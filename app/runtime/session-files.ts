/**
 * The runtime's `SessionFiles` over `app/store/new-file.ts`, which writes
 * every new file whole under a temporary name and publishes it without ever
 * replacing an existing one. New sessions are Pi's `newSession()` header;
 * forks and clones are Pi's `createBranchedSession` (the runtime has already
 * turned Pi's "before a user message" into the message's parent).
 */

import { mkdirSync } from "node:fs";
import { createSessionFile, forkSession } from "../store/new-file.ts";
import type { SessionFiles } from "./open-session.ts";

export function createSessionFiles(options: { now?: () => Date } = {}): SessionFiles {
  const now = options.now ?? (() => new Date());
  return {
    async createNew({ cwd, sessionDir, parentSession }) {
      // Pi's SessionManager creates its session folder too.
      mkdirSync(sessionDir, { recursive: true });
      return createSessionFile({
        dir: sessionDir,
        cwd,
        now: now(),
        ...(parentSession === undefined ? {} : { parentSession }),
      }).path;
    },

    async createFork({ source, leafId, sessionDir }) {
      const index = source.index;
      if (leafId === null) {
        // Before the first entry: a session with no entries that names its parent.
        const cwd = index.header?.cwd;
        return createSessionFile({
          dir: sessionDir,
          cwd: typeof cwd === "string" ? cwd : process.cwd(),
          parentSession: source.path,
          now: now(),
        }).path;
      }
      return forkSession(index, source.reader, source.path, leafId, {
        position: "at",
        dir: sessionDir,
        now: now(),
      }).path;
    },
  };
}
