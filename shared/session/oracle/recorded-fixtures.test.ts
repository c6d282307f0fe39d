/**
 * Sessions recorded by Pi itself (`../shared/fixtures/pi-recorded/`, version
 * 1 files, outside this repository), read by Arbor and by Pi 1.6 and 0.73.
 * Pi migrates them on open and rewrites the file, so Pi only ever gets a copy.
 * Pi's migrated ids are random and Arbor's are derived from the file, so the
 * two are compared by position: same entries, same tree, and for every entry
 * as leaf the same context.
 */

import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readWholeSessionFile } from "../../../app/store/read-whole-session-file.ts";
import {
  type PiContext,
  type PiEntry,
  type PiSessionManager as PiManager,
  pi073,
  pi16,
  pi16Messages,
} from "../../../app/store/testing/pi.ts";
import {
  type AgentMessage,
  buildSessionContext,
  contextGraphOf,
  entryLineAt,
  inMemoryEntryReader,
  convertToLlm,
  readSession,
  type SessionContext,
  type SessionIndex,
} from "../index.ts";

type PiSessionManager = Pick<PiManager, "getEntries" | "getLeafId" | "getHeader" | "buildSessionContext">;

const FIXTURES = fileURLToPath(new URL("../../../../shared/fixtures/pi-recorded/", import.meta.url));
const fixtureNames = existsSync(FIXTURES)
  ? readdirSync(FIXTURES)
      .filter((name) => name.endsWith(".jsonl"))
      .sort()
  : [];

function assertSame(actual: unknown, expected: unknown, what: string): void {
  if (isDeepStrictEqual(actual, expected)) return;
  expect(actual, what).toStrictEqual(expected);
  expect.fail(`${what}: differs under node:util isDeepStrictEqual`);
}

function sha256(path: string): string {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

/**
 * Contexts of a long session share their messages, so message pairs already
 * proven equal are remembered by identity; every pair is still compared once.
 */
class ContextComparer {
  private readonly proven = new WeakMap<object, object>();

  same(actual: SessionContext, expected: PiContext, what: string): void {
    assertSame(Object.keys(actual).sort(), Object.keys(expected).sort(), `${what}: context fields`);
    assertSame(actual.thinkingLevel, expected.thinkingLevel, `${what}: thinking level`);
    assertSame(actual.model, expected.model, `${what}: model`);
    assertSame(this.shape(actual.messages), this.shape(expected.messages), `${what}: roles and texts`);
    actual.messages.forEach((message, i) => {
      const other = expected.messages[i] as object;
      if (this.proven.get(message) === other) return;
      assertSame(message, other, `${what}: message ${i}`);
      this.proven.set(message, other);
    });
  }

  /** Role and text of each message: a readable first failure before the deep comparison. */
  shape(messages: readonly unknown[]): string[] {
    return messages.map((value) => {
      const message = value as AgentMessage & { content?: unknown; summary?: unknown };
      const content = message.content;
      const text =
        typeof content === "string"
          ? content
          : Array.isArray(content)
            ? content
                .map((block: { type?: string; text?: string }) =>
                  block.type === "text" ? block.text : `[${block.type}]`,
                )
                .join("|")
            : String(message.summary ?? "");
      return `${message.role}: ${text.slice(0, 60)}`;
    });
  }
}

describe.skipIf(fixtureNames.length === 0)(
  `recorded Pi sessions${fixtureNames.length === 0 ? ` (skipped: no fixtures at ${FIXTURES}; they live outside the repository, see ../shared/fixtures/README.md)` : ""}`,
  () => {
    let dir = "";
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), "arbor-recorded-"));
    });
    afterAll(() => {
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    for (const name of fixtureNames) {
      describe(name, () => {
        const original = join(FIXTURES, name);
        let before = "";
        let arbor: SessionIndex;
        let pi16Entries: PiEntry[] = [];
        let pi073Entries: PiEntry[] = [];
        let pi16Manager: PiSessionManager;
        let pi16Copy = "";

        beforeAll(() => {
          before = sha256(original);
          arbor = readWholeSessionFile(original).index;
          pi16Copy = join(dir, `pi16-${name}`);
          copyFileSync(original, pi16Copy);
          pi16Manager = pi16.SessionManager.open(pi16Copy);
          pi16Entries = pi16Manager.getEntries();
          const pi073Copy = join(dir, `pi073-${name}`);
          copyFileSync(original, pi073Copy);
          pi073Entries = pi073.SessionManager.open(pi073Copy).getEntries();
        });

        it("is a version 1 file that Pi migrates and Arbor reads in memory only", () => {
          expect(arbor.version).toBe(1);
          expect(arbor.problems.map((p) => p.kind)).toEqual(["legacy-version"]);
          expect(pi16Manager.getHeader()?.version).toBe(3);
          expect(sha256(pi16Copy), "Pi rewrote its copy").not.toBe(before);
        });

        it("gives the same ids every time it is read", () => {
          const again = readWholeSessionFile(original).index;
          const fromBytes = readSession(new Uint8Array(readFileSync(original)));
          const ids = arbor.entries.map((entry) => entry.id);
          assertSame(
            again.entries.map((entry) => entry.id),
            ids,
            "second read",
          );
          assertSame(
            fromBytes.entries.map((entry) => entry.id),
            ids,
            "read from bytes",
          );
          assertSame(fromBytes.entries, arbor.entries, "whole entries, bytes vs file");
          expect(new Set(ids).size).toBe(ids.length);
        });

        it("has Pi's entries, types and tree, position by position", () => {
          for (const [piName, piEntries] of [
            ["Pi 1.6", pi16Entries],
            ["Pi 0.73", pi073Entries],
          ] as const) {
            expect(arbor.entries.length, `${piName}: entry count`).toBe(piEntries.length);
            assertSame(
              arbor.entries.map((entry) => entry.type),
              piEntries.map((entry) => entry.type),
              `${piName}: types in order`,
            );
            const positionOfPi = new Map(piEntries.map((entry, i) => [entry.id, i]));
            const positionOfArbor = new Map(arbor.entries.map((entry, i) => [entry.id, i]));
            const position = (map: Map<string, number>, id: unknown) =>
              typeof id === "string" ? (map.get(id) ?? `missing ${id}`) : id;
            arbor.entries.forEach((entry, i) => {
              const piEntry = piEntries[i]!;
              const what = `${piName}: entry ${i} (line ${entryLineAt(arbor, i)})`;
              assertSame(
                position(positionOfArbor, entry.parentId),
                position(positionOfPi, piEntry.parentId),
                `${what}: parent`,
              );
              if (entry.type === "compaction") {
                assertSame(
                  position(positionOfArbor, entry.firstKeptEntryId),
                  position(positionOfPi, piEntry.firstKeptEntryId),
                  `${what}: first kept entry`,
                );
              }
              // Everything else is the recorded data itself.
              const { id: _a, parentId: _b, firstKeptEntryId: _c, ...rest } = entry;
              const { id: _d, parentId: _e, firstKeptEntryId: _f, ...piRest } = piEntry;
              assertSame(rest, piRest, `${what}: fields`);
            });
          }
          const lastIndex = arbor.entries.length - 1;
          expect(arbor.leafId).toBe(arbor.entries[lastIndex]!.id);
          expect(pi16Manager.getLeafId()).toBe(pi16Entries[lastIndex]!.id);
        });

        it("builds Pi's context for the default leaf and for every entry as leaf", () => {
          const graph = contextGraphOf(arbor, inMemoryEntryReader(arbor));
          const comparer = new ContextComparer();
          const byId16 = new Map(pi16Entries.map((entry) => [entry.id, entry]));
          const byId073 = new Map(pi073Entries.map((entry) => [entry.id, entry]));
          const compactionFirst = { arbor: 0, pi: 0 };
          const check = (arborLeaf: string | null | undefined, position: number | null | undefined) => {
            const what = `leaf ${position === undefined ? "default" : position === null ? "null" : `#${position}`}`;
            const piLeaf = (entries: PiEntry[]) =>
              position === undefined ? undefined : position === null ? null : entries[position]!.id;
            const context = buildSessionContext(graph, arborLeaf);
            const piContext = pi16.buildSessionContext(pi16Entries, piLeaf(pi16Entries), byId16);
            comparer.same(context, piContext, `${what} vs Pi 1.6`);
            if (context.messages[0]?.role === "compactionSummary") compactionFirst.arbor++;
            if ((piContext.messages[0] as { role?: string } | undefined)?.role === "compactionSummary") {
              compactionFirst.pi++;
            }
            // 0.73 builds its path with Array.unshift (quadratic): every 5th leaf is plenty.
            if (position === undefined || position === null || position % 5 === 0) {
              const pi073Context = pi073.buildSessionContext(pi073Entries, piLeaf(pi073Entries), byId073);
              comparer.same(context, pi073Context, `${what} vs Pi 0.73`);
            }
            return context;
          };
          const defaultContext = check(undefined, undefined);
          comparer.same(defaultContext, pi16Manager.buildSessionContext(), "the manager's own context");
          assertSame(
            convertToLlm(defaultContext.messages),
            pi16Messages.convertToLlm(pi16Manager.buildSessionContext().messages),
            "convertToLlm, default leaf",
          );
          check(null, null);
          arbor.entries.forEach((entry, position) => {
            const context = check(entry.id, position);
            if (position % 25 === 0) {
              const piContext = pi16.buildSessionContext(pi16Entries, pi16Entries[position]!.id, byId16);
              assertSame(
                convertToLlm(context.messages),
                pi16Messages.convertToLlm(piContext.messages),
                `convertToLlm, leaf #${position}`,
              );
            }
          });
          assertSame(
            compactionFirst.arbor,
            compactionFirst.pi,
            "leaves whose context starts with a compaction",
          );
          const compactions = arbor.entries.filter((entry) => entry.type === "compaction").length;
          if (compactions > 0) expect(compactionFirst.arbor).toBeGreaterThan(0);
        });

        it("reads Pi's migrated rewrite of the file as Pi does", () => {
          const rewritten = readWholeSessionFile(pi16Copy).index;
          expect(rewritten.version).toBe(3);
          assertSame(
            rewritten.entries,
            JSON.parse(JSON.stringify(pi16Entries)),
            "entries of the rewritten file",
          );
          const comparer = new ContextComparer();
          comparer.same(
            buildSessionContext(contextGraphOf(rewritten, inMemoryEntryReader(rewritten))),
            pi16Manager.buildSessionContext(),
            "default leaf of the rewritten file",
          );
        });

        it("was never modified", () => {
          expect(sha256(original)).toBe(before);
        });
      });
    }
  },
);
