/**
 * Where Pi keeps sessions, found the way Pi 1.6 finds them (dist/main.js,
 * dist/config.js, dist/core/settings-manager.js):
 *
 *   1. `$PI_CODING_AGENT_SESSION_DIR`, if set and non-empty;
 *   2. else `sessionDir` in `<agentDir>/settings.json`, if set and non-empty;
 *   3. else `<agentDir>/sessions`;
 *
 * with `agentDir` = `$PI_CODING_AGENT_DIR` if set and non-empty, else
 * `~/.pi/agent`. Pi expands `~` and `~/...` against the home directory and
 * turns a `file://` URL into a path in all of these (`normalizePath`); a
 * settings file that is not JSON counts as empty, as in Pi. Arbor resolves
 * what remains relative against its own working directory.
 *
 * Pi's `--session-dir` flag and a project's `.pi/settings.json` can point a
 * single Pi run elsewhere; Arbor cannot see those, which is what the
 * user's own folders are for.
 */

import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ENV_AGENT_DIR = "PI_CODING_AGENT_DIR";
export const ENV_SESSION_DIR = "PI_CODING_AGENT_SESSION_DIR";

export type RootSource = "env" | "settings" | "default" | "given" | "folder";

export interface SessionRoot {
  /** Absolute path of the folder. */
  path: string;
  /**
   * How it was found: Pi's environment variable, Pi's settings file, Pi's
   * default, given to the library in place of Pi's, or a folder the user added.
   */
  source: RootSource;
  /** What the user should know, e.g. a settings file that could not be read. */
  note: string | undefined;
}

export interface RootEnvironment {
  env?: Readonly<Record<string, string | undefined>>;
  homeDir?: string;
  /** Base for relative paths (default: the process's working directory). */
  cwd?: string;
}

/** Pi's `normalizePath` with its defaults: `~`, `~/...` and `file://` URLs. */
export function expandPiPath(input: string, homeDir: string): string {
  if (input === "~") return homeDir;
  if (input.startsWith("~/") || (process.platform === "win32" && input.startsWith("~\\"))) {
    return join(homeDir, input.slice(2));
  }
  if (/^file:\/\//.test(input)) return fileURLToPath(input);
  return input;
}

/** Pi's agent directory. */
export function piAgentDir(environment: RootEnvironment = {}): string {
  const env = environment.env ?? process.env;
  const homeDir = environment.homeDir ?? homedir();
  const fromEnv = env[ENV_AGENT_DIR];
  const dir = fromEnv ? expandPiPath(fromEnv, homeDir) : join(homeDir, ".pi", "agent");
  return resolve(environment.cwd ?? process.cwd(), dir);
}

/** The one folder Pi itself reads and writes sessions in. */
export function piSessionRoot(environment: RootEnvironment = {}): SessionRoot {
  const env = environment.env ?? process.env;
  const homeDir = environment.homeDir ?? homedir();
  const cwd = environment.cwd ?? process.cwd();
  const fromEnv = env[ENV_SESSION_DIR];
  if (fromEnv) {
    const path = expandPiPath(fromEnv, homeDir);
    return { path: resolve(cwd, path), source: "env", note: relativeNote(path, `$${ENV_SESSION_DIR}`, cwd) };
  }
  const agentDir = piAgentDir(environment);
  const settingsPath = join(agentDir, "settings.json");
  const setting = readSessionDirSetting(settingsPath);
  if (setting.value) {
    const path = expandPiPath(setting.value, homeDir);
    const note = relativeNote(path, `sessionDir in ${settingsPath}`, cwd);
    return { path: resolve(cwd, path), source: "settings", note };
  }
  return { path: join(agentDir, "sessions"), source: "default", note: setting.note };
}

/** Pi's session root, then the user's folders (duplicates dropped, Pi's first). */
export function resolveSessionRoots(
  extraFolders: readonly string[],
  environment: RootEnvironment = {},
): SessionRoot[] {
  const homeDir = environment.homeDir ?? homedir();
  const cwd = environment.cwd ?? process.cwd();
  const roots = [piSessionRoot(environment)];
  for (const folder of extraFolders) {
    const path = resolve(cwd, expandPiPath(folder, homeDir));
    if (!roots.some((root) => root.path === path)) roots.push({ path, source: "folder", note: undefined });
  }
  return roots;
}

function relativeNote(path: string, what: string, cwd: string): string | undefined {
  if (isAbsolute(path)) return undefined;
  return `${what} is the relative path "${path}": Pi reads it from the folder it runs in, Arbor from ${cwd}.`;
}

function readSessionDirSetting(path: string): { value: string | undefined; note: string | undefined } {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return { value: undefined, note: undefined };
  }
  if (!text) return { value: undefined, note: undefined };
  try {
    // Pi strips a byte order mark first.
    const settings = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) as unknown;
    const value =
      typeof settings === "object" && settings !== null
        ? (settings as { sessionDir?: unknown }).sessionDir
        : undefined;
    if (value === undefined || value === null || value === "" || value === false) {
      return { value: undefined, note: undefined };
    }
    if (typeof value !== "string") {
      return { value: undefined, note: `sessionDir in ${path} is not a string; it is ignored.` };
    }
    return { value, note: undefined };
  } catch {
    return { value: undefined, note: `${path} is not valid JSON; Pi ignores it, and so does Arbor.` };
  }
}
