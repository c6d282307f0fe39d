/** Importing a session file: checked first, copied unchanged under a Pi-style name, the original untouched. */

import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ArborError } from "../../shared/ipc/contract.ts";
import { fileText, headerLine, tempDirs, userLine } from "../store/testing/files.ts";
import { assistantMessage, PI_GENERATIONS, pi16, userMessage } from "../store/testing/pi.ts";
import { importSessionBytes, importSessionFile } from "./import-session.ts";

const dirs = tempDirs("import");
afterAll(() => dirs.cleanup());

function refusal(work: () => unknown): ArborError {
  try {
    work();
  } catch (error) {
    expect(error).toBeInstanceOf(ArborError);
    return error as ArborError;
  }
  throw new Error("not refused");
}

describe("importing a session", () => {
  it("copies the bytes unchanged under Pi's name for the header's id; the original is only read", () => {
    const manager = pi16.SessionManager.create("/home/user/project", dirs.make());
    manager.appendMessage(userMessage("hello"));
    manager.appendMessage(assistantMessage("hi"));
    const source = manager.getSessionFile()!;
    const headerId = manager.getHeader()!.id;
    const before = { bytes: readFileSync(source), mtimeMs: statSync(source).mtimeMs };
    const target = dirs.make();
    const now = new Date(Date.UTC(2026, 4, 6, 7, 8, 9, 10));
    const imported = importSessionFile(source, target, { now });
    expect(imported.path).toBe(join(target, `2026-05-06T07-08-09-010Z_${headerId}.jsonl`));
    expect(readFileSync(imported.path)).toEqual(before.bytes);
    expect({ bytes: readFileSync(source), mtimeMs: statSync(source).mtimeMs }).toEqual(before);
    expect(imported.report).toMatchObject({ ok: true, entries: 2, counts: { errors: 0, warnings: 0 } });
    for (const { name, module } of PI_GENERATIONS) {
      expect(module.SessionManager.open(imported.path).buildSessionContext(), name).toEqual(
        module.SessionManager.open(source).buildSessionContext(),
      );
    }
    // The same session again: already there.
    expect(refusal(() => importSessionFile(source, target)).code).toBe("conflict");
    expect(readdirSync(target)).toHaveLength(1);
  });

  it("imports a file with warnings and reports them; refuses errors and files that are not sessions", () => {
    const target = dirs.make();
    const warned = importSessionBytes(
      new TextEncoder().encode(
        fileText([headerLine(), userLine("u1", null, "a"), userLine("u2", "gone", "b")]),
      ),
      target,
      { sourceName: "orphan.jsonl" },
    );
    expect(warned.report.counts.warnings).toBeGreaterThan(0);
    expect(warned.report.problems.map((problem) => problem.code)).toContain("orphan");

    const damaged = fileText([headerLine({ id: "019a0000-0000-7000-8000-0000000000d2" }), "{not json"]);
    const error = refusal(() =>
      importSessionBytes(new TextEncoder().encode(damaged), target, { sourceName: "damaged.jsonl" }),
    );
    expect(error.code).toBe("refused");
    expect(error.message).toMatch(/damaged\.jsonl has 1 error \(line 2: .*\).*Nothing was imported/);
    const notSession = refusal(() =>
      importSessionBytes(new TextEncoder().encode('{"hello":"world"}\n'), target, {
        sourceName: "notes.jsonl",
      }),
    );
    expect(notSession.message).toMatch(/notes\.jsonl is not a Pi session/);
    expect(readdirSync(target)).toEqual([warned.path.slice(target.length + 1)]);
  });

  it("refuses a folder that does not exist, writing nothing", () => {
    const source = join(dirs.make(), "s.jsonl");
    writeFileSync(source, fileText([headerLine(), userLine("u1", null, "a")]));
    expect(refusal(() => importSessionFile(source, join(dirs.make(), "missing"))).code).toBe("not-found");
  });
});
