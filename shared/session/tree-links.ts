/**
 * The tree's shape from its entries' declared parents: parent links, roots
 * and orphans, depths, and each child list in Pi's `/tree` order. A parent
 * cycle, which makes Pi loop forever, is cut at its member with the earliest
 * line; an entry whose parent is missing, or which names itself, is a root.
 */

import { type Problem, problem } from "./problems.ts";
import type { TreeNode } from "./tree-index.ts";
import type { SessionEntry } from "./types.ts";

/** The parent an entry declares, if it is a usable id. */
export function declaredParentId(entry: SessionEntry): string | null {
  const parentId: unknown = entry.parentId;
  return typeof parentId === "string" && parentId.length > 0 ? parentId : null;
}

/**
 * Links every node to its declared parent, gives each its depth, cuts parent
 * cycles, and orders roots (file order of the winning line) and child lists
 * (Pi's `/tree` order: see `sortChildren`). Returns the roots and orphans, by id.
 */
export function linkParents(
  nodes: Map<string, TreeNode>,
  problems: Problem[],
): { roots: string[]; orphans: string[] } {
  const { roots, orphans, reached, branching } = attachParents(nodes, problems);
  // A node whose parent came later in the file gets its depth from a walk up; those left over hang in or below a parent cycle.
  if (reached < nodes.size && reached + assignDepths(nodes) < nodes.size) {
    for (const cut of breakCycles(nodes, problems)) roots.push(cut.id);
    assignDepths(nodes);
  }
  // `nodes` iterates in first-insertion order; Pi lists roots and children in file order of the winning line.
  roots.sort((a, b) => nodes.get(a)!.line - nodes.get(b)!.line);
  sortChildren(nodes, branching);
  return { roots, orphans };
}

/**
 * Sets each node's parent where its declared parent is in the index, and adds
 * it to its parent's children, or to the roots. A node gets its depth at once
 * when its parent has one (a root, or a node whose parents came before it in
 * the file, as they almost always do): `reached` counts those. `branching`:
 * the nodes given a second child, the only lists there are to order.
 */
function attachParents(
  nodes: Map<string, TreeNode>,
  problems: Problem[],
): { roots: string[]; orphans: string[]; reached: number; branching: TreeNode[] } {
  const roots: string[] = [];
  const orphans: string[] = [];
  const branching: TreeNode[] = [];
  let reached = 0;
  let before: TreeNode | null = null;
  for (const node of nodes.values()) {
    const previous = before;
    before = node;
    const parent = parentIn(nodes, node, previous, problems, orphans);
    if (parent === null) {
      roots.push(node.id);
      node.depth = 0;
      reached++;
      continue;
    }
    // The parent's own id string: the copy each line decoded goes (a stub is ours to change; 24 B an entry).
    if (node.deferred) (node.entry as { parentId: unknown }).parentId = parent.id;
    node.parent = parent;
    if (parent.childCount === 1) branching.push(parent);
    parent.addChild(node.id);
    if (parent.depth >= 0) {
      node.depth = parent.depth + 1;
      reached++;
    }
  }
  return { roots, orphans, reached, branching };
}

/** The node's declared parent if it is in the index (`previous`, the node before, most often), else null with the problem noted. */
function parentIn(
  nodes: Map<string, TreeNode>,
  node: TreeNode,
  previous: TreeNode | null,
  problems: Problem[],
  orphans: string[],
): TreeNode | null {
  const parentId = declaredParentId(node.entry);
  if (parentId === null) return null;
  if (parentId === node.id) {
    problems.push(selfParentProblem(node));
    return null;
  }
  // Most parents are the entry just before: no lookup for them.
  const parent = previous !== null && previous.id === parentId ? previous : nodes.get(parentId);
  if (parent === undefined) {
    orphans.push(node.id);
    problems.push(orphanProblem(node, parentId));
    return null;
  }
  return parent;
}

function isSortedByLine(nodes: Map<string, TreeNode>, ids: readonly string[]): boolean {
  for (let i = 1; i < ids.length; i++) {
    if (nodes.get(ids[i - 1]!)!.line > nodes.get(ids[i]!)!.line) return false;
  }
  return true;
}

/**
 * Every member of a parent cycle becomes a root, as Pi now shows them (a walk
 * up from any of them would never end), each reported with the cycle's lines;
 * what hangs below a member stays below it. Called only when some nodes were
 * not reached from a root (their depth is still -1), and looks only at those;
 * linear in their number.
 */
function breakCycles(nodes: Map<string, TreeNode>, problems: Problem[]): TreeNode[] {
  const walkOf = new Map<TreeNode, number>();
  const cut: TreeNode[] = [];
  let walk = 0;
  for (const start of nodes.values()) {
    if (start.depth !== -1 || walkOf.has(start)) continue;
    walk += 1;
    const path: TreeNode[] = [];
    let node: TreeNode | undefined = start;
    while (node && !walkOf.has(node)) {
      walkOf.set(node, walk);
      path.push(node);
      node = node.parent ?? undefined;
    }
    if (!node || walkOf.get(node) !== walk) continue;
    // `node` was reached twice in this walk: the cycle is path[index of node ..].
    const cycle = path.slice(path.indexOf(node));
    const lines = cycle.map((member) => member.line).sort((a, b) => a - b);
    for (const [at, member] of cycle.entries()) {
      const next = cycle[(at + 1) % cycle.length]!;
      problems.push(
        problem(
          "cycle",
          member.line,
          `Entries on lines ${lines.join(", ")} are each other's ancestors (Pi would hang); "${member.id}" is shown as a root.`,
          { entryId: member.id, relatedLine: next.line },
        ),
      );
    }
    for (const member of cycle) {
      const parent = member.parent!;
      parent.setChildren(parent.children.filter((id) => id !== member.id));
      member.parent = null;
      cut.push(member);
    }
  }
  return cut;
}

/**
 * Pi's `/tree` order for the child lists of `branching` (the nodes with more
 * than one child; the others have nothing to order): file order of the
 * winning line, then a stable sort by `new Date(timestamp)`.
 */
function sortChildren(nodes: Map<string, TreeNode>, branching: readonly TreeNode[]): void {
  const line = (id: string) => nodes.get(id)!.line;
  const time = (id: string) => new Date(nodes.get(id)!.entry.timestamp).getTime();
  for (const node of branching) {
    // A cut cycle may have taken a child away since.
    if (node.childCount < 2) continue;
    if (!isSortedByLine(nodes, node.children))
      node.setChildren([...node.children].sort((a, b) => line(a) - line(b)));
    const children = node.children;
    let sorted = true;
    for (let i = 1; i < children.length && sorted; i++) {
      if (!(time(children[i - 1]!) <= time(children[i]!))) sorted = false;
    }
    // The same comparator as Pi's, NaN included, so even odd timestamps order the same way.
    if (!sorted) node.setChildren([...children].sort((a, b) => time(a) - time(b)));
  }
}

/** Marks a node on the walk `assignDepths` is taking. */
const ON_WALK = -2;
/** Marks a node whose parents lead into a cycle (set back to -1 when `assignDepths` is done). */
const UNREACHED = -3;

/**
 * Gives every node still at depth -1 whose parents lead up to a root its
 * depth; returns how many it reached. It follows parent references, not ids
 * (no lookups), each node once: a walk stops at the first node with a depth.
 * Nodes in or below a parent cycle stay at -1.
 */
function assignDepths(nodes: Map<string, TreeNode>): number {
  const walk: TreeNode[] = [];
  let reached = 0;
  let unreached = false;
  for (const start of nodes.values()) {
    if (start.depth !== -1) continue;
    let top: TreeNode | null = start;
    while (top !== null && top.depth === -1) {
      top.depth = ON_WALK;
      walk.push(top);
      top = top.parent;
    }
    const above = top === null ? -1 : top.depth;
    if (top !== null && above < 0) {
      // Into this walk again (a cycle), or into a node found to be below one.
      for (const node of walk) node.depth = UNREACHED;
      unreached = true;
    } else {
      for (let i = walk.length - 1, depth = above + 1; i >= 0; i--, depth++) walk[i]!.depth = depth;
      reached += walk.length;
    }
    walk.length = 0;
  }
  if (unreached) for (const node of nodes.values()) if (node.depth === UNREACHED) node.depth = -1;
  return reached;
}

/** Keeps one child list in Pi's order after an append: file order, then a stable sort by time. */
export function orderChildren(nodes: Map<string, TreeNode>, parent: TreeNode): void {
  const children = parent.children;
  const n = children.length;
  if (n < 2) return;
  const time = (id: string) => new Date(nodes.get(id)!.entry.timestamp).getTime();
  // The new child has the latest line; it is in place if it is not earlier than its left neighbour.
  if (time(children[n - 2]!) <= time(children[n - 1]!)) return;
  const ordered = [...children].sort((a, b) => nodes.get(a)!.line - nodes.get(b)!.line);
  parent.setChildren(ordered.sort((a, b) => time(a) - time(b)));
}

export function selfParentProblem(node: TreeNode): Problem {
  return problem(
    "self-parent",
    node.line,
    `Entry "${node.id}" names itself as its parent; it is shown as a root.`,
    {
      entryId: node.id,
    },
  );
}

export function orphanProblem(node: TreeNode, parentId: string): Problem {
  return problem(
    "orphan",
    node.line,
    `Entry "${node.id}" has parent "${parentId}", which is not in the file; it is shown as a root.`,
    { entryId: node.id },
  );
}
