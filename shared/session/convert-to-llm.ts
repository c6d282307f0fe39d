/**
 * Pi's `convertToLlm`: the provider-facing form of a context. The wrapper
 * strings are Pi's, byte for byte (`dist/core/messages.js`); the oracle tests
 * compare against the package itself.
 */

import {
  type AgentMessage,
  assertNever,
  type BashExecutionMessage,
  isKnownRole,
  type LlmMessage,
  type TextContent,
  type UserMessage,
} from "./types.ts";

export const COMPACTION_SUMMARY_PREFIX =
  "The conversation history before this point was compacted into the following summary:\n\n<summary>\n";
export const COMPACTION_SUMMARY_SUFFIX = "\n</summary>";
export const BRANCH_SUMMARY_PREFIX =
  "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n";
export const BRANCH_SUMMARY_SUFFIX = "</summary>";

export function bashExecutionToText(message: BashExecutionMessage): string {
  let text = `Ran \`${message.command}\`\n`;
  text += message.output ? `\`\`\`\n${message.output}\n\`\`\`` : "(no output)";
  if (message.cancelled) {
    text += "\n\n(command cancelled)";
  } else if (message.exitCode !== null && message.exitCode !== undefined && message.exitCode !== 0) {
    text += `\n\nCommand exited with code ${message.exitCode}`;
  }
  if (message.truncated && message.fullOutputPath) {
    text += `\n\n[Output truncated. Full output: ${message.fullOutputPath}]`;
  }
  return text;
}

function userText(text: string, timestamp: unknown): UserMessage {
  const content: TextContent[] = [{ type: "text", text }];
  return { role: "user", content, timestamp: timestamp as number };
}

/** One message's LLM form, or undefined when the provider never sees it. */
export function messageToLlm(message: AgentMessage): LlmMessage | undefined {
  const role = message.role;
  // A role this version does not know is never sent anywhere.
  if (!isKnownRole(role)) return undefined;
  switch (role) {
    case "bashExecution": {
      const bash = message as BashExecutionMessage;
      if (bash.excludeFromContext) return undefined;
      return userText(bashExecutionToText(bash), bash.timestamp);
    }
    case "custom": {
      const content = message.content;
      return {
        role: "user",
        content: (typeof content === "string"
          ? [{ type: "text", text: content }]
          : content) as UserMessage["content"],
        timestamp: message.timestamp as number,
      };
    }
    case "branchSummary":
      return userText(
        BRANCH_SUMMARY_PREFIX + String(message.summary) + BRANCH_SUMMARY_SUFFIX,
        message.timestamp,
      );
    case "compactionSummary":
      return userText(
        COMPACTION_SUMMARY_PREFIX + String(message.summary) + COMPACTION_SUMMARY_SUFFIX,
        message.timestamp,
      );
    case "system":
    case "user":
    case "assistant":
    case "toolResult":
      return message as LlmMessage;
    default:
      return assertNever(role, "message role");
  }
}

export function convertToLlm(messages: readonly AgentMessage[]): LlmMessage[] {
  const result: LlmMessage[] = [];
  for (const message of messages) {
    const converted = messageToLlm(message);
    if (converted !== undefined) result.push(converted);
  }
  return result;
}
