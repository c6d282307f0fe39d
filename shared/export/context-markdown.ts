/**
 * A context as text: JSON (what `arbor context --json` prints for the leaf:
 * Pi's `buildSessionContext`, or with the model's view its `convertToLlm`
 * form) or readable Markdown of the same messages. The window copies it, and
 * the branch exports (branch-export.ts) are built on it.
 */

import type { ContextView } from "../ipc/contract.ts";
import { assertNever, isKnownRole, isRecord, textOf } from "../session/index.ts";
import { showBidiControls } from "../text/bidi.ts";
import { base64Bytes, formatBytes } from "./bytes.ts";

/** The context as the agent holds it, or as the model sees it (`convertToLlm`). */
export type ContextMode = "agent" | "llm";

export function contextAsJson(view: ContextView, mode: ContextMode): string {
  const messages = mode === "llm" && view.llm ? view.llm : view.messages.map((item) => item.message);
  const { leafId, thinkingLevel, model } = view;
  return `${JSON.stringify({ leafId, messages, thinkingLevel, model }, null, 2)}\n`;
}

function fence(text: string, language = ""): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const ticks = "`".repeat(longest + 1);
  return `${ticks}${language}\n${text}\n${ticks}`;
}

/** A message's content: its text, and each image as a note of its type and size (the data is not copied). */
function contentMarkdown(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const block of content) {
    if (!isRecord(block)) continue;
    if (block.type === "text" && typeof block.text === "string") parts.push(block.text);
    else if (block.type === "image") {
      const data = typeof block.data === "string" ? block.data : "";
      const mimeType = typeof block.mimeType === "string" ? block.mimeType : "image";
      parts.push(`[image: ${mimeType}, ${formatBytes(base64Bytes(data))}]`);
    }
  }
  return parts.join("\n\n");
}

/** What the preview's bash badges say, as sentences. */
function bashNotes(message: Record<string, unknown>): string[] {
  const notes: string[] = [];
  if (message.cancelled === true) notes.push("Cancelled.");
  notes.push(typeof message.exitCode === "number" ? `Exit code ${message.exitCode}.` : "No exit code.");
  if (message.truncated === true) {
    const path = typeof message.fullOutputPath === "string" ? message.fullOutputPath : "";
    notes.push(path ? `Output truncated; the whole of it is in ${path}.` : "Output truncated.");
  }
  if (message.excludeFromContext === true) notes.push("Not sent to the model.");
  return notes;
}

/** How a message's emphasis and code are written: Markdown, or plain text for a `<pre>` (the HTML export). */
interface TextStyle {
  strong(text: string): string;
  code(text: string, language?: string): string;
}

const MARKDOWN: TextStyle = { strong: (text) => `**${text}**`, code: fence };
export const PLAIN_TEXT: TextStyle = { strong: (text) => text, code: (text) => text };

/** One message as Markdown, as the preview shows it (or, with `PLAIN_TEXT`, as plain text). */
export function messageMarkdown(message: Record<string, unknown>, style: TextStyle = MARKDOWN): string {
  const parts: string[] = [];
  const role = message.role;
  // A role this version does not know: its content, as for a user's message.
  if (!isKnownRole(role)) return contentMarkdown(message.content);
  switch (role) {
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
            `${style.strong(String(block.name))}\n\n${style.code(JSON.stringify(block.arguments ?? {}, null, 2), "json")}`,
          );
      }
      if (typeof message.errorMessage === "string")
        parts.push(`${style.strong("Error:")} ${message.errorMessage}`);
      break;
    }
    case "toolResult":
      parts.push(
        `${style.strong(String(message.toolName))}${message.isError ? " (error)" : ""}`,
        style.code(textOf(message.content)),
      );
      for (const block of Array.isArray(message.content) ? message.content : []) {
        if (isRecord(block) && block.type === "image") parts.push(contentMarkdown([block]));
      }
      break;
    case "bashExecution":
      parts.push(style.code(`$ ${String(message.command)}\n${String(message.output ?? "")}`, "sh"));
      parts.push(bashNotes(message).join(" "));
      break;
    case "branchSummary":
    case "compactionSummary":
      parts.push(String(message.summary ?? ""));
      break;
    case "user":
    case "custom":
    case "system":
      parts.push(contentMarkdown(message.content));
      break;
    default:
      assertNever(role, "message role");
  }
  return parts.filter(Boolean).join("\n\n");
}

export function contextAsMarkdown(view: ContextView, mode: ContextMode = "agent"): string {
  const lines: string[] = [];
  const model = view.model ? `${view.model.provider}/${view.model.modelId}` : "no model";
  const leaf = view.leafId ?? "(empty)";
  // The model's view has no entry ids: convertToLlm drops some messages and rewrites others.
  const items =
    mode === "llm" && view.llm
      ? view.llm.map((message) => ({ heading: String(message.role), message }))
      : view.messages.map(({ entryId, message }) => ({
          heading: `${String(message.role)} (${entryId})`,
          message,
        }));
  lines.push(
    mode === "llm" && view.llm ? `# What the model sees at ${leaf}` : `# Context at ${leaf}`,
    "",
    `${model}, thinking ${view.thinkingLevel}, ${items.length} messages`,
  );
  for (const { heading, message } of items) {
    lines.push("", `## ${heading}`, "", messageMarkdown(message as Record<string, unknown>));
  }
  // The session's bidirectional controls shown, not applied, as in the window (Arbor's own text has none).
  return showBidiControls(`${lines.join("\n")}\n`);
}
