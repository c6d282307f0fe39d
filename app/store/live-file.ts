/**
 * Whether a session file is live: a Pi is probably writing it. Then Arbor's
 * entries would not be seen by that Pi until it reopens the file, and its next
 * entries would be siblings of Arbor's, so every write waits for the user to
 * confirm. Two signs, both best effort: the file changed within the last few
 * seconds (`LIVE_WINDOW_MS`), or another process holds it open for
 * writing (Linux: a link in `/proc/<pid>/fd` whose `fdinfo` flags can write;
 * readers such as another Arbor window do not count; elsewhere, or without
 * `/proc`, nothing is known).
 */

import { readdirSync, readFileSync, readlinkSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import { manageErrors } from "../../shared/error-texts.ts";
import { AppendError, LIVE_WINDOW_MS } from "./append.ts";

/** Why writing into a live file waits: the window asks to confirm, the CLI for `--force`. */
export const LIVE_FILE_REASON = manageErrors.liveWriter;

export const LIVE_FILE_MESSAGE = manageErrors.confirmWrite(LIVE_FILE_REASON);

/** Whether a process other than this one has `path` open for writing (Linux `/proc`; false where it cannot be known). */
export function heldOpenElsewhere(path: string, procRoot = "/proc"): boolean {
  let target: string;
  let pids: string[];
  try {
    target = realpathSync(path);
    pids = readdirSync(procRoot).filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid);
  } catch {
    return false;
  }
  for (const pid of pids) {
    const fdDir = join(procRoot, pid, "fd");
    let fds: string[];
    try {
      fds = readdirSync(fdDir);
    } catch {
      continue; // Another user's process, or gone already.
    }
    for (const fd of fds) {
      try {
        if (readlinkSync(join(fdDir, fd)) === target && opensForWriting(join(procRoot, pid, "fdinfo", fd))) {
          return true;
        }
      } catch {
        // Closed meanwhile.
      }
    }
  }
  return false;
}

/** Whether a descriptor's `fdinfo` says it can write (O_WRONLY or O_RDWR); when it cannot be read, assume so. */
function opensForWriting(fdinfo: string): boolean {
  let text: string;
  try {
    text = readFileSync(fdinfo, "utf8");
  } catch {
    return true;
  }
  const flags = /^flags:\s*([0-7]+)/m.exec(text)?.[1];
  return flags === undefined || (Number.parseInt(flags, 8) & 3) !== 0;
}

export interface LiveCheckOptions {
  /** When someone other than this writer last changed the file (default: its mtime now). */
  foreignChangeMs?: number | undefined;
  now?: number | undefined;
  /** Where to look for open files (tests). */
  procRoot?: string | undefined;
}

/** Whether `path` looks live now (see the top of the file). */
export function isLiveFile(path: string, options: LiveCheckOptions = {}): boolean {
  const now = options.now ?? Date.now();
  let changed = options.foreignChangeMs;
  if (changed === undefined) {
    try {
      changed = statSync(path).mtimeMs;
    } catch {
      return false;
    }
  }
  return now - changed < LIVE_WINDOW_MS || heldOpenElsewhere(path, options.procRoot);
}

/** The refusal of a write into a live file the user has not confirmed: nothing was written. */
export function liveFileRefusal(path: string, message = LIVE_FILE_MESSAGE): AppendError {
  return new AppendError("conflict", "live", path, message);
}

/** Throws `liveFileRefusal` unless the file is not live or the user confirmed. */
export function requireConfirmedIfLive(
  path: string,
  confirmLive: boolean | undefined,
  options: LiveCheckOptions = {},
  message?: string,
): void {
  if (!confirmLive && isLiveFile(path, options)) throw liveFileRefusal(path, message);
}
