/**
 * `arbor fork|clone|new`: new session files, written whole under a
 * temporary name and published without ever replacing a file
 * (app/store/new-file.ts): Pi's `createBranchedSession` of the source, in
 * its folder, or Pi's header for a new session in Pi's folder for the cwd.
 */

import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { cliErrors } from "../../../shared/error-texts.ts";
import { textOf } from "../../../shared/session/facts.ts";
import { piSessionFolderName } from "../../library/pi-folders.ts";
import { piSessionRoot } from "../../library/roots.ts";
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
