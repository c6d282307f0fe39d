/**
 * Importing a `.jsonl` into a session folder: the bytes are checked first
 * (the problems `arbor check` reports; a file with errors, or that is not a
 * Pi session, is refused), then copied whole, unchanged, into a new file
 * named as Pi names sessions (the header's id), written under a temporary
 * name and published without ever replacing a file. The original is only
 * read. The folder is the main process's choice (a project's folder), never
 * a path a window sent.
 */

import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { manageErrors } from "../../shared/error-texts.ts";
import { ArborError } from "../../shared/ipc/contract.ts";
import { readSession } from "../../shared/session/index.ts";
import { type CheckReport, checkReport } from "../store/check-report.ts";
import { sessionFileName, uuidv7, writeNewFile } from "../store/new-file.ts";

export interface ImportedSession {
  /** The new file (absolute). */
  path: string;
  /** What the check found (warnings and notes: a file with errors is not imported). */
  report: CheckReport;
}

export interface ImportOptions {
  /** What the file was called where it came from, for the report and the messages. */
  sourceName: string;
  now?: Date | undefined;
}

/** Checks `bytes` as a session and copies them into `targetDir` under a fresh Pi-style name. */
export function importSessionBytes(
  bytes: Uint8Array,
  targetDir: string,
  options: ImportOptions,
): ImportedSession {
  const index = readSession(bytes);
  const report = checkReport(options.sourceName, index);
  const headerId = index.header?.id;
  if (index.header === null || typeof headerId !== "string") {
    throw new ArborError("refused", manageErrors.importNotASession(options.sourceName));
  }
  if (report.counts.errors > 0) {
    const first = report.problems.find((problem) => problem.severity === "error");
    throw new ArborError(
      "refused",
      manageErrors.importHasErrors(options.sourceName, report.counts.errors, first?.line, first?.message),
    );
  }
  const id = /^[A-Za-z0-9-]{1,64}$/.test(headerId) ? headerId : uuidv7();
  const already = sessionWithId(targetDir, id);
  if (already) {
    throw new ArborError("conflict", manageErrors.alreadyImported(already));
  }
  const now = options.now ?? new Date();
  const path = join(targetDir, sessionFileName(now.toISOString(), id));
  writeNewFile(path, bytes);
  return { path, report };
}

/** Reads the file at `sourcePath` (never changing it), then as `importSessionBytes`. */
export function importSessionFile(
  sourcePath: string,
  targetDir: string,
  options: Partial<ImportOptions> = {},
): ImportedSession {
  const bytes = readFileSync(sourcePath);
  return importSessionBytes(bytes, targetDir, { sourceName: basename(sourcePath), ...options });
}

/** A session file of `dir` named with header id `id`, as Pi names them. */
function sessionWithId(dir: string, id: string): string | undefined {
  try {
    return readdirSync(dir).find((name) => name.endsWith(`_${id}.jsonl`));
  } catch {
    return undefined;
  }
}
