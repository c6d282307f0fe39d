/**
 * What the model sees from one leaf: Pi 1.x's `buildSessionProjection` /
 * `buildSessionContext`, which reduce to 0.73's on files without 1.x-only
 * entries. Two differences from Pi, both on purpose: the path is built in
 * time linear in its length (0.73 is quadratic), and the walk ends on a parent
 * cycle (Pi loops forever).
 */

import { isRecord } from "./facts.ts";
import type { SessionIndex } from "./tree-index.ts";
import type {
  AgentMessage,
  BranchSummaryMessage,
  CompactionEntry,
  CompactionSummaryMessage,
  ContextEditEntry,
  CustomMessage,
  ModelRef,
  SessionContext,
  SessionEntry,
  TextContent,
} from "./types.ts";

/** The three things context building needs from a session. */
export interface ContextGraph {
  get(id: string): SessionEntry | undefined;
  /** Pi's fallback leaf: the last entry in file order. */
  lastEntry(): SessionEntry | undefined;
  /** The entry's parent, or undefined at a root (including where a cycle was cut). */
  parentOf(entry: SessionEntry): SessionEntry | undefined;
}

/** Context over an index: parents are the tree's, in which cycles are already cut. */
export function contextGraphOf(index: SessionIndex): ContextGraph {
  const last = index.entries[index.entries.length - 1];
  return {
    get: (id) => index.byId.get(id),
    lastEntry: () => last,
    parentOf(entry) {
      const node = index.nodes.get(entry.id);
      return node?.parentId == null ? undefined : index.byId.get(node.parentId);
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

/** Root-to-leaf path. Linear; stops if it meets an entry twice. */
export function buildSessionPath(graph: ContextGraph, leafId: string | null | undefined): SessionEntry[] {
  const leaf = resolveLeaf(graph, leafId);
  const path: SessionEntry[] = [];
  const seen = new Set<SessionEntry>();
  for (let entry = leaf; entry && !seen.has(entry); entry = graph.parentOf(entry)) {
    seen.add(entry);
    path.push(entry);
  }
  return path.reverse();
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
  let compactionIndex = -1;
  for (let i = 0; i < path.length; i++) if (path[i]!.type === "compaction") compactionIndex = i;
  if (compactionIndex < 0) return { entries: path.slice(), compaction: null };
  const compaction = path[compactionIndex] as CompactionEntry;
  const entries: SessionEntry[] = [compaction];
  let foundFirstKept = false;
  for (let i = 0; i < compactionIndex; i++) {
    const entry = path[i]!;
    if (entry.id === compaction.firstKeptEntryId) foundFirstKept = true;
    if (foundFirstKept && !isSystemMessageEntry(entry)) entries.push(entry);
  }
  for (let i = compactionIndex + 1; i < path.length; i++) entries.push(path[i]!);
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
  const path = buildSessionPath(graph, leafId);
  const { thinkingLevel, model } = contextSettings(path);
  const { entries: contextEntries, compaction } = selectContextEntries(path);
  const editsByTarget = new Map<string, ContextEditEntry>();
  for (const entry of contextEntries) {
    if (entry.type === "context_edit") editsByTarget.set(String(entry.targetId), entry as ContextEditEntry);
  }
  const inContext = new Set(contextEntries.map((entry) => entry.id));
  const edits: AppliedContextEdit[] = [];
  for (const [targetId, edit] of editsByTarget) {
    if (inContext.has(targetId)) edits.push({ editId: edit.id, targetId, drop: edit.replacement === null });
  }
  const projected: ProjectedEntry[] = contextEntries.map((sourceEntry, index) => ({
    sourceEntry,
    // An older compaction inside the kept range contributes nothing; only the newest, first, does.
    messages:
      sourceEntry.type === "compaction" && index > 0
        ? []
        : projectContextEntry(sourceEntry, editsByTarget.get(sourceEntry.id)),
  }));
  const leaf = path[path.length - 1];
  return {
    entries: projected,
    messages: projected.flatMap((entry) => entry.messages),
    thinkingLevel,
    model,
    leafId: leaf ? leaf.id : null,
    pathIds: path.map((entry) => entry.id),
    compaction,
    edits,
  };
}

/** Exactly Pi's `buildSessionContext(entries, leafId)` result. */
export function buildSessionContext(graph: ContextGraph, leafId?: string | null): SessionContext {
  const { messages, thinkingLevel, model } = buildSessionProjection(graph, leafId);
  return { messages, thinkingLevel, model };
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

function contextSettings(path: readonly SessionEntry[]): { thinkingLevel: string; model: ModelRef | null } {
  let thinkingLevel = "off";
  let model: ModelRef | null = null;
  for (const entry of path) {
    if (entry.type === "thinking_level_change") {
      thinkingLevel = entry.thinkingLevel as string;
    } else if (entry.type === "model_change") {
      model = { provider: entry.provider as string, modelId: entry.modelId as string };
    } else if (entry.type === "message" && isRecord(entry.message) && entry.message.role === "assistant") {
      const message = entry.message as { provider: string; model: string };
      model = { provider: message.provider, modelId: message.model };
    }
  }
  return { thinkingLevel, model };
}

function isSystemMessageEntry(entry: SessionEntry): boolean {
  return entry.type === "message" && isRecord(entry.message) && entry.message.role === "system";
}

/** Pi's `sessionEntryToContextMessages`: what one entry contributes before edits. */
export function entryToContextMessages(entry: SessionEntry): AgentMessage[] {
  switch (entry.type) {
    case "message": {
      const message = entry.message as unknown;
      if (!isRecord(message)) return [];
      const typed = message as AgentMessage;
      // Old, forked or hand-edited files can hold messages without content.
      if (typed.role === "system" && typed.content == null) return [{ ...typed, content: "" }];
      if (
        (typed.role === "user" || typed.role === "assistant" || typed.role === "toolResult") &&
        typed.content == null
      ) {
        return [{ ...typed, content: [] }];
      }
      return [typed];
    }
    case "custom_message": {
      const custom: CustomMessage = {
        role: "custom",
        customType: entry.customType as string,
        content: (entry.content as CustomMessage["content"] | undefined) ?? [],
        display: entry.display as boolean,
        details: entry.details,
        timestamp: isoToMillis(entry.timestamp),
      };
      return [custom];
    }
    case "branch_summary": {
      if (!entry.summary) return [];
      const summary: BranchSummaryMessage = {
        role: "branchSummary",
        summary: entry.summary as string,
        fromId: entry.fromId as string,
        timestamp: isoToMillis(entry.timestamp),
      };
      return [summary];
    }
    case "compaction": {
      const summary: CompactionSummaryMessage = {
        role: "compactionSummary",
        summary: entry.summary as string,
        tokensBefore: entry.tokensBefore as number,
        timestamp: isoToMillis(entry.timestamp),
      };
      return entry.systemMessage ? [entry.systemMessage as AgentMessage, summary] : [summary];
    }
    default:
      return [];
  }
}

/** Pi's `projectContextEntry`: an entry's contribution with its latest context edit applied. */
export function projectContextEntry(entry: SessionEntry, edit: ContextEditEntry | undefined): AgentMessage[] {
  const messages = entryToContextMessages(entry);
  if (!edit) return messages;
  const replacement = edit.replacement;
  if (replacement === null) return [];
  return messages.map((message) => {
    const role = message.role;
    if (role !== "user" && role !== "assistant" && role !== "toolResult" && role !== "custom") return message;
    const replacementContent = isRecord(replacement) ? replacement.content : undefined;
    const content =
      (role === "assistant" || role === "toolResult") && typeof replacementContent === "string"
        ? [{ type: "text", text: replacementContent } satisfies TextContent]
        : replacementContent;
    return { ...message, content } as AgentMessage;
  });
}

function isoToMillis(timestamp: unknown): number {
  return new Date(timestamp as string).getTime();
}
