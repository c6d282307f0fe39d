/**
 * The wire form of node lists round-trips exactly: through JSON, the views
 * of generated sessions (clean, damaged, with odd ids) come back equal to
 * `treeNodeViews`, and so do lists that are not a whole tree in depth-first
 * order (deltas, hand-made lists), where no derivation holds.
 */

import { describe, expect, it } from "vitest";
import { inMemoryEntryReader, readSession, type SessionIndex } from "../session/index.ts";
import { generateSession, Rng } from "../session/testing/generate-session.ts";
import type { SessionDelta, SessionView, TreeNodeView } from "./contract.ts";
import { indexColumns, indexNodeList, indexNodes } from "../graph/indexed-nodes.ts";
import { encodedNodes } from "./encoded-nodes.ts";
import { decodeNodes, NodeTable } from "./node-table.ts";
import { objectNodes } from "./session-nodes.ts";
import { plainView } from "./testing/session-view.ts";
import { treeNodeViews } from "./views.ts";
import {
  decodeEvent,
  decodeResult,
  encodeEvent,
  encodeResult,
  type WireEvent,
  type WireResult,
} from "./wire.ts";
import { stringifyWire, WireJson } from "./wire-json.ts";
import { encodeNodes, WireFormatError, type WireNodes } from "./wire-nodes.ts";

/** The node views of an index read whole. */
const viewsOf = (index: SessionIndex) => treeNodeViews(index, inMemoryEntryReader(index));

/** As it crosses either transport. */
function throughJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

function roundTrip(nodes: TreeNodeView[]): TreeNodeView[] {
  return decodeNodes(throughJson(encodeNodes(nodes)));
}

const ID_FIELDS = ["id", "parentId", "targetId", "firstKeptEntryId", "fromId"];

/** The same session with every id renamed by `rename` (in every field that names an entry). */
function withIds(text: string, rename: (id: string) => string): string {
  return text
    .split("\n")
    .map((line) => {
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        return line;
      }
      if (typeof value !== "object" || value === null || Array.isArray(value)) return line;
      const entry = value as Record<string, unknown>;
      if (entry.type === "session") return line;
      for (const field of ID_FIELDS) {
        if (typeof entry[field] === "string" && entry[field] !== "")
          entry[field] = rename(entry[field] as string);
      }
      return JSON.stringify(entry);
    })
    .join("\n");
}

const ODD = ["__proto__", "constructor", "a b", '"quoted"', "é🌳", "\u0000nul", "x".repeat(180), "-1", "0"];

function oddId(rng: Rng, id: string): string {
  return `${rng.pick(ODD)}${id}`;
}

describe("the wire form of node lists", () => {
  it("round-trips the views of generated sessions exactly, clean and damaged", () => {
    let nodes = 0;
    let exceptions = 0;
    for (let seed = 1; seed <= 120; seed++) {
      const generated = generateSession({ seed, damage: seed % 3 !== 0 });
      const views = viewsOf(readSession(generated.text));
      const wire = encodeNodes(views);
      expect(roundTrip(views), `seed ${seed}`).toEqual(views);
      nodes += views.length;
      exceptions += wire.depths.at.length + wire.children.at.length + wire.parentIds.at.length;
    }
    expect(nodes).toBeGreaterThan(5000);
    // A whole tree depth-first: parents, depths and children are all derived.
    expect(exceptions).toBe(0);
  });

  it("round-trips sessions whose ids are odd strings", () => {
    for (let seed = 200; seed < 240; seed++) {
      const rng = new Rng(seed);
      const renamed = new Map<string, string>();
      const generated = generateSession({ seed, damage: seed % 2 === 0 });
      const text = withIds(generated.text, (id) => {
        const odd = renamed.get(id) ?? oddId(rng, id);
        renamed.set(id, odd);
        return odd;
      });
      const views = viewsOf(readSession(text));
      expect(views.some((view) => ODD.some((odd) => view.id.startsWith(odd)))).toBe(true);
      expect(roundTrip(views), `seed ${seed}`).toEqual(views);
    }
  });

  it("round-trips lists that are no whole tree: slices, reversed, shuffled, one node twice", () => {
    const rng = new Rng(7);
    for (let seed = 300; seed < 330; seed++) {
      const views = viewsOf(readSession(generateSession({ seed, damage: true }).text));
      const from = rng.int(0, views.length - 1);
      const lists = [
        views.slice(from, from + rng.int(1, 20)),
        [...views].reverse(),
        [...views].sort(() => rng.next() - 0.5),
        [...views.slice(0, 5), ...views.slice(0, 3)],
        views.filter((view) => view.type !== "message"),
      ];
      for (const list of lists) expect(roundTrip(list)).toEqual(list);
    }
  });

  it("round-trips odd field values: times that are not ISO, lines that are not integers, a node its own parent", () => {
    const base = viewsOf(readSession(generateSession({ seed: 5 }).text));
    const odd: TreeNodeView[] = base.slice(0, 12).map((view) => ({ ...view }));
    odd[0]!.timestamp = "";
    odd[1]!.timestamp = "2026-01-01T00:00:00Z";
    odd[2]!.timestamp = "yesterday";
    odd[3]!.timestamp = "2026-13-01T00:00:00.000Z";
    odd[4]!.timestamp = "+275760-09-13T00:00:00.000Z";
    odd[5]!.timestamp = "1969-12-31T23:59:59.999Z";
    odd[6]!.line = 1.5;
    odd[7]!.line = -3;
    odd[8]!.line = Number.MAX_SAFE_INTEGER;
    odd[9]!.parentId = odd[9]!.id;
    odd[10]!.depth = 41;
    odd[10]!.children = ["not-listed", odd[10]!.id];
    odd[11]!.toolNames = ["a\u0000b", "c"];
    odd[0]!.toolNames = ["a", "b\u0000c"];
    odd[1]!.label = "";
    odd[2]!.tokensBefore = 0;
    odd[3]!.targetId = "";
    odd[4]!.role = "null";
    odd[5]!.stopReason = null;
    expect(roundTrip(odd)).toEqual(odd);
    expect(roundTrip([])).toEqual([]);
    // Times on the day of the one before, read digit by digit: only canonical ones become numbers.
    const day = "2026-03-04T";
    const times = ["10:00:00.000Z", "24:00:00.000Z", "10:60:00.000Z", "10:00:60.000Z", "1a:00:00.000Z"];
    times.push("10:00:00.000z", "10:00:00,000Z", "10:00:00.0000", "-1:00:00.000Z", "23:59:59.999Z");
    const sameDay = times.map((time, i) => ({ ...base[i]!, timestamp: `${day}${time}` }));
    const wire = encodeNodes(sameDay);
    expect(wire.timestampValues.values).toEqual(sameDay.slice(1, -1).map((view) => view.timestamp));
    expect(roundTrip(sameDay)).toEqual(sameDay);
  });

  it("is a fraction of the JSON of the objects", () => {
    const views = viewsOf(readSession(generateSession({ seed: 9, entryCount: 3000 }).text));
    const objects = JSON.stringify(views).length;
    const columns = JSON.stringify(encodeNodes(views)).length;
    expect(columns).toBeLessThan(objects * 0.5);
  });

  it("refuses what is not in its format", () => {
    const wire = throughJson(encodeNodes(viewsOf(readSession(generateSession({ seed: 4 }).text))));
    expect(() => decodeNodes({ ...wire, format: 2 } as unknown as WireNodes)).toThrow(WireFormatError);
    expect(() => decodeNodes({ ...wire, previews: [] })).toThrow(WireFormatError);
    expect(() => decodeNodes({ ...wire, labels: { at: [1_000_000], values: ["x"] } })).toThrow(
      WireFormatError,
    );
    expect(() => decodeNodes({ ...wire, parents: wire.parents.map(() => 1_000_000) })).toThrow(
      WireFormatError,
    );
  });
});

describe("results and events on the wire", () => {
  const index = readSession(generateSession({ seed: 12, damage: true }).text);
  const view: SessionView = {
    sessionId: "s1",
    path: "/sessions/one.jsonl",
    headerId: index.header?.id ?? null,
    cwd: null,
    name: "One",
    version: 3,
    parentSessionId: null,
    leafId: index.leafId,
    roots: [...index.roots],
    nodes: objectNodes(viewsOf(index)),
    problems: throughJson(index.problems),
    bytes: index.byteLength,
    live: false,
  };

  it("views travel as columns and come back equal; other results as they are", () => {
    for (const name of [
      "session.open",
      "session.current",
      "session.fork",
      "session.clone",
      "session.new",
    ] as const) {
      const wire = throughJson(encodeResult(name, view));
      expect(Array.isArray((wire as { nodes: unknown }).nodes)).toBe(false);
      expect(plainView(decodeResult(name, wire))).toEqual(plainView(view));
    }
    expect(decodeResult("session.current", throughJson(encodeResult("session.current", null)))).toBeNull();
    const info = { version: "1.0.0", transport: "serve" as const, theme: "dark" as const };
    expect(encodeResult("app.info", info)).toBe(info);
  });

  it("a delta's nodes and a reload's view travel as columns; the switch names the session only", () => {
    const delta: SessionDelta = {
      baseBytes: 10,
      headerId: null,
      cwd: null,
      name: null,
      version: 3,
      parentSessionId: null,
      leafId: view.leafId,
      bytes: 20,
      live: true,
      added: view.nodes.toArray().slice(-3),
      changed: view.nodes.toArray().slice(0, 2),
      removed: ["gone"],
      roots: { keep: 1, add: [] },
      problems: { keep: 0, add: view.problems },
    };
    const appended = { sessionId: "s1", delta };
    expect(decodeEvent("session.appended", throughJson(encodeEvent("session.appended", appended)))).toEqual(
      appended,
    );
    const reloaded = { sessionId: "s1", reason: "truncated" as const, view };
    const decoded = decodeEvent("session.reloaded", throughJson(encodeEvent("session.reloaded", reloaded)));
    expect({ ...decoded, view: plainView(decoded.view) }).toEqual({ ...reloaded, view: plainView(view) });
    const switched = { sessionId: "s1", path: view.path, reason: "open" as const };
    expect(encodeEvent("session.switched", switched)).toEqual(switched);
  });
});

describe("views whose nodes are known as wire text (saved views)", () => {
  const index = readSession(generateSession({ seed: 31, damage: true }).text);
  const nodes = viewsOf(index);
  const nodesJson = JSON.stringify(encodeNodes(nodes));
  const fields: Omit<SessionView, "nodes"> = {
    sessionId: "s2",
    path: "/sessions/two.jsonl",
    headerId: index.header?.id ?? null,
    cwd: "/work",
    name: null,
    version: 3,
    parentSessionId: null,
    leafId: index.leafId,
    roots: [...index.roots],
    problems: throughJson(index.problems),
    bytes: index.byteLength,
    live: false,
  };
  const expected = plainView({ ...fields, nodes: objectNodes(nodes) });

  function encodedView(json = nodesJson): SessionView {
    return { ...fields, nodes: encodedNodes(json) };
  }

  it("travels with its text spliced into the frame (the WebSocket) and reads back equal", () => {
    for (const name of ["session.open", "session.current", "session.fork"] as const) {
      const frame = stringifyWire({ id: 7, result: encodeResult(name, encodedView(), "spliced") });
      // The nodes are in the frame as the saved text, not as a string holding it.
      expect(frame).toContain(`"nodes":${nodesJson}`);
      const { id, result } = JSON.parse(frame) as { id: number; result: WireResult<typeof name> };
      expect(id).toBe(7);
      expect(plainView(decodeResult(name, result))).toEqual(expected);
    }
    const reloaded = { sessionId: "s2", reason: "replaced" as const, view: encodedView() };
    const frame = stringifyWire({
      event: "session.reloaded",
      payload: encodeEvent("session.reloaded", reloaded, "spliced"),
    });
    const { payload } = JSON.parse(frame) as { payload: WireEvent<"session.reloaded"> };
    const decoded = decodeEvent("session.reloaded", payload);
    expect({ ...decoded, view: plainView(decoded.view) }).toEqual({ ...reloaded, view: expected });
  });

  it("travels as a string (Electron's structured clone) and reads back equal", () => {
    const wire = encodeResult("session.open", encodedView());
    expect(wire.nodes).toBe(nodesJson);
    expect(plainView(decodeResult("session.open", structuredClone(wire)))).toEqual(expected);
  });

  it("decodes its nodes only when something reads them, once", () => {
    // Text that is not JSON travels as it is: only reading a node would find it out.
    const unread = encodedView("{not json");
    expect(stringifyWire(encodeResult("session.open", unread, "spliced"))).toContain('"nodes":{not json');
    expect(encodeResult("session.open", unread, "string").nodes).toBe("{not json");
    expect(() => unread.nodes.count).toThrow(WireFormatError);
    const view = encodedView();
    expect(view.nodes.wireJson).toBe(nodesJson);
    expect(view.nodes.count).toBe(nodes.length);
    expect(view.nodes.node(3)).toBe(view.nodes.node(3));
    expect(view.nodes.toArray()).toBe(view.nodes.toArray());
    expect(view.nodes.toArray()[3]).toBe(view.nodes.node(3));
    expect(plainView(view)).toEqual(expected);
  });

  it("splices several texts in order, whatever the strings around them hold", () => {
    const tricky = ["\u0000", '"nodes"', "\\u0000arbor-wire-json-0:0", "}{"];
    const b = { x: new WireJson('{"x":"\\u0000"}'), y: new WireJson("null") };
    const value = { a: new WireJson("[1,2]"), tricky, b, c: Object.create(null) as object };
    expect(JSON.parse(stringifyWire(value))).toEqual({
      a: [1, 2],
      tricky,
      b: { x: { x: "\u0000" }, y: null },
      c: {},
    });
    // The value written is left as it was.
    expect(value.b).toBe(b);
    expect(b.x).toBeInstanceOf(WireJson);
    expect(stringifyWire({ plain: tricky })).toBe(JSON.stringify({ plain: tricky }));
    expect(stringifyWire(new WireJson("[3]"))).toBe("[3]");
  });

  it("is written only by stringifyWire, as a plain object's property; nodes text that is not JSON is refused", () => {
    expect(() => JSON.stringify({ nodes: new WireJson("[]") })).toThrow(/stringifyWire/);
    // Arrays are not looked into (a node list's columns are long): one in an array is refused, not lost.
    expect(() => stringifyWire({ list: [new WireJson("[]")] })).toThrow(/stringifyWire/);
    expect(() => decodeNodes("{not json")).toThrow(WireFormatError);
    expect(() => decodeNodes('{"format":99}')).toThrow(WireFormatError);
  });
});

describe("the node table (a node list kept as columns)", () => {
  it("indexes a whole tree as indexNodes does its nodes, and makes each node as decodeNodes does, once", () => {
    for (let seed = 40; seed < 60; seed++) {
      const index = readSession(generateSession({ seed, damage: seed % 3 === 0 }).text);
      const nodes = viewsOf(index);
      const table = new NodeTable(throughJson(encodeNodes(nodes)));
      expect(table.derivedShape, `seed ${seed}`).toBe(true);
      const fromColumns = indexColumns(table)!;
      const fromObjects = indexNodes(nodes);
      expect(fromColumns.count).toBe(fromObjects.count);
      expect([...fromColumns.indexOf]).toEqual([...fromObjects.indexOf]);
      expect(fromColumns.parent).toEqual(fromObjects.parent);
      expect(fromColumns.childStart).toEqual(fromObjects.childStart);
      expect(fromColumns.childList).toEqual(fromObjects.childList);
      for (let i = 0; i < nodes.length; i++) {
        for (const field of ["id", "type", "role", "label", "hasText", "stopReason"] as const) {
          expect(fromColumns.fields[field](i), `seed ${seed}, node ${i}, ${field}`).toBe(
            fromObjects.fields[field](i),
          );
        }
      }
      expect(table.toArray()).toEqual(nodes);
      expect(table.node(3)).toBe(table.node(3));
      expect(indexNodeList(table).parent).toBe(table.parent);
      expect(fromColumns.byId.get(nodes[5]!.id)).toBe(table.node(5));
      expect(() => table.node(nodes.length)).toThrow(RangeError);
    }
  });

  it("a list that is not a whole tree in depth-first order says so, and is indexed from its nodes", () => {
    const index = readSession(generateSession({ seed: 61 }).text);
    const nodes = viewsOf(index);
    for (const list of [nodes.slice(10), [...nodes].reverse(), [nodes[0]!, nodes[0]!, ...nodes.slice(1)]]) {
      const table = new NodeTable(throughJson(encodeNodes(list)));
      expect(table.toArray()).toEqual(list);
      if (table.derivedShape) expect(indexColumns(table)).toBeNull();
      const indexed = indexNodeList(table);
      expect([...indexed.indexOf]).toEqual([...indexNodes(list).indexOf]);
      expect(indexed.parent).toEqual(indexNodes(list).parent);
    }
  });
});
