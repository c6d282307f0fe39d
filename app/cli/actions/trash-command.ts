/**
 * `arbor trash FILE`: moves a session file to the system's trash (the npm
 * `trash` library: the freedesktop trash on Linux), where the desktop's own
 * file manager can restore it. A file a Pi is probably writing is refused
 * unless `--force`.
 */

import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { cliErrors, manageErrors } from "../../../shared/error-texts.ts";
import { TRASH_LIVE_REASON, TrashBin } from "../../session-manage/trash-bin.ts";
import { requireConfirmedIfLive } from "../../store/live-file.ts";
import { CliError, type CliIo, parse, UsageError } from "../cli-kit.ts";

const TRASH_CLI_MESSAGE = manageErrors.forceTrash(TRASH_LIVE_REASON);

export async function trashCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args, { json: { type: "boolean" }, force: { type: "boolean" } });
  if (positionals.length !== 1) throw new UsageError(cliErrors.expectedOneFile(positionals.length));
  const path = resolve(positionals[0]!);
  if (!existsSync(path)) throw new CliError(cliErrors.noSuchFile(path));
  requireConfirmedIfLive(path, values.force, {}, TRASH_CLI_MESSAGE);
  const record = await new TrashBin().trash(path);
  const trashedTo = record.location?.path ?? null;
  if (values.json) io.stdout(`${JSON.stringify({ file: path, trashedTo })}\n`);
  else io.stdout(`${path}: moved to the trash${trashedTo ? ` (${trashedTo})` : ""}\n`);
  return 0;
}
