/**
 * A view's node list grown by appends (`growSessionNodes`): the list the view
 * was sent with (columns, objects or wire text) and, over it, what deltas
 * that only append gave: new nodes, each its parent's last child, after all
 * the others, and the nodes they changed (a parent's children, a label) over
 * the old ones. Nothing is copied, so an append costs the page what it adds,
 * not a pass over 100k nodes. Every version reads as it was when it was made
 * (the view before an append keeps its list); only the newest grows further.
 * `growthSince` tells what grew between two versions, for the graph model to
 * grow its own state the same way.
 */

import { childListsOf, type IdIndex, type NodeFields } from "../graph/indexed-nodes.ts";
import { PersistentList } from "../graph/persistent-arrays.ts";
import { MapView } from "../graph/map-view.ts";
import type { SessionDelta, TreeNodeView } from "./contract.ts";
import type { SessionNodeFields, SessionNodes } from "./session-nodes.ts";

/** What grew between two versions of a list: nodes `from.count .. count` were added, `changed` changed. */
export interface NodeGrowth {
  from: SessionNodes;
  /** Positions below `from.count` whose node changed, in increasing order. */
  changed: readonly number[];
}

/** How many appends back `growthSince` looks for the version it is asked about. */
const MAX_STEPS_BACK = 1024;

/** What the versions of one grown list share: the list it grew from, and what only ever grows. */
class Line {
  readonly baseCount: number;
  /** Parent positions of every node so far (a version reads its own first `count`); replaced when full. */
  parents: Int32Array;
  /** Positions of the added nodes' ids (a version ignores those at or past its `count`). */
  readonly added = new Map<string, number>();
  /** The positions each step changed (step k's are `log[k - 1]`). */
  readonly log: (readonly number[])[] = [];

  constructor(
    readonly base: SessionNodes,
    parents: Int32Array,
  ) {
    this.baseCount = base.count;
    this.parents = new Int32Array(Math.max(16, parents.length * 2));
    this.parents.set(parents);
  }

  /** Room for `count` parents. */
  reserve(count: number): void {
    if (count <= this.parents.length) return;
    const larger = new Int32Array(Math.max(count, this.parents.length * 2));
    larger.set(this.parents);
    this.parents = larger;
  }
}

class GrownNodes implements SessionNodes {
  readonly fields: SessionNodeFields;
  readonly derivedShape = true;
  readonly wireJson = null;
  private readonly parents: Int32Array;
  private positions: IdIndex | null = null;
  private all: readonly TreeNodeView[] | null = null;

  constructor(
    readonly line: Line,
    /** The number of appends from the line's base to this version. */
    readonly step: number,
    readonly count: number,
    /** The added nodes and the changed ones, by position. */
    private readonly over: PersistentList<TreeNodeView>,
    readonly roots: readonly string[],
  ) {
    this.parents = line.parents;
    this.fields = grownFields(line.base.fields, over);
  }

  get parent(): Int32Array {
    return this.parents.subarray(0, this.count);
  }

  /** Made when asked for: nothing on the append path reads every id. */
  get ids(): readonly string[] {
    const ids: string[] = [];
    for (let i = 0; i < this.count; i++) ids.push(this.fields.id(i));
    return ids;
  }

  node(i: number): TreeNodeView {
    if (!(i >= 0 && i < this.count)) throw new RangeError(`No node ${i} in a list of ${this.count}.`);
    return this.over.get(i) ?? this.line.base.node(i);
  }

  idIndex(): IdIndex {
    this.positions ??= {
      positions: new GrownIdMap(this.line.base.idIndex().positions, this.line.added, this.count),
      unique: true,
    };
    return this.positions;
  }

  /** Depth-first from the roots, made once when first asked for. */
  toArray(): readonly TreeNodeView[] {
    if (this.all !== null) return this.all;
    const { childStart, childList } = childListsOf(this.parent);
    const positions = this.idIndex().positions;
    const out: TreeNodeView[] = [];
    const stack: number[] = [];
    for (let k = this.roots.length - 1; k >= 0; k--) {
      const root = positions.get(this.roots[k]!);
      if (root !== undefined) stack.push(root);
    }
    while (stack.length > 0) {
      const i = stack.pop()!;
      out.push(this.node(i));
      for (let k = childStart[i + 1]! - 1; k >= childStart[i]!; k--) stack.push(childList[k]!);
    }
    this.all = out;
    return out;
  }

  /** The next version, with `added` appended and `changed` replaced (checked by `growSessionNodes`). */
  grow(
    added: readonly { node: TreeNodeView; parent: number }[],
    changed: readonly { node: TreeNodeView; at: number }[],
    roots: readonly string[],
  ): GrownNodes {
    const { line } = this;
    const count = this.count + added.length;
    line.reserve(count);
    let over = this.over.resize(count);
    for (let k = 0; k < added.length; k++) {
      const at = this.count + k;
      line.parents[at] = added[k]!.parent;
      line.added.set(added[k]!.node.id, at);
      over = over.set(at, added[k]!.node);
    }
    for (const { node, at } of changed) over = over.set(at, node);
    line.log.push(changed.map((change) => change.at));
    return new GrownNodes(line, this.step + 1, count, over, roots);
  }
}

/** The fields of a grown list: the node over a position if there is one, else the base list's. */
function grownFields(base: SessionNodeFields, over: PersistentList<TreeNodeView>): SessionNodeFields {
  const read =
    <K extends keyof SessionNodeFields>(
      field: K,
      of: (node: TreeNodeView) => ReturnType<SessionNodeFields[K]>,
    ) =>
    (i: number): ReturnType<SessionNodeFields[K]> => {
      const node = over.get(i);
      return node === undefined ? (base[field](i) as ReturnType<SessionNodeFields[K]>) : of(node);
    };
  return {
    id: read("id", (node) => node.id),
    type: read("type", (node) => node.type),
    kind: read("kind", (node) => node.kind),
    role: read("role", (node) => node.role),
    label: read("label", (node) => node.label),
    hasText: read("hasText", (node) => node.hasText),
    stopReason: read("stopReason", (node) => node.stopReason),
    preview: read("preview", (node) => node.preview),
    toolNames: read("toolNames", (node) => node.toolNames),
    archived: read("archived", (node) => node.archived),
  } satisfies NodeFields & SessionNodeFields;
}

/** The positions of a version's ids: the base list's, then the added ones below its count. */
class GrownIdMap extends MapView<string, number> {
  constructor(
    private readonly base: ReadonlyMap<string, number>,
    private readonly added: ReadonlyMap<string, number>,
    readonly size: number,
  ) {
    super();
  }

  get(id: string): number | undefined {
    const at = this.base.get(id);
    if (at !== undefined) return at;
    const added = this.added.get(id);
    return added !== undefined && added < this.size ? added : undefined;
  }

  *entries(): MapIterator<[string, number]> {
    yield* this.base.entries();
    for (const [id, at] of this.added) if (at < this.size) yield [id, at];
  }
}

/**
 * The list after `delta`, grown in place of copied, when the delta only
 * appends: no node removed; each new node's parent in the list (or among
 * the nodes before it) or none for a new root, its depth its parent's plus
 * one, its children the new nodes naming it; each node changed keeps its
 * parent and depth, and its children are its old ones and then the new nodes
 * naming it (a parent of a new node must be among them); new roots come last.
 * Returns null for any other delta (the caller orders the list again).
 */
export function growSessionNodes(
  nodes: SessionNodes,
  roots: readonly string[],
  delta: Pick<SessionDelta, "added" | "changed" | "removed" | "roots">,
): SessionNodes | null {
  if (delta.removed.length > 0) return null;
  const from = grownOrStart(nodes);
  if (from === null) return null;
  const positions = from.idIndex().positions;
  const addedAt = new Map<string, number>();
  const positionOf = (id: string) => positions.get(id) ?? addedAt.get(id);
  const added: { node: TreeNodeView; parent: number }[] = [];
  /** The ids of the new nodes naming each parent, in order. */
  const newChildren = new Map<number, string[]>();
  const newRoots: string[] = [];
  for (const node of delta.added) {
    if (positionOf(node.id) !== undefined) return null;
    const parent = node.parentId === null ? -1 : positionOf(node.parentId);
    if (parent === undefined) return null;
    const depth = parent === -1 ? 0 : depthOf(from, added, parent) + 1;
    if (node.depth !== depth) return null;
    if (parent === -1) newRoots.push(node.id);
    else newChildren.set(parent, [...(newChildren.get(parent) ?? []), node.id]);
    addedAt.set(node.id, from.count + added.length);
    added.push({ node, parent });
  }
  if (!sameList(delta.roots.add, newRoots) || delta.roots.keep + newRoots.length !== roots.length)
    return null;
  const changed: { node: TreeNodeView; at: number }[] = [];
  for (const node of delta.changed) {
    const at = positions.get(node.id);
    if (at === undefined || changed.some((change) => change.at === at)) return null;
    const old = from.node(at);
    if (old.parentId !== node.parentId || old.depth !== node.depth) return null;
    if (!sameList(node.children, [...old.children, ...(newChildren.get(at) ?? [])])) return null;
    changed.push({ node, at });
  }
  for (const [parent, children] of newChildren) {
    if (parent >= from.count) {
      if (!sameList(added[parent - from.count]!.node.children, children)) return null;
    } else if (!changed.some((change) => change.at === parent)) return null;
  }
  for (const { node } of added)
    if (!newChildren.has(addedAt.get(node.id)!) && node.children.length > 0) return null;
  return from.grow(added, changed, roots);
}

function depthOf(from: GrownNodes, added: readonly { node: TreeNodeView }[], at: number): number {
  return at >= from.count ? added[at - from.count]!.node.depth : from.node(at).depth;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Lines started ahead of the first append (`prepareGrowth`), each taken by the first growth of its list. */
const prepared = new WeakMap<SessionNodes, GrownNodes | null>();

/**
 * Starts the line a first append to `nodes` grows, ahead of it: a pass over
 * every node (its shape, its roots) that the window does while idle after an
 * open, so the first append of a live session costs what it adds.
 */
export function prepareGrowth(nodes: SessionNodes): void {
  if (!(nodes instanceof GrownNodes) && !prepared.has(nodes)) prepared.set(nodes, startOf(nodes));
}

/** The newest version of a grown list as it is, or a new line over any other list whose shape is known. */
function grownOrStart(nodes: SessionNodes): GrownNodes | null {
  if (nodes instanceof GrownNodes) return nodes.step === nodes.line.log.length ? nodes : null;
  // Taken once: a line is started for each growth of the same list.
  const start = prepared.get(nodes);
  prepared.delete(nodes);
  return start !== undefined ? start : startOf(nodes);
}

function startOf(nodes: SessionNodes): GrownNodes | null {
  if (!nodes.idIndex().unique) return null;
  const parents = shapeOf(nodes);
  if (parents === null) return null;
  const roots: string[] = [];
  for (let i = 0; i < nodes.count; i++) if (parents[i] === -1) roots.push(nodes.fields.id(i));
  return new GrownNodes(
    new Line(nodes, parents),
    0,
    nodes.count,
    PersistentList.sparse(nodes.count, []),
    roots,
  );
}

/**
 * The parent positions of a list that is a whole tree, parents first, with
 * unique ids and the children and depths its parents give: a list of columns
 * says so itself; a list of objects is checked once. Null for any other.
 */
function shapeOf(nodes: SessionNodes): Int32Array | null {
  if (nodes.derivedShape && nodes.parent !== null) return nodes.parent;
  const { positions, unique } = nodes.idIndex();
  if (!unique) return null;
  const n = nodes.count;
  const parent = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const node = nodes.node(i);
    const p = node.parentId === null ? -1 : positions.get(node.parentId);
    if (p === undefined || p >= i) return null;
    if (node.depth !== (p === -1 ? 0 : nodes.node(p).depth + 1)) return null;
    parent[i] = p;
  }
  const { childStart, childList } = childListsOf(parent);
  for (let i = 0; i < n; i++) {
    const children = nodes.node(i).children;
    if (children.length !== childStart[i + 1]! - childStart[i]!) return null;
    for (let k = 0; k < children.length; k++) {
      if (nodes.fields.id(childList[childStart[i]! + k]!) !== children[k]) return null;
    }
  }
  return parent;
}

/**
 * How `list` grew from `earlier`, when it is a later version of the same
 * grown list (or `earlier` is the list it grew from) by at most a thousand
 * appends; else null. The same list grew by nothing.
 */
export function growthSince(list: SessionNodes, earlier: SessionNodes): NodeGrowth | null {
  if (list === earlier) return { from: earlier, changed: [] };
  if (!(list instanceof GrownNodes)) return null;
  const { line } = list;
  let fromStep: number;
  if (earlier instanceof GrownNodes && earlier.line === line) fromStep = earlier.step;
  else if (earlier === line.base) fromStep = 0;
  else return null;
  if (fromStep > list.step || list.step - fromStep > MAX_STEPS_BACK) return null;
  const changed = new Set<number>();
  for (let step = fromStep; step < list.step; step++) {
    for (const at of line.log[step]!) if (at < earlier.count) changed.add(at);
  }
  return { from: earlier, changed: [...changed].sort((a, b) => a - b) };
}
