/**
 * Chain folding grown by an append instead of folded again: only the run
 * the new entries hang from (the entry they hang from, and the run through
 * it when they continue it) and the new entries are folded again, with the
 * same rules as `foldChains`; every other graph node stays the same object.
 * The result equals `foldChains` of the grown tree. Null when the append
 * would move graph nodes outside that region (a run cut in two above other
 * branches), for the caller to fold the whole tree.
 */

import { chainId, type FoldedGraph, type FoldOptions, type GraphNode, MIN_CHAIN_LENGTH } from "./chains.ts";
import { type FoldKeys, type FoldSettings, GrownGraph } from "./folded-graph.ts";
import type { NodeFields } from "./indexed-nodes.ts";
import type { VisibleChange, VisibleTreeState } from "./visible-tree.ts";

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a === b) return true;
  if (a.size !== b.size) return false;
  for (const item of a) if (!b.has(item)) return false;
  return true;
}

/** Reads of the new tree and the old fold, for one growth. */
class Region {
  readonly fields: NodeFields;
  /** Graph nodes made, by key; and each region entry's node. */
  readonly made = new Map<number, GraphNode>();
  readonly nodeOf = new Map<number, GraphNode>();
  readonly runOf = new Map<number, number>();
  readonly order: GraphNode[] = [];
  readonly keyOfNode = new Map<GraphNode, number>();

  constructor(
    readonly tree: VisibleTreeState,
    readonly old: FoldKeys,
    readonly settings: FoldSettings,
  ) {
    this.fields = tree.indexed.fields;
  }

  keep(e: number): boolean {
    return this.settings.keep(this.fields.id(e), this.fields.label(e));
  }

  foldable(e: number): boolean {
    return this.tree.childCountOf(e) <= 1 && !this.keep(e);
  }

  /** Whether a run starts at foldable `e` (its parent cannot continue one). */
  startsRun(e: number): boolean {
    const q = this.tree.visibleAbove(e);
    return q === -1 || !this.foldable(q) || this.tree.childCountOf(q) !== 1;
  }

  /** The old graph node showing entry `e`. */
  oldNode(e: number): GraphNode {
    return this.old.nodeAt.get(this.old.keyOf.get(e))!;
  }

  /** The id of the graph node showing entry `e` now: made here, or the old one. */
  nodeId(e: number): string | null {
    if (e === -1) return null;
    return (this.nodeOf.get(e) ?? this.oldNode(e)).id;
  }

  /** The entries of the run from `e` on: each the single child of the one before, foldable. */
  runFrom(e: number): number[] {
    const run = [e];
    for (let last = e; this.tree.childCountOf(last) === 1; ) {
      const next = this.tree.childrenOf(last)[0]!;
      if (!this.foldable(next)) break;
      run.push(next);
      last = next;
    }
    return run;
  }

  add(node: GraphNode, key: number, entries: readonly number[]): void {
    this.made.set(key, node);
    this.keyOfNode.set(node, key);
    this.order.push(node);
    for (const e of entries) this.nodeOf.set(e, node);
  }

  /** A node for each entry of `entries` (a run too short to fold, or one the user expanded). */
  addEntries(entries: readonly number[], parent: string | null): void {
    for (const e of entries) {
      const id = this.fields.id(e);
      this.add(
        {
          kind: "entry",
          id,
          entryId: id,
          parent: this.nodeId(this.tree.visibleAbove(e)) ?? parent,
          children: [],
        },
        e,
        [e],
      );
    }
  }
}

/**
 * `foldChains(tree, options)` grown from `previous` (the fold of the tree
 * `tree` grew from, with the same options but for `keep` saying the same of
 * every entry except the old and new leaf and new entries); null when it
 * cannot be (see the top of the file).
 */
export function growFoldedGraph(
  previous: FoldedGraph,
  tree: VisibleTreeState,
  options: FoldOptions,
): GrownGraph | null {
  if (!("keys" in previous) || typeof previous.keys !== "function") return null;
  const from = previous as FoldedGraph & { keys(): FoldKeys };
  const old = from.keys();
  const change = tree.change;
  const settings: FoldSettings = {
    keep: options.keep,
    expanded: options.expanded ?? new Set<string>(),
    minLength: options.minLength ?? MIN_CHAIN_LENGTH,
  };
  if (change === null || change.from !== old.tree || change.attach === -1) return null;
  if (!sameSet(settings.expanded, old.options.expanded) || settings.minLength !== old.options.minLength)
    return null;
  const region = new Region(tree, old, settings);
  const plan = planRegion(region, change);
  if (plan === null) return null;
  foldPrefix(region, plan);
  foldNew(region, plan, change);
  return commit(region, from, plan, change);
}

/** Where folding starts again, and what it replaces. */
interface Plan {
  /** The entry the new ones hang from. */
  attach: number;
  /**
   * The run through `attach` when it continues its parent's and is folded: its start, the ids before
   * `attach`, and those entries when they were nodes of their own (null: they were the chain already).
   */
  incoming: { start: number; ids: readonly string[]; entries: readonly number[] | null } | null;
  /** A run above `attach` that no longer reaches it: re-made, from its start, with these entries (null: as a chain). */
  cut: { start: number; ids: readonly string[]; entries: readonly number[] | null } | null;
  /** Old graph nodes folded again (the region's), the top one first. */
  removed: GraphNode[];
  /** The visible parent of the region's top entry. */
  topParent: number;
}

/** The old nodes to fold again, from the start of the run through the attach entry. */
function planRegion(region: Region, change: VisibleChange): Plan | null {
  const { tree, old, settings, fields } = region;
  const attach = change.attach;
  const before = old.tree;
  const beforeFields = before.indexed.fields;
  const foldableBefore = (e: number) =>
    before.childCountOf(e) <= 1 && !old.options.keep(beforeFields.id(e), beforeFields.label(e));
  const attachNode = region.oldNode(attach);
  // The attach entry must end its old node, and its other children keep their runs.
  if (
    attachNode.kind === "chain" &&
    attachNode.entryIds[attachNode.entryIds.length - 1] !== fields.id(attach)
  )
    return null;
  const otherChildren = before.childrenOf(attach).filter((c) => !(change.removeLeaf && c === change.leaf));
  const continuesBefore = foldableBefore(attach) && before.childCountOf(attach) === 1;
  const continuesNow = region.foldable(attach) && tree.childCountOf(attach) === 1;
  if (otherChildren.length > 0 && continuesBefore !== continuesNow) return null;
  const q = tree.visibleAbove(attach);
  const removed: GraphNode[] = [];
  const leafNode = change.removeLeaf ? region.oldNode(change.leaf) : null;
  const continues = region.foldable(attach) && !region.startsRun(attach);
  if (!continues) {
    const cut = attachNode.kind === "chain" && attachNode.entryIds[0] !== fields.id(attach);
    removed.push(attachNode);
    if (leafNode) removed.push(leafNode);
    if (!cut) return { attach, incoming: null, cut: null, removed, topParent: q };
    // The chain ran into the attach entry: the run above it is re-made without it.
    const ids = attachNode.entryIds.slice(0, -1);
    const start = tree.indexed.indexOf.get(ids[0]!)!;
    const folded = ids.length >= settings.minLength && !settings.expanded.has(chainId(ids[0]!));
    const entries = folded ? null : entriesUp(tree, q, ids.length);
    return {
      attach,
      incoming: null,
      cut: { start, ids, entries },
      removed,
      topParent: tree.visibleAbove(start),
    };
  }
  const start = old.runStart.get(q);
  const startNode = region.oldNode(start);
  if (startNode.kind === "chain") {
    // The run was folded: it is folded again, longer.
    const ids = startNode.id === attachNode.id ? startNode.entryIds.slice(0, -1) : startNode.entryIds;
    removed.push(startNode);
    if (attachNode !== startNode) removed.push(attachNode);
    if (leafNode) removed.push(leafNode);
    return {
      attach,
      incoming: { start, ids, entries: null },
      cut: null,
      removed,
      topParent: tree.visibleAbove(start),
    };
  }
  // Drawn entry by entry: expanded (it stays so), or too short to fold, which it may be no longer.
  const expanded = settings.expanded.has(chainId(fields.id(start)));
  const prefix = expanded ? [] : entriesUp(tree, q, settings.minLength, start);
  const foldsNow = !expanded && prefix.length + region.runFrom(attach).length >= settings.minLength;
  if (foldsNow) for (const e of prefix) removed.push(region.oldNode(e));
  removed.push(attachNode);
  if (leafNode) removed.push(leafNode);
  if (!foldsNow) return { attach, incoming: null, cut: null, removed, topParent: q };
  const ids = prefix.map((e) => fields.id(e));
  return {
    attach,
    incoming: { start, ids, entries: prefix },
    cut: null,
    removed,
    topParent: tree.visibleAbove(start),
  };
}

/**
 * The entries of a run from its start down to `last`, in order: `count` of
 * them, or up to `start`. Only for runs drawn entry by entry, which are
 * short unless the user expanded them; an expanded run is walked up to its
 * start here (its entries' nodes are not made again).
 */
function entriesUp(tree: VisibleTreeState, last: number, count: number, start = -2): number[] {
  const entries: number[] = [];
  for (let e = last; e !== -1 && entries.length < count; e = tree.visibleAbove(e)) {
    entries.push(e);
    if (e === start) break;
  }
  return entries.reverse();
}

/** The run cut above the attach entry, made again on its own. */
function foldPrefix(region: Region, plan: Plan): void {
  const { cut } = plan;
  if (cut === null) return;
  const parent = region.nodeId(plan.topParent);
  if (cut.entries !== null) {
    region.addEntries(cut.entries, parent);
    return;
  }
  const id = chainId(cut.ids[0]!);
  region.add({ kind: "chain", id, entryIds: [...cut.ids], parent, children: [] }, cut.start, []);
}

/** The attach entry and the new entries, folded in the visible order as `foldChains` does. */
function foldNew(region: Region, plan: Plan, change: VisibleChange): void {
  const { tree, fields, settings } = region;
  for (const e of [plan.attach, ...change.added]) {
    if (region.nodeOf.has(e)) continue;
    const parentEntry = tree.visibleAbove(e);
    const incoming = e === plan.attach ? plan.incoming : null;
    if (incoming !== null) {
      // Continues the run above: one chain from its start (the plan folds it only when it is long enough).
      const run = region.runFrom(e);
      const ids = [...incoming.ids, ...run.map((r) => fields.id(r))];
      const parent = region.nodeId(plan.topParent);
      const entries = [...(incoming.entries ?? []), ...run];
      region.add(
        { kind: "chain", id: chainId(ids[0]!), entryIds: ids, parent, children: [] },
        incoming.start,
        entries,
      );
      for (const r of run) region.runOf.set(r, incoming.start);
      continue;
    }
    const parent = region.nodeId(parentEntry);
    if (region.foldable(e) && region.startsRun(e)) {
      const run = region.runFrom(e);
      for (const r of run) region.runOf.set(r, e);
      const id = chainId(fields.id(e));
      if (run.length >= settings.minLength && !settings.expanded.has(id)) {
        region.add(
          { kind: "chain", id, entryIds: run.map((r) => fields.id(r)), parent, children: [] },
          e,
          run,
        );
        continue;
      }
    } else if (region.foldable(e)) {
      region.runOf.set(e, region.runOf.get(parentEntry) ?? region.old.runStart.get(parentEntry));
    } else {
      region.runOf.set(e, -1);
    }
    const id = fields.id(e);
    region.add({ kind: "entry", id, entryId: id, parent, children: [] }, e, [e]);
  }
}

/** The grown graph: the region's nodes in place of the removed ones, their children, keys and order. */
function commit(
  region: Region,
  from: FoldedGraph & { keys(): FoldKeys },
  plan: Plan,
  change: VisibleChange,
): GrownGraph | null {
  const { old, order } = region;
  // Children of the region's nodes, in the visible order; the attach entry's other (old) children last.
  const byId = new Map(order.map((node) => [node.id, node]));
  for (const node of order)
    if (node.parent !== null && byId.has(node.parent)) byId.get(node.parent)!.children.push(node.id);
  const attachNode = region.nodeOf.get(plan.attach)!;
  const removedIds = new Set(plan.removed.map((node) => node.id));
  for (const child of region.oldNode(plan.attach).children) {
    if (removedIds.has(child) || attachNode.children.includes(child)) continue;
    const childNode = from.byId.get(child);
    // An old branch below: it stays only if its parent node keeps its name.
    if (childNode?.parent !== attachNode.id) return null;
    attachNode.children.push(child);
  }
  // The region's top replaces the removed top in its parent's children.
  const top = order[0]!;
  const oldTop = plan.removed[0]!;
  const renewed: GraphNode[] = [];
  let roots = old.roots;
  if (top.id !== oldTop.id) {
    if (top.parent === null) roots = roots.map((id) => (id === oldTop.id ? top.id : id));
    else {
      const parent = from.byId.get(top.parent)!;
      renewed.push({ ...parent, children: parent.children.map((id) => (id === oldTop.id ? top.id : id)) });
    }
  }
  return place(region, from, { removed: plan.removed, added: order, renewed, roots }, change);
}

/** Keys, runs and order updated: removed nodes off the end of the path, the region's added after. */
function place(
  region: Region,
  from: FoldedGraph & { keys(): FoldKeys },
  made: { removed: readonly GraphNode[]; added: readonly GraphNode[]; renewed: GraphNode[]; roots: string[] },
  change: VisibleChange,
): GrownGraph | null {
  const { tree, old } = region;
  const indexOf = tree.indexed.indexOf;
  const keyOfOld = (node: GraphNode) =>
    indexOf.get(node.kind === "chain" ? node.entryIds[0]! : node.entryId)!;
  const removedKeys = made.removed.map(keyOfOld);
  let pathKeys = old.pathKeys;
  const tail = new Set(removedKeys);
  for (let k = 0; k < removedKeys.length; k++) {
    const last = pathKeys.get(pathKeys.length - 1);
    if (!tail.has(last)) return null;
    pathKeys = pathKeys.truncate(pathKeys.length - 1);
  }
  const onPath = (key: number) => tree.positionOf(key) < tree.pathCount;
  const addedKeys = made.added.map((node) => region.keyOfNode.get(node)!);
  pathKeys = pathKeys.push(addedKeys.filter(onPath));
  const restKeys = old.restKeys.push(addedKeys.filter((key) => !onPath(key)).reverse());
  const nodes: [number, GraphNode | undefined][] = removedKeys.map((key) => [key, undefined]);
  for (const [k, node] of made.added.entries()) nodes.push([addedKeys[k]!, node]);
  for (const node of made.renewed) nodes.push([keyOfOld(node), node]);
  const keys: [number, number][] = [];
  for (const [e, node] of region.nodeOf) keys.push([e, region.keyOfNode.get(node)!]);
  if (change.removeLeaf) keys.push([change.leaf, -1]);
  const n = tree.indexed.count;
  const grow = (list: FoldKeys["keyOf"]) => list.push(new Array<number>(n - list.length).fill(-1));
  const keyed: FoldKeys = {
    tree,
    options: region.settings,
    keyOf: grow(old.keyOf).setAll(keys),
    nodeAt: old.nodeAt.resize(n).setAll(nodes),
    runStart: grow(old.runStart).setAll(region.runOf),
    pathKeys,
    restKeys,
    roots: made.roots,
  };
  return new GrownGraph(keyed, { from, removed: made.removed, added: made.added, renewed: made.renewed });
}
