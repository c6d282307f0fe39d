/**
 * Pi's `/tree` filter modes with Pi's rules (1.x `tree-selector.js`), as a
 * pure function from the tree to what is visible. Hidden entries' children
 * attach to the nearest visible ancestor, and the visible order is Pi's:
 * depth-first, children in file order except that the branch holding the
 * current leaf comes first.
 */

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
  order: string[];
  /** Nearest visible ancestor of each visible node (null at the top). */
  parent: Map<string, string | null>;
  children: Map<string, string[]>;
  roots: string[];
}

const SETTINGS_TYPES = new Set([
  "label",
  "context_edit",
  "custom",
  "model_change",
  "thinking_level_change",
  "session_info",
]);

/** Whether Pi shows the entry in `mode` (search and folding aside). */
export function passesFilter(node: FilterableNode, mode: FilterMode, leafId: string | null): boolean {
  if (node.type === "usage") return false;
  if (node.type === "message" && node.role === "assistant" && node.id !== leafId) {
    // Assistant turns with no text (tool calls, thinking) are hidden unless they stopped abnormally.
    const abnormal = node.stopReason !== null && node.stopReason !== "stop" && node.stopReason !== "toolUse";
    if (!node.hasText && !abnormal) return false;
  }
  const settings = SETTINGS_TYPES.has(node.type);
  switch (mode) {
    case "user-only":
      return node.type === "message" && node.role === "user";
    case "no-tools":
      return !settings && !(node.type === "message" && node.role === "toolResult");
    case "labeled-only":
      return node.label !== null;
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
}

/** Every visible leaf's children: one frozen empty list, not one per leaf (100k nodes, 100k arrays). */
const NO_CHILDREN: string[] = Object.freeze([]) as unknown as string[];

/** Linear in the number of nodes; iterative, so a 100k-deep chain is fine. */
export function visibleTree(
  nodes: ReadonlyMap<string, FilterableNode>,
  roots: readonly string[],
  options: VisibleTreeOptions,
): VisibleTree {
  const { mode, leafId } = options;
  const folded = options.folded ?? new Set<string>();
  const matches = options.matches ?? null;
  const onActivePath = activePath(nodes, leafId);
  const order: string[] = [];
  const parent = new Map<string, string | null>();
  const children = new Map<string, string[]>();
  const visibleRoots: string[] = [];
  // A stack of (node id, nearest visible ancestor, inside a folded subtree), in three arrays: no tuple per node.
  const stackIds: string[] = [];
  const stackAncestors: (string | null)[] = [];
  const stackHidden: boolean[] = [];
  const push = (id: string, ancestor: string | null, hidden: boolean) => {
    stackIds.push(id);
    stackAncestors.push(ancestor);
    stackHidden.push(hidden);
  };
  const pushChildren = (ids: readonly string[], ancestor: string | null, hidden: boolean) => {
    // Most nodes have one child: no ordering to do (and no arrays to allocate).
    if (ids.length === 1) {
      push(ids[0]!, ancestor, hidden);
      return;
    }
    const active = ids.filter((id) => onActivePath.has(id));
    const rest = ids.filter((id) => !onActivePath.has(id));
    const ordered = active.length > 0 ? [...active, ...rest] : ids;
    for (let i = ordered.length - 1; i >= 0; i--) push(ordered[i]!, ancestor, hidden);
  };
  pushChildren(roots, null, false);
  while (stackIds.length > 0) {
    const id = stackIds.pop()!;
    const ancestor = stackAncestors.pop() as string | null;
    const hidden = stackHidden.pop() as boolean;
    const node = nodes.get(id);
    if (!node) continue;
    const visible = !hidden && passesFilter(node, mode, leafId) && (matches === null || matches.has(id));
    if (visible) {
      order.push(id);
      parent.set(id, ancestor);
      children.set(id, NO_CHILDREN);
      if (ancestor === null) visibleRoots.push(id);
      else {
        const siblings = children.get(ancestor)!;
        if (siblings === NO_CHILDREN) children.set(ancestor, [id]);
        else siblings.push(id);
      }
    }
    pushChildren(node.children, visible ? id : ancestor, hidden || folded.has(id));
  }
  return { order, parent, children, roots: visibleRoots };
}

/** Ids from the leaf up to its root. */
export function activePath(
  nodes: ReadonlyMap<string, { parentId: string | null }>,
  leafId: string | null,
): Set<string> {
  const path = new Set<string>();
  for (let id = leafId; id !== null && !path.has(id); ) {
    const node = nodes.get(id);
    if (!node) break;
    path.add(id);
    id = node.parentId;
  }
  return path;
}

/** The next filter mode, as Ctrl+O cycles it in Pi (Shift goes back). */
export function cycleFilterMode(mode: FilterMode, backwards = false): FilterMode {
  const index = FILTER_MODES.indexOf(mode);
  const step = backwards ? FILTER_MODES.length - 1 : 1;
  return FILTER_MODES[(index + step) % FILTER_MODES.length]!;
}
