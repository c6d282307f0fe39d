/**
 * Deltas of a session's view: what `session.appended` carries instead of the
 * whole view. `applySessionDelta` is what the renderer does with one;
 * `diffSessionViews` computes one from two whole views (the test fake does,
 * and the main process when an append made it rebuild the index).
 */

import type { ListPatch, SessionDelta, SessionView, TreeNodeView } from "./contract.ts";
import type { Problem } from "../session/problems.ts";
import { objectNodes } from "./session-nodes.ts";
import { growSessionNodes } from "./session-nodes-grown.ts";

/** The patch that turns `previous` into `next`: keep their common prefix, add the rest of `next`. */
export function listPatch<T>(
  previous: readonly T[],
  next: readonly T[],
  same: (a: T, b: T) => boolean = Object.is,
): ListPatch<T> {
  let keep = 0;
  const limit = Math.min(previous.length, next.length);
  while (keep < limit && same(previous[keep]!, next[keep]!)) keep++;
  return { keep, add: next.slice(keep) };
}

export function applyListPatch<T>(list: T[], patch: ListPatch<T>): T[] {
  if (patch.keep > list.length) {
    throw new RangeError(`The patch keeps ${patch.keep} items of a list of ${list.length}.`);
  }
  // A list the patch leaves as it was stays the same object: whatever watches it (a view's problems, its
  // roots) sees no change at an append that does not touch it.
  return patch.add.length === 0 && patch.keep === list.length
    ? list
    : [...list.slice(0, patch.keep), ...patch.add];
}

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Whether two node views say the same thing, field by field. */
export function sameNodeView(a: TreeNodeView, b: TreeNodeView): boolean {
  return (
    a.id === b.id &&
    a.parentId === b.parentId &&
    sameStrings(a.children, b.children) &&
    a.type === b.type &&
    a.role === b.role &&
    a.kind === b.kind &&
    a.preview === b.preview &&
    a.label === b.label &&
    a.depth === b.depth &&
    a.line === b.line &&
    a.timestamp === b.timestamp &&
    sameStrings(a.toolNames, b.toolNames) &&
    a.tokenEstimate === b.tokenEstimate &&
    a.isError === b.isError &&
    a.toolCallsOnly === b.toolCallsOnly &&
    a.hasText === b.hasText &&
    a.stopReason === b.stopReason &&
    a.tokensBefore === b.tokensBefore &&
    a.targetId === b.targetId &&
    a.archived === b.archived
  );
}

export function sameProblem(a: Problem, b: Problem): boolean {
  return (
    a.kind === b.kind &&
    a.severity === b.severity &&
    a.line === b.line &&
    a.message === b.message &&
    a.relatedLine === b.relatedLine &&
    a.entryId === b.entryId
  );
}

/**
 * The view after `delta`: a new object, its nodes depth-first from the new
 * roots as always. A delta that only appends grows the list, copying nothing
 * (session-nodes-grown.ts); any other has the nodes ordered again, as
 * objects. Nodes the delta does not name are the same objects as before, so
 * whatever was derived from them per node can be reused.
 */
export function applySessionDelta(view: SessionView, delta: SessionDelta): SessionView {
  const roots = applyListPatch(view.roots, delta.roots);
  const problems = applyListPatch(view.problems, delta.problems);
  const unchangedTree =
    delta.added.length === 0 &&
    delta.changed.length === 0 &&
    delta.removed.length === 0 &&
    delta.roots.add.length === 0 &&
    delta.roots.keep === view.roots.length;
  // A map that came with the view is of the bytes before this change: it does not go on.
  const { branchMap: _before, ...fields } = view;
  return {
    ...fields,
    headerId: delta.headerId,
    cwd: delta.cwd,
    name: delta.name,
    version: delta.version,
    parentSessionId: delta.parentSessionId,
    leafId: delta.leafId,
    roots,
    nodes: unchangedTree
      ? view.nodes
      : (growSessionNodes(view.nodes, roots, delta) ??
        objectNodes(patchNodes(view.nodes.toArray(), roots, delta))),
    problems,
    bytes: delta.bytes,
    live: delta.live,
  };
}

function patchNodes(nodes: readonly TreeNodeView[], roots: readonly string[], delta: SessionDelta) {
  return insertAppended(nodes, delta) ?? rebuildOrder(nodes, roots, delta);
}

/** Beyond this many named nodes, ordering the whole list again is cheaper than finding each one. */
const MAX_IN_PLACE = 64;

function lastIndexOfId(nodes: readonly TreeNodeView[], id: string): number {
  for (let i = nodes.length - 1; i >= 0; i--) if (nodes[i]!.id === id) return i;
  return -1;
}

/**
 * The common case without ordering the whole list again: new entries that
 * are their parent's last children (or new roots, last), nodes changed only
 * by gaining them as children or by a label. Each new node goes after its
 * parent's subtree, which ends at the first node not deeper than the parent.
 * Anything else (a child sorted before older siblings, a rebuilt index)
 * returns null.
 */
function insertAppended(nodes: readonly TreeNodeView[], delta: SessionDelta): TreeNodeView[] | null {
  if (delta.removed.length > 0 || delta.added.length + delta.changed.length > MAX_IN_PLACE) return null;
  const pending = new Set(delta.added.map((node) => node.id));
  const newRoots = delta.added.filter((node) => node.parentId === null).map((node) => node.id);
  if (newRoots.length !== delta.roots.add.length || newRoots.some((id, i) => delta.roots.add[i] !== id)) {
    return null;
  }
  const out = nodes.slice();
  for (const node of delta.changed) {
    const at = lastIndexOfId(out, node.id);
    if (at < 0) return null;
    const old = out[at]!;
    if (old.parentId !== node.parentId || old.depth !== node.depth) return null;
    // Its old children first, then only new entries.
    if (node.children.length < old.children.length) return null;
    for (let i = 0; i < node.children.length; i++) {
      const child = node.children[i]!;
      if (i < old.children.length ? child !== old.children[i] : !pending.has(child)) return null;
    }
    out[at] = node;
  }
  for (const node of delta.added) {
    pending.delete(node.id);
    if (node.parentId === null) {
      out.push(node);
      continue;
    }
    const at = lastIndexOfId(out, node.parentId);
    if (at < 0) return null;
    const parent = out[at]!;
    const k = parent.children.indexOf(node.id);
    if (k < 0) return null;
    for (let i = k + 1; i < parent.children.length; i++) if (!pending.has(parent.children[i]!)) return null;
    let end = at + 1;
    while (end < out.length && out[end]!.depth > parent.depth) end++;
    out.splice(end, 0, node);
  }
  return out;
}

function rebuildOrder(nodes: readonly TreeNodeView[], roots: readonly string[], delta: SessionDelta) {
  const byId = new Map<string, TreeNodeView>();
  for (const node of nodes) byId.set(node.id, node);
  for (const id of delta.removed) byId.delete(id);
  for (const node of delta.changed) byId.set(node.id, node);
  for (const node of delta.added) byId.set(node.id, node);
  return depthFirst(roots, byId);
}

/** Every node reachable from `roots`, depth-first, children in their order. */
export function depthFirst(
  roots: readonly string[],
  byId: ReadonlyMap<string, TreeNodeView>,
): TreeNodeView[] {
  const out: TreeNodeView[] = [];
  const stack: string[] = [];
  for (let i = roots.length - 1; i >= 0; i--) stack.push(roots[i]!);
  while (stack.length > 0) {
    const node = byId.get(stack.pop()!);
    if (!node) continue;
    out.push(node);
    // Children lists of a consistent view form a tree; anything else would loop.
    if (out.length > byId.size) throw new Error("The session's nodes do not form a tree.");
    const children = node.children;
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return out;
}

/** The delta that turns `previous` into `next` (two views of the same session). */
export function diffSessionViews(previous: SessionView, next: SessionView): SessionDelta {
  const previousNodes = previous.nodes.toArray();
  const before = new Map<string, TreeNodeView>();
  for (const node of previousNodes) before.set(node.id, node);
  const added: TreeNodeView[] = [];
  const changed: TreeNodeView[] = [];
  const present = new Set<string>();
  for (const node of next.nodes.toArray()) {
    present.add(node.id);
    const old = before.get(node.id);
    if (!old) added.push(node);
    else if (!sameNodeView(old, node)) changed.push(node);
  }
  added.sort((a, b) => a.line - b.line);
  const removed = previousNodes.filter((node) => !present.has(node.id)).map((node) => node.id);
  return {
    baseBytes: previous.bytes,
    headerId: next.headerId,
    cwd: next.cwd,
    name: next.name,
    version: next.version,
    parentSessionId: next.parentSessionId,
    leafId: next.leafId,
    bytes: next.bytes,
    live: next.live,
    added,
    changed,
    removed,
    roots: listPatch(previous.roots, next.roots),
    problems: listPatch(previous.problems, next.problems, sameProblem),
  };
}
