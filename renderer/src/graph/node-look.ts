/** What an entry looks like in the graph: a title and a style class from its kind. Pure. */

import type { TreeNodeView } from "../../../shared/ipc/contract.ts";
import {
  assertNever,
  isKnownEntryType,
  isKnownRole,
  type KnownEntryType,
} from "../../../shared/session/types.ts";

export interface NodeLook {
  /** Style classes: `kind-<kind>` plus variants (tool-call-only, error, aborted). */
  className: string;
  title: string;
}

function thousands(tokens: number): string {
  return tokens >= 1000 ? `${Math.round(tokens / 1000)}k` : String(tokens);
}

export function nodeLook(node: TreeNodeView): NodeLook {
  const classes = [`kind-${node.type === "message" ? (node.role ?? "unknown") : node.type}`];
  const type = node.type;
  let title: string;
  if (isKnownEntryType(type)) {
    title = entryTitle(node, type, classes);
  } else {
    title = `Unknown · ${type}`;
    classes.push("kind-unknown");
  }
  return { className: classes.join(" "), title };
}

function entryTitle(node: TreeNodeView, type: KnownEntryType, classes: string[]): string {
  switch (type) {
    case "message":
      return messageTitle(node, classes);
    case "compaction":
      return `Compaction · ${thousands(node.tokensBefore ?? 0)} tokens before`;
    case "branch_summary":
      return "Branch summary";
    case "custom_message":
      return "Custom message";
    case "model_change":
      return "Model";
    case "thinking_level_change":
      return "Thinking level";
    case "label":
      return "Label";
    case "session_info":
      return "Session name";
    case "custom":
      return "Custom";
    case "context_edit":
      return `Context edit → ${node.targetId ?? "?"}`;
    case "usage":
      return "Usage";
    default:
      return assertNever(type, "entry type");
  }
}

function messageTitle(node: TreeNodeView, classes: string[]): string {
  const role = node.role;
  if (!isKnownRole(role)) {
    classes.push("unknown");
    return `Message · ${role ?? "no role"}`;
  }
  switch (role) {
    case "user":
      return "User";
    case "assistant":
      if (node.stopReason === "aborted") {
        classes.push("aborted");
        return "Assistant · aborted";
      }
      if (node.isError) {
        classes.push("error");
        return "Assistant · error";
      }
      if (node.toolCallsOnly) {
        classes.push("tool-call-only");
        return `Tool call · ${node.toolNames.join(", ")}`;
      }
      return "Assistant";
    case "toolResult":
      if (node.isError) {
        classes.push("error");
        return `Result · ${node.toolNames[0] ?? "tool"} · error`;
      }
      return `Result · ${node.toolNames[0] ?? "tool"}`;
    case "bashExecution":
      if (node.isError) classes.push("error");
      return node.isError ? "Bash · failed" : "Bash";
    case "custom":
      return "Custom message";
    case "branchSummary":
      return "Branch summary";
    case "compactionSummary":
      return "Compaction summary";
    case "system":
      return "System";
    default:
      return assertNever(role, "message role");
  }
}
