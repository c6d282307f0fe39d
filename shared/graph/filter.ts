/**
 * Pi's `/tree` filter modes with Pi's rules (1.x `tree-selector.js`), as a
 * pure function from the tree to what is visible. Hidden entries' children
 * attach to the nearest visible ancestor, and the visible order is Pi's:
 * depth-first, children in file order except that the branch holding the
 * current leaf comes first.
 */

import type { KnownEntryType, KnownRole } from "../session/types.ts";
import { type IdLookup, type IndexedNodes, indexNodes, type NodeFields } from "./indexed-nodes.ts";
import { slotOf, VisibleTreeState, type VisibleWalk } from "./visible-tree.ts";

export type FilterMode = "default" | "no-tools" | "user-only" | "labeled-only" | "all";

export const FILTER_MODES: readonly FilterMode[] = [
  "default",
  "no-tools",
  "user-only",
  "labeled-only",
  "all",
];

/** The fields of a tree node the filter reads (a subset of the IPC `TreeNodeView`). */
export interface FilterableNode {
  id: string;
  parentId: string | null;
  children: readonly string[];
  type: string;
  role: string | null;
  label: string | null;
  hasText: boolean;
  stopReason: string | null;
}

export interface VisibleTree {
  /** Visible ids in Pi's `/tree` order. */
  readonly order: string[];
  /** How many entries are visible (`order.length`, without making `order`). */
  readonly count: number;
  /** Nearest visible ancestor of each visible node (null at the top); undefined for others. */
  parent: IdLookup<string | null>;
  /** Visible children of each visible node, in order; undefined for others. */
  children: IdLookup<readonly string[]>;
  /** How many visible children a visible node has (0 for others), without building the list. */
  childCount(id: string): number;
  /** Index of each visible entry in `order`. */
  position: IdLookup<number>;
  roots: string[];
  /** The same by position in `order`, for passes over the whole tree (chain folding). */
  readonly at: VisiblePositions;
}

/** The visible tree by position in `order`: no id lookups. */
export interface VisiblePositions {
  /** The position in the indexed list of the node at each position (read it with `fields`). */
  entry(position: number): number;
  /** What the graph maths read of the indexed list's nodes, by their position there. */
  fields: NodeFields;
  /** Position of each position's visible parent, -1 at the top. */
  parent: Int32Array;
  /** Children of position `p`: `childList[childStart[p] .. childStart[p + 1])`, in order. */
  childStart: Int32Array;
  childList: Int32Array;
}

/**
 * How Pi's `/tree` shows each entry type: never (usage outside the context),
 * as a setting (hidden by the default and no-tools modes), or as content.
 * A type this version does not know is content: shown.
 */
const TYPE_SHOWN: Record<KnownEntryType, "never" | "setting" | "content"> = {
  message: "content",
  custom_message: "content",
  compaction: "content",
  branch_summary: "content",
  label: "setting",
  context_edit: "setting",
  custom: "setting",
  model_change: "setting",
  thinking_level_change: "setting",
  session_info: "setting",
  usage: "never",
};

/**
 * Pi's `/tree` rules for a message, by role: the one role "user-only" shows,
 * the tool output "no-tools" hides, and the turn hidden when it has no text
 * (an assistant's tool calls or thinking, unless it stopped abnormally or is
 * the leaf). A role this version does not know follows none of them.
 */
const ROLE_SHOWN: Record<KnownRole, { user: boolean; tool: boolean; needsText: boolean }> = {
  user: { user: true, tool: false, needsText: false },
  assistant: { user: false, tool: false, needsText: true },
  toolResult: { user: false, tool: true, needsText: false },
  bashExecution: { user: false, tool: false, needsText: false },
  custom: { user: false, tool: false, needsText: false },
  branchSummary: { user: false, tool: false, needsText: false },
  compactionSummary: { user: false, tool: false, needsText: false },
  system: { user: false, tool: false, needsText: false },
};

// Maps, not the records: a node's type or role is any string from a file ("constructor" included).
const TYPE_SHOWN_BY_NAME: ReadonlyMap<string, "never" | "setting" | "content"> = new Map(
  Object.entries(TYPE_SHOWN),
);
const ROLE_SHOWN_BY_NAME: ReadonlyMap<string, (typeof ROLE_SHOWN)[KnownRole]> = new Map(
  Object.entries(ROLE_SHOWN),
);

/** Whether Pi shows the entry in `mode` (search and folding aside). */
export function passesFilter(node: FilterableNode, mode: FilterMode, leafId: string | null): boolean {
  return passes(node.type, node.role, node.id, node.hasText, node.stopReason, node.label, mode, leafId);
}

/** `passesFilter` for node `i` of an indexed list, read field by field (no object is made for it). */
export function passesFilterAt(
  fields: NodeFields,
  i: number,
  mode: FilterMode,
  leafId: string | null,
): boolean {
  return passes(
    fields.type(i),
    fields.role(i),
    fields.id(i),
    fields.hasText(i),
    fields.stopReason(i),
    fields.label(i),
    mode,
    leafId,
  );
}

function passes(
  type: string,
  role: string | null,
  id: string,
  hasText: boolean,
  stopReason: string | null,
  label: string | null,
  mode: FilterMode,
  leafId: string | null,
): boolean {
  const shown = TYPE_SHOWN_BY_NAME.get(type) ?? "content";
  if (shown === "never") return false;
  const rules = type === "message" && role !== null ? ROLE_SHOWN_BY_NAME.get(role) : undefined;
  if (rules?.needsText && id !== leafId) {
    // Assistant turns with no text (tool calls, thinking) are hidden unless they stopped abnormally.
    const abnormal = stopReason !== null && stopReason !== "stop" && stopReason !== "toolUse";
    if (!hasText && !abnormal) return false;
  }
  const settings = shown === "setting";
  switch (mode) {
    case "user-only":
      return rules?.user === true;
    case "no-tools":
      return !settings && rules?.tool !== true;
    case "labeled-only":
      return label !== null;
    case "all":
      return true;
    default:
      return !settings;
  }
}

export interface VisibleTreeOptions {
  mode: FilterMode;
  leafId: string | null;
  /** Only these are shown when given (search results); their visibility still follows the mode. */
  matches?: ReadonlySet<string> | null;
  /** Folded nodes: their descendants are hidden. */
  folded?: ReadonlySet<string>;
  /**
   * Hides node `i` (by position in the indexed list) and everything below it,
   * whatever the mode: archived branches (`SessionNodeFields.archived`).
   */
  hiddenBranch?: ((i: number) => boolean) | null;
}

/**
 * Linear in the number of nodes, over index arrays (`indexNodes`; a map of
 * nodes is indexed first); iterative, so a 100k-deep chain is fine.
 */
export function visibleTree(
  nodes: IndexedNodes<FilterableNode> | ReadonlyMap<string, FilterableNode>,
  roots: readonly string[],
  options: VisibleTreeOptions,
): VisibleTreeState {
  const indexed = "childList" in nodes ? nodes : indexNodes([...nodes.values()]);
  const { count, fields, indexOf, childStart, childList } = indexed;
  const { mode, leafId } = options;
  const folded = options.folded ?? new Set<string>();
  const matches = options.matches ?? null;
  const hiddenBranch = options.hiddenBranch ?? null;
  const onActivePath = activePathOf(indexed, leafId);
  const nodeAt: number[] = [];
  const parentAt: number[] = [];
  const visibleAbove = new Int32Array(count).fill(-1);
  const foldHidden = new Int32Array(count);
  let pathCount = 0;
  // A stack of (node, position of the nearest visible ancestor, inside a folded subtree), in three arrays.
  const stackNodes: number[] = [];
  const stackAncestors: number[] = [];
  const stackHidden: boolean[] = [];
  const push = (node: number, ancestor: number, hidden: boolean) => {
    stackNodes.push(node);
    stackAncestors.push(ancestor);
    stackHidden.push(hidden);
  };
  /** Pushes `children[from .. to)` so that they pop in Pi's order: the one on the active path first. */
  const pushChildren = (
    children: ArrayLike<number>,
    from: number,
    to: number,
    ancestor: number,
    hidden: boolean,
  ) => {
    // Most nodes have one child: no ordering to do.
    if (to - from === 1) {
      push(children[from]!, ancestor, hidden);
      return;
    }
    for (let k = to - 1; k >= from; k--)
      if (onActivePath[children[k]!] === 0) push(children[k]!, ancestor, hidden);
    for (let k = to - 1; k >= from; k--)
      if (onActivePath[children[k]!] === 1) push(children[k]!, ancestor, hidden);
  };
  const rootIndices: number[] = [];
  for (const id of roots) {
    const root = indexOf.get(id);
    if (root !== undefined) rootIndices.push(root);
  }
  pushChildren(rootIndices, 0, rootIndices.length, -1, false);
  const checkFolded = folded.size > 0;
  while (stackNodes.length > 0) {
    const i = stackNodes.pop()!;
    const ancestor = stackAncestors.pop()!;
    const hidden = stackHidden.pop()! || hiddenBranch?.(i) === true;
    const id = fields.id(i);
    if (ancestor !== -1) visibleAbove[i] = nodeAt[ancestor]!;
    if (hidden) foldHidden[i] = 1;
    const visible =
      !hidden && passesFilterAt(fields, i, mode, leafId) && (matches === null || matches.has(id));
    let nearest = ancestor;
    if (visible) {
      nearest = nodeAt.length;
      // The active path is walked first: its visible entries are the first positions.
      if (onActivePath[i] === 1) pathCount++;
      nodeAt.push(i);
      parentAt.push(ancestor);
    }
    pushChildren(
      childList,
      childStart[i]!,
      childStart[i + 1]!,
      nearest,
      hidden || (checkFolded && folded.has(id)),
    );
  }
  const walk = walkOf(indexed, Int32Array.from(nodeAt), Int32Array.from(parentAt), pathCount);
  return new VisibleTreeState(
    indexed,
    roots,
    { mode, leafId, folded, matches, hiddenBranch },
    { ...walk, visibleAbove, foldHidden },
    null,
  );
}

/** The children lists, roots and slots of what the walk found. */
function walkOf(
  indexed: IndexedNodes<FilterableNode>,
  nodeAt: Int32Array,
  parentAt: Int32Array,
  pathCount: number,
): Omit<VisibleWalk, "visibleAbove" | "foldHidden"> {
  const count = nodeAt.length;
  const childStart = new Int32Array(count + 1);
  for (let p = 0; p < count; p++) if (parentAt[p]! !== -1) childStart[parentAt[p]! + 1]! += 1;
  for (let p = 0; p < count; p++) childStart[p + 1]! += childStart[p]!;
  const childList = new Int32Array(childStart[count]!);
  const filled = new Int32Array(count);
  const roots: string[] = [];
  const slot = new Int32Array(indexed.count).fill(-1);
  // Positions are in visiting order, so each list comes out in order.
  for (let p = 0; p < count; p++) {
    const q = parentAt[p]!;
    if (q === -1) roots.push(indexed.fields.id(nodeAt[p]!));
    else childList[childStart[q]! + filled[q]!++] = p;
    slot[nodeAt[p]!] = slotOf(p, pathCount, count);
  }
  return { pathCount, nodeAt, parentAt, childStart, childList, slot, roots };
}

/** 1 for each node from the leaf up to its root (by parent positions; a parent cycle ends the walk). */
function activePathOf(indexed: IndexedNodes<FilterableNode>, leafId: string | null): Uint8Array {
  const onPath = new Uint8Array(indexed.count);
  const leaf = leafId === null ? undefined : indexed.indexOf.get(leafId);
  if (leaf === undefined) return onPath;
  for (let i = leaf; i !== -1 && onPath[i] === 0; i = indexed.parent[i]!) onPath[i] = 1;
  return onPath;
}

/** The next filter mode, as Ctrl+O cycles it in Pi (Shift goes back). */
export function cycleFilterMode(mode: FilterMode, backwards = false): FilterMode {
  const index = FILTER_MODES.indexOf(mode);
  const step = backwards ? FILTER_MODES.length - 1 : 1;
  return FILTER_MODES[(index + step) % FILTER_MODES.length]!;
}
