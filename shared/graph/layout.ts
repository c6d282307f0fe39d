/**
 * Tree layout as a pure, linear-time function: positions as data. Each node
 * sits one column right of its parent (a row down, top-down); a parent lines
 * up with its first child, and each further branch opens the next free row.
 * With the branch holding the leaf ordered first, the current path is one
 * straight line, and appending to a branch never moves what is already drawn
 * above it. Iterative, so depth is no limit.
 */

import type { FoldedGraph } from "./chains.ts";

export type LayoutDirection = "LR" | "TB";

export interface LayoutOptions {
  direction: LayoutDirection;
  nodeWidth: number;
  nodeHeight: number;
  gapX: number;
  gapY: number;
}

export const DEFAULT_LAYOUT: LayoutOptions = {
  direction: "LR",
  nodeWidth: 240,
  nodeHeight: 64,
  gapX: 48,
  gapY: 20,
};

export interface Position {
  x: number;
  y: number;
}

export interface Layout {
  positions: Map<string, Position>;
  /** Extent of the drawing. */
  width: number;
  height: number;
}

export function layoutGraph(graph: FoldedGraph, options: LayoutOptions = DEFAULT_LAYOUT): Layout {
  const column = new Map<string, number>();
  const row = new Map<string, number>();
  let nextRow = 0;
  let maxColumn = 0;
  // Depth-first in graph order: a node takes its first descendant leaf's row; leaves take new rows.
  const stack: { id: string; depth: number; entered: boolean }[] = [];
  for (let i = graph.roots.length - 1; i >= 0; i--)
    stack.push({ id: graph.roots[i]!, depth: 0, entered: false });
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    const node = graph.byId.get(frame.id)!;
    if (!frame.entered) {
      frame.entered = true;
      column.set(frame.id, frame.depth);
      if (frame.depth > maxColumn) maxColumn = frame.depth;
      if (node.children.length === 0) {
        row.set(frame.id, nextRow++);
        stack.pop();
        continue;
      }
      for (let i = node.children.length - 1; i >= 0; i--) {
        stack.push({ id: node.children[i]!, depth: frame.depth + 1, entered: false });
      }
      continue;
    }
    row.set(frame.id, row.get(node.children[0]!)!);
    stack.pop();
  }
  const stepX = options.nodeWidth + options.gapX;
  const stepY = options.nodeHeight + options.gapY;
  const positions = new Map<string, Position>();
  for (const [id, c] of column) {
    const r = row.get(id)!;
    positions.set(
      id,
      options.direction === "LR" ? { x: c * stepX, y: r * stepY } : { x: r * stepX, y: c * stepY },
    );
  }
  const across = (maxColumn + 1) * (options.direction === "LR" ? stepX : stepY);
  const down = nextRow * (options.direction === "LR" ? stepY : stepX);
  return options.direction === "LR"
    ? { positions, width: across, height: down }
    : { positions, width: down, height: across };
}

/** The zoom out React Flow allows on its own; a graph too large to fit at it lowers it (`minZoomFor`). */
export const BASE_MIN_ZOOM = 0.05;

/**
 * The smallest zoom the graph view allows: BASE_MIN_ZOOM, or lower when the
 * whole layout (with `padding` around it, as Fit adds) would not fit the view
 * at that zoom, so that Fit always shows everything.
 */
export function minZoomFor(
  layout: { width: number; height: number },
  view: { width: number; height: number },
  padding = 0.1,
): number {
  if (layout.width <= 0 || layout.height <= 0 || view.width <= 0 || view.height <= 0) return BASE_MIN_ZOOM;
  const fits = Math.min(
    view.width / (layout.width * (1 + padding)),
    view.height / (layout.height * (1 + padding)),
  );
  return Math.min(BASE_MIN_ZOOM, fits);
}
