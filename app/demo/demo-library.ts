/**
 * The bundled demo library: a few realistic sessions in Pi's real file
 * format (version 3), written on first start when no Pi sessions exist, so a
 * new user has something to explore. Deterministic: the same files every time.
 *
 * They show what Arbor is for: branches, a compaction, branch summaries,
 * labels, custom messages, a context edit, model and thinking changes, a
 * named session, a fork in another file, and one damaged file.
 */

import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { piSessionFolderName } from "../library/pi-folders.ts";
import { damagedSession, loginFlakeSession, loginForkSession, releaseSession } from "./demo-sessions.ts";

export interface DemoFile {
  relativePath: string;
  text: string;
}

/** The demo sessions as files relative to a session root (`--<cwd>--/<file>.jsonl`, like Pi). */
export function demoFiles(rootForParentPaths: string): DemoFile[] {
  const webapp = "/home/demo/projects/webapp";
  const cli = "/home/demo/projects/release-cli";
  const login = loginFlakeSession(webapp);
  const loginPath = join(rootForParentPaths, piSessionFolderName(webapp), login.session.fileName);
  const fork = loginForkSession(webapp, login.session, login.fix, loginPath);
  const release = releaseSession(cli);
  const damaged = damagedSession(cli);
  return [
    { relativePath: join(piSessionFolderName(webapp), login.session.fileName), text: login.session.text() },
    { relativePath: join(piSessionFolderName(webapp), fork.fileName), text: fork.text() },
    { relativePath: join(piSessionFolderName(cli), release.fileName), text: release.text() },
    { relativePath: join(piSessionFolderName(cli), damaged.fileName), text: damaged.text },
  ];
}

/**
 * Writes the demo library under `root` (each file via a temp file and a
 * rename; existing files are left alone). Returns the paths written.
 */
export function writeDemoLibrary(root: string): string[] {
  const written: string[] = [];
  for (const file of demoFiles(root)) {
    const path = join(root, file.relativePath);
    if (existsSync(path)) continue;
    mkdirSync(join(path, ".."), { recursive: true });
    const temp = `${path}.${process.pid}.tmp`;
    writeFileSync(temp, file.text, { flag: "wx" });
    renameSync(temp, path);
    written.push(path);
  }
  return written;
}
