/**
 * The three kinds of a view's node list (objects, columns decoded from the
 * wire, a saved view's wire text) read the same through their interface,
 * are indexed the same, and a delta applied to a list of columns keeps the
 * nodes it does not name.
 */

import { describe, expect, it } from "vitest";
import { indexNodeList, indexNodes } from "../graph/indexed-nodes.ts";
import { inMemoryEntryReader, readSession } from "../session/index.ts";
import { generateSession } from "../session/testing/generate-session.ts";
import type { TreeNodeView } from "./contract.ts";
import { encodedNodes } from "./encoded-nodes.ts";
import { NodeTable } from "./node-table.ts";
import { applySessionDelta, diffSessionViews } from "./session-delta.ts";
import { objectNodes, type SessionNodes } from "./session-nodes.ts";
import { plainView, sessionViewOf } from "./testing/session-view.ts";
import { treeNodeViews } from "./views.ts";
import { encodeNodes } from "./wire-nodes.ts";

const FIELDS = [
  "id",
  "type",
  "kind",
  "role",
  "label",
  "hasText",
  "stopReason",
  "preview",
  "toolNames",
  "archived",
] as const;

/** The three lists of `nodes`: objects, columns as decoded, and the wire text. */
function listsOf(nodes: TreeNodeView[]): { what: string; list: SessionNodes }[] {
  const json = JSON.stringify(encodeNodes(nodes));
  return [
    { what: "objects", list: objectNodes(nodes) },
    { what: "columns", list: new NodeTable(JSON.parse(json)) },
    { what: "wire text", list: encodedNodes(json) },
  ];
}

describe("a view's node list", () => {
  it("reads the same as objects, as columns and as wire text, field by field and node by node", () => {
    for (let seed = 70; seed < 85; seed++) {
      const index = readSession(generateSession({ seed, damage: seed % 2 === 0 }).text);
      // Some archived, as below an archive marker, so the flag travels both ways.
      const nodes = treeNodeViews(index, inMemoryEntryReader(index)).map((node, i) => ({
        ...node,
        archived: i % 3 === 0,
      }));
      for (const { what, list } of listsOf(nodes)) {
        const at = `seed ${seed}, ${what}`;
        expect(list.count, at).toBe(nodes.length);
        expect(list.ids, at).toEqual(nodes.map((node) => node.id));
        for (let i = 0; i < nodes.length; i++) {
          for (const field of FIELDS)
            expect(list.fields[field](i), `${at}, ${i} ${field}`).toEqual(nodes[i]![field]);
          expect(list.node(i), at).toEqual(nodes[i]);
          expect(list.node(i), at).toBe(list.node(i));
        }
        expect(list.toArray(), at).toEqual(nodes);
        expect(list.toArray()[1], at).toBe(list.node(1));
        expect(() => list.node(nodes.length), at).toThrow(RangeError);
        const indexed = indexNodeList(list);
        const fromObjects = indexNodes(nodes);
        expect([...indexed.indexOf], at).toEqual([...fromObjects.indexOf]);
        expect(indexed.parent, at).toEqual(fromObjects.parent);
        expect(indexed.childStart, at).toEqual(fromObjects.childStart);
        expect(indexed.childList, at).toEqual(fromObjects.childList);
      }
    }
  });

  it("knows its shape by position as columns, not as objects; only the wire text is sent as it is", () => {
    const index = readSession(generateSession({ seed: 86 }).text);
    const nodes = treeNodeViews(index, inMemoryEntryReader(index));
    const [objects, columns, text] = listsOf(nodes).map(({ list }) => list) as [
      SessionNodes,
      SessionNodes,
      SessionNodes,
    ];
    expect(objects.parent).toBeNull();
    expect(objects.derivedShape).toBe(false);
    expect(columns.derivedShape).toBe(true);
    expect(columns.parent).toEqual(indexNodes(nodes).parent);
    expect(text.derivedShape).toBe(true);
    expect(objects.wireJson).toBeNull();
    expect(columns.wireJson).toBeNull();
    expect(text.wireJson).toBe(JSON.stringify(encodeNodes(nodes)));
  });

  it("applying a delta to a view of columns gives objects; nodes the delta does not name are the ones the columns made", () => {
    const text = generateSession({ seed: 87, entryCount: 300 }).text;
    const lines = text.split("\n");
    const before = sessionViewOf("s", readSession(lines.slice(0, 250).join("\n")));
    const after = sessionViewOf("s", readSession(text));
    const columns = {
      ...before,
      nodes: new NodeTable(JSON.parse(JSON.stringify(encodeNodes(before.nodes.toArray())))),
    };
    const delta = diffSessionViews(before, after);
    expect(delta.added.length).toBeGreaterThan(0);
    const applied = applySessionDelta(columns, delta);
    expect(plainView(applied)).toEqual(plainView(after));
    expect(applied.nodes.wireJson).toBeNull();
    const named = new Set([...delta.added, ...delta.changed].map((node) => node.id));
    let kept = 0;
    for (const node of applied.nodes.toArray()) {
      if (named.has(node.id)) continue;
      expect(node).toBe(columns.nodes.node(columns.nodes.ids.indexOf(node.id)));
      kept++;
    }
    expect(kept).toBeGreaterThan(100);
  });
});
