/**
 * What the model sees from one leaf: Pi 1.x's `buildSessionProjection` /
 * `buildSessionContext`, which reduce to 0.73's on files without 1.x-only
 * entries. Two differences from Pi, both on purpose: the path is built in
 * time linear in its length (0.73 is quadratic), and the walk ends on a parent
 * cycle (Pi loops forever).
 */

import type { EntryReader } from "./entry-reader.ts";
import { messageContribution, projectContextEntry } from "./entry-contribution.ts";
import { isRecord } from "./facts.ts";
import type { SessionIndex, TreeNode } from "./tree-index.ts";
import {
  type AgentMessage,
  assertNever,
  type CompactionEntry,
  type ContextEditEntry,
  isKnownEntryType,
  type ModelRef,
  type SessionContext,
  type SessionEntry,
} from "./types.ts";

/** The three things context building needs from a session. */
export interface ContextGraph {
  get(id: string): SessionEntry | undefined;
  /** Pi's fallback leaf: the last entry in file order. */
  lastEntry(): SessionEntry | undefined;
  /** The entry's parent, or undefined at a root (including where a cycle was cut). */
  parentOf(entry: SessionEntry): SessionEntry | undefined;
  /** How many entries there are: a walk longer than this has met a cycle. */
  size(): number;
  /** Optional fast path: the leaf's root-to-leaf path, when the graph can walk it more cheaply. */
  pathTo?(leaf: SessionEntry): SessionEntry[];
  /**
   * Optional, for graphs whose bodies are read on demand: the leaf's path as
   * it is held (whole entries, or the stubs of deferred ones: type, ids,
   * short fields, the message's role) and a reader of whole entries at
   * positions of it. The context then reads only the bodies it uses.
   */
  pathStubsTo?(leaf: SessionEntry): StubbedPath;
}

export interface StubbedPath {
  stubs: SessionEntry[];
  /** The whole entries at these positions of `stubs`, in the same order. */
  whole(positions: readonly number[]): SessionEntry[];
}

/** Context over an index: parents are the tree's, in which cycles are already cut. Bodies load on demand through `reader`. */
export function contextGraphOf(index: SessionIndex, reader: EntryReader): ContextGraph {
  // Pi's last entry may be a stray non-object value, whose context is empty.
  const last = index.trailingNonEntryLine === null ? index.entries[index.entries.length - 1] : undefined;
  return {
    get: (id) => reader.entry(id),
    lastEntry: () => (last ? reader.entry(last.id) : undefined),
    parentOf(entry) {
      const node = index.nodes.get(entry.id);
      return node?.parentId == null ? undefined : reader.entry(node.parentId);
    },
    size: () => index.nodes.size,
    pathTo(leaf) {
      // Walk tree nodes directly (acyclic by construction): one lookup per step.
      const nodes: TreeNode[] = [];
      for (let node = index.nodes.get(leaf.id); node; node = node.parent ?? undefined) {
        nodes.push(node);
      }
      nodes.reverse();
      const path = reader.entriesOfNodes(nodes);
      if (path.length > 0) path[path.length - 1] = leaf;
      return path;
    },
    pathStubsTo(leaf) {
      const nodes: TreeNode[] = [];
      for (let node = index.nodes.get(leaf.id); node; node = node.parent ?? undefined) nodes.push(node);
      nodes.reverse();
      const last = nodes.length - 1;
      const stubs = new Array<SessionEntry>(nodes.length);
      for (let i = 0; i < last; i++) stubs[i] = nodes[i]!.entry;
      if (last >= 0) stubs[last] = leaf;
      return {
        stubs,
        whole: (positions) => {
          const entries = reader.entriesOfNodes(positions.map((at) => nodes[at]!));
          for (let i = 0; i < positions.length; i++) if (positions[i] === last) entries[i] = leaf;
          return entries;
        },
      };
    },
  };
}

/** Context over a plain entry list, with Pi's signature; a cycle ends the walk where it closes. */
export function contextGraphOfEntries(
  entries: readonly SessionEntry[],
  byId?: ReadonlyMap<string, SessionEntry>,
): ContextGraph {
  const index = byId ?? new Map(entries.map((entry) => [entry.id, entry]));
  return {
    get: (id) => index.get(id),
    lastEntry: () => entries[entries.length - 1],
    parentOf(entry) {
      const parentId: unknown = entry.parentId;
      return typeof parentId === "string" && parentId ? index.get(parentId) : undefined;
    },
    size: () => entries.length,
  };
}

/** Resolves a requested leaf the way Pi does: `null` is "before the first entry", unknown ids fall back. */
export function resolveLeaf(
  graph: ContextGraph,
  leafId: string | null | undefined,
): SessionEntry | undefined {
  if (leafId === null) return undefined;
  return (leafId ? graph.get(leafId) : undefined) ?? graph.lastEntry();
}

/**
 * Root-to-leaf path, in time linear in its length. A walk longer than the
 * graph has entries has gone round a parent cycle: it stops there, and what
 * it has is cut back to where the cycle first closed.
 */
export function buildSessionPath(graph: ContextGraph, leafId: string | null | undefined): SessionEntry[] {
  const leaf = resolveLeaf(graph, leafId);
  if (leaf && graph.pathTo) return graph.pathTo(leaf);
  const path: SessionEntry[] = [];
  const limit = graph.size();
  for (let entry = leaf; entry; entry = graph.parentOf(entry)) {
    if (path.length > limit) return cutAtCycle(path).reverse();
    path.push(entry);
  }
  return path.reverse();
}

/** Keeps a walk up to (not including) the first entry met twice. Only reached on a cycle. */
function cutAtCycle(walk: SessionEntry[]): SessionEntry[] {
  const seen = new Set<SessionEntry>();
  const path: SessionEntry[] = [];
  for (const entry of walk) {
    if (seen.has(entry)) break;
    seen.add(entry);
    path.push(entry);
  }
  return path;
}

export interface ProjectedEntry {
  sourceEntry: SessionEntry;
  /** What this entry contributes after context edits; empty for state-only entries and drops. */
  messages: AgentMessage[];
}

export interface CompactionInEffect {
  entryId: string;
  tokensBefore: number;
  firstKeptEntryId: string;
  /** False when `firstKeptEntryId` is not on the path, so nothing before the compaction is kept. */
  firstKeptOnPath: boolean;
}

export interface AppliedContextEdit {
  editId: string;
  targetId: string;
  drop: boolean;
}

export interface SessionProjection extends SessionContext {
  /** Context entries in order, each with its contribution: Pi's `buildSessionProjection().entries`. */
  entries: ProjectedEntry[];
  /** The resolved leaf, or null for an empty context. */
  leafId: string | null;
  /** Root-to-leaf ids of the whole path, including entries a compaction summarised away. */
  pathIds: string[];
  compaction: CompactionInEffect | null;
  edits: AppliedContextEdit[];
}

/** Pi's `buildContextEntries`, over a path already built. */
export function selectContextEntries(path: readonly SessionEntry[]): {
  entries: SessionEntry[];
  compaction: CompactionInEffect | null;
} {
  return selectFromPath({
    stubs: path as SessionEntry[],
    whole: (positions) => positions.map((at) => path[at]!),
  });
}

/**
 * Pi's `buildContextEntries` over a stubbed path: which entries are chosen
 * depends only on types, ids and message roles (always in a stub) and on the
 * compaction in effect (read whole); then only the chosen ones are read.
 */
function selectFromPath(path: StubbedPath): {
  entries: SessionEntry[];
  compaction: CompactionInEffect | null;
} {
  const stubs = path.stubs;
  let compactionIndex = -1;
  for (let i = 0; i < stubs.length; i++) if (stubs[i]!.type === "compaction") compactionIndex = i;
  if (compactionIndex < 0) return { entries: path.whole(stubs.map((_, i) => i)), compaction: null };
  const compaction = path.whole([compactionIndex])[0] as CompactionEntry;
  const positions: number[] = [compactionIndex];
  let foundFirstKept = false;
  for (let i = 0; i < compactionIndex; i++) {
    const entry = stubs[i]!;
    if (entry.id === compaction.firstKeptEntryId) foundFirstKept = true;
    if (foundFirstKept && !isSystemMessageEntry(entry)) positions.push(i);
  }
  for (let i = compactionIndex + 1; i < stubs.length; i++) positions.push(i);
  const entries = path.whole(positions);
  entries[0] = compaction;
  return {
    entries,
    compaction: {
      entryId: compaction.id,
      tokensBefore: compaction.tokensBefore,
      firstKeptEntryId: compaction.firstKeptEntryId,
      firstKeptOnPath: foundFirstKept,
    },
  };
}

export function buildSessionProjection(graph: ContextGraph, leafId?: string | null): SessionProjection {
  const path = resolvePath(graph, leafId);
  const { thinkingLevel, model } = contextSettings(path);
  const { entries: contextEntries, compaction } = selectFromPath(path);
  const editsByTarget = latestEdits(contextEntries);
  const projected: ProjectedEntry[] = [];
  const messages = projectEntries(contextEntries, editsByTarget, projected);
  const leaf = path.stubs[path.stubs.length - 1];
  return {
    entries: projected,
    messages,
    thinkingLevel,
    model,
    leafId: leaf ? leaf.id : null,
    pathIds: path.stubs.map((entry) => entry.id),
    compaction,
    edits: appliedEdits(contextEntries, editsByTarget),
  };
}

/** Exactly Pi's `buildSessionContext(entries, leafId)` result (without the projection's bookkeeping). */
export function buildSessionContext(graph: ContextGraph, leafId?: string | null): SessionContext {
  const path = resolvePath(graph, leafId);
  const { thinkingLevel, model } = contextSettings(path);
  const { entries: contextEntries } = selectFromPath(path);
  const messages = projectEntries(contextEntries, latestEdits(contextEntries), null);
  return { messages, thinkingLevel, model };
}

/** The leaf's path as the graph holds it: stubs and a body reader, or whole entries. */
function resolvePath(graph: ContextGraph, leafId: string | null | undefined): StubbedPath {
  const leaf = graph.pathStubsTo ? resolveLeaf(graph, leafId) : undefined;
  if (leaf && graph.pathStubsTo) return graph.pathStubsTo(leaf);
  const path = buildSessionPath(graph, leafId);
  return { stubs: path, whole: (positions) => positions.map((at) => path[at]!) };
}

/** The latest context edit for each target among the context entries (Pi: later wins). */
function latestEdits(contextEntries: readonly SessionEntry[]): Map<string, ContextEditEntry> | null {
  let edits: Map<string, ContextEditEntry> | null = null;
  for (const entry of contextEntries) {
    if (entry.type === "context_edit") {
      edits ??= new Map();
      edits.set(String(entry.targetId), entry as ContextEditEntry);
    }
  }
  return edits;
}

function appliedEdits(
  contextEntries: readonly SessionEntry[],
  editsByTarget: Map<string, ContextEditEntry> | null,
): AppliedContextEdit[] {
  if (!editsByTarget) return [];
  const inContext = new Set(contextEntries.map((entry) => entry.id));
  const edits: AppliedContextEdit[] = [];
  for (const [targetId, edit] of editsByTarget) {
    if (inContext.has(targetId)) edits.push({ editId: edit.id, targetId, drop: edit.replacement === null });
  }
  return edits;
}

/**
 * Each context entry's contribution, in order. Plain message entries (nearly
 * all of them) take a fast path without per-entry arrays. With `projected`,
 * also records each entry with its messages (Pi's projection entries).
 */
function projectEntries(
  contextEntries: readonly SessionEntry[],
  editsByTarget: Map<string, ContextEditEntry> | null,
  projected: ProjectedEntry[] | null,
): AgentMessage[] {
  const messages: AgentMessage[] = [];
  for (let index = 0; index < contextEntries.length; index++) {
    const sourceEntry = contextEntries[index]!;
    const edit = editsByTarget?.get(sourceEntry.id);
    if (sourceEntry.type === "message" && !edit) {
      const message = messageContribution(sourceEntry.message as unknown);
      if (message) messages.push(message);
      projected?.push({ sourceEntry, messages: message ? [message] : [] });
      continue;
    }
    // An older compaction inside the kept range contributes nothing; only the newest, first, does.
    const contribution =
      sourceEntry.type === "compaction" && index > 0 ? [] : projectContextEntry(sourceEntry, edit);
    for (const message of contribution) messages.push(message);
    projected?.push({ sourceEntry, messages: contribution });
  }
  return messages;
}

/** Each context message with the id of the entry it came from, in context order. */
export interface ContextItem {
  entryId: string;
  message: AgentMessage;
}

export function contextItems(projection: SessionProjection): ContextItem[] {
  const items: ContextItem[] = [];
  for (const entry of projection.entries) {
    for (const message of entry.messages) items.push({ entryId: entry.sourceEntry.id, message });
  }
  return items;
}

/**
 * Thinking level and model in effect at the leaf: the last thinking-level
 * change, and the last model change or assistant message. Found by type and
 * role on the stubs; only those two entries are read whole.
 */
function contextSettings(path: StubbedPath): { thinkingLevel: string; model: ModelRef | null } {
  let thinkingAt = -1;
  let modelAt = -1;
  path.stubs.forEach((entry, i) => {
    const setting = settingOf(entry);
    if (setting === "thinking") thinkingAt = i;
    else if (setting === "model") modelAt = i;
  });
  const positions = [thinkingAt, modelAt].filter((at) => at >= 0);
  const whole = new Map(path.whole(positions).map((entry, i) => [positions[i]!, entry]));
  const thinking = whole.get(thinkingAt);
  const source = whole.get(modelAt);
  let model: ModelRef | null = null;
  if (source?.type === "model_change") {
    model = { provider: source.provider as string, modelId: source.modelId as string };
  } else if (source?.type === "message") {
    const message = source.message as { provider: string; model: string };
    model = { provider: message.provider, modelId: message.model };
  }
  return { thinkingLevel: thinking ? (thinking.thinkingLevel as string) : "off", model };
}

/** What an entry on the path sets, as Pi reads it: the thinking level, the model, or neither. */
function settingOf(entry: SessionEntry): "thinking" | "model" | null {
  // An unknown type sets nothing.
  if (!isKnownEntryType(entry.type)) return null;
  switch (entry.type) {
    case "thinking_level_change":
      return "thinking";
    case "model_change":
      return "model";
    case "message":
      // Every assistant reply names the model that wrote it.
      return isRecord(entry.message) && entry.message.role === "assistant" ? "model" : null;
    case "compaction":
    case "branch_summary":
    case "custom":
    case "custom_message":
    case "label":
    case "session_info":
    case "context_edit":
      return null;
    case "usage":
      // It names a provider and a model, but for usage outside the context: Pi does not switch to it.
      return null;
    default:
      return assertNever(entry, "entry type");
  }
}

function isSystemMessageEntry(entry: SessionEntry): boolean {
  return entry.type === "message" && isRecord(entry.message) && entry.message.role === "system";
}
