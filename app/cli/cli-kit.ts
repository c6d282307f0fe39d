/** What every `arbor` command shares: its output, its argument parsing, and the errors that end it. */

import { type ParseArgsConfig, parseArgs } from "node:util";

/** Wrong arguments: exit 2 with the usage text. */
export class UsageError extends Error {}

/** A request that cannot be met (an unknown id): exit 2 with one line. */
export class CliError extends Error {}

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/** A command: its arguments after the command's name; its exit code (a promise for the few that wait). */
export type CliCommand = (args: readonly string[], io: CliIo) => number | Promise<number>;

/** Node's `parseArgs`, strict, positionals allowed; a mistake is a `UsageError`. */
export function parse<O extends NonNullable<ParseArgsConfig["options"]>>(
  args: readonly string[],
  options: O,
) {
  try {
    return parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}
