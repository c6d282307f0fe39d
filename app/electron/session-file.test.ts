import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkSessionFile, sessionFileFromArgv } from "./session-file.ts";

const packaged = { defaultApp: false, workingDirectory: "/home/user/project" };
const development = { defaultApp: true, workingDirectory: "/home/user/project" };

describe("sessionFileFromArgv", () => {
  it("finds the session file after the executable of a packaged app", () => {
    expect(sessionFileFromArgv(["/opt/Arbor/arbor", "/tmp/a.jsonl"], packaged)).toBe("/tmp/a.jsonl");
  });

  it("skips the app path when run as `electron <app>`", () => {
    expect(sessionFileFromArgv(["/usr/bin/electron", "out/main/index.js", "s.jsonl"], development)).toBe(
      "/home/user/project/s.jsonl",
    );
    // The app path itself is never mistaken for a session, even with a session-like name.
    expect(sessionFileFromArgv(["/usr/bin/electron", "weird.jsonl"], development)).toBeNull();
  });

  it("finds the app path behind the switches Playwright puts first", () => {
    expect(
      sessionFileFromArgv(
        [
          "/usr/bin/electron",
          "--inspect=0",
          "--remote-debugging-port=0",
          "/app/out/main/index.js",
          "/tmp/s.jsonl",
        ],
        development,
      ),
    ).toBe("/tmp/s.jsonl");
  });

  it("resolves a relative path against the launching shell's directory", () => {
    expect(sessionFileFromArgv(["arbor", "../other/s.jsonl"], packaged)).toBe("/home/user/other/s.jsonl");
  });

  it("skips switches, including those Chromium adds to a second instance", () => {
    expect(
      sessionFileFromArgv(
        ["arbor", "--allow-file-access-from-files", "--enable-logging=file.jsonl", "/tmp/s.jsonl", "-v"],
        packaged,
      ),
    ).toBe("/tmp/s.jsonl");
  });

  it("takes a path that looks like a switch after --", () => {
    expect(sessionFileFromArgv(["arbor", "--", "-odd.jsonl"], packaged)).toBe(
      "/home/user/project/-odd.jsonl",
    );
  });

  it("turns file:// URLs (desktop files' %U) into paths", () => {
    expect(sessionFileFromArgv(["arbor", "file:///tmp/with%20space.jsonl"], packaged)).toBe(
      "/tmp/with space.jsonl",
    );
    expect(sessionFileFromArgv(["arbor", "file://host/x.jsonl"], packaged)).toBeNull();
  });

  it("ignores arguments that are not session files; the last session file wins", () => {
    expect(sessionFileFromArgv(["arbor", "notes.txt", "."], packaged)).toBeNull();
    expect(sessionFileFromArgv(["arbor"], packaged)).toBeNull();
    expect(sessionFileFromArgv(["arbor", "/a.jsonl", "/b.JSONL"], packaged)).toBe("/b.JSONL");
  });
});

describe("checkSessionFile", () => {
  let folder: string;
  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), "arbor-session-file-"));
    writeFileSync(join(folder, "good.jsonl"), '{"type":"session"}\n');
    writeFileSync(join(folder, "notes.txt"), "hello");
    mkdirSync(join(folder, "folder.jsonl"));
    symlinkSync(join(folder, "good.jsonl"), join(folder, "link.jsonl"));
    symlinkSync(join(folder, "folder.jsonl"), join(folder, "link-to-folder.jsonl"));
    symlinkSync(join(folder, "missing.jsonl"), join(folder, "dangling.jsonl"));
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it("accepts an existing regular .jsonl file", async () => {
    expect(await checkSessionFile(join(folder, "good.jsonl"))).toEqual({
      ok: true,
      path: join(folder, "good.jsonl"),
    });
  });

  it("accepts a symlink to a regular file, and normalises the path", async () => {
    expect(await checkSessionFile(join(folder, "link.jsonl"))).toEqual({
      ok: true,
      path: join(folder, "link.jsonl"),
    });
    expect(await checkSessionFile(`${folder}/./good.jsonl`)).toEqual({
      ok: true,
      path: resolve(folder, "good.jsonl"),
    });
  });

  it("refuses what does not exist", async () => {
    const missing = await checkSessionFile(join(folder, "missing.jsonl"));
    expect(missing).toEqual({
      ok: false,
      reason: `"${join(folder, "missing.jsonl")}" does not exist; it may have been moved or deleted.`,
    });
    expect((await checkSessionFile(join(folder, "dangling.jsonl"))).ok).toBe(false);
  });

  it("refuses folders, even named .jsonl or reached by a link", async () => {
    expect(await checkSessionFile(join(folder, "folder.jsonl"))).toEqual({
      ok: false,
      reason: `"${join(folder, "folder.jsonl")}" is not a regular file; choose a session file (.jsonl).`,
    });
    expect((await checkSessionFile(join(folder, "link-to-folder.jsonl"))).ok).toBe(false);
  });

  it("refuses other extensions without touching the disk", async () => {
    const result = await checkSessionFile(join(folder, "notes.txt"));
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toContain("session files end in .jsonl");
  });

  it("refuses relative paths, non-strings and paths with NUL bytes", async () => {
    expect((await checkSessionFile("good.jsonl")).ok).toBe(false);
    expect((await checkSessionFile(undefined)).ok).toBe(false);
    expect((await checkSessionFile({ path: "/x.jsonl" })).ok).toBe(false);
    expect((await checkSessionFile("")).ok).toBe(false);
    expect((await checkSessionFile(`${folder}/good.jsonl\0.txt`)).ok).toBe(false);
    expect((await checkSessionFile(pathToFileURL(join(folder, "good.jsonl")).href)).ok).toBe(false);
  });
});
