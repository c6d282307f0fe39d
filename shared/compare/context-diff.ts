/**
 * The two "what the model sees" sequences, walked together: Pi's
 * `convertToLlm` of each tip's context (`buildSessionProjection`), each
 * message known by the entry it came from. A message of the same entry on
 * both sides (the shared trunk, or a fork's copy of it) is matched, and so is
 * a message of two entries the turn alignment paired (an edited prompt and
 * its original); matches are kept along their longest run in order. What
 * the model is shown of a message (role, content, tool call) decides
 * whether a match is the same or changed.
 */

import { buildSessionProjection, contextGraphOf } from "../session/context.ts";
import { messageToLlm } from "../session/convert-to-llm.ts";
import type { LlmMessage } from "../session/types.ts";
import { longestIncreasing } from "./align.ts";
import type { CompareSide } from "./paths.ts";
import type { ContextOp } from "./types.ts";

export interface ContextSequence {
  /** Exactly Pi's `convertToLlm(buildSessionContext(...).messages)` at the tip. */
  messages: LlmMessage[];
  /** Source entry of each message. */
  entryIds: string[];
  /** Position of each message among its entry's contributions. */
  positions: number[];
  /** Entries whose contribution a context edit replaced or dropped. */
  edited: ReadonlySet<string>;
}

export function contextSequence(side: CompareSide): ContextSequence {
  const projection = buildSessionProjection(contextGraphOf(side.index, side.reader), side.tipId);
  const sequence: ContextSequence = {
    messages: [],
    entryIds: [],
    positions: [],
    edited: new Set(projection.edits.map((edit) => edit.targetId)),
  };
  for (const projected of projection.entries) {
    projected.messages.forEach((message, position) => {
      const llm = messageToLlm(message);
      if (llm === undefined) return;
      sequence.messages.push(llm);
      sequence.entryIds.push(projected.sourceEntry.id);
      sequence.positions.push(position);
    });
  }
  return sequence;
}

/**
 * The ops walking both sequences. `sameEntries`: both sides read one index,
 * so a message of one entry on both sides is the same object unless a
 * context edit changed it. `paired`: right entry id to left entry id, for
 * entries the turn alignment paired.
 */
export function contextOps(
  left: ContextSequence,
  right: ContextSequence,
  sameEntries: boolean,
  paired: ReadonlyMap<string, string>,
): ContextOp[] {
  const leftAt = new Map<string, number>();
  left.entryIds.forEach((id, i) => {
    leftAt.set(`${left.positions[i]}#${id}`, i);
  });
  const matches: [number, number][] = [];
  right.entryIds.forEach((id, j) => {
    const position = right.positions[j];
    const i = leftAt.get(`${position}#${id}`) ?? leftAt.get(`${position}#${paired.get(id)}`);
    if (i !== undefined) matches.push([i, j]);
  });
  matches.sort((a, b) => a[0] - b[0]);
  const ops: ContextOp[] = [];
  let i = 0;
  let j = 0;
  for (const [matchLeft, matchRight] of longestIncreasing(matches)) {
    while (i < matchLeft) ops.push({ op: "removed", left: i++ });
    while (j < matchRight) ops.push({ op: "added", right: j++ });
    ops.push({ op: sameMessage(left, right, i, j, sameEntries) ? "same" : "changed", left: i++, right: j++ });
  }
  while (i < left.messages.length) ops.push({ op: "removed", left: i++ });
  while (j < right.messages.length) ops.push({ op: "added", right: j++ });
  return ops;
}

function sameMessage(
  left: ContextSequence,
  right: ContextSequence,
  i: number,
  j: number,
  sameEntries: boolean,
) {
  const id = left.entryIds[i]!;
  if (sameEntries && id === right.entryIds[j] && !left.edited.has(id) && !right.edited.has(id)) return true;
  return seenAs(left.messages[i]!) === seenAs(right.messages[j]!);
}

/** What the model is shown of a message: not its timestamp, usage or provider. */
function seenAs(message: LlmMessage): string {
  const { role, content } = message;
  const tool = message as { toolCallId?: unknown; toolName?: unknown; isError?: unknown };
  return JSON.stringify([role, content, tool.toolCallId, tool.toolName, tool.isError]);
}
