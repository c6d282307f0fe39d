/**
 * A comparison as Markdown, pure: what the compare view's "Copy as Markdown"
 * puts on the clipboard. The two sides' facts in a table, the divergence,
 * then turn by turn the aligned messages (the detail the view holds), a
 * changed pair as its diff with removed words ~~struck~~ and added ones in
 * **bold**.
 */

import type { RunFacts } from "../branches/run-facts.ts";
import type { BranchComparison, CompareDetail, DiffPart, MessagePair } from "./types.ts";

function money(dollars: number): string {
  return dollars < 0.01 && dollars > 0 ? `$${dollars.toFixed(4)}` : `$${dollars.toFixed(2)}`;
}

function toolCalls(facts: RunFacts): number {
  return Object.values(facts.toolCalls).reduce((sum, n) => sum + n, 0);
}

/** A text on one line of a table cell or a list item. */
function inline(text: string): string {
  return text.replace(/\s+/g, " ").replace(/\|/g, "\\|").trim();
}

function factsTable(left: RunFacts, right: RunFacts): string[] {
  const row = (name: string, l: string, r: string) => `| ${name} | ${l} | ${r} |`;
  const files = (mine: string[], theirs: string[]) =>
    mine.length === 0
      ? "none"
      : mine.map((file) => (theirs.includes(file) ? file : `${file} (only here)`)).join(", ");
  return [
    "| | Left | Right |",
    "| --- | --- | --- |",
    row("Entries", String(left.entries), String(right.entries)),
    row("Turns", String(left.turns), String(right.turns)),
    row("Cost", money(left.cost), money(right.cost)),
    row(
      "Tokens (input / output)",
      `${left.tokens.input} / ${left.tokens.output}`,
      `${right.tokens.input} / ${right.tokens.output}`,
    ),
    row("Tool calls", String(toolCalls(left)), String(toolCalls(right))),
    row("Errors", String(left.errors), String(right.errors)),
    row(
      "Files modified",
      inline(files(left.filesModified, right.filesModified)),
      inline(files(right.filesModified, left.filesModified)),
    ),
  ];
}

/** A diff's parts as one side reads them: removed (left) or added (right) words marked. */
export function markedText(parts: readonly DiffPart[], side: "left" | "right"): string {
  let text = "";
  for (const part of parts) {
    if (part.op === "same") text += part.text;
    else if (part.op === "removed" && side === "left") text += `~~${part.text}~~`;
    else if (part.op === "added" && side === "right") text += `**${part.text}**`;
  }
  return text;
}

function pairLines(pair: MessagePair): string[] {
  const left = pair.parts ? markedText(pair.parts, "left") : (pair.left?.text ?? "");
  const right = pair.parts ? markedText(pair.parts, "right") : (pair.right?.text ?? "");
  switch (pair.change) {
    case "same":
      return [`- ${pair.kind}, the same on both sides: ${inline(left)}`];
    case "removed":
      return [`- ${pair.kind}, left only: ${inline(left)}`];
    case "added":
      return [`- ${pair.kind}, right only: ${inline(right)}`];
    case "changed":
      return [`- ${pair.kind}, changed:`, `  - left: ${inline(left)}`, `  - right: ${inline(right)}`];
  }
}

export function comparisonMarkdown(
  comparison: BranchComparison,
  detail: CompareDetail | null,
  names: { left: string; right: string } = { left: "left", right: "right" },
): string {
  const { left, right } = comparison;
  const lines = [
    `# Compare ${left.leafId} (${names.left}) with ${right.leafId} (${names.right})`,
    "",
    comparison.ancestorId === null
      ? "The two branches share no entry."
      : `Common ancestor: ${comparison.ancestorId}; then ${left.entryIds.length} entries on the left, ${right.entryIds.length} on the right.`,
    "",
    ...factsTable(left.facts, right.facts),
    "",
  ];
  if (comparison.divergence) {
    const { leftEntryId, rightEntryId, reason } = comparison.divergence;
    lines.push(`Divergence: ${reason} (left ${leftEntryId ?? "none"}, right ${rightEntryId ?? "none"}).`, "");
  }
  for (const note of comparison.notes) lines.push(`Note: ${note}`);
  if (comparison.notes.length > 0) lines.push("");
  const details = new Map((detail?.turns ?? []).map((turn) => [turn.turn, turn]));
  comparison.turns.forEach((turn, i) => {
    lines.push(`## Turn ${i + 1}: ${turn.change}`);
    const shown = details.get(i);
    if (shown) lines.push(...shown.messages.flatMap(pairLines));
    else lines.push(`- left: ${turn.left.length} entries, right: ${turn.right.length} entries`);
    lines.push("");
  });
  return `${lines.join("\n").trimEnd()}\n`;
}
