/**
 * Arbor's data folder: its preferences, library cache, saved parses and
 * views, recent sessions and the demo library. The desktop app and `arbor
 * serve` use the same one (`$ARBOR_DATA_DIR`, else the platform's place for
 * app data), so a theme or a saved parse made in one serves the other.
 */

import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** `$ARBOR_DATA_DIR`, else `~/.config/arbor` (XDG), `~/Library/Application Support/arbor` or `%APPDATA%\arbor`. */
export function defaultDataDir(env: Readonly<Record<string, string | undefined>>): string {
  if (env.ARBOR_DATA_DIR) return resolve(env.ARBOR_DATA_DIR);
  const home = env.HOME || homedir();
  if (process.platform === "darwin") return join(home, "Library", "Application Support", "arbor");
  if (process.platform === "win32") return join(env.APPDATA || join(home, "AppData", "Roaming"), "arbor");
  return join(env.XDG_CONFIG_HOME || join(home, ".config"), "arbor");
}
