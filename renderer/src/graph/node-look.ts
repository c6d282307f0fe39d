/** What an entry looks like in the graph: a title and a style class from its kind. Pure. */

import type { TreeNodeView } from "../../../shared/ipc/contract.ts";
import {
  isKnownEntryType,
  isKnownRole,
  type KnownEntryType,
  type KnownRole,
} from "../../../shared/session/types.ts";

export interface NodeLook {
  /** Style classes: `kind-<kind>` plus variants (tool-call-only, error, aborted). */
  className: string;
  title: string;
}

/** A kind's part of a look: its title, and the variant class it adds to `kind-<kind>`, if any. */
interface KindLook {
  title: string;
  variant?: string;
}

type LookOf = (node: TreeNodeView) => KindLook;

function thousands(tokens: number): string {
  return tokens >= 1000 ? `${Math.round(tokens / 1000)}k` : String(tokens);
}

/** A kind whose look depends on nothing but its kind. */
function titled(title: string): LookOf {
  const look: KindLook = { title };
  return () => look;
}

function assistantLook(node: TreeNodeView): KindLook {
  if (node.stopReason === "aborted") return { title: "Assistant · aborted", variant: "aborted" };
  if (node.isError) return { title: "Assistant · error", variant: "error" };
  if (node.toolCallsOnly)
    return { title: `Tool call · ${node.toolNames.join(", ")}`, variant: "tool-call-only" };
  return { title: "Assistant" };
}

function toolResultLook(node: TreeNodeView): KindLook {
  const title = `Result · ${node.toolNames[0] ?? "tool"}`;
  return node.isError ? { title: `${title} · error`, variant: "error" } : { title };
}

function bashLook(node: TreeNodeView): KindLook {
  return node.isError ? { title: "Bash · failed", variant: "error" } : { title: "Bash" };
}

// Complete tables: a new known role or entry type fails to compile until it has a look. They are read only
// with a key known to be one of theirs (`isKnownRole`, `isKnownEntryType`), never with a string from a file.

/** Messages, by role. */
const MESSAGE_LOOKS: Readonly<Record<KnownRole, LookOf>> = {
  user: titled("User"),
  assistant: assistantLook,
  toolResult: toolResultLook,
  bashExecution: bashLook,
  custom: titled("Custom message"),
  branchSummary: titled("Branch summary"),
  compactionSummary: titled("Compaction summary"),
  system: titled("System"),
};

/** Entries, by type (a message by its role). */
const ENTRY_LOOKS: Readonly<Record<KnownEntryType, LookOf>> = {
  message: messageLook,
  compaction: (node) => ({ title: `Compaction · ${thousands(node.tokensBefore ?? 0)} tokens before` }),
  branch_summary: titled("Branch summary"),
  custom_message: titled("Custom message"),
  model_change: titled("Model"),
  thinking_level_change: titled("Thinking level"),
  label: titled("Label"),
  session_info: titled("Session name"),
  custom: titled("Custom"),
  context_edit: (node) => ({ title: `Context edit → ${node.targetId ?? "?"}` }),
  usage: titled("Usage"),
};

function messageLook(node: TreeNodeView): KindLook {
  const role = node.role;
  return isKnownRole(role)
    ? MESSAGE_LOOKS[role](node)
    : { title: `Message · ${role ?? "no role"}`, variant: "unknown" };
}

function entryLook(node: TreeNodeView): KindLook {
  const type = node.type;
  return isKnownEntryType(type)
    ? ENTRY_LOOKS[type](node)
    : { title: `Unknown · ${type}`, variant: "kind-unknown" };
}

export function nodeLook(node: TreeNodeView): NodeLook {
  const kindClass = `kind-${node.type === "message" ? (node.role ?? "unknown") : node.type}`;
  const { title, variant } = entryLook(node);
  return { className: variant === undefined ? kindClass : `${kindClass} ${variant}`, title };
}
