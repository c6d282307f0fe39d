/**
 * From the session index to the contract's views: the tree the renderer
 * draws (`SessionView`, `TreeNodeView`), one leaf's context (`ContextView`,
 * built in leaf-context.ts), and one entry with its problems (`EntryDetail`).
 * Pure functions over the index; the handlers add ids and file facts.
 */

import { ArborError, type EntryDetail, type TreeNodeView } from "./contract.ts";
import { sessionErrors } from "../error-texts.ts";
import { depthFirst, sameNodeView } from "./session-delta.ts";
import {
  archivedTargets,
  archiveMarkerOf,
  isArchived,
  isArchiveMarkerEntry,
} from "../session/arbor-entries.ts";
import type { EntryReader } from "../session/entry-reader.ts";
import type { Problem } from "../session/problems.ts";
import type { SessionIndex, TreeNode } from "../session/tree-index.ts";

export { contextView, lastInputTokens } from "./leaf-context.ts";

/**
 * One node, small: facts from `reader.factsOfNode` (computed once per entry),
 * no message body. `archived` is the caller's: it follows from the node's
 * ancestors, which a walk from the roots knows as it goes.
 */
export function treeNodeView(
  index: SessionIndex,
  reader: EntryReader,
  node: TreeNode,
  archived = false,
): TreeNodeView {
  const entry = node.entry;
  const facts = reader.factsOfNode(node);
  const timestamp: unknown = entry.timestamp;
  const tokensBefore: unknown = entry.type === "compaction" ? entry.tokensBefore : undefined;
  const targetId: unknown = entry.type === "context_edit" ? entry.targetId : undefined;
  return {
    id: node.id,
    parentId: node.parentId,
    children: [...node.children],
    type: typeof entry.type === "string" ? entry.type : "unknown",
    role: facts.role ?? null,
    kind: facts.kind,
    preview: facts.preview,
    label: index.labels.get(node.id)?.label ?? null,
    depth: node.depth,
    line: node.line,
    timestamp: typeof timestamp === "string" ? timestamp : "",
    toolNames: facts.toolNames.length === 0 ? [] : [...facts.toolNames],
    tokenEstimate: facts.tokenEstimate,
    isError: facts.isError,
    toolCallsOnly: facts.toolCallsOnly,
    hasText: facts.hasText,
    stopReason: facts.stopReason,
    tokensBefore: typeof tokensBefore === "number" ? tokensBefore : null,
    targetId: typeof targetId === "string" ? targetId : null,
    archived,
  };
}

/** Every node depth-first from the roots in order, children in Pi's order. */
export function treeNodeViews(index: SessionIndex, reader: EntryReader): TreeNodeView[] {
  // Most children are the next entry in the file: found by position, without an id lookup.
  const inFileOrder = [...index.nodes.values()];
  const positionOfLine = new Int32Array(index.lineCount + 2);
  for (let i = 0; i < inFileOrder.length; i++) {
    const line = inFileOrder[i]!.line;
    if (line >= 0 && line < positionOfLine.length) positionOfLine[line] = i;
  }
  const childOf = (node: TreeNode, childId: string): TreeNode => {
    const at = node.line >= 0 && node.line < positionOfLine.length ? positionOfLine[node.line]! : -1;
    const next = inFileOrder[at + 1];
    return next !== undefined && inFileOrder[at] === node && next.id === childId
      ? next
      : index.nodes.get(childId)!;
  };
  const views: TreeNodeView[] = [];
  const archivedTargetIds = archivedTargets(index, reader);
  // Each node with whether it is archived (its own marker, or its parent's state).
  const stack: TreeNode[] = [];
  const stackArchived: boolean[] = [];
  for (let i = index.roots.length - 1; i >= 0; i--) {
    stack.push(index.nodes.get(index.roots[i]!)!);
    stackArchived.push(false);
  }
  while (stack.length > 0) {
    const node = stack.pop()!;
    const archived = stackArchived.pop()! || archivedTargetIds.has(node.id);
    views.push(treeNodeView(index, reader, node, archived));
    for (let i = node.children.length - 1; i >= 0; i--) {
      stack.push(childOf(node, node.children[i]!));
      stackArchived.push(archived);
    }
  }
  return views;
}

/**
 * What a session's view holds that follows from the file's bytes alone: all
 * of `SessionView` but its nodes, the ids and path the main process issues,
 * the parent's id (the library knows it) and liveness (the runtime does).
 * A saved view keeps it with its nodes.
 */
export interface SessionViewContent {
  headerId: string | null;
  cwd: string | null;
  name: string | null;
  version: number;
  leafId: string | null;
  roots: string[];
  problems: Problem[];
  bytes: number;
  /** The header's `parentSession`: the path of the file this one was forked from, as written. */
  parentSession: string | null;
  /** What names it until it has a name (a window's title): `firstUserText`. */
  firstUserText: string | null;
}

export function sessionViewContent(index: SessionIndex, reader: EntryReader): SessionViewContent {
  const header = index.header;
  return {
    headerId: typeof header?.id === "string" ? header.id : null,
    cwd: typeof header?.cwd === "string" ? header.cwd : null,
    name: index.sessionName ?? null,
    version: index.version,
    leafId: index.leafId,
    roots: [...index.roots],
    problems: [...index.problems],
    bytes: index.byteLength,
    parentSession: index.parentSession ?? null,
    firstUserText: firstUserText(index, reader),
  };
}

/** The preview of the session's first user message, at most 80 characters; null without one. */
export function firstUserText(index: SessionIndex, reader: EntryReader): string | null {
  for (const entry of index.entries) {
    if (entry.type !== "message") continue;
    const role = (entry.message as { role?: unknown } | undefined)?.role;
    if (role !== "user") continue;
    const preview = reader.facts(entry.id)?.preview;
    if (preview) return preview.length > 80 ? `${preview.slice(0, 79)}…` : preview;
  }
  return null;
}

/** What changed in a cache's node views since its last update. */
export interface NodeViewChanges {
  /** Nodes that were not there, in file order. */
  added: TreeNodeView[];
  /** Nodes that were there and read differently now. */
  changed: TreeNodeView[];
  /** Ids no longer there. */
  removed: string[];
}

/** What a cache can start from instead of an index: views already built once (a saved view). */
export interface KnownNodeViews {
  /** The entries and bytes of the index they are the views of. */
  entryCount: number;
  byteLength: number;
  roots: readonly string[];
  /** The views, depth-first; called at most once, and only when they are needed. */
  nodes: () => readonly TreeNodeView[];
}

/**
 * The node views of one session, built once and kept up to date with its
 * index. An index extended in place (an append: same object, more entries)
 * costs the views of the new entries, plus those of the nodes they change: a
 * parent (its children), a label's target. Any other index (rebuilt, read
 * again) has every view built again and compared with the old ones; views
 * that read the same stay the same objects.
 */
export class TreeNodeViewCache {
  private index: SessionIndex | null = null;
  private entryCount = 0;
  private byteLength = -1;
  private rootIds: string[] = [];
  /** Views known without their index (`fromKnown`), not yet asked for. */
  private pending: (() => readonly TreeNodeView[]) | null = null;
  /**
   * The views appends built while the known ones are still pending, by id:
   * an append needs no old view unless archive markers are about (a view's
   * `archived` follows its parent's), so 100k known views need not be
   * decoded to follow a session.
   */
  private builtSinceKnown: Map<string, TreeNodeView> | null = null;
  /**
   * The views by id, and in order: each is built from the other when first
   * needed (an open needs only the order: 100k map insertions are ~30 ms).
   * After an update at least one of them is there, unless the known views are still pending.
   */
  private byIdMap: Map<string, TreeNodeView> | null = null;
  private ordered: readonly TreeNodeView[] | null = null;

  /**
   * A cache whose views are known already, for an index not at hand (a
   * saved view: the index may not even be built yet). They stay unbuilt
   * until asked for, or until the index differs from theirs: the first
   * update then compares every view, as after a rebuild.
   */
  static fromKnown(known: KnownNodeViews): TreeNodeViewCache {
    const cache = new TreeNodeViewCache();
    cache.pending = known.nodes;
    cache.entryCount = known.entryCount;
    cache.byteLength = known.byteLength;
    cache.rootIds = [...known.roots];
    return cache;
  }

  private get byId(): Map<string, TreeNodeView> {
    this.decodeKnown();
    if (this.byIdMap === null) {
      const byId = new Map<string, TreeNodeView>();
      for (const view of this.ordered ?? []) byId.set(view.id, view);
      this.byIdMap = byId;
    }
    return this.byIdMap;
  }

  /** Decodes the known views if they are still pending, under those built since. */
  private decodeKnown(): void {
    if (this.pending === null) return;
    const known = this.pending();
    this.pending = null;
    const since = this.builtSinceKnown;
    this.builtSinceKnown = null;
    if (since === null) {
      this.ordered = known;
      return;
    }
    const byId = new Map<string, TreeNodeView>();
    for (const view of known) byId.set(view.id, view);
    for (const [id, view] of since) byId.set(id, view);
    this.byIdMap = byId;
    this.ordered = null;
  }

  /**
   * Known views (`fromKnown`) are those of `index` as it was built, before
   * any appends extended it in place: its first entries are the ones they
   * describe. The next update then costs only what the appends added and
   * changed, not a comparison of every node. Ignored once the views have an
   * index, or when `index` is smaller than theirs.
   */
  adopt(index: SessionIndex): void {
    if (this.index !== null || this.byteLength < 0) return;
    if (index.entries.length >= this.entryCount && index.byteLength >= this.byteLength) this.index = index;
  }

  /** Whether the views are those of `index` as it is now. */
  isCurrent(index: SessionIndex): boolean {
    // Known views stand for any index of their entries and bytes: the file only ever grows.
    const ofIndex = index === this.index || (this.index === null && this.byteLength >= 0);
    return ofIndex && index.entries.length === this.entryCount && index.byteLength === this.byteLength;
  }

  /** Brings the views up to date with `index`; returns what changed (nothing on the first call). */
  update(index: SessionIndex, reader: EntryReader): NodeViewChanges {
    if (this.isCurrent(index)) return { added: [], changed: [], removed: [] };
    const inPlace = index === this.index && index.entries.length >= this.entryCount;
    const changes = inPlace ? this.extend(index, reader) : this.rebuild(index, reader);
    this.index = index;
    this.entryCount = index.entries.length;
    this.byteLength = index.byteLength;
    return changes;
  }

  /** Root ids, as of the last `update`. */
  roots(): readonly string[] {
    return this.rootIds;
  }

  /** Every node depth-first from the roots in order, children in Pi's order, as of the last `update`. */
  nodes(): readonly TreeNodeView[] {
    this.decodeKnown();
    this.ordered ??= depthFirst(this.rootIds, this.byId);
    return this.ordered;
  }
  private extend(index: SessionIndex, reader: EntryReader): NodeViewChanges {
    const added: TreeNodeView[] = [];
    const addedIds = new Set<string>();
    const touched = new Set<string>();
    const markedTargets: string[] = [];
    const archivedTargetIds = archivedTargets(index, reader);
    // Without archive markers no view needs an old one: the known views may stay undecoded.
    const undecoded = this.pending !== null && index.archiveMarkers.length === 0;
    if (undecoded) this.builtSinceKnown ??= new Map();
    const views = undecoded ? this.builtSinceKnown! : this.byId;
    const entries = index.entries;
    for (let i = this.entryCount; i < entries.length; i++) {
      const entry = entries[i]!;
      const node = index.nodes.get(entry.id);
      if (!node || addedIds.has(node.id)) continue;
      const view = treeNodeView(index, reader, node, this.archivedBelow(node, archivedTargetIds));
      added.push(view);
      addedIds.add(node.id);
      views.set(node.id, view);
      if (node.parentId !== null) touched.add(node.parentId);
      const targetId: unknown = entry.type === "label" ? entry.targetId : undefined;
      if (typeof targetId === "string") touched.add(targetId);
      const marker = isArchiveMarkerEntry(entry) ? archiveMarkerOf(reader.entryOfNode(node)) : null;
      if (marker) markedTargets.push(marker.targetId);
    }
    const changed = new Map<string, TreeNodeView>();
    for (const id of touched) {
      const old = views.get(id);
      const node = index.nodes.get(id);
      // An undecoded known view is not compared: a node an append touches changes (a child, a label).
      if ((!old && !undecoded) || !node || addedIds.has(id)) continue;
      const view = treeNodeView(index, reader, node, old?.archived ?? false);
      if (old && sameNodeView(old, view)) continue;
      changed.set(id, view);
      views.set(id, view);
    }
    if (markedTargets.length > 0) {
      for (const targetId of markedTargets)
        this.rearchive(index, reader, targetId, archivedTargetIds, changed);
      // A new entry below a target marked in the same append: it goes out once, as it reads now.
      for (let i = 0; i < added.length; i++) added[i] = this.byId.get(added[i]!.id)!;
      for (const id of addedIds) changed.delete(id);
    }
    if (!sameIds(this.rootIds, index.roots)) this.rootIds = [...index.roots];
    // The order is built again when asked for (an append can land anywhere in it).
    if (added.length > 0 || changed.size > 0) this.ordered = null;
    return { added, changed: [...changed.values()], removed: [] };
  }

  /** Whether a node is archived: its own marker, or its parent's view says so. */
  private archivedBelow(node: TreeNode, targets: ReadonlySet<string>): boolean {
    if (targets.size === 0) return false;
    if (targets.has(node.id)) return true;
    return node.parentId !== null && (this.byId.get(node.parentId)?.archived ?? false);
  }

  /** A marker changed `targetId`'s state: its subtree's views that now read otherwise change. */
  private rearchive(
    index: SessionIndex,
    reader: EntryReader,
    targetId: string,
    targets: ReadonlySet<string>,
    changed: Map<string, TreeNodeView>,
  ): void {
    const target = index.nodes.get(targetId);
    if (!target) return;
    const stack: TreeNode[] = [target];
    while (stack.length > 0) {
      const node = stack.pop()!;
      const old = this.byId.get(node.id);
      const archived = this.archivedBelow(node, targets);
      if (old && old.archived !== archived) {
        const view = treeNodeView(index, reader, node, archived);
        this.byId.set(node.id, view);
        changed.set(node.id, view);
      }
      for (const childId of node.children) stack.push(index.nodes.get(childId)!);
    }
  }

  private rebuild(index: SessionIndex, reader: EntryReader): NodeViewChanges {
    const fresh = treeNodeViews(index, reader);
    this.rootIds = [...index.roots];
    if (this.index === null && this.byteLength < 0) {
      this.ordered = fresh;
      this.byIdMap = null;
      return { added: [], changed: [], removed: [] };
    }
    const added: TreeNodeView[] = [];
    const changed: TreeNodeView[] = [];
    // The old map itself (it is dropped below): built once from the old order if need be, not copied.
    const previous = this.byId;
    for (let i = 0; i < fresh.length; i++) {
      const view = fresh[i]!;
      const old = previous.get(view.id);
      previous.delete(view.id);
      if (!old) {
        added.push(view);
      } else if (sameNodeView(old, view)) {
        fresh[i] = old;
      } else {
        changed.push(view);
      }
    }
    added.sort((a, b) => a.line - b.line);
    this.ordered = fresh;
    this.byIdMap = null;
    return { added, changed, removed: [...previous.keys()] };
  }
}

function sameIds(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** One whole entry, its line, and the problems found on it. */
export function entryDetail(index: SessionIndex, reader: EntryReader, entryId: string): EntryDetail {
  const node = index.nodes.get(entryId);
  if (!node) throw new ArborError("not-found", sessionErrors.noEntry(entryId));
  const label = index.labels.get(entryId);
  return {
    entry: reader.entryOfNode(node),
    line: node.line,
    problems: index.problems.filter((problem) => problem.entryId === entryId || problem.line === node.line),
    label: label ? { label: label.label, timestamp: label.timestamp } : null,
    archived: isArchived(index, reader, entryId),
  };
}
