/**
 * `arbor branches FILE [--json]`: the file's branch map (shared/branches):
 * one leaf per branch tip with what the branch adds up to, and every segment
 * with its own facts. As text, a table of the branches.
 */

import { type BranchLeaf, BranchModel } from "../../shared/branches/index.ts";
import { type CliIo, parse } from "./cli-kit.ts";
import { oneFile, openFile } from "./main.ts";

export function branchesCommand(args: readonly string[], io: CliIo): number {
  const { values, positionals } = parse(args, { json: { type: "boolean" } });
  const file = oneFile(positionals);
  const { index, reader } = openFile(file);
  const map = BranchModel.build(index, reader).branchMap();
  if (values.json) {
    io.stdout(`${JSON.stringify(map)}\n`);
    return 0;
  }
  const count = map.leaves.length;
  io.stdout(`${file}: ${count} branch${count === 1 ? "" : "es"}, ${map.segments.length} segments\n`);
  if (count === 0) return 0;
  const rows = [["tip", "label", "entries", "turns", "cost", "tokens", "errors", "ends", "last prompt"]];
  for (const leaf of map.leaves) rows.push(branchRow(leaf));
  for (const line of tableLines(rows, new Set([2, 3, 4, 5, 6]))) io.stdout(`  ${line}\n`);
  return 0;
}

function branchRow(leaf: BranchLeaf): string[] {
  const tokens = leaf.tokens.input + leaf.tokens.output + leaf.tokens.cacheRead + leaf.tokens.cacheWrite;
  const ending = leaf.endsInError ? "error" : leaf.branchSummaryIds.length > 0 ? "summarized" : "";
  const ends = leaf.archived ? (ending ? `${ending}, archived` : "archived") : ending;
  return [
    leaf.leafId,
    leaf.label ?? "",
    String(leaf.entries),
    String(leaf.turns),
    formatCost(leaf.cost),
    String(tokens),
    String(leaf.errors),
    ends,
    oneLine(leaf.lastPrompt?.text ?? "", 60),
  ];
}

export function formatCost(cost: number): string {
  return `$${cost.toFixed(cost > 0 && cost < 0.01 ? 4 : 2)}`;
}

export function oneLine(text: string, width: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > width ? `${line.slice(0, width - 1)}…` : line;
}

/** Columns padded to their widest cell; `right`: the columns aligned right (numbers). */
export function tableLines(rows: readonly string[][], right: ReadonlySet<number>): string[] {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? "").length)));
  return rows.map((row) =>
    row
      .map((cell, column) =>
        right.has(column) ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!),
      )
      .join("  ")
      .trimEnd(),
  );
}
