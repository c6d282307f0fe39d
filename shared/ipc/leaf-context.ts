/**
 * From the session index to one leaf's whole context (`ContextView`, all its
 * messages from 0): what `session.context` answers a window of
 * (context-pages.ts). Pure functions over the index.
 */

import { sessionErrors } from "../error-texts.ts";
import { buildSessionProjection, contextGraphOf } from "../session/context.ts";
import { messageToLlm } from "../session/convert-to-llm.ts";
import type { EntryReader } from "../session/entry-reader.ts";
import { entryFacts, isRecord } from "../session/facts.ts";
import type { SessionIndex } from "../session/tree-index.ts";
import type { AgentMessage, LlmMessage, SessionEntry } from "../session/types.ts";
import { ArborError } from "./contract.ts";
import type { ContextMessageView, ContextView } from "./context-view.ts";

/**
 * The context Pi would send from `leafId` (`null`: before the first entry),
 * each message with its entry and token estimate. An id that is not in the
 * file is an error here (Pi would silently use the file's leaf instead).
 */
export function contextView(
  index: SessionIndex,
  reader: EntryReader,
  leafId: string | null,
  llm: boolean,
): ContextView {
  if (leafId !== null && !index.nodes.has(leafId)) {
    throw new ArborError("not-found", sessionErrors.noEntry(leafId));
  }
  const projection = buildSessionProjection(contextGraphOf(index, reader), leafId);
  const edited = new Set(projection.edits.map((edit) => edit.targetId));
  const messages: ContextMessageView[] = [];
  const giving = new Set<string>();
  let tokenEstimate = 0;
  const cost = { total: 0, answers: 0 };
  for (const projected of projection.entries) {
    const entry = projected.sourceEntry;
    if (projected.messages.length > 0) giving.add(entry.id);
    for (const message of projected.messages) {
      // An unedited message entry contributes its own message: its cached facts hold the estimate.
      const estimate =
        entry.type === "message" && !edited.has(entry.id)
          ? (reader.facts(entry.id)?.tokenEstimate ?? messageTokenEstimate(entry, message))
          : messageTokenEstimate(entry, message);
      tokenEstimate += estimate;
      messages.push({ entryId: entry.id, message, tokenEstimate: estimate });
      addCost(cost, message);
    }
  }
  const model = llm ? modelMessages(messages) : null;
  return {
    leafId: projection.leafId,
    messageCount: messages.length,
    messagesFrom: 0,
    messages,
    llm: model?.llm ?? null,
    llmSkipped: model?.skipped ?? null,
    thinkingLevel: projection.thinkingLevel,
    model: projection.model,
    compaction: projection.compaction,
    edits: projection.edits,
    tokenEstimate,
    lastInputTokens: lastInputTokens(index, reader, projection.pathIds),
    cost,
    pathRuns: pathRuns(projection.pathIds, giving),
  };
}

/**
 * `convertToLlm` of the messages (message by message: Pi's is), and which ones it leaves out; `into`: the
 * lists to add to, the first message being the context's `firstIndex`-th.
 */
export function modelMessages(
  messages: readonly ContextMessageView[],
  into: { llm: LlmMessage[]; skipped: number[]; firstIndex: number } = {
    llm: [],
    skipped: [],
    firstIndex: 0,
  },
): { llm: LlmMessage[]; skipped: number[] } {
  const { llm, skipped, firstIndex } = into;
  messages.forEach((item, i) => {
    const converted = messageToLlm(item.message);
    if (converted === undefined) skipped.push(firstIndex + i);
    else llm.push(converted);
  });
  return { llm, skipped };
}

/** Counts an assistant message's recorded cost (`usage.cost.total`), as Pi recorded it. */
export function addCost(cost: { total: number; answers: number }, message: AgentMessage): void {
  if (message.role !== "assistant") return;
  const total = (message as { usage?: { cost?: { total?: unknown } } }).usage?.cost?.total;
  if (typeof total === "number" && Number.isFinite(total)) {
    cost.total += total;
    cost.answers++;
  }
}

/** `ContextView.pathRuns`: from the leaf up, alternating runs of path entries in `giving` and not. */
export function pathRuns(pathIds: readonly string[], giving: ReadonlySet<string>): number[] {
  const runs: number[] = [];
  let run = 0;
  let inRun = true;
  for (let i = pathIds.length - 1; i >= 0; i--) {
    if (giving.has(pathIds[i]!) !== inRun) {
      runs.push(run);
      run = 0;
      inRun = !inRun;
    }
    run++;
  }
  runs.push(run);
  return runs;
}

/** Pi's estimate for one context message (what it contributes, after any context edit). */
export function messageTokenEstimate(entry: SessionEntry, message: AgentMessage): number {
  return entryFacts({ type: "message", id: entry.id, parentId: null, timestamp: "", message }).tokenEstimate;
}

/**
 * The prompt size the provider reported for the last assistant message on
 * the path: input plus cache reads and writes (with prompt caching, `input`
 * alone counts only the uncached part). Messages Pi would not trust for
 * usage (aborted, errors, all zero) are skipped, as in Pi's compaction.
 */
export function lastInputTokens(
  index: SessionIndex,
  reader: EntryReader,
  pathIds: readonly string[],
): number | null {
  for (let i = pathIds.length - 1; i >= 0; i--) {
    const node = index.nodes.get(pathIds[i]!);
    if (node?.entry.type !== "message") continue;
    const skim = node.entry.message as unknown;
    if (!isRecord(skim) || skim.role !== "assistant") continue;
    const entry = reader.entryOfNode(node);
    const tokens = entry.type === "message" ? inputTokensOf(entry.message as unknown) : undefined;
    if (tokens !== undefined) return tokens;
  }
  return null;
}

/** One assistant message's prompt size (see `lastInputTokens`), undefined when Pi would not trust its usage. */
export function inputTokensOf(message: unknown): number | undefined {
  if (!isRecord(message) || message.stopReason === "aborted" || message.stopReason === "error")
    return undefined;
  const usage = message.usage;
  if (!isRecord(usage)) return undefined;
  const count = (key: string) => (typeof usage[key] === "number" ? (usage[key] as number) : 0);
  const total =
    count("totalTokens") || count("input") + count("output") + count("cacheRead") + count("cacheWrite");
  if (total <= 0) return undefined;
  return count("input") + count("cacheRead") + count("cacheWrite");
}
