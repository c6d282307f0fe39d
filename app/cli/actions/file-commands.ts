/**
 * `arbor fork|clone|new|import`: new session files, written whole under a
 * temporary name and published without ever replacing a file
 * (app/store/new-file.ts): Pi's `createBranchedSession` of the source, in
 * its folder, Pi's header for a new session in Pi's folder for the cwd, or
 * a checked copy of a session file (the original only read).
 */

import { mkdirSync, readFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { cliErrors } from "../../../shared/error-texts.ts";
import { textOf } from "../../../shared/session/facts.ts";
import { piSessionFolderName } from "../../library/pi-folders.ts";
import { piSessionRoot } from "../../library/roots.ts";
import { importSessionBytes } from "../../session-manage/import-session.ts";
import { cloneSession, createSessionFile, forkSession, type NewSessionFile } from "../../store/new-file.ts";
import { openIndexedFile } from "../../store/open-indexed-file.ts";
import { type CliIo, parse, UsageError } from "../cli-kit.ts";

function report(
  created: NewSessionFile,
  json: boolean | undefined,
  io: CliIo,
  extra: Record<string, unknown> = {},
) {
  const result = {
    file: created.path,
    sessionId: created.header.id,
    leafId: created.leafId,
    entries: created.entries.length,
    ...extra,
  };
  if (json) io.stdout(`${JSON.stringify(result)}\n`);
  else io.stdout(`${created.path}\n`);
  return 0;
}

/** Opens the source structure-first (bodies read when written out) for as long as `use` runs. */
function withSource<T>(file: string, use: (opened: ReturnType<typeof openIndexedFile>) => T): T {
  const opened = openIndexedFile(file);
  try {
    return use(opened);
  } finally {
    opened.close();
  }
}

export function forkCommand(args: readonly string[], io: CliIo): number {
  const { values, positionals } = parse(args, { json: { type: "boolean" }, before: { type: "boolean" } });
  if (positionals.length !== 2) throw new UsageError(cliErrors.expectedArguments("FILE ENTRY"));
  const [file, entryId] = positionals as [string, string];
  return withSource(file, ({ index, reader }) => {
    const position = values.before ? "before" : "at";
    const created = forkSession(index, reader, file, entryId, { position });
    const node = index.nodes.get(entryId)!;
    const entry = reader.entryOfNode(node);
    // Pi's /fork puts the message's text back in the editor: here it is printed with the result.
    const selectedText =
      position === "before" && entry.type === "message"
        ? textOf((entry.message as { content?: unknown }).content)
        : null;
    return report(created, values.json, io, position === "before" ? { selectedText } : {});
  });
}

export function cloneCommand(args: readonly string[], io: CliIo): number {
  const { values, positionals } = parse(args, { json: { type: "boolean" }, leaf: { type: "string" } });
  if (positionals.length !== 1) throw new UsageError(cliErrors.expectedOneFile(positionals.length));
  const file = positionals[0]!;
  return withSource(file, ({ index, reader }) => {
    const options = values.leaf === undefined ? {} : { leafId: values.leaf };
    return report(cloneSession(index, reader, file, options), values.json, io);
  });
}

export function newCommand(args: readonly string[], io: CliIo): number {
  const { values, positionals } = parse(args, {
    json: { type: "boolean" },
    cwd: { type: "string" },
    dir: { type: "string" },
  });
  if (positionals.length > 0 || values.cwd === undefined)
    throw new UsageError(cliErrors.expectedArguments("--cwd DIR"));
  const cwd = resolve(values.cwd);
  // Pi's own folder for the project unless told otherwise; Pi's SessionManager makes it too.
  const dir =
    values.dir === undefined ? join(piSessionRoot().path, piSessionFolderName(cwd)) : resolve(values.dir);
  mkdirSync(dir, { recursive: true });
  return report(createSessionFile({ dir, cwd }), values.json, io);
}

/**
 * `import FILE [--dir SESSION_DIR]`: checked (a file with errors is refused), then copied whole into
 * SESSION_DIR, by default Pi's folder for the cwd its header names, under Pi's name for its id.
 */
export function importCommand(args: readonly string[], io: CliIo): number {
  const { values, positionals } = parse(args, { json: { type: "boolean" }, dir: { type: "string" } });
  if (positionals.length !== 1) throw new UsageError(cliErrors.expectedOneFile(positionals.length));
  const source = resolve(positionals[0]!);
  const bytes = readFileSync(source);
  const header = headerOf(bytes);
  let dir: string;
  if (values.dir !== undefined) dir = resolve(values.dir);
  else if (typeof header?.cwd === "string" && header.cwd !== "")
    dir = join(piSessionRoot().path, piSessionFolderName(header.cwd));
  else throw new UsageError(cliErrors.expectedArguments("--dir SESSION_DIR (the file names no cwd)"));
  mkdirSync(dir, { recursive: true });
  const { path, report } = importSessionBytes(bytes, dir, { sourceName: basename(source) });
  const result = { file: path, sessionId: header?.id ?? null, source, counts: report.counts };
  if (values.json) io.stdout(`${JSON.stringify(result)}\n`);
  else {
    const { warnings, notes } = report.counts;
    const found = warnings + notes > 0 ? ` (the check found ${warnings} warnings, ${notes} notes)` : "";
    io.stdout(`${path}${found}\n`);
  }
  return 0;
}

/** The first line, when it is a session header (a file without one is the import's to refuse). */
function headerOf(bytes: Uint8Array): { id?: unknown; cwd?: unknown } | null {
  const end = bytes.indexOf(0x0a);
  try {
    const first = JSON.parse(Buffer.from(bytes.subarray(0, end < 0 ? bytes.length : end)).toString("utf8"));
    return first?.type === "session" ? (first as { id?: unknown; cwd?: unknown }) : null;
  } catch {
    return null;
  }
}
