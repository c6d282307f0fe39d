/**
 * `arbor rename|label|continue|archive|unarchive|note|edit-context|undo`: one
 * entry appended to a session file (app/store/write-entry.ts), after every
 * check. A file a Pi is probably writing is refused unless `--force`.
 */

import { cliErrors, manageErrors } from "../../../shared/error-texts.ts";
import { LIVE_FILE_REASON, requireConfirmedIfLive } from "../../store/live-file.ts";
import { SessionStore } from "../../store/session-store.ts";
import type { SessionWrite } from "../../store/write-entry.ts";
import { writeSessionEntry } from "../../store/write-entry.ts";
import { type CliIo, parse, UsageError } from "../cli-kit.ts";

const LIVE_CLI_MESSAGE = manageErrors.forceWrite(LIVE_FILE_REASON);

const COMMON = { json: { type: "boolean" }, force: { type: "boolean" } } as const;

function positionals(list: string[], names: string[]): string[] {
  if (list.length !== names.length) {
    throw new UsageError(cliErrors.expectedNamedArguments(names.join(" "), list.length));
  }
  return list;
}

/** Appends `write` to `file`; prints what was written (one JSON object with `--json`). */
function runWrite(
  file: string,
  write: SessionWrite,
  flags: { json?: boolean | undefined; force?: boolean | undefined },
  io: CliIo,
): number {
  const store = SessionStore.open(file);
  try {
    const path = store.path;
    const beforeWrite = () => requireConfirmedIfLive(path, flags.force, {}, LIVE_CLI_MESSAGE);
    const outcome = store.append(writeSessionEntry, { write, reader: store.reader, beforeWrite });
    const { entryId, wasLive, previousLeafId, movedResumePoint, undid } = outcome;
    if (flags.json) {
      io.stdout(
        `${JSON.stringify({ file: path, entryId, type: outcome.entry.type, wasLive, previousLeafId, movedResumePoint, undid })}\n`,
      );
    } else {
      const resume = movedResumePoint ? "; Pi resumes from it next time it opens the file" : "";
      io.stdout(`${path}: appended ${outcome.entry.type} ${entryId}${resume}\n`);
    }
    return 0;
  } finally {
    store.dispose();
  }
}

export function renameCommand(args: readonly string[], io: CliIo): number {
  const { values, positionals: given } = parse(args, COMMON);
  const [file, name] = positionals(given, ["FILE", "NAME"]);
  return runWrite(file!, { kind: "name", name: name! }, values, io);
}

export function labelCommand(args: readonly string[], io: CliIo): number {
  const { values, positionals: given } = parse(args, { ...COMMON, clear: { type: "boolean" } });
  const [file, targetId, label] = values.clear
    ? [...positionals(given, ["FILE", "ENTRY"]), null]
    : positionals(given, ["FILE", "ENTRY", "TEXT"]);
  return runWrite(file!, { kind: "label", targetId: targetId!, label: label ?? null }, values, io);
}

export function continueCommand(args: readonly string[], io: CliIo): number {
  const { values, positionals: given } = parse(args, { ...COMMON, summary: { type: "string" } });
  const [file, entryId] = positionals(given, ["FILE", "ENTRY"]);
  return runWrite(file!, { kind: "continue", entryId: entryId!, summary: values.summary }, values, io);
}

export function archiveCommand(args: readonly string[], io: CliIo): number {
  return archiveWrite(args, io, true);
}

export function unarchiveCommand(args: readonly string[], io: CliIo): number {
  return archiveWrite(args, io, false);
}

function archiveWrite(args: readonly string[], io: CliIo, archived: boolean): number {
  const { values, positionals: given } = parse(args, COMMON);
  const [file, targetId] = positionals(given, ["FILE", "ENTRY"]);
  return runWrite(file!, { kind: "archive", targetId: targetId!, archived }, values, io);
}

export function noteCommand(args: readonly string[], io: CliIo): number {
  const { values, positionals: given } = parse(args, { ...COMMON, at: { type: "string" } });
  const [file, text] = positionals(given, ["FILE", "TEXT"]);
  return runWrite(file!, { kind: "note", text: text!, at: values.at }, values, io);
}

export function editContextCommand(args: readonly string[], io: CliIo): number {
  const { values, positionals: given } = parse(args, {
    ...COMMON,
    text: { type: "string" },
    drop: { type: "boolean" },
    at: { type: "string" },
  });
  const [file, targetId] = positionals(given, ["FILE", "ENTRY"]);
  if ((values.text === undefined) === (values.drop !== true)) {
    throw new UsageError(cliErrors.textOrDrop);
  }
  const replacement = values.drop ? null : { content: values.text! };
  return runWrite(
    file!,
    { kind: "context-edit", targetId: targetId!, replacement, at: values.at },
    values,
    io,
  );
}

/** `undo FILE [ENTRY]`: the inverse of ENTRY (a name, label, archive or continue), by default of the last one. */
export function undoCommand(args: readonly string[], io: CliIo): number {
  const { values, positionals: given } = parse(args, COMMON);
  const [file, entryId] =
    given.length === 1 ? [given[0], undefined] : positionals(given, ["FILE", "[ENTRY]"]);
  return runWrite(file!, { kind: "undo", entryId }, values, io);
}
