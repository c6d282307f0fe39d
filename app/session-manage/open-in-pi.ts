/**
 * "Open in Pi": runs `pi --session <file>` in the user's terminal. The
 * terminal is the preference (`terminalCommand`, the words Pi's command
 * follows), else the platform's: `$TERMINAL -e` or `x-terminal-emulator -e`
 * on Linux, Terminal.app on macOS (through `osascript`: `open -a Terminal`
 * cannot be handed a command to run), `cmd /c start` on Windows. When no
 * terminal can be started, the answer carries the command for the user to
 * copy. Launching is a function passed in, so tests never start a terminal.
 */

import { spawn } from "node:child_process";
import { manageErrors } from "../../shared/error-texts.ts";

/** Starts a program (the first word) with the rest as its arguments; rejects when it cannot be started. */
export type Launcher = (argv: readonly string[]) => Promise<void>;

export interface OpenInPiOptions {
  /** The preference: the words that run a command in a terminal. */
  terminalCommand?: readonly string[] | undefined;
  platform?: NodeJS.Platform | undefined;
  env?: Readonly<Record<string, string | undefined>> | undefined;
  launcher?: Launcher | undefined;
}

export interface OpenInPiOutcome {
  launched: boolean;
  /** Pi's command, quoted for a shell: what to run by hand. */
  command: string;
  /** Why the terminal did not start, with what to do instead; null when it started. */
  message: string | null;
}

/** Pi's own command for the session. */
export function piCommand(file: string): string[] {
  return ["pi", "--session", file];
}

/** Words quoted for a POSIX shell where they need it. */
export function shellQuote(words: readonly string[]): string {
  return words
    .map((word) => (/^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`))
    .join(" ");
}

/** The whole command line that opens a terminal running Pi on `file`. */
export function terminalCommandLine(file: string, options: OpenInPiOptions = {}): string[] {
  const pi = piCommand(file);
  if (options.terminalCommand && options.terminalCommand.length > 0)
    return [...options.terminalCommand, ...pi];
  const platform = options.platform ?? process.platform;
  if (platform === "darwin") {
    const script = `tell application "Terminal" to do script "${shellQuote(pi).replace(/[\\"]/g, (c) => `\\${c}`)}"`;
    return ["osascript", "-e", script, "-e", 'tell application "Terminal" to activate'];
  }
  if (platform === "win32") return ["cmd", "/c", "start", "", ...pi];
  const terminal = (options.env ?? process.env).TERMINAL;
  return [terminal ? terminal : "x-terminal-emulator", "-e", ...pi];
}

/** Starts the program detached from Arbor (it outlives it), resolving once it has started. */
export const spawnLauncher: Launcher = (argv) =>
  new Promise((resolve, reject) => {
    const [program, ...args] = argv;
    if (!program) {
      reject(new Error("no program to start"));
      return;
    }
    const child = spawn(program, args, { detached: true, stdio: "ignore" });
    child.once("error", reject);
    child.once("spawn", () => {
      child.unref();
      resolve();
    });
  });

export async function openInPi(file: string, options: OpenInPiOptions = {}): Promise<OpenInPiOutcome> {
  const command = shellQuote(piCommand(file));
  const argv = terminalCommandLine(file, options);
  try {
    await (options.launcher ?? spawnLauncher)(argv);
    return { launched: true, command, message: null };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      launched: false,
      command,
      message: manageErrors.noTerminal(argv[0]!, reason, command),
    };
  }
}
