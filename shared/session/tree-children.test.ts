/**
 * Child lists of tree nodes: a node with one child keeps only its id (no
 * array), yet reads like any other list; every change to the tree (a second
 * child appended, a cycle cut, a sort) goes through the node and is seen in
 * its next read, never in a list handed out before.
 */

import { describe, expect, it } from "vitest";
import { extendSessionIndex, resumePoint } from "./extend-index.ts";
import { type ParseMode, parseSessionBytes, SessionParser } from "./parse.ts";
import { buildSessionIndex, type SessionIndex } from "./tree-index.ts";

const HEADER = '{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}';

function line(id: string, parentId: string | null, second: number): string {
  const timestamp = `2026-01-01T00:00:${String(second).padStart(2, "0")}.000Z`;
  return JSON.stringify({
    type: "message",
    id,
    parentId,
    timestamp,
    message: { role: "user", content: `text of ${id}`, timestamp: second },
  });
}

function fileOf(lines: readonly string[]): string {
  return `${[HEADER, ...lines].join("\n")}\n`;
}

const MODES: readonly ParseMode[] = ["full", "structure"];

function indexOf(text: string, mode: ParseMode): SessionIndex {
  return buildSessionIndex(parseSessionBytes(text, { mode }));
}

/** The index of `before`, extended with the lines appended to make `after`. */
function extended(before: string, after: string, mode: ParseMode) {
  const index = indexOf(before, mode);
  const bytes = new TextEncoder().encode(after);
  const start = resumePoint(index);
  const parser = new SessionParser({ mode, start });
  parser.push(bytes.subarray(start.offset));
  return { before: index, ...extendSessionIndex(index, parser.end()) };
}

describe("tree node children", () => {
  for (const mode of MODES) {
    it(`reads one child as a list of one, made for each read (${mode})`, () => {
      const index = indexOf(fileOf([line("a", null, 1), line("b", "a", 2), line("c", "b", 3)]), mode);
      const a = index.nodes.get("a")!;
      const c = index.nodes.get("c")!;
      expect(a.children).toEqual(["b"]);
      expect(a.childCount).toBe(1);
      expect(c.children).toEqual([]);
      expect(c.childCount).toBe(0);
      // A reader's copy is its own: changing it changes no node.
      (a.children as string[]).push("x");
      expect(a.children).toEqual(["b"]);
      // The shared empty list cannot be given a child by mistake.
      expect(() => (c.children as string[]).push("x")).toThrow();
      expect(index.nodes.get("b")!.children).toEqual(["c"]);
    });

    it(`gives a node its second and third child when lines are appended (${mode})`, () => {
      const lines = [line("a", null, 1), line("b", "a", 2), line("c", "b", 3)];
      const first = fileOf(lines);
      const second = fileOf([...lines, line("d", "a", 4)]);
      const result = extended(first, second, mode);
      expect(result.rebuilt).toBe(false);
      const a = result.index.nodes.get("a")!;
      const before = a.children;
      expect(before).toEqual(["b", "d"]);
      expect(a.childCount).toBe(2);
      // A third child, earlier in time than both: Pi's order puts it first.
      const third = fileOf([...lines, line("d", "a", 4), line("e", "a", 0)]);
      const again = extended(second, third, mode);
      expect(again.rebuilt).toBe(false);
      expect(again.index.nodes.get("a")!.children).toEqual(["e", "b", "d"]);
      expect(again.index.nodes.get("a")!.childCount).toBe(3);
      // Each new child of a leaf starts a list of one.
      const fourth = fileOf([...lines, line("d", "a", 4), line("e", "a", 0), line("f", "e", 5)]);
      const leaf = extended(third, fourth, mode).index.nodes.get("e")!;
      expect(leaf.children).toEqual(["f"]);
      expect(leaf.childCount).toBe(1);
      expect(before).toEqual(["b", "d"]);
    });

    it(`cuts a parent cycle at a node with one child, keeping its other child (${mode})`, () => {
      // x and y name each other as parent; z hangs below x.
      const index = indexOf(
        fileOf([line("r", null, 1), line("x", "y", 2), line("y", "x", 3), line("z", "x", 4)]),
        mode,
      );
      const x = index.nodes.get("x")!;
      const y = index.nodes.get("y")!;
      expect(index.roots).toEqual(["r", "x", "y"]);
      expect(x.children).toEqual(["z"]);
      expect(x.childCount).toBe(1);
      expect(y.children).toEqual([]);
      expect(y.childCount).toBe(0);
      expect(x.parent).toBeNull();
      expect(y.parentId).toBeNull();
      expect(index.nodes.get("z")!.depth).toBe(1);
      expect(index.problems.filter((p) => p.kind === "cycle").map((p) => p.line)).toEqual([3, 4]);
    });

    it(`sorts children by time, file order on ties, and leaves single children alone (${mode})`, () => {
      const index = indexOf(
        fileOf([
          line("p", null, 1),
          line("late", "p", 9),
          line("early", "p", 2),
          line("tie", "p", 2),
          line("only", "early", 3),
        ]),
        mode,
      );
      const p = index.nodes.get("p")!;
      expect(p.children).toEqual(["early", "tie", "late"]);
      expect(p.childCount).toBe(3);
      expect(index.nodes.get("early")!.children).toEqual(["only"]);
    });

    it(`orders ties by the line that won an id used twice, not by the id's first line (${mode})`, () => {
      const index = indexOf(
        fileOf([
          line("p", null, 1),
          line("again", "p", 2),
          line("other", "p", 2),
          // The id's later line wins: it comes after "other", at the same time.
          line("again", "p", 2),
        ]),
        mode,
      );
      expect(index.nodes.get("p")!.children).toEqual(["other", "again"]);
      expect(index.nodes.get("again")!.line).toBe(5);
    });
  }
});
