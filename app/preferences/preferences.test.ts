import { describe, expect, it } from "vitest";
import {
  DEFAULT_PREFERENCES,
  MAX_RECENT,
  parsePreferences,
  serializePreferences,
  withoutRecentFile,
  withRecentFile,
} from "./preferences.ts";

describe("shell preferences", () => {
  it("round-trips", () => {
    const preferences = { recentFiles: ["/a.jsonl"], theme: "dark" as const };
    expect(parsePreferences(serializePreferences(preferences))).toEqual(preferences);
  });

  it("keeps a terminal command of non-empty words, and drops any other", () => {
    const preferences = { recentFiles: [], theme: "system" as const, terminalCommand: ["kitty", "--"] };
    expect(parsePreferences(serializePreferences(preferences))).toEqual(preferences);
    for (const terminalCommand of [[], ["kitty", ""], "kitty -e", [3]]) {
      expect(parsePreferences(JSON.stringify({ terminalCommand }))).toEqual(DEFAULT_PREFERENCES);
    }
  });

  it("falls back to the defaults for a missing or damaged file", () => {
    for (const text of [null, "", "{", "42", '{"recentFiles":"x","theme":"purple"}']) {
      expect(parsePreferences(text)).toEqual(DEFAULT_PREFERENCES);
    }
  });

  it("drops junk, duplicates and the overflow from a recent list", () => {
    const many = Array.from({ length: 20 }, (_, i) => `/s${i}.jsonl`);
    const parsed = parsePreferences(
      JSON.stringify({ recentFiles: ["/a.jsonl", 3, "", "/a.jsonl", ...many] }),
    );
    expect(parsed.recentFiles[0]).toBe("/a.jsonl");
    expect(parsed.recentFiles).toHaveLength(MAX_RECENT);
    expect(new Set(parsed.recentFiles).size).toBe(MAX_RECENT);
  });

  it("moves a reopened file to the front and forgets one that went away", () => {
    let preferences = withRecentFile(DEFAULT_PREFERENCES, "/a.jsonl");
    preferences = withRecentFile(preferences, "/b.jsonl");
    preferences = withRecentFile(preferences, "/a.jsonl");
    expect(preferences.recentFiles).toEqual(["/a.jsonl", "/b.jsonl"]);
    expect(withoutRecentFile(preferences, "/a.jsonl").recentFiles).toEqual(["/b.jsonl"]);
    const full = Array.from({ length: MAX_RECENT + 3 }, (_, i) => `/s${i}.jsonl`).reduce(
      withRecentFile,
      preferences,
    );
    expect(full.recentFiles).toHaveLength(MAX_RECENT);
  });
});
