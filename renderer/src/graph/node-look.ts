/** What an entry looks like in the graph: a title and a style class from its kind. Pure. */

import type { TreeNodeView } from "../../../shared/ipc/contract.ts";

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

// Maps, not object literals: a role or type read from a file (say "constructor") must not find a prototype's key.

/** Messages, by role. */
const MESSAGE_LOOKS = new Map<string, LookOf>([
  ["user", titled("User")],
  ["assistant", assistantLook],
  ["toolResult", toolResultLook],
  ["bashExecution", bashLook],
  ["custom", titled("Custom message")],
  ["branchSummary", titled("Branch summary")],
  ["compactionSummary", titled("Compaction summary")],
  ["system", titled("System")],
]);

/** Entries other than messages, by type. */
const ENTRY_LOOKS = new Map<string, LookOf>([
  ["compaction", (node) => ({ title: `Compaction · ${thousands(node.tokensBefore ?? 0)} tokens before` })],
  ["branch_summary", titled("Branch summary")],
  ["custom_message", titled("Custom message")],
  ["model_change", titled("Model")],
  ["thinking_level_change", titled("Thinking level")],
  ["label", titled("Label")],
  ["session_info", titled("Session name")],
  ["custom", titled("Custom")],
  ["context_edit", (node) => ({ title: `Context edit → ${node.targetId ?? "?"}` })],
  ["usage", titled("Usage")],
]);

function messageLook(node: TreeNodeView): KindLook {
  const lookOf = node.role === null ? undefined : MESSAGE_LOOKS.get(node.role);
  return lookOf ? lookOf(node) : { title: `Message · ${node.role ?? "no role"}`, variant: "unknown" };
}

function entryLook(node: TreeNodeView): KindLook {
  const lookOf = ENTRY_LOOKS.get(node.type);
  return lookOf ? lookOf(node) : { title: `Unknown · ${node.type}`, variant: "kind-unknown" };
}

export function nodeLook(node: TreeNodeView): NodeLook {
  const isMessage = node.type === "message";
  const kindClass = `kind-${isMessage ? (node.role ?? "unknown") : node.type}`;
  const { title, variant } = isMessage ? messageLook(node) : entryLook(node);
  return { className: variant === undefined ? kindClass : `${kindClass} ${variant}`, title };
}
