/**
 * What the zoomed-out overview draws, from the graph model: each graph node's
 * box and colour class, each edge's route, and a viewport index over both
 * (shared/graph), made once per layout and kept while the layout lives.
 * Pure: no DOM, no canvas.
 */

import {
  type Box,
  type BoxIndex,
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

/** Corner points of the edge from one node to its child: out of the parent, across the gap, into the child. */
export function edgeRoute(
  direction: LayoutDirection,
  parentX: number,
  parentY: number,
  childX: number,
  childY: number,
): [number, number, number, number, number, number, number, number] {
  if (direction === "LR") {
    const sx = parentX + NODE_WIDTH;
    const sy = parentY + NODE_HEIGHT / 2;
    const tx = childX;
    const ty = childY + NODE_HEIGHT / 2;
    const mx = (sx + tx) / 2;
    return [sx, sy, mx, sy, mx, ty, tx, ty];
  }
  const sx = parentX + NODE_WIDTH / 2;
  const sy = parentY + NODE_HEIGHT;
  const tx = childX + NODE_WIDTH / 2;
  const ty = childY;
  const my = (sy + ty) / 2;
  return [sx, sy, sx, my, tx, my, tx, ty];
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
  const graphNodes = model.graph.nodes;
  const count = graphNodes.length;
  const ids: string[] = [];
  const itemOf = new Map<string, number>();
  const x = new Float64Array(count);
  const y = new Float64Array(count);
  const style = new Uint8Array(count);
  const isChain = new Uint8Array(count);
  const firstEntry: string[] = [];
  const boxes: Box[] = [];
  graphNodes.forEach((graphNode, i) => {
    const position = model.layout.positions.get(graphNode.id) ?? { x: 0, y: 0 };
    ids.push(graphNode.id);
    itemOf.set(graphNode.id, i);
    x[i] = position.x;
    y[i] = position.y;
    boxes.push({ x: position.x, y: position.y, width: NODE_WIDTH, height: NODE_HEIGHT });
    if (graphNode.kind === "chain") {
      isChain[i] = 1;
      style[i] = OVERVIEW_STYLES.indexOf("chain");
      firstEntry.push(graphNode.entryIds[0]!);
    } else {
      const treeNode = model.nodesById.get(graphNode.entryId);
      style[i] = OVERVIEW_STYLES.indexOf(treeNode ? overviewStyle(treeNode) : "settings");
      firstEntry.push(graphNode.entryId);
    }
  });
  const parents: number[] = [];
  const children: number[] = [];
  const edgeBoxes: Box[] = [];
  graphNodes.forEach((graphNode, i) => {
    if (graphNode.parent === null) return;
    const parent = itemOf.get(graphNode.parent);
    if (parent === undefined) return;
    const [sx, sy, , , , , tx, ty] = edgeRoute(direction, x[parent]!, y[parent]!, x[i]!, y[i]!);
    parents.push(parent);
    children.push(i);
    edgeBoxes.push({
      x: Math.min(sx, tx),
      y: Math.min(sy, ty),
      width: Math.abs(tx - sx),
      height: Math.abs(ty - sy),
    });
  });
  // Cells of about two by two layout steps: a node covers at most four.
  let left = count > 0 ? Number.POSITIVE_INFINITY : 0;
  let top = left;
  let right = count > 0 ? Number.NEGATIVE_INFINITY : 0;
  let bottom = right;
  for (let i = 0; i < count; i++) {
    left = Math.min(left, x[i]!);
    top = Math.min(top, y[i]!);
    right = Math.max(right, x[i]! + NODE_WIDTH);
    bottom = Math.max(bottom, y[i]! + NODE_HEIGHT);
  }
  const cellWidth = 2 * (NODE_WIDTH + DEFAULT_LAYOUT.gapX);
  const cellHeight = 2 * (NODE_HEIGHT + DEFAULT_LAYOUT.gapY);
  return {
    direction,
    ids,
    itemOf,
    x,
    y,
    style,
    firstEntry,
    isChain,
    nodes: createBoxIndex(boxes, { cellWidth, cellHeight }),
    bounds: { x: left, y: top, width: right - left, height: bottom - top },
    edgeParent: Int32Array.from(parents),
    edgeChild: Int32Array.from(children),
    edges: createBoxIndex(edgeBoxes, { cellWidth, cellHeight }),
  };
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
