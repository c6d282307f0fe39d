/**
 * React Flow nodes and edges from the graph model. Every node gets its
 * size and its handles up front, so React Flow draws edges without
 * measuring anything and `onlyRenderVisibleElements` can skip what is off
 * screen: a 10k-entry session mounts only the nodes in view. Node data holds
 * the tree node only; selection, cursor, shading and highlights are read
 * per node from the stores.
 */

import { type Edge, type Node, type NodeHandle, Position } from "@xyflow/react";
import type { TreeNodeView } from "../../../shared/ipc/contract.ts";
import type { GraphNode, LayoutDirection } from "../../../shared/graph/index.ts";
import { type GraphModel, NODE_HEIGHT, NODE_WIDTH, type PathIds } from "../state/graph-model.ts";

export type EntryFlowNode = Node<{ node: TreeNodeView }, "entry">;
export type ChainFlowNode = Node<
  { entryIds: readonly string[]; first: TreeNodeView; last: TreeNodeView },
  "chain"
>;
export type FlowNode = EntryFlowNode | ChainFlowNode;

const HANDLE = 6;
const NODE_SIZE = { width: NODE_WIDTH, height: NODE_HEIGHT };

export function handlesFor(direction: LayoutDirection): NodeHandle[] {
  const half = HANDLE / 2;
  return direction === "LR"
    ? [
        {
          type: "target",
          position: Position.Left,
          x: -half,
          y: NODE_HEIGHT / 2 - half,
          width: HANDLE,
          height: HANDLE,
        },
        {
          type: "source",
          position: Position.Right,
          x: NODE_WIDTH - half,
          y: NODE_HEIGHT / 2 - half,
          width: HANDLE,
          height: HANDLE,
        },
      ]
    : [
        {
          type: "target",
          position: Position.Top,
          x: NODE_WIDTH / 2 - half,
          y: -half,
          width: HANDLE,
          height: HANDLE,
        },
        {
          type: "source",
          position: Position.Bottom,
          x: NODE_WIDTH / 2 - half,
          y: NODE_HEIGHT - half,
          width: HANDLE,
          height: HANDLE,
        },
      ];
}

/**
 * The flow node last made for each graph node (kept by a graph grown by
 * appends): made again only when its place, its direction or its entries'
 * views changed, so React Flow re-adopts only the nodes an append touched.
 */
const madeNodes = new WeakMap<GraphNode, { node: FlowNode; direction: LayoutDirection }>();

function sameNode(
  made: FlowNode,
  position: { x: number; y: number },
  model: GraphModel,
  graphNode: GraphNode,
) {
  if (made.position.x !== position.x || made.position.y !== position.y) return false;
  if (graphNode.kind === "entry") {
    return made.type === "entry" && made.data.node === model.nodesById.get(graphNode.entryId);
  }
  return (
    made.type === "chain" &&
    made.data.entryIds === graphNode.entryIds &&
    made.data.first === model.nodesById.get(graphNode.entryIds[0]!) &&
    made.data.last === model.nodesById.get(graphNode.entryIds[graphNode.entryIds.length - 1]!)
  );
}

/**
 * React Flow's nodes: every graph node, or with `area` those whose box meets
 * it and the two ends of each edge near it (React Flow draws an edge only
 * between nodes it has). React Flow adopts every node it is given at each
 * change (an append), so on a large graph it gets the ones near the view.
 */
export function flowNodes(
  model: GraphModel,
  direction: LayoutDirection,
  area: FlowArea | null = null,
): FlowNode[] {
  const handles = handlesFor(direction);
  const sourcePosition = direction === "LR" ? Position.Right : Position.Bottom;
  const targetPosition = direction === "LR" ? Position.Left : Position.Top;
  const ends = new Set<string>();
  if (area !== null) for (const { off } of pairsNear(model, area)) ends.add(off.source).add(off.target);
  const nodes: FlowNode[] = [];
  for (const graphNode of model.graph.nodes) {
    const position = model.layout.positions.get(graphNode.id)!;
    if (area !== null && !meets(position, area) && !ends.has(graphNode.id)) continue;
    const made = madeNodes.get(graphNode);
    if (made && made.direction === direction && sameNode(made.node, position, model, graphNode)) {
      nodes.push(made.node);
      continue;
    }
    const common = {
      id: graphNode.id,
      position,
      width: NODE_WIDTH,
      height: NODE_HEIGHT,
      // Told as measured too: React Flow measures a node it first draws unless its size is known, and each
      // measure is a change of its store (the edges drawn again) in the frame a live append's node appears.
      measured: NODE_SIZE,
      handles,
      sourcePosition,
      targetPosition,
    };
    const node: FlowNode =
      graphNode.kind === "entry"
        ? { ...common, type: "entry", data: { node: model.nodesById.get(graphNode.entryId)! } }
        : {
            ...common,
            type: "chain",
            data: {
              entryIds: graphNode.entryIds,
              first: model.nodesById.get(graphNode.entryIds[0]!)!,
              last: model.nodesById.get(graphNode.entryIds[graphNode.entryIds.length - 1]!)!,
            },
          };
    madeNodes.set(graphNode, { node, direction });
    nodes.push(node);
  }
  return nodes;
}

/** Each graph node's incoming edge, off and on the selected path: made once per model. */
interface EdgePair {
  first: string;
  off: Edge;
  on: Edge;
}

const edgePairs = new WeakMap<GraphModel, EdgePair[]>();
/** Each graph node's pair, kept while its parent is the same (a graph grown by appends keeps most nodes). */
const madePairs = new WeakMap<GraphNode, EdgePair>();

function edgePairsOf(model: GraphModel): EdgePair[] {
  let pairs = edgePairs.get(model);
  if (pairs) return pairs;
  pairs = [];
  for (const graphNode of model.graph.nodes) {
    if (graphNode.parent === null) continue;
    const made = madePairs.get(graphNode);
    if (made && made.off.source === graphNode.parent) {
      pairs.push(made);
      continue;
    }
    const off: Edge = {
      id: `${graphNode.parent}->${graphNode.id}`,
      source: graphNode.parent,
      target: graphNode.id,
      type: "smoothstep",
      zIndex: 0,
      focusable: false,
      selectable: false,
    };
    const pair = {
      first: graphNode.kind === "entry" ? graphNode.entryId : graphNode.entryIds[0]!,
      off,
      on: { ...off, className: "on-path", zIndex: 1 },
    };
    madePairs.set(graphNode, pair);
    pairs.push(pair);
  }
  edgePairs.set(model, pairs);
  return pairs;
}

/**
 * Edges; the ones into a node on the selected path are marked (a chain is on it when its first
 * entry is). A new selection only swaps the edge objects whose state changed, so React Flow
 * re-renders those edges and not the other thousands.
 */
export function flowEdges(model: GraphModel, path: PathIds, area: FlowArea | null = null): Edge[] {
  const pairs = area === null ? edgePairsOf(model) : pairsNear(model, area);
  return pairs.map((pair) => (path.has(pair.first) ? pair.on : pair.off));
}

/** The edges whose path can cross `area`: the box of their two nodes meets it. */
function pairsNear(model: GraphModel, area: FlowArea): EdgePair[] {
  const positions = model.layout.positions;
  const [left, top] = [area.x, area.y];
  const [right, bottom] = [area.x + area.width, area.y + area.height];
  return edgePairsOf(model).filter((pair) => {
    const from = positions.get(pair.off.source);
    const to = positions.get(pair.off.target);
    if (!from || !to) return false;
    return (
      Math.max(from.x, to.x) + NODE_WIDTH >= left &&
      Math.min(from.x, to.x) <= right &&
      Math.max(from.y, to.y) + NODE_HEIGHT >= top &&
      Math.min(from.y, to.y) <= bottom
    );
  });
}

/** Whether a node's box at `position` meets `area`. */
function meets(position: { x: number; y: number }, area: FlowArea): boolean {
  return (
    position.x + NODE_WIDTH >= area.x &&
    position.x <= area.x + area.width &&
    position.y + NODE_HEIGHT >= area.y &&
    position.y <= area.y + area.height
  );
}

/** A rectangle in the graph's own coordinates (the layout's). */
export interface FlowArea {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * The part of the graph whose nodes and edges React Flow is given: the view and beyond it, in tiles of about a
 * screen, as a key that changes only when the view crosses a tile or half an octave of zoom. React Flow
 * rebuilds its edge lookups over every edge it gets at each change (an append, a selection): given the
 * edges near the view only, that costs what the view holds, not what the session holds. "" while the view
 * has no size (then every edge).
 */
export function edgeAreaKey(view: {
  transform: [number, number, number];
  width: number;
  height: number;
}): string {
  const [tx, ty, zoom] = view.transform;
  if (view.width <= 0 || view.height <= 0 || zoom <= 0) return "";
  const step = Math.round(Math.log2(zoom) * 2);
  const bucketZoom = 2 ** (step / 2);
  const [tileWidth, tileHeight] = [view.width / bucketZoom, view.height / bucketZoom];
  const [column, row] = [Math.floor(-tx / zoom / tileWidth), Math.floor(-ty / zoom / tileHeight)];
  return `${column} ${row} ${step} ${view.width} ${view.height}`;
}

/**
 * The area of a key: the tile the view starts in, with a tile before it and three after it each way (the
 * view is at most 1.19 tiles wide within its zoom's half octave: a tile of margin on every side).
 */
export function edgeAreaOf(key: string): FlowArea | null {
  if (key === "") return null;
  const [column, row, step, width, height] = key.split(" ").map(Number) as [
    number,
    number,
    number,
    number,
    number,
  ];
  const bucketZoom = 2 ** (step / 2);
  const [tileWidth, tileHeight] = [width / bucketZoom, height / bucketZoom];
  return {
    x: (column - 1) * tileWidth,
    y: (row - 1) * tileHeight,
    width: 5 * tileWidth,
    height: 5 * tileHeight,
  };
}
