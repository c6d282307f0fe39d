/** A temp copy of the bundled demo library, written an hour ago (so nothing in it is "live"). */

import { mkdtempSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeDemoLibrary } from "../../app/demo/demo-library.ts";
import type { SessionIndex } from "../../shared/session/index.ts";
import { readIndex } from "./oracle.ts";

export const LOGIN = "Fix flaky login test";
export const RELEASE = "Release 2.4.0";
/** The damaged file has no name: the library shows its first message. */
export const DAMAGED = "Summarise the open issues";

export interface DemoSession {
  file: string;
  index: SessionIndex;
}

export interface DemoLibrary {
  root: string;
  login: DemoSession;
  release: DemoSession;
  damaged: DemoSession;
}

export function writeDemo(): DemoLibrary {
  const root = mkdtempSync(join(tmpdir(), "arbor-e2e-demo-"));
  const files = writeDemoLibrary(root);
  const anHourAgo = new Date(Date.now() - 3_600_000);
  for (const file of files) utimesSync(file, anHourAgo, anHourAgo);
  const sessions = files.map((file) => ({ file, index: readIndex(file) }));
  const find = (test: (index: SessionIndex) => boolean) => {
    const found = sessions.find((session) => test(session.index));
    if (!found) throw new Error("the demo library changed: a session the tests use is missing");
    return found;
  };
  return {
    root,
    login: find((index) => index.sessionName === LOGIN),
    release: find((index) => index.sessionName === RELEASE),
    damaged: find((index) => index.problems.some((problem) => problem.kind === "malformed-json")),
  };
}

/** The session's leaf: the file's last entry. */
export function leafOf(session: DemoSession): string {
  return session.index.leafId!;
}
