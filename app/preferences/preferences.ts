/**
 * Arbor's own small preferences, kept as JSON in its data folder (Electron's
 * userData; the same folder `arbor serve` uses): the theme choice, the
 * recent session files of the desktop app's Open Recent menu, and the
 * terminal "Open in Pi" runs Pi in. Pure parsing and updating;
 * preferences-file.ts reads and writes the file.
 */

export type ThemeSource = "system" | "light" | "dark";

export interface AppPreferences {
  /** Most recent first, no duplicates, at most `MAX_RECENT`. */
  recentFiles: string[];
  /** "system" follows the OS. */
  theme: ThemeSource;
  /**
   * The words that run a command in a terminal, Pi's command following them
   * (say `["kitty", "--"]`); absent: the platform's default (see
   * app/session-manage/open-in-pi.ts).
   */
  terminalCommand?: string[];
}

export const MAX_RECENT = 10;

export const DEFAULT_PREFERENCES: AppPreferences = { recentFiles: [], theme: "system" };

const THEMES: readonly ThemeSource[] = ["system", "light", "dark"];

export function parsePreferences(text: string | null): AppPreferences {
  if (text === null) return DEFAULT_PREFERENCES;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return DEFAULT_PREFERENCES;
  }
  if (typeof value !== "object" || value === null) return DEFAULT_PREFERENCES;
  const record = value as Record<string, unknown>;
  const recent = Array.isArray(record.recentFiles)
    ? record.recentFiles.filter((item): item is string => typeof item === "string" && item.length > 0)
    : [];
  const theme = THEMES.find((name) => name === record.theme) ?? "system";
  const parsed: AppPreferences = { recentFiles: [...new Set(recent)].slice(0, MAX_RECENT), theme };
  const terminal = record.terminalCommand;
  if (
    Array.isArray(terminal) &&
    terminal.length > 0 &&
    terminal.every((word) => typeof word === "string" && word.length > 0)
  ) {
    parsed.terminalCommand = terminal as string[];
  }
  return parsed;
}

export function serializePreferences(preferences: AppPreferences): string {
  return `${JSON.stringify(preferences, null, 2)}\n`;
}

/** `path` moved to the front of the recent list. */
export function withRecentFile(preferences: AppPreferences, path: string): AppPreferences {
  const recentFiles = [path, ...preferences.recentFiles.filter((item) => item !== path)].slice(0, MAX_RECENT);
  return { ...preferences, recentFiles };
}

export function withoutRecentFile(preferences: AppPreferences, path: string): AppPreferences {
  return { ...preferences, recentFiles: preferences.recentFiles.filter((item) => item !== path) };
}
