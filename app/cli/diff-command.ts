/**
 * `arbor diff FILE LEFT RIGHT [--against OTHER_FILE] [--json]`: two tips
 * compared (shared/compare); RIGHT is read from OTHER_FILE when given (a
 * fork or clone of FILE, say). The JSON is the engine's `BranchComparison`;
 * the text a summary: the ancestor, each side's facts, the turns, the
 * contexts, where the outcomes part.
 */

import type { RunFacts } from "../../shared/branches/index.ts";
import { type BranchComparison, compareBranches } from "../../shared/compare/index.ts";
import { cliErrors } from "../../shared/error-texts.ts";
import { formatCost, oneLine } from "./branches-command.ts";
import { CliError, type CliIo, parse, UsageError } from "./cli-kit.ts";
import { openFile } from "./main.ts";

export function diffCommand(args: readonly string[], io: CliIo): number {
  const { values, positionals } = parse(args, { against: { type: "string" }, json: { type: "boolean" } });
  if (positionals.length !== 3) {
    throw new UsageError(cliErrors.expectedThreeArguments(positionals.length));
  }
  const [file, leftId, rightId] = positionals as [string, string, string];
  const otherFile = values.against as string | undefined;
  const left = openFile(file);
  const right = otherFile === undefined ? left : openFile(otherFile);
  if (!left.index.nodes.has(leftId)) throw new CliError(cliErrors.noTip(leftId, file));
  if (!right.index.nodes.has(rightId)) throw new CliError(cliErrors.noTip(rightId, otherFile ?? file));
  const { detail: _detail, ...comparison } = compareBranches(
    { index: left.index, reader: left.reader, tipId: leftId, file },
    { index: right.index, reader: right.reader, tipId: rightId, file: otherFile ?? file },
  );
  if (values.json) io.stdout(`${JSON.stringify(comparison)}\n`);
  else {
    const previewOf = (opened: typeof left, id: string | undefined): string => {
      const node = id === undefined ? undefined : opened.index.nodes.get(id);
      return node ? oneLine(opened.reader.factsOfNode(node).preview, 40) : "";
    };
    const lines = summaryLines(comparison, {
      left: (id) => previewOf(left, id),
      right: (id) => previewOf(right, id),
    });
    for (const line of lines) io.stdout(`${line}\n`);
  }
  return 0;
}

/** A turn's opening text on each side, for the summary's turn rows. */
interface TurnPreviews {
  left: (entryId: string | undefined) => string;
  right: (entryId: string | undefined) => string;
}

function summaryLines(comparison: BranchComparison, previews: TurnPreviews): string[] {
  const { left, right, turns, context, divergence } = comparison;
  const lines = [
    comparison.ancestorId === null
      ? "common ancestor: none (the two tips share no entry)"
      : `common ancestor: ${comparison.ancestorId}`,
    `left  ${left.leafId}${left.file ? ` (${left.file})` : ""}: ${factsLine(left.facts)}`,
    `right ${right.leafId}${right.file ? ` (${right.file})` : ""}: ${factsLine(right.facts)}`,
    `turns: ${counted(turns.map((turn) => turn.change))}`,
  ];
  for (const turn of turns) {
    if (turn.change === "same") continue;
    const side = (id: string | undefined, text: string) =>
      id === undefined ? "-" : `${id} ${JSON.stringify(text)}`;
    lines.push(
      `  ${turn.change.padEnd(8)} ${side(turn.left[0], previews.left(turn.left[0]))} ↔ ${side(turn.right[0], previews.right(turn.right[0]))}`,
    );
  }
  const leftCount = context.filter((op) => op.left !== undefined).length;
  const rightCount = context.filter((op) => op.right !== undefined).length;
  lines.push(
    `context: ${leftCount} messages on the left, ${rightCount} on the right: ${counted(context.map((op) => op.op))}`,
    divergence === null
      ? "divergence: none found"
      : `divergence: ${divergence.reason} (left ${divergence.leftEntryId ?? "-"}, right ${divergence.rightEntryId ?? "-"})`,
  );
  for (const note of comparison.notes) lines.push(`note: ${note}`);
  return lines;
}

function factsLine(facts: RunFacts): string {
  const tokens = facts.tokens.input + facts.tokens.output + facts.tokens.cacheRead + facts.tokens.cacheWrite;
  const prompt = facts.lastPrompt ? `, last prompt "${oneLine(facts.lastPrompt.text, 50)}"` : "";
  return (
    `${counting(facts.entries, "entry", "entries")}, ${counting(facts.turns, "turn", "turns")}, ` +
    `${formatCost(facts.cost)}, ${counting(tokens, "token", "tokens")}, ` +
    `${counting(facts.errors, "tool error", "tool errors")}` +
    `${facts.models.length > 0 ? `, ${facts.models.join(", ")}` : ""}${prompt}`
  );
}

function counting(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** "2 same, 1 changed" in a fixed order, kinds that did not occur left out ("nothing" when none did). */
function counted(changes: readonly string[]): string {
  const parts: string[] = [];
  for (const kind of ["same", "changed", "removed", "added"]) {
    const count = changes.filter((change) => change === kind).length;
    if (count > 0) parts.push(`${count} ${kind}`);
  }
  return parts.join(", ") || "nothing";
}
