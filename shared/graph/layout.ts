/**
 * Tree layout as a pure, linear-time function: positions as data. Each node
 * sits one column right of its parent (a row down, top-down); a parent lines
 * up with its first child, and each further branch opens a row of its own,
 * in depth-first order, the branch holding the leaf first. Iterative, so
 * depth is no limit.
 *
 * Given the rows of the layout before (`previous`), nodes keep them: entries
 * appended (a new branch from an old entry, a leaf moving to another branch)
 * never move a drawn row; a new branch takes a new row below the others. So
 * the current path is one straight line in a fresh layout, not necessarily
 * after the leaf moved. Rows are kept by the first entry a node shows, which
 * a chain keeps while it grows, folds and unfolds; the rows of nodes hidden
 * for now are kept for when they come back.
 */

import type { FoldedGraph, GraphNode } from "./chains.ts";

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
  /** Grown by version after appends (layered-map.ts): never changed in place. */
  positions: ReadonlyMap<string, Position>;
  /** Extent of the drawing. */
  width: number;
  height: number;
  /** Each node's row, by the first entry it shows: what a later layout keeps (`previous`). */
  rows: ReadonlyMap<string, number>;
}

/** The entry a graph node is known by across layouts: itself, or a chain's first (its name). */
function keyOf(node: GraphNode): string {
  return node.kind === "chain" ? (node.entryIds[0] ?? node.id) : node.entryId;
}

export function layoutGraph(
  graph: FoldedGraph,
  options: LayoutOptions = DEFAULT_LAYOUT,
  previous?: Pick<Layout, "rows">,
): Layout {
  const remembered = previous?.rows;
  const column = new Map<string, number>();
  /** Rows as assigned: remembered ones as they were, new ones after every remembered row. */
  const row = new Map<string, number>();
  let highestRemembered = -1;
  if (remembered)
    for (const value of remembered.values()) highestRemembered = Math.max(highestRemembered, value);
  let nextNewRow = highestRemembered + 1;
  const taken = new Set<number>();
  let lowestRow = -1;
  let maxColumn = 0;
  /** A remembered row this node may have again (not one another branch already holds). */
  const rememberedRow = (node: GraphNode): number | undefined => {
    const value = remembered?.get(keyOf(node));
    return value !== undefined && !taken.has(value) ? value : undefined;
  };
  // Depth-first, pre-order: a node's row is fixed when it is reached, so new rows come in depth-first order.
  const stack: { id: string; depth: number; inherited: number | null }[] = [];
  for (let i = graph.roots.length - 1; i >= 0; i--)
    stack.push({ id: graph.roots[i]!, depth: 0, inherited: null });
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const node = graph.byId.get(frame.id)!;
    let own = frame.inherited;
    if (own === null) {
      own = rememberedRow(node) ?? nextNewRow++;
      taken.add(own);
      if (own > lowestRow) lowestRow = own;
    }
    row.set(frame.id, own);
    column.set(frame.id, frame.depth);
    if (frame.depth > maxColumn) maxColumn = frame.depth;
    const children = node.children;
    if (children.length === 0) continue;
    // The child that continues this row: the one that had it, else the first without a row of its own
    // (without rows before: the first child).
    let heir = -1;
    let firstNew = -1;
    for (let i = 0; i < children.length; i++) {
      const value = remembered?.get(keyOf(graph.byId.get(children[i]!)!));
      if (value === own) {
        heir = i;
        break;
      }
      if (firstNew === -1 && (value === undefined || taken.has(value))) firstNew = i;
    }
    if (heir === -1) heir = firstNew;
    for (let i = children.length - 1; i >= 0; i--) {
      stack.push({ id: children[i]!, depth: frame.depth + 1, inherited: i === heir ? own : null });
    }
  }
  const stepX = options.nodeWidth + options.gapX;
  const stepY = options.nodeHeight + options.gapY;
  const positions = new Map<string, Position>();
  // Nodes not drawn now (folded away, hidden by a search) keep their rows for when they come back: a row
  // left empty stays so rather than move the rows below it.
  const rows = new Map<string, number>(remembered ?? []);
  for (const [id, c] of column) {
    const r = row.get(id)!;
    rows.set(keyOf(graph.byId.get(id)!), r);
    positions.set(
      id,
      options.direction === "LR" ? { x: c * stepX, y: r * stepY } : { x: r * stepX, y: c * stepY },
    );
  }
  const across = (maxColumn + 1) * (options.direction === "LR" ? stepX : stepY);
  const down = (lowestRow + 1) * (options.direction === "LR" ? stepY : stepX);
  return options.direction === "LR"
    ? { positions, width: across, height: down, rows }
    : { positions, width: down, height: across, rows };
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
  return Math.min(BASE_MIN_ZOOM, fitZoom(layout, view, padding));
}

/** The zoom at which `extent`, with `padding` around it, just fits `view` (as React Flow's fitBounds). */
export function fitZoom(
  extent: { width: number; height: number },
  view: { width: number; height: number },
  padding = 0.1,
): number {
  return Math.min(view.width / (extent.width * (1 + padding)), view.height / (extent.height * (1 + padding)));
}
