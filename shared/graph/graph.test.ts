/**
 * The graph maths: Pi's `/tree` filter (Pi 1.6's own tree selector is the
 * oracle: same visible entries, same order, same visible parents), chain
 * folding and the layout.
 */

import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { inMemoryEntryReader, readSession } from "../session/index.ts";
import { generateSession } from "../session/testing/generate-session.ts";
import type { SessionIndex } from "../session/tree-index.ts";
import { chainId, foldChains } from "./chains.ts";
import { FILTER_MODES, type FilterableNode, type VisibleTree, visibleTree } from "./filter.ts";
import { indexNodes } from "./indexed-nodes.ts";
import { BASE_MIN_ZOOM, DEFAULT_LAYOUT, minZoomFor } from "./layout.ts";
import { layoutGraph } from "./layout.ts";

const piRoot = new URL("../../node_modules/@earendil-works/pi-coding-agent/dist/", import.meta.url);
interface PiTreeList {
  filterMode: string;
  applyFilter(): void;
  filteredNodes: { node: { entry: { id: string } } }[];
  visibleParentMap: Map<string, string | null>;
}
const { TreeSelectorComponent } = (await import(
  new URL("modes/interactive/components/tree-selector.js", piRoot).href
)) as {
  TreeSelectorComponent: new (...args: unknown[]) => { treeList: PiTreeList };
};
const { initTheme } = (await import(new URL("modes/interactive/theme/theme.js", piRoot).href)) as {
  initTheme: (name: string) => void;
};
const { SessionManager } = (await import(new URL("core/session-manager.js", piRoot).href)) as {
  SessionManager: { open(path: string): { getTree(): unknown[] } };
};
initTheme("dark");

const dir = mkdtempSync(join(tmpdir(), "arbor-graph-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function filterable(index: SessionIndex): Map<string, FilterableNode> {
  const nodes = new Map<string, FilterableNode>();
  const reader = inMemoryEntryReader(index);
  for (const node of index.nodes.values()) {
    const facts = reader.facts(node.id)!;
    nodes.set(node.id, {
      id: node.id,
      parentId: node.parentId,
      children: node.children,
      type: node.entry.type,
      role: facts.role ?? null,
      label: index.labels.get(node.id)?.label ?? null,
      hasText: facts.hasText,
      stopReason: facts.stopReason,
    });
  }
  return nodes;
}

describe("visibleTree, against Pi 1.6's /tree", () => {
  it("shows the same entries in the same order with the same visible parents, in every mode", () => {
    let compared = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const generated = generateSession({ seed, entryCount: 60 });
      const arborPath = join(dir, `${seed}.jsonl`);
      const piPath = join(dir, `${seed}.pi.jsonl`);
      writeFileSync(arborPath, generated.text);
      copyFileSync(arborPath, piPath);
      const index = readSession(generated.text);
      const nodes = filterable(index);
      // The same nodes depth-first, as the renderer holds them: read without id lookups.
      const depthFirst = indexNodes(depthFirstList(nodes, index.roots));
      const tree = SessionManager.open(piPath).getTree();
      const leaves = [index.leafId, ...generated.entryIds.filter((_, i) => i % 9 === 0)];
      for (const leafId of leaves) {
        const pi = new TreeSelectorComponent(
          tree,
          leafId,
          50,
          () => {},
          () => {},
        ).treeList;
        for (const mode of FILTER_MODES) {
          pi.filterMode = mode;
          pi.applyFilter();
          const ours = visibleTree(nodes, index.roots, { mode, leafId });
          const what = `seed ${seed}, leaf ${leafId}, ${mode}`;
          expect(ours.order, what).toEqual(pi.filteredNodes.map((n) => n.node.entry.id));
          for (const id of ours.order)
            expect(ours.parent.get(id) ?? null, `${what}: parent of ${id}`).toBe(
              pi.visibleParentMap.get(id) ?? null,
            );
          expectSameTree(visibleTree(depthFirst, index.roots, { mode, leafId }), ours, what);
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(500);
  });

  it("hides a folded node's descendants and keeps the node", () => {
    const index = readSession(generateSession({ seed: 3, entryCount: 40 }).text);
    const nodes = filterable(index);
    const all = visibleTree(nodes, index.roots, { mode: "all", leafId: index.leafId });
    const folded = all.order[1]!;
    const partial = visibleTree(nodes, index.roots, {
      mode: "all",
      leafId: index.leafId,
      folded: new Set([folded]),
    });
    expect(partial.order).toContain(folded);
    expect(partial.children.get(folded)).toEqual([]);
  });

  it("hides a hidden branch (an archived one) whole, in every mode, by position in the indexed list", () => {
    const index = readSession(generateSession({ seed: 5, entryCount: 60 }).text);
    const indexed = indexNodes([...filterable(index).values()]);
    const all = visibleTree(indexed, index.roots, { mode: "all", leafId: index.leafId });
    const top = all.order[3]!;
    const below = new Set<string>();
    for (const stack = [top]; stack.length > 0; ) {
      const id = stack.pop()!;
      below.add(id);
      stack.push(...(all.children.get(id) ?? []));
    }
    const hidden = indexed.indexOf.get(top)!;
    for (const mode of FILTER_MODES) {
      const shown = visibleTree(indexed, index.roots, { mode, leafId: index.leafId });
      const without = visibleTree(indexed, index.roots, {
        mode,
        leafId: index.leafId,
        hiddenBranch: (i) => i === hidden,
      });
      expect(without.order, mode).toEqual(shown.order.filter((id) => !below.has(id)));
    }
  });
});

function depthFirstList(
  nodes: ReadonlyMap<string, FilterableNode>,
  roots: readonly string[],
): FilterableNode[] {
  const list: FilterableNode[] = [];
  const stack = [...roots].reverse();
  while (stack.length > 0) {
    const node = nodes.get(stack.pop()!)!;
    list.push(node);
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
  }
  return list;
}

/** Same order, and the same parent, children and position for every node either tree might be asked about. */
function expectSameTree(actual: VisibleTree, expected: VisibleTree, what: string, ids = expected.order) {
  expect(actual.order, what).toEqual(expected.order);
  expect(actual.roots, what).toEqual(expected.roots);
  for (const id of ids) {
    expect(actual.parent.get(id), `${what}: parent of ${id}`).toEqual(expected.parent.get(id));
    expect(actual.children.get(id), `${what}: children of ${id}`).toEqual(expected.children.get(id));
    expect(actual.position.get(id), `${what}: position of ${id}`).toEqual(expected.position.get(id));
    expect(actual.childCount(id), `${what}: child count of ${id}`).toBe(
      expected.children.get(id)?.length ?? 0,
    );
  }
}

describe("indexNodes", () => {
  const node = (id: string, parentId: string | null, children: string[]): FilterableNode => ({
    id,
    parentId,
    children,
    type: "message",
    role: "user",
    label: null,
    hasText: true,
    stopReason: null,
  });
  // r ─ a ─ a1
  //   └ b ─ b1 ─ b2
  const tree = [
    node("r", null, ["a", "b"]),
    node("a", "r", ["a1"]),
    node("a1", "a", []),
    node("b", "r", ["b1"]),
    node("b1", "b", ["b2"]),
    node("b2", "b1", []),
  ];
  const shape = (list: FilterableNode[]) => {
    const indexed = indexNodes(list);
    const idOf = (i: number) => list[i]!.id;
    return Object.fromEntries(
      list.map((n, i) => [
        n.id,
        {
          parent: indexed.parent[i] === -1 ? null : idOf(indexed.parent[i]!),
          children: [...indexed.childList.subarray(indexed.childStart[i]!, indexed.childStart[i + 1]!)].map(
            idOf,
          ),
        },
      ]),
    );
  };

  it("reads parents and children the same from a depth-first list and from any other order", () => {
    const expected = shape(tree);
    expect(expected.r).toEqual({ parent: null, children: ["a", "b"] });
    expect(expected.b1).toEqual({ parent: "b", children: ["b2"] });
    const shuffled = [tree[5]!, tree[2]!, tree[3]!, tree[0]!, tree[4]!, tree[1]!];
    expect(shape(shuffled)).toEqual(expected);
    // Children listed in another order than the list's: the children lists win.
    const swapped = tree.map((n) => (n.id === "r" ? { ...n, children: ["b", "a"] } : n));
    expect(shape(swapped).r).toEqual({ parent: null, children: ["b", "a"] });
  });

  it("skips children and parents that are not in the list", () => {
    const partial = [node("r", null, ["a", "gone"]), node("a", "r", []), node("orphan", "missing", [])];
    expect(shape(partial)).toEqual({
      r: { parent: null, children: ["a"] },
      a: { parent: "r", children: [] },
      orphan: { parent: null, children: [] },
    });
  });

  it("gives the filter the same tree from a map, a depth-first list and a shuffled list", () => {
    const index = readSession(generateSession({ seed: 11, entryCount: 300 }).text);
    const nodes = filterable(index);
    const list = depthFirstList(nodes, index.roots);
    const reversed = indexNodes([...list].reverse());
    const ids = [...nodes.keys()];
    for (const mode of FILTER_MODES) {
      for (const leafId of [index.leafId, ids[40]!, ids[200]!]) {
        const options = { mode, leafId, folded: new Set([ids[10]!]) };
        const fromMap = visibleTree(nodes, index.roots, options);
        expectSameTree(
          visibleTree(indexNodes(list), index.roots, options),
          fromMap,
          `${mode} ${leafId}`,
          ids,
        );
        expectSameTree(
          visibleTree(reversed, index.roots, options),
          fromMap,
          `${mode} ${leafId} reversed`,
          ids,
        );
      }
    }
  });

  it("ends the active path at a parent cycle in an inconsistent list", () => {
    const cyclic = [node("a", "b", []), node("b", "a", [])];
    const tree = visibleTree(indexNodes(cyclic), [], { mode: "all", leafId: "a" });
    expect(tree.order).toEqual([]);
  });
});

function chainTree(length: number, branchAt: number | null) {
  // A chain e0..e(length-1); optionally a second child at branchAt.
  const nodes = new Map<string, FilterableNode>();
  const make = (id: string, parentId: string | null) => {
    nodes.set(id, {
      id,
      parentId,
      children: [],
      type: "message",
      role: "user",
      label: null,
      hasText: true,
      stopReason: null,
    });
    if (parentId) (nodes.get(parentId)!.children as string[]).push(id);
  };
  for (let i = 0; i < length; i++) make(`e${i}`, i === 0 ? null : `e${i - 1}`);
  if (branchAt !== null) make("b0", `e${branchAt}`);
  return nodes;
}

describe("foldChains and layoutGraph", () => {
  it("folds linear runs, keeps branch points, labels and the leaf, and names a chain by its first entry", () => {
    const nodes = chainTree(10, 4);
    const tree = visibleTree(nodes, ["e0"], { mode: "all", leafId: "e9" });
    const graph = foldChains(tree, { keep: (id) => id === "e9" || id === "e2" });
    const shape = graph.nodes.map((n) => (n.kind === "chain" ? `[${n.entryIds.join(",")}]` : n.entryId));
    // e2 kept (labelled); e4 branches; e9 is the leaf; b0 alone is too short to fold.
    expect(shape).toEqual(["e0", "e1", "e2", "e3", "e4", "[e5,e6,e7,e8]", "e9", "b0"]);
    expect(graph.nodeOfEntry.get("e7")).toBe(chainId("e5"));
    const expanded = foldChains(tree, { keep: (id) => id === "e9", expanded: new Set([chainId("e5")]) });
    expect(expanded.nodes.map((n) => n.id)).toContain("e6");
  });

  it("keeps a chain's id and every earlier position when entries are appended", () => {
    const before = chainTree(20, 3);
    const after = chainTree(25, 3);
    const layout = (nodes: Map<string, FilterableNode>, leaf: string) => {
      const tree = visibleTree(nodes, ["e0"], { mode: "all", leafId: leaf });
      const graph = foldChains(tree, { keep: (id) => id === leaf });
      return { graph, positions: layoutGraph(graph).positions };
    };
    const a = layout(before, "e19");
    const b = layout(after, "e24");
    for (const [id, position] of a.positions) {
      if (id === "e19") continue; // the old leaf now sits inside the longer chain
      expect(b.positions.get(id), id).toEqual(position);
    }
  });

  it("given the rows before, moves nothing drawn when Pi continues an older branch or starts a new one", () => {
    const nodes = chainTree(12, 2);
    const add = (id: string, parentId: string) => {
      nodes.set(id, { ...nodes.get("b0")!, id, parentId, children: [] });
      (nodes.get(parentId)!.children as string[]).push(id);
    };
    const layout = (leaf: string, previous?: Parameters<typeof layoutGraph>[2]) => {
      const tree = visibleTree(nodes, ["e0"], { mode: "all", leafId: leaf });
      const graph = foldChains(tree, { keep: (id) => id === leaf });
      return layoutGraph(graph, DEFAULT_LAYOUT, previous);
    };
    const first = layout("e11");
    const mainRow = first.positions.get("e0")!.y;
    expect(first.positions.get("b0")!.y).toBeGreaterThan(mainRow);
    // Pi goes back to b0's branch and continues it: the leaf moves there.
    add("b1", "b0");
    const fresh = layout("b1");
    // Laid out afresh, the new leaf's branch would come first: rows swap.
    expect(fresh.positions.get("b0")!.y).toBe(mainRow);
    const kept = layout("b1", first);
    for (const [id, position] of first.positions) {
      if (id === "e11") continue; // the old leaf now folds into the chain before it
      expect(kept.positions.get(id), id).toEqual(position);
    }
    expect(kept.positions.get("b1")!.y).toBe(first.positions.get("b0")!.y);
    // A new branch from an early entry opens a row below every other.
    add("c0", "e1");
    const branched = layout("c0", kept);
    for (const [id, position] of kept.positions) {
      // e1 now branches: the chain it was in is cut there, its pieces stay on their row.
      if (branched.positions.has(id)) expect(branched.positions.get(id)!.y, id).toBe(position.y);
    }
    const rows = [...branched.positions.values()].map((position) => position.y);
    expect(branched.positions.get("c0")!.y).toBe(Math.max(...rows));
    expect(branched.height).toBe(3 * (DEFAULT_LAYOUT.nodeHeight + DEFAULT_LAYOUT.gapY));
  });

  it("given the rows before, a branch folded and unfolded comes back to its own rows", () => {
    // e0..e7, b0 from e2 with a side branch x0 from b0's child b1, and c0 from e4.
    const nodes = chainTree(8, 2);
    const add = (id: string, parentId: string) => {
      nodes.set(id, { ...nodes.get("b0")!, id, parentId, children: [] });
      (nodes.get(parentId)!.children as string[]).push(id);
    };
    add("b1", "b0");
    add("b2", "b1");
    add("x0", "b1");
    add("c0", "e4");
    const layout = (folded: Set<string>, previous?: Parameters<typeof layoutGraph>[2]) => {
      const tree = visibleTree(nodes, ["e0"], { mode: "all", leafId: "e7", folded });
      return layoutGraph(foldChains(tree, { keep: () => true }), DEFAULT_LAYOUT, previous);
    };
    const first = layout(new Set());
    const foldedLayout = layout(new Set(["b0"]), first);
    // Folded away, b1 and x0's rows stay empty: c0 keeps its row.
    expect(foldedLayout.positions.has("x0")).toBe(false);
    expect(foldedLayout.positions.get("c0")).toEqual(first.positions.get("c0"));
    const unfolded = layout(new Set(), foldedLayout);
    expect([...unfolded.positions]).toEqual([...first.positions]);
  });

  it("lays out 100k entries in linear time without deep recursion", () => {
    const nodes = chainTree(100_000, 50_000);
    const started = performance.now();
    const tree = visibleTree(nodes, ["e0"], { mode: "all", leafId: "e99999" });
    const graph = foldChains(tree, { keep: (id) => id === "e99999" });
    const { positions } = layoutGraph(graph, {
      direction: "TB",
      nodeWidth: 100,
      nodeHeight: 40,
      gapX: 10,
      gapY: 10,
    });
    expect(graph.nodes.length).toBeLessThan(10);
    expect(positions.size).toBe(graph.nodes.length);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it("puts the current path on one line: a parent sits on its first child's row", () => {
    const nodes = chainTree(6, 2);
    const tree = visibleTree(nodes, ["e0"], { mode: "all", leafId: "b0" });
    const graph = foldChains(tree, { keep: () => true });
    const { positions } = layoutGraph(graph);
    // The leaf's branch (b0) comes first, so e0..e2 and b0 share a row; e3.. opens the next.
    expect(positions.get("b0")!.y).toBe(positions.get("e0")!.y);
    expect(positions.get("e3")!.y).toBeGreaterThan(positions.get("e0")!.y);
  });
});

describe("minZoomFor", () => {
  it("keeps the usual limit unless the layout would not fit at it; then Fit's zoom", () => {
    const view = { width: 800, height: 600 };
    expect(minZoomFor({ width: 2_000, height: 500 }, view)).toBe(BASE_MIN_ZOOM);
    // A 1,000-node chain: 300,000 px wide.
    const zoom = minZoomFor({ width: 300_000, height: 64 }, view);
    expect(zoom).toBeCloseTo(800 / (300_000 * 1.1), 10);
    expect(300_000 * 1.1 * zoom).toBeLessThanOrEqual(800 + 1e-9);
    // Tall (top-down) the same way; nothing measured yet: the usual limit.
    expect(minZoomFor({ width: 240, height: 1_000_000 }, view)).toBeCloseTo(600 / 1_100_000, 10);
    expect(minZoomFor({ width: 300_000, height: 64 }, { width: 0, height: 0 })).toBe(BASE_MIN_ZOOM);
  });
});
