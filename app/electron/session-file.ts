/**
 * Session files that reach the main process from outside the IPC contract:
 * a path on the command line (first or second instance), macOS's open-file,
 * a file dropped on a window, the recent list. Each is checked the same way
 * before anything opens it: it exists, it is a regular file, it ends in
 * `.jsonl`.
 *
 * No Electron import: tested in plain Node.
 */

import { stat } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { desktopErrors } from "../../shared/error-texts.ts";

export const SESSION_FILE_EXTENSION = ".jsonl";

export function hasSessionFileExtension(path: string): boolean {
  return path.toLowerCase().endsWith(SESSION_FILE_EXTENSION);
}

export interface ArgvContext {
  /**
   * `process.defaultApp`: true when the app runs as `electron [switches] <app
   * path> ...`, whose argv carries the app path as its first argument that
   * is not a switch.
   */
  defaultApp: boolean;
  /** Where relative paths are resolved: the launching shell's directory. */
  workingDirectory: string;
}

/**
 * The session file named on a command line, as an absolute path, or null.
 * Switches (`--flag`, `--flag=value`, which Chromium also appends to a
 * second instance's argv and Playwright puts before the app path) are
 * skipped; a `file://` URL (as Linux desktop files pass with %U) is turned
 * into its path; the last `.jsonl` argument wins. Existence is checked
 * later, by `checkSessionFile`.
 */
export function sessionFileFromArgv(argv: readonly string[], context: ArgvContext): string | null {
  let found: string | null = null;
  let appPathSkipped = !context.defaultApp;
  let switchesEnded = false;
  for (const argument of argv.slice(1)) {
    if (!switchesEnded && argument === "--") {
      switchesEnded = true;
      continue;
    }
    if (!switchesEnded && argument.startsWith("-")) continue;
    if (!appPathSkipped) {
      appPathSkipped = true;
      continue;
    }
    const path = argumentPath(argument);
    if (path !== null && hasSessionFileExtension(path)) {
      found = isAbsolute(path) ? resolve(path) : resolve(context.workingDirectory, path);
    }
  }
  return found;
}

function argumentPath(argument: string): string | null {
  if (!argument.startsWith("file:")) return argument;
  try {
    return fileURLToPath(argument);
  } catch {
    return null;
  }
}

export type SessionFileCheck = { ok: true; path: string } | { ok: false; reason: string };

/**
 * Whether `path` may be opened as a session. Paths must be absolute: this
 * runs on paths the main process got from the OS (a drop, a dialog, argv
 * already resolved against its working directory), never on text typed into
 * the page. Symlinks are followed: the target must be a regular file.
 */
export async function checkSessionFile(path: unknown): Promise<SessionFileCheck> {
  if (typeof path !== "string" || path.length === 0) {
    return { ok: false, reason: desktopErrors.noFileGiven };
  }
  if (path.length > 4096 || path.includes("\0")) {
    return { ok: false, reason: desktopErrors.unusablePath };
  }
  if (!isAbsolute(path)) {
    return { ok: false, reason: desktopErrors.notAbsolute(path) };
  }
  if (!hasSessionFileExtension(path)) {
    return { ok: false, reason: desktopErrors.notASession(path) };
  }
  try {
    const stats = await stat(path);
    if (!stats.isFile()) {
      return { ok: false, reason: desktopErrors.notARegularFile(path) };
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return {
      ok: false,
      reason:
        code === "ENOENT"
          ? desktopErrors.doesNotExist(path)
          : desktopErrors.cannotRead(path, code ?? String(error)),
    };
  }
  return { ok: true, path: resolve(path) };
}
