/** The selected context as text to copy: JSON (exactly what the preview shows) or readable Markdown. */

import type { ContextView } from "../../../shared/ipc/contract.ts";
import { isRecord, textOf } from "../../../shared/session/index.ts";
import type { ContextMode } from "../state/stores.ts";

export function contextAsJson(view: ContextView, mode: ContextMode): string {
  if (mode === "llm" && view.llm) return JSON.stringify(view.llm, null, 2);
  return JSON.stringify(
    view.messages.map((message) => ({ entryId: message.entryId, ...message.message })),
    null,
    2,
  );
}

function fence(text: string, language = ""): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const ticks = "`".repeat(longest + 1);
  return `${ticks}${language}\n${text}\n${ticks}`;
}

function messageMarkdown(message: Record<string, unknown>): string {
  const parts: string[] = [];
  switch (message.role) {
    case "assistant": {
      const content = Array.isArray(message.content) ? message.content : [];
      for (const block of content) {
        if (!isRecord(block)) continue;
        if (block.type === "text") parts.push(String(block.text ?? ""));
        else if (block.type === "thinking")
          parts.push(
            String(block.thinking ?? "")
              .split("\n")
              .map((line) => `> ${line}`)
              .join("\n"),
          );
        else if (block.type === "toolCall")
          parts.push(
            `**${String(block.name)}**\n\n${fence(JSON.stringify(block.arguments ?? {}, null, 2), "json")}`,
          );
      }
      if (typeof message.errorMessage === "string") parts.push(`**Error:** ${message.errorMessage}`);
      break;
    }
    case "toolResult":
      parts.push(
        `**${String(message.toolName)}**${message.isError ? " (error)" : ""}`,
        fence(textOf(message.content)),
      );
      break;
    case "bashExecution":
      parts.push(fence(`$ ${String(message.command)}\n${String(message.output ?? "")}`, "sh"));
      if (typeof message.exitCode === "number") parts.push(`Exit code ${message.exitCode}.`);
      break;
    case "branchSummary":
    case "compactionSummary":
      parts.push(String(message.summary ?? ""));
      break;
    default:
      parts.push(textOf(message.content) || (typeof message.content === "string" ? message.content : ""));
  }
  return parts.filter(Boolean).join("\n\n");
}

export function contextAsMarkdown(view: ContextView): string {
  const lines: string[] = [];
  const model = view.model ? `${view.model.provider}/${view.model.modelId}` : "no model";
  lines.push(
    `# Context at ${view.leafId ?? "(empty)"}`,
    "",
    `${model}, thinking ${view.thinkingLevel}, ${view.messages.length} messages`,
  );
  for (const { entryId, message } of view.messages) {
    lines.push(
      "",
      `## ${String(message.role)} (${entryId})`,
      "",
      messageMarkdown(message as Record<string, unknown>),
    );
  }
  return `${lines.join("\n")}\n`;
}
