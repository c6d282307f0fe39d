/**
 * A session with one entry nested 100,000 levels deep, read from a real file
 * in each parse mode: the entry reports a `too-deep` problem, the context of
 * every leaf and the view of every entry encode as JSON, the deep entry's view
 * says why its content is not shown, a fork through it is refused (it would
 * lose the content), and the library lists and searches the file.
 */

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { stringifyWire } from "../../shared/ipc/wire-json.ts";
import { contextView, entryDetail } from "../../shared/ipc/views.ts";
import { NESTING_TEXT } from "../../shared/session/nesting.ts";
import { createSessionLibrary } from "../library/index.ts";
import { cloneSession, forkSession, NewFileError } from "./new-file.ts";
import { openIndexedFile } from "./open-indexed-file.ts";
import { fileText, headerLine, tempDirs, userLine } from "./testing/files.ts";

const dirs = tempDirs("deep-entry");
afterAll(() => dirs.cleanup());

const DEPTH = 100_000;

function deepSession(dir: string): string {
  const deep = userLine("deep0001", "root0001", "PLACEHOLDER", 2).replace(
    '"PLACEHOLDER"',
    `[${"[".repeat(DEPTH)}${"]".repeat(DEPTH)}]`,
  );
  const path = join(dir, "deep.jsonl");
  writeFileSync(
    path,
    fileText([
      headerLine(),
      userLine("root0001", null, "first question", 1),
      deep,
      userLine("after001", "deep0001", "below the deep one", 3),
      userLine("other001", "root0001", "another branch", 4),
    ]),
  );
  return path;
}

describe("an entry nested 100,000 levels deep", () => {
  for (const mode of ["full", "structure", "structure-with-facts"] as const) {
    it(`reports a problem and leaves the rest of the session working (${mode})`, () => {
      const dir = dirs.make();
      const path = deepSession(dir);
      const file = openIndexedFile(path, { mode });
      const { index, reader } = file;
      expect(index.problems.map(({ kind, line, entryId }) => ({ kind, line, entryId }))).toEqual([
        { kind: "too-deep", line: 3, entryId: "deep0001" },
      ]);
      expect([...index.nodes.keys()].sort()).toEqual(["after001", "deep0001", "other001", "root0001"]);
      for (const leafId of ["other001", "after001", "deep0001", null]) {
        const view = contextView(index, reader, leafId, true);
        expect(() => stringifyWire({ id: 1, result: view })).not.toThrow();
      }
      const through = contextView(index, reader, "after001", false);
      expect(through.messages.map((message) => message.entryId)).toEqual([
        "root0001",
        "deep0001",
        "after001",
      ]);
      expect(through.messages[1]!.message).toMatchObject({
        role: "user",
        content: [{ type: "text", text: NESTING_TEXT.note }],
      });
      const detail = entryDetail(index, reader, "deep0001");
      expect(detail.problems.map((problem) => problem.kind)).toEqual(["too-deep"]);
      expect(JSON.stringify(detail)).toContain(NESTING_TEXT.note);
      expect(entryDetail(index, reader, "after001").problems).toEqual([]);
      const refused = (() => {
        try {
          forkSession(index, reader, path, "after001", { position: "at" });
        } catch (error) {
          return error;
        }
      })();
      expect(refused).toBeInstanceOf(NewFileError);
      expect((refused as NewFileError).code).toBe("refused");
      expect(
        cloneSession(index, reader, path, { leafId: "other001" }).entries.map((entry) => entry.id),
      ).toEqual(["root0001", "other001"]);
      file.close();
    });
  }

  it("is listed and searched by the library", async () => {
    const dir = dirs.make();
    deepSession(dir);
    const library = createSessionLibrary({ roots: [dir], cacheDir: null });
    try {
      await library.scan();
      const sessions = library.list().projects.flatMap((project) => project.sessions);
      expect(sessions.map((session) => session.entryCount)).toEqual([4]);
      expect((await library.search("branch")).map((hit) => hit.entryId)).toEqual(["other001"]);
    } finally {
      await library.dispose();
    }
  });
});
