/**
 * The viewport index against brute force: every query visits exactly the
 * boxes a linear scan finds, once each, over real layouts (a wide fan and a
 * deep tree), random boxes and degenerate inputs; and the nearest box.
 */

import { describe, expect, it } from "vitest";
import type { FoldedGraph, GraphNode } from "./chains.ts";
import { DEFAULT_LAYOUT, layoutGraph } from "./layout.ts";
import { Rng } from "../session/testing/generate-session.ts";
import { type Box, createBoxIndex, type Point, viewportRect } from "./viewport-index.ts";

/** A deterministic pseudo-random generator (the session generator's). */
function random(seed: number): () => number {
  const rng = new Rng(seed);
  return () => rng.next();
}

function bruteForce(boxes: readonly Box[], rect: Box): number[] {
  const found: number[] = [];
  boxes.forEach((box, i) => {
    if (
      box.x <= rect.x + rect.width &&
      box.x + box.width >= rect.x &&
      box.y <= rect.y + rect.height &&
      box.y + box.height >= rect.y
    )
      found.push(i);
  });
  return found;
}

function queried(index: ReturnType<typeof createBoxIndex>, rect: Box): number[] {
  const found: number[] = [];
  const count = index.query(rect, (i) => found.push(i));
  expect(count).toBe(found.length);
  return found.sort((a, b) => a - b);
}

/** A root with `rows` children, each the start of a line of `columns` nodes (the e2e "grid" session's shape). */
function gridGraph(rows: number, columns: number): FoldedGraph {
  const nodes: GraphNode[] = [];
  const byId = new Map<string, GraphNode>();
  const add = (id: string, parent: string | null) => {
    const node: GraphNode = { kind: "entry", id, entryId: id, parent, children: [] };
    nodes.push(node);
    byId.set(id, node);
    if (parent !== null) byId.get(parent)!.children.push(id);
  };
  add("root", null);
  for (let r = 0; r < rows; r++) {
    let parent = "root";
    for (let c = 0; c < columns; c++) {
      const id = `r${r}c${c}`;
      add(id, parent);
      parent = id;
    }
  }
  return {
    nodes,
    byId,
    nodeOfEntry: new Map(nodes.map((node) => [node.id, node.id])),
    roots: ["root"],
  };
}

function nodeBoxes(graph: FoldedGraph, direction: "LR" | "TB"): { ids: string[]; boxes: Box[] } {
  const layout = layoutGraph(graph, { ...DEFAULT_LAYOUT, direction });
  const ids = graph.nodes.map((node) => node.id);
  const boxes = ids.map((id) => ({
    ...layout.positions.get(id)!,
    width: DEFAULT_LAYOUT.nodeWidth,
    height: DEFAULT_LAYOUT.nodeHeight,
  }));
  return { ids, boxes };
}

/** Each edge's bounding box, parent's right middle to child's left middle (LR). */
function edgeBoxes(graph: FoldedGraph, nodes: Box[]): Box[] {
  const at = new Map(graph.nodes.map((node, i) => [node.id, i]));
  const boxes: Box[] = [];
  for (const node of graph.nodes) {
    if (node.parent === null) continue;
    const from = nodes[at.get(node.parent)!]!;
    const to = nodes[at.get(node.id)!]!;
    const sx = from.x + from.width;
    const sy = from.y + from.height / 2;
    const tx = to.x;
    const ty = to.y + to.height / 2;
    boxes.push({
      x: Math.min(sx, tx),
      y: Math.min(sy, ty),
      width: Math.abs(tx - sx),
      height: Math.abs(ty - sy),
    });
  }
  return boxes;
}

function randomRects(next: () => number, extent: Box, count: number): Box[] {
  const rects: Box[] = [];
  for (let i = 0; i < count; i++) {
    const width = next() * extent.width * 0.4;
    const height = next() * extent.height * 0.4;
    rects.push({
      x: extent.x - extent.width * 0.1 + next() * extent.width * 1.2,
      y: extent.y - extent.height * 0.1 + next() * extent.height * 1.2,
      width,
      height,
    });
  }
  return rects;
}

describe("createBoxIndex", () => {
  it("visits exactly the nodes a linear scan finds in each viewport, both layout directions", () => {
    const graph = gridGraph(40, 25);
    const next = random(7);
    for (const direction of ["LR", "TB"] as const) {
      const { boxes } = nodeBoxes(graph, direction);
      const index = createBoxIndex(boxes, {
        cellWidth: 2 * (DEFAULT_LAYOUT.nodeWidth + DEFAULT_LAYOUT.gapX),
        cellHeight: 2 * (DEFAULT_LAYOUT.nodeHeight + DEFAULT_LAYOUT.gapY),
      });
      expect(index.size).toBe(graph.nodes.length);
      const extent = { x: 0, y: 0, width: 25 * 288 + 288, height: 40 * 84 + 84 };
      const across = direction === "LR" ? extent : { ...extent, width: extent.height, height: extent.width };
      for (const rect of randomRects(next, across, 300)) {
        expect(queried(index, rect), `${direction} ${JSON.stringify(rect)}`).toEqual(bruteForce(boxes, rect));
      }
    }
  });

  it("finds long edges (a wide fan's) crossing a viewport whose ends are both outside it", () => {
    const graph = gridGraph(300, 3);
    const { boxes: nodes } = nodeBoxes(graph, "LR");
    const edges = edgeBoxes(graph, nodes);
    const index = createBoxIndex(edges, { cellWidth: 288, cellHeight: 84 });
    // The gap between the root's column and the next, rows 100 to 110: only the root's fan crosses it.
    const rect = { x: 250, y: 100 * 84, width: 30, height: 10 * 84 };
    const found = queried(index, rect);
    expect(found).toEqual(bruteForce(edges, rect));
    // The edges from the root to rows 100 and beyond (and the one ending in the window).
    expect(found.length).toBe(300 - 100);
    const next = random(11);
    for (const window of randomRects(next, { x: 0, y: 0, width: 4 * 288, height: 300 * 84 }, 200)) {
      expect(queried(index, window)).toEqual(bruteForce(edges, window));
    }
  });

  it("agrees with brute force on random boxes of mixed sizes, whatever the cell size", () => {
    const next = random(3);
    const boxes: Box[] = [];
    for (let i = 0; i < 2000; i++) {
      const big = next() < 0.02;
      boxes.push({
        x: next() * 10_000,
        y: next() * 5_000,
        width: big ? next() * 8_000 : next() * 120,
        height: big ? next() * 4_000 : next() * 60,
      });
    }
    const extent = { x: 0, y: 0, width: 10_000, height: 5_000 };
    // The same boxes given as flat arrays of their sides (subarrays of longer ones, as the overview gives them).
    const sides = {
      x0: new Float64Array(boxes.length + 5).subarray(0, boxes.length),
      y0: new Float64Array(boxes.length + 5).subarray(0, boxes.length),
      x1: new Float64Array(boxes.length + 5).subarray(0, boxes.length),
      y1: new Float64Array(boxes.length + 5).subarray(0, boxes.length),
    };
    boxes.forEach((box, i) => {
      [sides.x0[i], sides.y0[i]] = [box.x, box.y];
      [sides.x1[i], sides.y1[i]] = [box.x + box.width, box.y + box.height];
    });
    for (const options of [{}, { cellWidth: 1, cellHeight: 1 }, { cellWidth: 50_000, cellHeight: 50_000 }]) {
      const index = createBoxIndex(boxes, options);
      const fromSides = createBoxIndex(sides, options);
      expect(fromSides.size).toBe(boxes.length);
      const right = Math.max(...boxes.map((box) => box.x + box.width));
      const bottom = Math.max(...boxes.map((box) => box.y + box.height));
      const [left, top] = [Math.min(...boxes.map((box) => box.x)), Math.min(...boxes.map((box) => box.y))];
      expect(fromSides.bounds).toEqual({ x: left, y: top, width: right - left, height: bottom - top });
      expect(index.bounds).toEqual(fromSides.bounds);
      for (const rect of randomRects(next, extent, 100)) {
        expect(queried(index, rect)).toEqual(bruteForce(boxes, rect));
        expect(queried(fromSides, rect)).toEqual(bruteForce(boxes, rect));
      }
      const point = { x: next() * 10_000, y: next() * 5_000 };
      expect(fromSides.nearest(point, 200)).toBe(index.nearest(point, 200));
    }
  });

  it("handles no boxes, one box, boxes of no size and a query outside everything", () => {
    const empty = createBoxIndex([]);
    expect(queried(empty, { x: -10, y: -10, width: 20, height: 20 })).toEqual([]);
    expect(empty.nearest({ x: 0, y: 0 }, 100)).toBe(-1);
    expect(empty.bounds).toEqual({ x: 0, y: 0, width: 0, height: 0 });
    const one = createBoxIndex([{ x: 5, y: 5, width: 0, height: 0 }]);
    expect(queried(one, { x: 0, y: 0, width: 10, height: 10 })).toEqual([0]);
    expect(queried(one, { x: 6, y: 0, width: 10, height: 10 })).toEqual([]);
    const points = createBoxIndex([
      { x: 0, y: 0, width: 0, height: 0 },
      { x: 0, y: 0, width: 0, height: 0 },
      { x: 100, y: 100, width: 0, height: 0 },
    ]);
    expect(queried(points, { x: -1, y: -1, width: 2, height: 2 })).toEqual([0, 1]);
    expect(queried(points, { x: 1_000, y: 1_000, width: 5, height: 5 })).toEqual([]);
  });

  it("builds in about linear time: 100k nodes in well under a second", () => {
    const graph = gridGraph(500, 200);
    const { boxes } = nodeBoxes(graph, "LR");
    const started = performance.now();
    const index = createBoxIndex(boxes, { cellWidth: 576, cellHeight: 168 });
    const built = performance.now() - started;
    expect(index.size).toBe(100_001);
    expect(built).toBeLessThan(1_000);
    // A screenful at a readable zoom touches a few cells only.
    const screen = viewportRect({ x: -40 * 288, y: -200 * 84, zoom: 1 }, 1600, 900);
    expect(queried(index, screen)).toEqual(bruteForce(boxes, screen));
  });
});

describe("nearest", () => {
  const boxes: Box[] = [
    { x: 0, y: 0, width: 240, height: 64 },
    { x: 288, y: 0, width: 240, height: 64 },
    { x: 0, y: 84, width: 240, height: 64 },
  ];
  const index = createBoxIndex(boxes);
  const cases: [Point, number, number][] = [
    [{ x: 10, y: 10 }, 0, 0],
    [{ x: 300, y: 63 }, 0, 1],
    // In the gap between columns: the nearer box, when within the radius.
    [{ x: 250, y: 30 }, 20, 0],
    [{ x: 280, y: 30 }, 20, 1],
    [{ x: 264, y: 30 }, 5, -1],
    // On the shared edge distance: the lower index wins.
    [{ x: 264, y: 30 }, 24, 0],
    [{ x: 100, y: 74 }, 10, 0],
    [{ x: 100, y: 80 }, 10, 2],
    [{ x: 5_000, y: 5_000 }, 100, -1],
  ];
  for (const [point, radius, expected] of cases) {
    it(`(${point.x}, ${point.y}) within ${radius} is box ${expected}`, () => {
      expect(index.nearest(point, radius)).toBe(expected);
    });
  }
});

describe("viewportRect", () => {
  it("is the flow rectangle a viewport shows: screen = flow * zoom + offset", () => {
    expect(viewportRect({ x: 0, y: 0, zoom: 1 }, 800, 600)).toEqual({ x: 0, y: 0, width: 800, height: 600 });
    expect(viewportRect({ x: 100, y: -50, zoom: 0.5 }, 800, 600)).toEqual({
      x: -200,
      y: 100,
      width: 1600,
      height: 1200,
    });
  });
});
