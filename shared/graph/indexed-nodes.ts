/**
 * A session's nodes as arrays: each node's parent and children by position
 * in one list, so the passes over a whole tree (the filter, chain folding)
 * walk integer arrays instead of looking up 100k string ids in maps, which
 * costs a cache miss or more per lookup (~30 ms a pass at 100k here). One
 * map of ids remains, for what callers ask by id. The list may be of objects
 * (`indexNodes`) or columns that make a node's object only when it is asked
 * for (`indexColumns`), either chosen by `indexNodeList`: the passes read what
 * they need through `fields`.
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

/**
 * What the passes over every node read of node `i` (the filter, chain
 * folding), without making an object for it.
 */
export interface NodeFields {
  id(i: number): string;
  type(i: number): string;
  role(i: number): string | null;
  label(i: number): string | null;
  hasText(i: number): boolean;
  stopReason(i: number): string | null;
}

/** The fields of a node that `NodeFields` reads. */
export interface FieldedNode extends TreeShapedNode {
  type: string;
  role: string | null;
  label: string | null;
  hasText: boolean;
  stopReason: string | null;
}

export interface IndexedNodes<N extends TreeShapedNode> {
  /** How many nodes the list holds. */
  count: number;
  /** Node `i` (of a columnar list: made when first asked for, so passes over every node read `fields`). */
  node(i: number): N;
  /** What the passes read of each node, by position (for nodes that have those fields: `FieldedNode`). */
  fields: NodeFields;
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
  }
  // Children in list order, from the parents: a depth-first list's children lists, if they agree.
  const { childStart, childList } = childListsOf(parent);
  const lists = childrenAgree(nodes, childStart, childList)
    ? { childStart, childList }
    : childrenById(nodes, indexOf);
  return {
    count: n,
    node: (i) => nodes[i]!,
    fields: fieldsOfObjects(nodes),
    indexOf,
    byId: new NodesById(nodes, indexOf),
    parent,
    ...lists,
  };
}

/** `NodeFields` over a list of objects (each field read from the node; a node without it reads undefined). */
function fieldsOfObjects(nodes: readonly TreeShapedNode[]): NodeFields {
  const list = nodes as readonly FieldedNode[];
  return {
    id: (i) => list[i]!.id,
    type: (i) => list[i]!.type,
    role: (i) => list[i]!.role,
    label: (i) => list[i]!.label,
    hasText: (i) => list[i]!.hasText,
    stopReason: (i) => list[i]!.stopReason,
  };
}

/** Position of each id in a list (a duplicate id: its last), and whether no id is there twice. */
export interface IdIndex {
  readonly positions: ReadonlyMap<string, number>;
  readonly unique: boolean;
}

/** The positions of `count` ids, read by `id(i)`. */
export function idIndexOf(count: number, id: (i: number) => string): IdIndex {
  const positions = new Map<string, number>();
  for (let i = 0; i < count; i++) positions.set(id(i), i);
  return { positions, unique: positions.size === count };
}

/** A list whose shape (parent positions) is known and whose nodes are made on demand (see `indexColumns`). */
export interface NodeColumns<N extends FieldedNode> {
  count: number;
  /** Position of each node's parent, -1 without one. */
  parent: Int32Array;
  /** True when every parent is known to come before its children (else `indexColumns` checks). */
  parentsFirst?: boolean;
  fields: NodeFields;
  node(i: number): N;
  /** The positions of the ids (built once by the list, and shared with whoever else asks). */
  idIndex(): IdIndex;
}

/**
 * Indexes a columnar list whose parents are known by position and whose
 * nodes' `children` are exactly the nodes naming them as parent, in list
 * order (parents before children: a depth-first list of a whole tree, as the
 * main process sends it, or one grown by appends), and whose ids are unique:
 * the same result as `indexNodes` of its nodes, without making them, and
 * without a pass over the list beyond what the list knows already (the
 * children lists are made when first read). Returns null for any other list
 * (index its nodes).
 */
export function indexColumns<N extends FieldedNode>(columns: NodeColumns<N>): IndexedNodes<N> | null {
  const n = columns.count;
  const { parent } = columns;
  const { positions: indexOf, unique } = columns.idIndex();
  if (!unique) return null;
  if (!columns.parentsFirst) for (let i = 0; i < n; i++) if (parent[i]! >= i) return null;
  const node = (i: number) => columns.node(i);
  let children: { childStart: Int32Array; childList: Int32Array } | null = null;
  const childLists = () => {
    children ??= childListsOf(parent);
    return children;
  };
  return {
    count: n,
    node,
    fields: columns.fields,
    indexOf,
    byId: {
      get(id) {
        const i = indexOf.get(id);
        return i === undefined ? undefined : node(i);
      },
      has: (id) => indexOf.has(id),
    },
    parent,
    get childStart() {
      return childLists().childStart;
    },
    get childList() {
      return childLists().childList;
    },
  };
}

/**
 * A node list that may know its tree's shape by position: a session view's
 * nodes (shared/ipc/session-nodes.ts), as objects or as columns.
 */
export interface NodeList<N extends FieldedNode> {
  count: number;
  ids: readonly string[];
  fields: NodeFields;
  node(i: number): N;
  /** Position of each node's parent, -1 without one, when the list knows them; else null. */
  parent: Int32Array | null;
  /** Whether `parent` alone gives the list's shape, parents first (see `indexColumns`). */
  derivedShape: boolean;
  /** The positions of the ids, built once. */
  idIndex(): IdIndex;
  /** Every node, depth-first (of columns: makes them all). */
  toArray(): readonly N[];
}

/**
 * Indexes a node list: from its parents by position when they give its shape
 * (no node is made until something asks for it by id), else from its nodes.
 */
export function indexNodeList<N extends FieldedNode>(list: NodeList<N>): IndexedNodes<N> {
  const parent = list.derivedShape ? list.parent : null;
  const fromColumns =
    parent === null
      ? null
      : indexColumns({
          count: list.count,
          parent,
          // A list that derives its shape from its parents has them first (session-nodes.ts).
          parentsFirst: true,
          fields: list.fields,
          node: (i) => list.node(i),
          idIndex: () => list.idIndex(),
        });
  return fromColumns ?? indexNodes(list.toArray());
}

/**
 * Each node's children from its position's parent (`parent[i]`, -1 for none),
 * in list order: `childList[childStart[i] .. childStart[i + 1])`. Parents
 * `derived` says no to get none (their children are known otherwise).
 */
export function childListsOf(
  parent: Int32Array,
  derived: (parent: number) => boolean = () => true,
): { childStart: Int32Array; childList: Int32Array } {
  const n = parent.length;
  const childStart = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) {
    const p = parent[i]!;
    if (p !== -1 && derived(p)) childStart[p + 1]! += 1;
  }
  for (let i = 0; i < n; i++) childStart[i + 1]! += childStart[i]!;
  const childList = new Int32Array(childStart[n]!);
  const filled = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const p = parent[i]!;
    if (p === -1 || !derived(p)) continue;
    childList[childStart[p]! + filled[p]!] = i;
    filled[p]! += 1;
  }
  return { childStart, childList };
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
