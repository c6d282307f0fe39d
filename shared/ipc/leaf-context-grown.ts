/**
 * A leaf's context grown from the context of an entry just above it: what
 * following a live session asks for, a few lines at a time. When every entry
 * between the two is a message, the new context is the old one with their
 * messages after it (the path, its compaction, thinking level and context
 * edits are the same), so it costs the appended entries, not a walk of a
 * path that can be a million entries long. Anything else (a compaction, a
 * model change, a branch summary, an entry some context edit names, a leaf
 * elsewhere) is left to `contextView`, which the result always equals.
 */

import { isRecord } from "../session/facts.ts";
import { messageContribution } from "../session/entry-contribution.ts";
import type { EntryReader } from "../session/entry-reader.ts";
import type { SessionIndex, TreeNode } from "../session/tree-index.ts";
import type { ModelRef } from "../session/types.ts";
import type { ContextMessageView, ContextView } from "./context-view.ts";
import { addCost, inputTokensOf, messageTokenEstimate, modelMessages } from "./leaf-context.ts";

/** Farther below the context's leaf than this, the context is built afresh. */
export const GROWN_CONTEXT_MAX_ENTRIES = 2_000;

/**
 * The ids every context edit on the path to `leafId` names (whether it
 * applies or not): an entry they name cannot be added as a plain message.
 * One walk of the path, done once for a context that is then grown many times.
 */
export function editTargetsOnPath(index: SessionIndex, leafId: string): ReadonlySet<string> {
  const targets = new Set<string>();
  for (let node = index.nodes.get(leafId) ?? null; node !== null; node = node.parent) {
    if (node.entry.type === "context_edit") targets.add(String(node.entry.targetId));
  }
  return targets;
}

/**
 * `contextView(index, reader, leafId, llm)` grown from `from` (a context of
 * the same form, of an entry on the path to `leafId`), or null when it cannot
 * be grown: see the module comment. `editTargets`: `editTargetsOnPath` of
 * `from`'s leaf.
 */
export function grownContextView(
  index: SessionIndex,
  reader: EntryReader,
  from: ContextView,
  leafId: string,
  editTargets: ReadonlySet<string>,
): ContextView | null {
  const added = entriesBelow(index, from.leafId, leafId);
  if (added === null) return null;
  const messages: ContextMessageView[] = [];
  const giving: boolean[] = [];
  let model = from.model;
  let lastInput = from.lastInputTokens;
  let tokenEstimate = from.tokenEstimate;
  const cost = { ...from.cost };
  for (const node of added) {
    if (node.entry.type !== "message" || editTargets.has(node.id)) return null;
    const entry = reader.entryOfNode(node);
    if (entry.type !== "message") return null;
    const body = entry.message as unknown;
    // As `contextSettings`: every assistant reply names the model that wrote it.
    if (isRecord(body) && body.role === "assistant") {
      model = { provider: body.provider, modelId: body.model } as ModelRef;
      lastInput = inputTokensOf(body) ?? lastInput;
    }
    const message = messageContribution(body);
    giving.push(message !== undefined);
    if (message === undefined) continue;
    const estimate = reader.facts(node.id)?.tokenEstimate ?? messageTokenEstimate(entry, message);
    tokenEstimate += estimate;
    messages.push({ entryId: node.id, message, tokenEstimate: estimate });
    addCost(cost, message);
  }
  // Pi converts message by message: the old form's messages, then the new ones'.
  const llm =
    from.llm === null
      ? null
      : modelMessages(messages, {
          llm: [...from.llm],
          skipped: [...(from.llmSkipped ?? [])],
          firstIndex: from.messageCount,
        });
  return {
    leafId,
    messageCount: from.messageCount + messages.length,
    messagesFrom: 0,
    messages: [...from.messages, ...messages],
    llm: llm?.llm ?? null,
    llmSkipped: llm?.skipped ?? null,
    thinkingLevel: from.thinkingLevel,
    model,
    compaction: from.compaction,
    edits: from.edits,
    tokenEstimate,
    lastInputTokens: lastInput,
    cost,
    pathRuns: grownRuns(from.pathRuns, giving),
  };
}

/** The entries below `aboveId` down to `leafId`, in path order; null when `aboveId` is not close above it. */
function entriesBelow(index: SessionIndex, aboveId: string | null, leafId: string): TreeNode[] | null {
  if (aboveId === null || aboveId === leafId) return null;
  const below: TreeNode[] = [];
  for (let node = index.nodes.get(leafId) ?? null; node !== null; node = node.parent) {
    if (node.id === aboveId) return below.reverse();
    if (below.length === GROWN_CONTEXT_MAX_ENTRIES) return null;
    below.push(node);
  }
  return null;
}

/**
 * `pathRuns` with entries added below the leaf (`giving`, in path order):
 * their runs from the new leaf up, then the old runs, a run that continues
 * across the old leaf counted once.
 */
function grownRuns(old: readonly number[], giving: readonly boolean[]): number[] {
  const runs: number[] = [0];
  const add = (gives: boolean, length: number) => {
    if (length === 0) return;
    // Runs alternate, those that give first: an even position gives.
    if (gives === ((runs.length - 1) % 2 === 0)) runs[runs.length - 1]! += length;
    else runs.push(length);
  };
  for (let i = giving.length - 1; i >= 0; i--) add(giving[i]!, 1);
  for (let k = 0; k < old.length; k++) add(k % 2 === 0, old[k]!);
  return runs;
}
