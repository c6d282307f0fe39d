/**
 * The IPC views of a session built in memory from shared/session, the way
 * the main process builds them: used by the fake client in component tests.
 */

import type { ContextView, SessionView, TreeNodeView } from "../../../shared/ipc/contract.ts";
import {
  buildSessionProjection,
  contextGraphOf,
  contextItems,
  convertToLlm,
  isRecord,
  type SessionIndex,
} from "../../../shared/session/index.ts";

export function treeNodeViews(index: SessionIndex): TreeNodeView[] {
  const views: TreeNodeView[] = [];
  const stack = [...index.roots].reverse();
  while (stack.length > 0) {
    const id = stack.pop()!;
    const node = index.nodes.get(id);
    if (!node) continue;
    const facts = index.facts(id)!;
    const entry = node.entry as unknown as Record<string, unknown>;
    views.push({
      id,
      parentId: node.parentId,
      children: [...node.children],
      type: node.entry.type,
      role: facts.role ?? null,
      kind: facts.kind,
      preview: facts.preview,
      label: index.labels.get(id)?.label ?? null,
      depth: node.depth,
      line: node.line,
      timestamp: node.entry.timestamp,
      toolNames: facts.toolNames,
      tokenEstimate: facts.tokenEstimate,
      isError: facts.isError,
      toolCallsOnly: facts.toolCallsOnly,
      hasText: facts.hasText,
      stopReason: facts.stopReason,
      tokensBefore:
        node.entry.type === "compaction" && typeof entry.tokensBefore === "number"
          ? entry.tokensBefore
          : null,
      targetId:
        (node.entry.type === "context_edit" || node.entry.type === "label") &&
        typeof entry.targetId === "string"
          ? entry.targetId
          : null,
    });
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
  }
  return views;
}

export function sessionViewOf(
  sessionId: string,
  index: SessionIndex,
  options: { path?: string; live?: boolean } = {},
): SessionView {
  return {
    sessionId,
    path: options.path ?? `/sessions/${sessionId}.jsonl`,
    headerId: index.header?.id ?? null,
    cwd: index.header?.cwd ?? null,
    name: index.sessionName ?? null,
    version: index.version,
    parentSessionId: null,
    leafId: index.leafId,
    roots: [...index.roots],
    nodes: treeNodeViews(index),
    problems: index.problems,
    bytes: index.byteLength,
    live: options.live ?? false,
  };
}

export function contextViewOf(index: SessionIndex, leafId: string | null, llm: boolean): ContextView {
  const projection = buildSessionProjection(contextGraphOf(index), leafId);
  const messages = contextItems(projection).map((item) => ({
    entryId: item.entryId,
    message: item.message,
    tokenEstimate: index.facts(item.entryId)?.tokenEstimate ?? 0,
  }));
  let lastInputTokens: number | null = null;
  for (const id of projection.pathIds) {
    const entry = index.entry(id);
    if (entry?.type !== "message" || !isRecord(entry.message) || entry.message.role !== "assistant") continue;
    const usage = entry.message.usage;
    if (isRecord(usage) && typeof usage.input === "number") lastInputTokens = usage.input;
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
    tokenEstimate: messages.reduce((sum, message) => sum + message.tokenEstimate, 0),
    lastInputTokens,
  };
}
