/** Open in Pi: the command built for each platform and preference, launched only by fake launchers here. */

import { describe, expect, it } from "vitest";
import { type Launcher, openInPi, shellQuote, spawnLauncher, terminalCommandLine } from "./open-in-pi.ts";

const FILE = "/home/me/.pi/agent/sessions/--p--/2026-01-01T00-00-00-000Z_x.jsonl";

describe("the command", () => {
  it("runs Pi in the platform's terminal, or in the one the preferences name", () => {
    const pi = ["pi", "--session", FILE];
    expect(terminalCommandLine(FILE, { platform: "linux", env: {} })).toEqual([
      "x-terminal-emulator",
      "-e",
      ...pi,
    ]);
    expect(terminalCommandLine(FILE, { platform: "linux", env: { TERMINAL: "foot" } })).toEqual([
      "foot",
      "-e",
      ...pi,
    ]);
    expect(terminalCommandLine(FILE, { platform: "win32" })).toEqual(["cmd", "/c", "start", "", ...pi]);
    expect(terminalCommandLine(FILE, { platform: "linux", terminalCommand: ["kitty", "--"] })).toEqual([
      "kitty",
      "--",
      ...pi,
    ]);
    const mac = terminalCommandLine('/Users/me/a "b".jsonl', { platform: "darwin" });
    expect(mac.slice(0, 2)).toEqual(["osascript", "-e"]);
    expect(mac[2]).toBe(
      `tell application "Terminal" to do script "pi --session '/Users/me/a \\"b\\".jsonl'"`,
    );
  });

  it("quotes for a shell only what needs it", () => {
    expect(shellQuote(["pi", "--session", "/a/b_c-1.jsonl"])).toBe("pi --session /a/b_c-1.jsonl");
    expect(shellQuote(["pi", "--session", "/a b/it's.jsonl"])).toBe(`pi --session '/a b/it'\\''s.jsonl'`);
  });
});

describe("launching", () => {
  it("hands the command line to the launcher; when it cannot start, the answer carries the command to copy", async () => {
    const started: (readonly string[])[] = [];
    const launcher: Launcher = async (argv) => {
      started.push(argv);
    };
    expect(await openInPi(FILE, { platform: "linux", env: {}, launcher })).toEqual({
      launched: true,
      command: `pi --session ${FILE}`,
      message: null,
    });
    expect(started).toEqual([["x-terminal-emulator", "-e", "pi", "--session", FILE]]);

    const failing: Launcher = async () => {
      throw new Error("spawn x-terminal-emulator ENOENT");
    };
    const outcome = await openInPi(FILE, { platform: "linux", env: {}, launcher: failing });
    expect(outcome.launched).toBe(false);
    expect(outcome.message).toContain("ENOENT");
    expect(outcome.message).toContain(`pi --session ${FILE}`);
  });

  it("the real launcher rejects a program that does not exist", async () => {
    await expect(spawnLauncher(["arbor-no-such-terminal-program", "-e", "pi"])).rejects.toThrow(/ENOENT/);
  });
});
