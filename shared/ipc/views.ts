/**
 * From the session index to the contract's views: the tree the renderer
 * draws (`SessionView`, `TreeNodeView`), one leaf's context (`ContextView`),
 * and one entry with its problems (`EntryDetail`). Pure functions over the
 * index; the handlers add ids and file facts.
 */

import {
  ArborError,
  type ContextMessageView,
  type ContextView,
  type EntryDetail,
  type TreeNodeView,
} from "./contract.ts";
import { buildSessionProjection, contextGraphOf } from "../session/context.ts";
import { convertToLlm } from "../session/convert-to-llm.ts";
import { entryFacts, isRecord } from "../session/facts.ts";
import type { SessionIndex, TreeNode } from "../session/tree-index.ts";
import type { AgentMessage, SessionEntry } from "../session/types.ts";

/** One node, small: facts from `index.facts(id)` (computed once per entry), no message body. */
export function treeNodeView(index: SessionIndex, node: TreeNode): TreeNodeView {
  const entry = node.entry;
  const facts = index.facts(node.id);
  const timestamp: unknown = entry.timestamp;
  const tokensBefore: unknown = entry.type === "compaction" ? entry.tokensBefore : undefined;
  const targetId: unknown = entry.type === "context_edit" ? entry.targetId : undefined;
  return {
    id: node.id,
    parentId: node.parentId,
    children: [...node.children],
    type: typeof entry.type === "string" ? entry.type : "unknown",
    role: facts?.role ?? null,
    kind: facts?.kind ?? entry.type,
    preview: facts?.preview ?? "",
    label: index.labels.get(node.id)?.label ?? null,
    depth: node.depth,
    line: node.line,
    timestamp: typeof timestamp === "string" ? timestamp : "",
    toolNames: facts ? [...facts.toolNames] : [],
    tokenEstimate: facts?.tokenEstimate ?? 0,
    isError: facts?.isError ?? false,
    toolCallsOnly: facts?.toolCallsOnly ?? false,
    hasText: facts?.hasText ?? false,
    stopReason: facts?.stopReason ?? null,
    tokensBefore: typeof tokensBefore === "number" ? tokensBefore : null,
    targetId: typeof targetId === "string" ? targetId : null,
  };
}

/** Every node depth-first from the roots in order, children in Pi's order. */
export function treeNodeViews(index: SessionIndex): TreeNodeView[] {
  const views: TreeNodeView[] = [];
  const stack: TreeNode[] = [];
  for (let i = index.roots.length - 1; i >= 0; i--) stack.push(index.nodes.get(index.roots[i]!)!);
  while (stack.length > 0) {
    const node = stack.pop()!;
    views.push(treeNodeView(index, node));
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(index.nodes.get(node.children[i]!)!);
  }
  return views;
}

/**
 * The context Pi would send from `leafId` (`null`: before the first entry),
 * each message with its entry and token estimate. An id that is not in the
 * file is an error here (Pi would silently use the file's leaf instead).
 */
export function contextView(index: SessionIndex, leafId: string | null, llm: boolean): ContextView {
  if (leafId !== null && !index.nodes.has(leafId)) {
    throw new ArborError("not-found", `There is no entry "${leafId}" in this session.`);
  }
  const projection = buildSessionProjection(contextGraphOf(index), leafId);
  const edited = new Set(projection.edits.map((edit) => edit.targetId));
  const messages: ContextMessageView[] = [];
  let tokenEstimate = 0;
  for (const projected of projection.entries) {
    const entry = projected.sourceEntry;
    for (const message of projected.messages) {
      // An unedited message entry contributes its own message: its cached facts hold the estimate.
      const estimate =
        entry.type === "message" && !edited.has(entry.id)
          ? (index.facts(entry.id)?.tokenEstimate ?? messageTokenEstimate(entry, message))
          : messageTokenEstimate(entry, message);
      tokenEstimate += estimate;
      messages.push({ entryId: entry.id, message, tokenEstimate: estimate });
    }
  }
  return {
    leafId: projection.leafId,
    messages,
    llm: llm ? convertToLlm(projection.messages) : null,
    thinkingLevel: projection.thinkingLevel,
    model: projection.model,
    compaction: projection.compaction,
    edits: projection.edits,
    pathIds: projection.pathIds,
    tokenEstimate,
    lastInputTokens: lastInputTokens(index, projection.pathIds),
  };
}

/** Pi's estimate for one context message (what it contributes, after any context edit). */
function messageTokenEstimate(entry: SessionEntry, message: AgentMessage): number {
  return entryFacts({ type: "message", id: entry.id, parentId: null, timestamp: "", message }).tokenEstimate;
}

/**
 * The prompt size the provider reported for the last assistant message on
 * the path: input plus cache reads and writes (with prompt caching, `input`
 * alone counts only the uncached part). Messages Pi would not trust for
 * usage (aborted, errors, all zero) are skipped, as in Pi's compaction.
 */
export function lastInputTokens(index: SessionIndex, pathIds: readonly string[]): number | null {
  for (let i = pathIds.length - 1; i >= 0; i--) {
    const node = index.nodes.get(pathIds[i]!);
    if (node?.entry.type !== "message") continue;
    const skim = node.entry.message as unknown;
    if (!isRecord(skim) || skim.role !== "assistant") continue;
    const entry = index.entryOfNode(node);
    const message = entry.type === "message" ? (entry.message as unknown) : undefined;
    if (!isRecord(message) || message.stopReason === "aborted" || message.stopReason === "error") continue;
    const usage = message.usage;
    if (!isRecord(usage)) continue;
    const count = (key: string) => (typeof usage[key] === "number" ? (usage[key] as number) : 0);
    const total =
      count("totalTokens") || count("input") + count("output") + count("cacheRead") + count("cacheWrite");
    if (total <= 0) continue;
    return count("input") + count("cacheRead") + count("cacheWrite");
  }
  return null;
}

/** One whole entry, its line, and the problems found on it. */
export function entryDetail(index: SessionIndex, entryId: string): EntryDetail {
  const node = index.nodes.get(entryId);
  if (!node) throw new ArborError("not-found", `There is no entry "${entryId}" in this session.`);
  return {
    entry: index.entryOfNode(node),
    line: node.line,
    problems: index.problems.filter((problem) => problem.entryId === entryId || problem.line === node.line),
  };
}
