/**
 * Where did the two branches go differently: the first aligned place (turn
 * by turn, message by message) where their outcomes part: a tool result
 * that passes on one side and fails on the other, a different exit code, an
 * answer stopped by an error on one side, or an error one side alone has.
 */

import type { Step } from "./align.ts";
import { type MessageItem, outcomeOf } from "./message-text.ts";
import type { Turn } from "./turns.ts";
import type { Divergence } from "./types.ts";

export function findDivergence(
  turnSteps: readonly Step[],
  leftTurns: readonly Turn[],
  rightTurns: readonly Turn[],
  messageSteps: readonly (Step[] | null)[],
): Divergence | null {
  for (let t = 0; t < turnSteps.length; t++) {
    const turn = turnSteps[t]!;
    const left = turn.left === null ? null : leftTurns[turn.left]!.items;
    const right = turn.right === null ? null : rightTurns[turn.right]!.items;
    const steps =
      messageSteps[t] ??
      (left ?? right ?? []).map((_, i) => (left ? { left: i, right: null } : { left: null, right: i }));
    for (const step of steps) {
      const found = divergenceAt(
        step.left === null ? null : left![step.left]!,
        step.right === null ? null : right![step.right]!,
      );
      if (found) return found;
    }
  }
  return null;
}

function divergenceAt(left: MessageItem | null, right: MessageItem | null): Divergence | null {
  const leftOutcome = left ? outcomeOf(left) : null;
  const rightOutcome = right ? outcomeOf(right) : null;
  if (left && right) {
    if (leftOutcome === null || rightOutcome === null || leftOutcome === rightOutcome) return null;
    return {
      leftEntryId: left.node.id,
      rightEntryId: right.node.id,
      reason: `${phrase(left, leftOutcome)} on the left, ${phrase(right, rightOutcome)} on the right`,
    };
  }
  const only = left ?? right!;
  const outcome = leftOutcome ?? rightOutcome;
  if (outcome === null || !isBad(outcome)) return null;
  return {
    leftEntryId: left ? left.node.id : null,
    rightEntryId: right ? right.node.id : null,
    reason: `${phrase(only, outcome)} on the ${left ? "left" : "right"} only`,
  };
}

function isBad(outcome: string): boolean {
  return (
    outcome === "failed" ||
    outcome === "cancelled" ||
    outcome.startsWith("stopped") ||
    (outcome.startsWith("exit ") && outcome !== "exit 0")
  );
}

function phrase(item: MessageItem, outcome: string): string {
  const role = item.facts.role;
  if (role === "toolResult") return `the ${item.facts.toolNames[0] ?? "tool"} call ${outcome}`;
  if (role === "bashExecution") {
    const command = item.text.slice(2, item.text.indexOf("\n") === -1 ? undefined : item.text.indexOf("\n"));
    return outcome.startsWith("exit ")
      ? `\`${command}\` exited with ${outcome.slice(5)}`
      : `\`${command}\` ${outcome}`;
  }
  if (outcome === "answered") return "the answer went on";
  return `the answer ${outcome.replace("stopped: ", "stopped (")})`;
}
