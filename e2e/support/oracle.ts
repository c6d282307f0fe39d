/**
 * What the UI should show, computed without the UI: the `arbor` command
 * line in a child process for contexts, and the pure graph maths over the
 * file as shared/session reads it for the visible entries of each filter.
 */

import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  type FilterableNode,
  type FilterMode,
  type VisibleTree,
  visibleTree,
} from "../../shared/graph/index.ts";
import {
  entryFacts,
  inMemoryEntryReader,
  readSession,
  type SessionIndex,
} from "../../shared/session/index.ts";
import { REPO } from "./serve.ts";
import type { CheckReport } from "../../app/cli/main.ts";

type Json = Record<string, unknown>;

export interface CliContext {
  leafId: string | null;
  messages: Json[];
  thinkingLevel: string;
  model: { provider: string; modelId: string } | null;
}

/** `arbor context FILE --leaf ID... --json [--llm]`: one context per leaf, in order. */
export function cliContexts(file: string, leaves: readonly string[], options: { llm?: boolean } = {}) {
  const args = [
    "--import",
    "tsx",
    join(REPO, "app", "cli", "main.ts"),
    "context",
    file,
    ...leaves.flatMap((leaf) => ["--leaf", leaf]),
    "--json",
    ...(options.llm ? ["--llm"] : []),
  ];
  const run = spawnSync(process.execPath, args, { cwd: REPO, encoding: "utf8", maxBuffer: 256 << 20 });
  if (run.status !== 0) throw new Error(`arbor context exited ${run.status}: ${run.stderr}`);
  const contexts = run.stdout
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as CliContext);
  if (contexts.length !== leaves.length) {
    throw new Error(`arbor context printed ${contexts.length} contexts for ${leaves.length} leaves`);
  }
  return new Map(leaves.map((leaf, i) => [leaf, contexts[i]!]));
}

export function readIndex(file: string): SessionIndex {
  return readSession(readFileSync(file));
}

/** The tree as the filter reads it, from the index (labels from Pi's label entries, facts from the bodies). */
export function filterableNodes(index: SessionIndex): Map<string, FilterableNode> {
  const nodes = new Map<string, FilterableNode>();
  const reader = inMemoryEntryReader(index);
  for (const [id, node] of index.nodes) {
    const entry = reader.entryOfNode(node);
    const facts = entryFacts(entry);
    nodes.set(id, {
      id,
      parentId: node.parentId,
      children: node.children,
      type: entry.type,
      role: facts.role ?? null,
      label: index.labels.get(id)?.label ?? null,
      hasText: facts.hasText,
      stopReason: facts.stopReason,
    });
  }
  return nodes;
}

/** Pi's `/tree` in `mode` (nothing folded, no search). */
export function visibleTreeOf(index: SessionIndex, mode: FilterMode): VisibleTree {
  return visibleTree(filterableNodes(index), index.roots, { mode, leafId: index.leafId });
}

/** The entries Pi's `/tree` shows in `mode`, in its order. */
export function expectedVisible(index: SessionIndex, mode: FilterMode): string[] {
  return visibleTreeOf(index, mode).order;
}

/** The entries from the root to `leafId`, in that order. */
export function pathTo(index: SessionIndex, leafId: string): string[] {
  const path: string[] = [];
  for (let id: string | null = leafId; id !== null; id = index.nodes.get(id)?.parentId ?? null) {
    path.push(id);
  }
  return path.reverse();
}

/**
 * The entry each context message came from, found on the leaf's path by
 * what the message carries (the CLI prints messages only): a message entry
 * by role and timestamp, a summary by its text, a custom message by type
 * and content. Walks the path forwards, as the context does.
 */
export function sourceEntryIds(index: SessionIndex, leafId: string, messages: readonly Json[]): string[] {
  const reader = inMemoryEntryReader(index);
  const path = pathTo(index, leafId).map((id) => reader.entry(id)! as unknown as Json);
  const from = (message: Json) => (entry: Json) => {
    const inner = entry.message as Json | undefined;
    switch (message.role) {
      case "compactionSummary":
        return entry.type === "compaction" && entry.summary === message.summary;
      case "branchSummary":
        return entry.type === "branch_summary" && entry.summary === message.summary;
      case "custom":
        return (
          entry.type === "custom_message" &&
          entry.customType === message.customType &&
          JSON.stringify(entry.content) === JSON.stringify(message.content)
        );
      default:
        return (
          entry.type === "message" && inner?.role === message.role && inner?.timestamp === message.timestamp
        );
    }
  };
  const ids: string[] = [];
  // Messages follow the path, except the compaction summary, which comes first though its entry is later.
  let next = 0;
  for (const message of messages) {
    const matches = from(message);
    const start = message.role === "compactionSummary" ? 0 : next;
    const at = path.findIndex((entry, i) => i >= start && matches(entry));
    if (at < 0) throw new Error(`no entry on the path to ${leafId} holds ${JSON.stringify(message)}`);
    if (message.role !== "compactionSummary") next = at + 1;
    ids.push(path[at]!.id as string);
  }
  return ids;
}

/** The texts of a message the preview draws: its text blocks, summary, or command and output. */
export function messageTexts(message: Json): string[] {
  const content = message.content;
  const parts: string[] = [];
  if (typeof content === "string") parts.push(content);
  else if (Array.isArray(content)) {
    for (const block of content as Json[]) if (block.type === "text") parts.push(String(block.text));
  }
  if (typeof message.summary === "string") parts.push(message.summary);
  if (typeof message.command === "string") parts.push(message.command);
  if (typeof message.output === "string") parts.push(message.output);
  return parts.filter((part) => part.trim() !== "");
}

/**
 * Letters and digits only: compares a message's source text with what the
 * page draws of it (Markdown rendered, code-fence languages dropped).
 */
export function comparable(text: string): string {
  return text
    .replace(/```[a-z]*/gi, "")
    .replace(/[^\p{L}\p{N}]+/gu, "")
    .toLowerCase();
}

/** `arbor check FILE... --json`: one report per file, in order. */
export function cliCheck(files: readonly string[]): CheckReport[] {
  const args = ["--import", "tsx", join(REPO, "app", "cli", "main.ts"), "check", ...files, "--json"];
  const run = spawnSync(process.execPath, args, { cwd: REPO, encoding: "utf8" });
  if (run.status !== 0 && run.status !== 1)
    throw new Error(`arbor check exited ${run.status}: ${run.stderr}`);
  return run.stdout
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as CheckReport);
}
