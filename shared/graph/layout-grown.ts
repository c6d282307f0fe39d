/**
 * The layout grown by an append instead of laid out again: when the graph
 * grew by folding again only a region at one of its ends (chains-grown.ts),
 * and that region is one line (each of its nodes the single child of the
 * one before, nothing old below it), its nodes continue the row of its top,
 * which keeps the place of the node it replaces; every other node keeps its
 * place (rows are kept by the first entry a node shows, see layout.ts). The
 * result equals `layoutGraph(graph, options, previous)`. Anything else (a
 * new branch, a region with old branches below it) returns null, for the
 * caller to lay the whole graph out.
 */

import type { GraphNode } from "./chains.ts";
import type { GrownGraph } from "./folded-graph.ts";
import { LayeredMap } from "./layered-map.ts";
import type { Layout, LayoutOptions, Position } from "./layout.ts";

/** The entry a graph node is known by across layouts (as layout.ts keys rows). */
function keyOf(node: GraphNode): string {
  return node.kind === "chain" ? (node.entryIds[0] ?? node.id) : node.entryId;
}

/**
 * `layoutGraph(graph, options, previous)` grown from `previous`, the layout
 * of the graph `graph` grew from (`graph.change.from`); null when it cannot be.
 */
export function growLayout(previous: Layout, graph: GrownGraph, options: LayoutOptions): Layout | null {
  const { removed, added } = graph.change;
  const top = added[0];
  const oldTop = removed[0];
  if (top === undefined || oldTop === undefined) return null;
  // The top takes the place of the node it replaces: the same first entry, the same parent.
  if (keyOf(top) !== keyOf(oldTop) || top.parent !== oldTop.parent) return null;
  const at = previous.positions.get(oldTop.id);
  if (at === undefined) return null;
  const lr = options.direction === "LR";
  const stepX = options.nodeWidth + options.gapX;
  const stepY = options.nodeHeight + options.gapY;
  const columnOf = (position: Position) => Math.round(lr ? position.x / stepX : position.y / stepY);
  const row = previous.rows.get(keyOf(oldTop));
  if (row === undefined) return null;
  // One line down from the top: each node's only child is the next, which has no row of its own yet.
  for (let k = 0; k < added.length; k++) {
    const node = added[k]!;
    const next = added[k + 1];
    if (node.children.length !== (next === undefined ? 0 : 1)) return null;
    if (next === undefined) break;
    if (node.children[0] !== next.id || next.parent !== node.id) return null;
    const remembered = previous.rows.get(keyOf(next));
    if (remembered !== undefined && remembered !== row) return null;
  }
  const topColumn = columnOf(at);
  const stepAcross = lr ? stepX : stepY;
  const oldMaxColumn = Math.round((lr ? previous.width : previous.height) / stepAcross) - 1;
  const lastColumn = topColumn + added.length - 1;
  // The widest column may be one the removed nodes alone held: then only a whole pass knows the new width.
  let removedMax = -1;
  for (const node of removed) {
    const position = previous.positions.get(node.id);
    if (position === undefined) return null;
    removedMax = Math.max(removedMax, columnOf(position));
  }
  if (removedMax === oldMaxColumn && lastColumn < oldMaxColumn) return null;
  // Grown by version, not copied: an append costs what it added (layered-map.ts).
  const placed = added.map((node, k): [string, Position] => {
    const column = topColumn + k;
    return [node.id, lr ? { x: column * stepX, y: row * stepY } : { x: row * stepX, y: column * stepY }];
  });
  const positions = LayeredMap.changed(
    previous.positions,
    removed.map((node) => node.id),
    placed,
  );
  const rows = LayeredMap.changed(
    previous.rows,
    [],
    added.map((node): [string, number] => [keyOf(node), row]),
  );
  const across = (Math.max(oldMaxColumn, lastColumn) + 1) * stepAcross;
  return lr
    ? { positions, width: across, height: previous.height, rows }
    : { positions, width: previous.width, height: across, rows };
}
