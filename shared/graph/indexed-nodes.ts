/**
 * A session's nodes as arrays: each node's parent and children by position
 * in one list, so the passes over a whole tree (the filter, chain folding)
 * walk integer arrays instead of looking up 100k string ids in maps, which
 * costs a cache miss or more per lookup (~30 ms a pass at 100k here). One
 * map of ids remains, for what callers ask by id.
 */

/** What the graph maths read by id: a `Map` is one; so are the array-backed lookups here. */
export interface IdLookup<V> {
  get(id: string): V | undefined;
  has(id: string): boolean;
}

/** The fields of a node that the tree structure reads. */
export interface TreeShapedNode {
  id: string;
  parentId: string | null;
  children: readonly string[];
}

export interface IndexedNodes<N extends TreeShapedNode> {
  nodes: readonly N[];
  /** Position of each id in `nodes` (a duplicate id: its last, as a map of the nodes would hold). */
  indexOf: ReadonlyMap<string, number>;
  /** The nodes by id. */
  byId: IdLookup<N>;
  /** Position of each node's parent (by `parentId`), -1 when it has none in the list. */
  parent: Int32Array;
  /** Children of node `i` (by `children`, those in the list, in order): `childList[childStart[i] .. childStart[i + 1])`. */
  childStart: Int32Array;
  childList: Int32Array;
}

/**
 * How far `indexNodes` walks up from the node before to find a parent. In a
 * depth-first list the parent is the node before or one of its ancestors, and
 * the walks add up to the list's length; any other list falls back to `indexOf`.
 */
const MAX_PARENT_WALK = 64;

/**
 * Indexes `nodes` in linear time. A depth-first list (what the main process
 * sends, and what deltas keep) needs no id lookups beyond building `indexOf`;
 * any other order is read through `indexOf` with the same result.
 */
export function indexNodes<N extends TreeShapedNode>(nodes: readonly N[]): IndexedNodes<N> {
  const n = nodes.length;
  const indexOf = new Map<string, number>();
  for (let i = 0; i < n; i++) indexOf.set(nodes[i]!.id, i);
  const parent = new Int32Array(n);
  const childCount = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const parentId = nodes[i]!.parentId;
    let found = -1;
    if (parentId !== null) {
      let steps = 0;
      for (let p = i - 1; p >= 0 && steps < MAX_PARENT_WALK; p = parent[p]!, steps++) {
        if (nodes[p]!.id === parentId) {
          found = p;
          break;
        }
      }
      if (found === -1) found = indexOf.get(parentId) ?? -1;
    }
    parent[i] = found;
    if (found !== -1) childCount[found]! += 1;
  }
  // Children in list order, from the parents: a depth-first list's children lists, if they agree.
  const childStart = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) childStart[i + 1] = childStart[i]! + childCount[i]!;
  const childList = new Int32Array(childStart[n]!);
  const filled = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const p = parent[i]!;
    if (p === -1) continue;
    childList[childStart[p]! + filled[p]!] = i;
    filled[p]! += 1;
  }
  if (!childrenAgree(nodes, childStart, childList)) {
    return { nodes, indexOf, byId: new NodesById(nodes, indexOf), parent, ...childrenById(nodes, indexOf) };
  }
  return { nodes, indexOf, byId: new NodesById(nodes, indexOf), parent, childStart, childList };
}

/** Whether each node's `children` are exactly the nodes found to have it as parent, in that order. */
function childrenAgree(
  nodes: readonly TreeShapedNode[],
  childStart: Int32Array,
  childList: Int32Array,
): boolean {
  for (let i = 0; i < nodes.length; i++) {
    const children = nodes[i]!.children;
    const start = childStart[i]!;
    if (children.length !== childStart[i + 1]! - start) return false;
    for (let k = 0; k < children.length; k++) {
      if (nodes[childList[start + k]!]!.id !== children[k]) return false;
    }
  }
  return true;
}

/** Children lists read from each node's `children`, by id (skipping ids not in the list). */
function childrenById(
  nodes: readonly TreeShapedNode[],
  indexOf: ReadonlyMap<string, number>,
): { childStart: Int32Array; childList: Int32Array } {
  const childStart = new Int32Array(nodes.length + 1);
  const list: number[] = [];
  for (let i = 0; i < nodes.length; i++) {
    for (const id of nodes[i]!.children) {
      const child = indexOf.get(id);
      if (child !== undefined) list.push(child);
    }
    childStart[i + 1] = list.length;
  }
  return { childStart, childList: Int32Array.from(list) };
}

class NodesById<N> implements IdLookup<N> {
  constructor(
    private readonly nodes: readonly N[],
    private readonly indexOf: ReadonlyMap<string, number>,
  ) {}

  get(id: string): N | undefined {
    const i = this.indexOf.get(id);
    return i === undefined ? undefined : this.nodes[i];
  }

  has(id: string): boolean {
    return this.indexOf.has(id);
  }
}
