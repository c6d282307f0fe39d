/** What an entry looks like in the graph: a title and a style class from its kind. Pure. */

import type { TreeNodeView } from "../../../shared/ipc/contract.ts";

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
  let title: string;
  switch (node.type) {
    case "message":
      switch (node.role) {
        case "user":
          title = "User";
          break;
        case "assistant":
          if (node.stopReason === "aborted") {
            title = "Assistant · aborted";
            classes.push("aborted");
          } else if (node.isError) {
            title = "Assistant · error";
            classes.push("error");
          } else if (node.toolCallsOnly) {
            title = `Tool call · ${node.toolNames.join(", ")}`;
            classes.push("tool-call-only");
          } else title = "Assistant";
          break;
        case "toolResult":
          title = `Result · ${node.toolNames[0] ?? "tool"}`;
          if (node.isError) {
            title += " · error";
            classes.push("error");
          }
          break;
        case "bashExecution":
          title = node.isError ? "Bash · failed" : "Bash";
          if (node.isError) classes.push("error");
          break;
        case "custom":
          title = "Custom message";
          break;
        case "branchSummary":
          title = "Branch summary";
          break;
        case "compactionSummary":
          title = "Compaction summary";
          break;
        case "system":
          title = "System";
          break;
        default:
          title = `Message · ${node.role ?? "no role"}`;
          classes.push("unknown");
      }
      break;
    case "compaction":
      title = `Compaction · ${thousands(node.tokensBefore ?? 0)} tokens before`;
      break;
    case "branch_summary":
      title = "Branch summary";
      break;
    case "custom_message":
      title = "Custom message";
      break;
    case "model_change":
      title = "Model";
      break;
    case "thinking_level_change":
      title = "Thinking level";
      break;
    case "label":
      title = "Label";
      break;
    case "session_info":
      title = "Session name";
      break;
    case "custom":
      title = "Custom";
      break;
    case "context_edit":
      title = `Context edit → ${node.targetId ?? "?"}`;
      break;
    case "usage":
      title = "Usage";
      break;
    default:
      title = `Unknown · ${node.type}`;
      classes.push("kind-unknown");
  }
  return { className: classes.join(" "), title };
}
