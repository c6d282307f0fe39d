/** Live files: changed within the last seconds, or held open by another process (found in /proc). */

import { spawn } from "node:child_process";
import { closeSync, existsSync, openSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { heldOpenElsewhere, isLiveFile, LIVE_FILE_MESSAGE, requireConfirmedIfLive } from "./live-file.ts";
import { tempDirs } from "./testing/files.ts";

const dirs = tempDirs("live-file");
afterAll(() => dirs.cleanup());

function oldFile(): string {
  const path = join(dirs.make(), "session.jsonl");
  writeFileSync(path, "{}\n");
  const old = new Date(Date.now() - 60_000);
  utimesSync(path, old, old);
  return path;
}

describe("live files", () => {
  it("a file changed within the last seconds is live; an old one is not; confirming lets it through", () => {
    const path = oldFile();
    expect(isLiveFile(path)).toBe(false);
    expect(isLiveFile(path, { foreignChangeMs: Date.now() - 1000 })).toBe(true);
    writeFileSync(path, "{}\n{}\n");
    expect(isLiveFile(path)).toBe(true);
    expect(() => requireConfirmedIfLive(path, false)).toThrow(LIVE_FILE_MESSAGE);
    expect(() => requireConfirmedIfLive(path, true)).not.toThrow();
    expect(isLiveFile(join(dirs.make(), "missing.jsonl"))).toBe(false);
  });

  it.skipIf(!existsSync("/proc/self/fd"))(
    "a file another process holds open for writing is live, however old; readers and this process do not count",
    async () => {
      const path = oldFile();
      const own = openSync(path, "r");
      try {
        expect(heldOpenElsewhere(path)).toBe(false);
      } finally {
        closeSync(own);
      }
      const holder = async (flags: string, check: () => void) => {
        const child = spawn(
          process.execPath,
          [
            "-e",
            `require("fs").openSync(${JSON.stringify(path)}, "${flags}"); console.log("open"); setInterval(() => {}, 1000);`,
          ],
          { stdio: ["ignore", "pipe", "inherit"] },
        );
        try {
          await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
          check();
        } finally {
          child.kill();
          await new Promise((resolve) => child.once("exit", resolve));
        }
      };
      await holder("a", () => {
        expect(heldOpenElsewhere(path)).toBe(true);
        expect(isLiveFile(path)).toBe(true);
      });
      // A reader (another Arbor, an editor, tail -f) is not writing it.
      await holder("r", () => expect(heldOpenElsewhere(path)).toBe(false));
      expect(heldOpenElsewhere(path)).toBe(false);
    },
  );

  it("without /proc nothing is known, and nothing fails", () => {
    const path = oldFile();
    expect(heldOpenElsewhere(path, join(dirs.make(), "no-proc"))).toBe(false);
    expect(isLiveFile(path, { procRoot: join(dirs.make(), "no-proc") })).toBe(false);
  });
});
