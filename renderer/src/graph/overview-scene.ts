/**
 * What the zoomed-out overview draws, from the graph model: each graph node's
 * box and colour class, each edge's route, and a viewport index over both
 * (shared/graph), made once per layout and kept while the layout lives.
 * Pure: no DOM, no canvas.
 */

import {
  type Box,
  type BoxIndex,
  type BoxSides,
  boxSides,
  createBoxIndex,
  DEFAULT_LAYOUT,
  type LayoutDirection,
} from "../../../shared/graph/index.ts";
import type { TreeNodeView } from "../../../shared/ipc/contract.ts";
import {
  isKnownEntryType,
  isKnownRole,
  type KnownEntryType,
  type KnownRole,
} from "../../../shared/session/types.ts";
import type { GraphNode } from "../../../shared/graph/index.ts";
import { type GraphModel, NODE_HEIGHT, NODE_WIDTH } from "../state/graph-model.ts";
import { nodeLook } from "./node-look.ts";

/** Colour classes of the overview's nodes, as the minimap and node borders colour kinds. */
export const OVERVIEW_STYLES = [
  "user",
  "assistant",
  "tool",
  "bash",
  "custom",
  "summary",
  "system",
  "settings",
  "error",
  "chain",
] as const;
export type OverviewStyle = (typeof OVERVIEW_STYLES)[number];

/** The overview's colour of each entry type; a message's comes from its role. */
const TYPE_STYLE: Record<KnownEntryType, OverviewStyle | "by-role"> = {
  message: "by-role",
  custom_message: "custom",
  compaction: "summary",
  branch_summary: "summary",
  // Extension state: coloured as the extension's messages are.
  custom: "custom",
  model_change: "settings",
  thinking_level_change: "settings",
  label: "settings",
  session_info: "settings",
  usage: "settings",
  context_edit: "settings",
};

const ROLE_STYLE: Record<KnownRole, OverviewStyle> = {
  user: "user",
  assistant: "assistant",
  toolResult: "tool",
  bashExecution: "bash",
  custom: "custom",
  branchSummary: "summary",
  compactionSummary: "summary",
  system: "system",
};

/** An unknown type, or a message of an unknown role (or none), is coloured as a setting. */
export function overviewStyle(node: TreeNodeView): OverviewStyle {
  if (node.isError || node.stopReason === "aborted") return "error";
  const type = node.type;
  if (!isKnownEntryType(type)) return "settings";
  const style = TYPE_STYLE[type];
  if (style !== "by-role") return style;
  const role = node.role;
  if (!isKnownRole(role)) return "settings";
  return role === "assistant" && node.toolCallsOnly ? "tool" : ROLE_STYLE[role];
}

export interface OverviewScene {
  direction: LayoutDirection;
  /** Graph node ids; a node's item number is its index here (the graph's visible order). */
  ids: readonly string[];
  itemOf: ReadonlyMap<string, number>;
  /** Top-left corners of the nodes, all NODE_WIDTH x NODE_HEIGHT. */
  x: Float64Array;
  y: Float64Array;
  /** Index into OVERVIEW_STYLES. */
  style: Uint8Array;
  /** The entry whose state a node shows: itself, or a chain's first entry (as the DOM nodes do). */
  firstEntry: readonly string[];
  isChain: Uint8Array;
  nodes: BoxIndex;
  /** The box around every node (an empty box at the origin without nodes). */
  bounds: Box;
  /** Edge e runs from node `edgeParent[e]` to node `edgeChild[e]`. */
  edgeParent: Int32Array;
  edgeChild: Int32Array;
  edges: BoxIndex;
}

/**
 * Corner points of the edge from one node to its child, written to `route`
 * as x, y pairs (and returned): out of the parent, across the gap, into the
 * child. One array for every edge drawn: a scene or a frame visits thousands.
 */
export function edgeRoute(
  direction: LayoutDirection,
  parentX: number,
  parentY: number,
  childX: number,
  childY: number,
  route: Float64Array = new Float64Array(8),
): Float64Array {
  const across = direction === "LR";
  const sx = across ? parentX + NODE_WIDTH : parentX + NODE_WIDTH / 2;
  const sy = across ? parentY + NODE_HEIGHT / 2 : parentY + NODE_HEIGHT;
  const tx = across ? childX : childX + NODE_WIDTH / 2;
  const ty = across ? childY + NODE_HEIGHT / 2 : childY;
  // It bends halfway across the gap between the two ranks.
  const middle = across ? (sx + tx) / 2 : (sy + ty) / 2;
  route[0] = sx;
  route[1] = sy;
  route[2] = across ? middle : sx;
  route[3] = across ? sy : middle;
  route[4] = across ? middle : tx;
  route[5] = across ? ty : middle;
  route[6] = tx;
  route[7] = ty;
  return route;
}

const scenes = new WeakMap<GraphModel["layout"], OverviewScene>();

/** Whether the scene of a model is made already (then `overviewScene` costs a lookup). */
export function sceneMade(model: GraphModel, direction: LayoutDirection): boolean {
  return scenes.get(model.layout)?.direction === direction;
}

/** The scene of a model, made once per layout (a layout is made per graph and direction). */
export function overviewScene(model: GraphModel, direction: LayoutDirection): OverviewScene {
  const cached = scenes.get(model.layout);
  if (cached && cached.direction === direction) return cached;
  const scene = createOverviewScene(model, direction);
  scenes.set(model.layout, scene);
  return scene;
}

export function createOverviewScene(model: GraphModel, direction: LayoutDirection): OverviewScene {
  const nodes = nodeItems(model);
  const edges = edgeItems(model.graph.nodes, nodes, direction);
  // Cells of about two by two layout steps: a node covers at most four.
  const cells = {
    cellWidth: 2 * (NODE_WIDTH + DEFAULT_LAYOUT.gapX),
    cellHeight: 2 * (NODE_HEIGHT + DEFAULT_LAYOUT.gapY),
  };
  const nodeIndex = createBoxIndex(nodes.boxes, cells);
  return {
    direction,
    ids: nodes.ids,
    itemOf: nodes.itemOf,
    x: nodes.x,
    y: nodes.y,
    style: nodes.style,
    firstEntry: nodes.firstEntry,
    isChain: nodes.isChain,
    nodes: nodeIndex,
    bounds: nodeIndex.bounds,
    edgeParent: edges.parents,
    edgeChild: edges.children,
    edges: createBoxIndex(edges.boxes, cells),
  };
}

// The scene's parts are made in flat arrays, with no object per node or edge: the minimap makes a scene of
// a growing graph a few times a second.

/** Each graph node's item: its place, its colour class, the entry it shows, its box. */
function nodeItems(model: GraphModel) {
  const graphNodes = model.graph.nodes;
  const count = graphNodes.length;
  const ids: string[] = [];
  const itemOf = new Map<string, number>();
  const firstEntry: string[] = [];
  // A node's place is its box's top-left corner.
  const boxes = boxSides(count);
  const { x0: x, y0: y } = boxes;
  const style = new Uint8Array(count);
  const isChain = new Uint8Array(count);
  for (let i = 0; i < count; i++) {
    const graphNode = graphNodes[i]!;
    const position = model.layout.positions.get(graphNode.id);
    ids.push(graphNode.id);
    itemOf.set(graphNode.id, i);
    x[i] = position?.x ?? 0;
    y[i] = position?.y ?? 0;
    boxes.x1[i] = x[i]! + NODE_WIDTH;
    boxes.y1[i] = y[i]! + NODE_HEIGHT;
    if (graphNode.kind === "chain") {
      isChain[i] = 1;
      style[i] = OVERVIEW_STYLES.indexOf("chain");
      firstEntry.push(graphNode.entryIds[0]!);
    } else {
      const treeNode = model.nodesById.get(graphNode.entryId);
      style[i] = OVERVIEW_STYLES.indexOf(treeNode ? overviewStyle(treeNode) : "settings");
      firstEntry.push(graphNode.entryId);
    }
  }
  return { ids, itemOf, x, y, style, isChain, firstEntry, boxes };
}

/** Each edge's two nodes and the box its route spans, in the order of the nodes it goes into. */
function edgeItems(
  graphNodes: readonly GraphNode[],
  nodes: { itemOf: ReadonlyMap<string, number>; x: Float64Array; y: Float64Array },
  direction: LayoutDirection,
) {
  const count = graphNodes.length;
  const { itemOf, x, y } = nodes;
  const parents = new Int32Array(count);
  const children = new Int32Array(count);
  const spans = boxSides(count);
  const route = new Float64Array(8);
  let edges = 0;
  for (let i = 0; i < count; i++) {
    const parentId = graphNodes[i]!.parent;
    const parent = parentId === null ? undefined : itemOf.get(parentId);
    if (parent === undefined) continue;
    // Its start (route 0, 1) and its end (route 6, 7) are its box's corners.
    edgeRoute(direction, x[parent]!, y[parent]!, x[i]!, y[i]!, route);
    parents[edges] = parent;
    children[edges] = i;
    spans.x0[edges] = Math.min(route[0]!, route[6]!);
    spans.y0[edges] = Math.min(route[1]!, route[7]!);
    spans.x1[edges] = Math.max(route[0]!, route[6]!);
    spans.y1[edges] = Math.max(route[1]!, route[7]!);
    edges++;
  }
  const boxes: BoxSides = {
    x0: spans.x0.subarray(0, edges),
    y0: spans.y0.subarray(0, edges),
    x1: spans.x1.subarray(0, edges),
    y1: spans.y1.subarray(0, edges),
  };
  return { parents: parents.subarray(0, edges), children: children.subarray(0, edges), boxes };
}

/** The hover title of a graph node: what its DOM node's title (or text) says. */
export function overviewTitle(model: GraphModel, id: string): string {
  const graphNode = model.graph.byId.get(id);
  if (!graphNode) return id;
  if (graphNode.kind === "chain") {
    const first = model.nodesById.get(graphNode.entryIds[0]!);
    const last = model.nodesById.get(graphNode.entryIds[graphNode.entryIds.length - 1]!);
    const text = (node: TreeNodeView | undefined) => (node ? node.preview || nodeLook(node).title : "");
    return `${graphNode.entryIds.length} entries: click to expand\n${text(first)}\n…\n${text(last)}`;
  }
  const node = model.nodesById.get(graphNode.entryId);
  if (!node) return id;
  return `${nodeLook(node).title}\n${node.preview}\n${id} · line ${node.line}`;
}
