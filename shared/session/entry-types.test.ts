/**
 * Known entry types and roles are decided exhaustively: a switch or table
 * that leaves one out does not compile (checked here with `@ts-expect-error`,
 * which fails the typecheck if the error ever goes away), every known one
 * has its handler at run time, and an unknown one from a file takes the
 * unknown path instead of reaching `assertNever`.
 */

import { describe, expect, it } from "vitest";
import { passesFilter } from "../graph/filter.ts";
import { messageToLlm } from "./convert-to-llm.ts";
import { editableRole, entryToContextMessages } from "./entry-contribution.ts";
import { entrySearchText } from "./entry-search.ts";
import { validateEntry } from "./entry-validation.ts";
import { entryFacts } from "./facts.ts";
import type { Problem } from "./problems.ts";
import {
  type AgentMessage,
  assertNever,
  isKnownEntryType,
  isKnownRole,
  KNOWN_ENTRY_TYPES,
  KNOWN_ROLES,
  type KnownEntryType,
  type KnownRole,
  type SessionEntry,
} from "./types.ts";

/** A switch over every known entry type but one. */
function missingAType(type: KnownEntryType): string {
  switch (type) {
    case "message":
    case "model_change":
    case "thinking_level_change":
    case "compaction":
    case "branch_summary":
    case "custom":
    case "custom_message":
    case "label":
    case "session_info":
    case "context_edit":
      return type;
    default:
      // @ts-expect-error "usage" is not handled: `type` is not `never` here.
      return assertNever(type, "entry type");
  }
}

/** A switch over every known role but one. */
function missingARole(role: KnownRole): string {
  switch (role) {
    case "user":
    case "assistant":
    case "toolResult":
    case "bashExecution":
    case "custom":
    case "branchSummary":
    case "compactionSummary":
      return role;
    default:
      // @ts-expect-error "system" is not handled: `role` is not `never` here.
      return assertNever(role, "message role");
  }
}

// @ts-expect-error A table by entry type must name every type.
const incompleteTable: Record<KnownEntryType, true> = { message: true };

function entryOf(type: string, fields: Record<string, unknown> = {}): SessionEntry {
  return {
    type,
    id: "e1",
    parentId: null,
    timestamp: "2026-01-01T00:00:00.000Z",
    ...fields,
  } as SessionEntry;
}

function messageOf(role: string): AgentMessage {
  return { role, content: [{ type: "text", text: "hello" }], timestamp: 1, summary: "s", command: "ls" };
}

const filterNode = (type: string, role: string | null) => ({
  id: "e1",
  parentId: null,
  children: [],
  type,
  role,
  label: null,
  hasText: true,
  stopReason: null,
});

describe("known entry types", () => {
  it("a switch or table that leaves a known one out does not compile (and would throw if it ran)", () => {
    expect(missingAType("message")).toBe("message");
    expect(() => missingAType("usage")).toThrow('Unexpected entry type: "usage"');
    expect(missingARole("user")).toBe("user");
    expect(() => missingARole("system")).toThrow('Unexpected message role: "system"');
    expect(Object.keys(incompleteTable)).toEqual(["message"]);
  });

  it("the known lists are the unions, and values read from files are narrowed by them", () => {
    expect([...KNOWN_ENTRY_TYPES].sort()).toEqual(
      [
        "branch_summary",
        "compaction",
        "context_edit",
        "custom",
        "custom_message",
        "label",
        "message",
        "model_change",
        "session_info",
        "thinking_level_change",
        "usage",
      ].sort(),
    );
    expect(KNOWN_ROLES.size).toBe(8);
    expect(isKnownEntryType("message")).toBe(true);
    for (const odd of ["future_type", "constructor", "__proto__", 3, null, undefined]) {
      expect(isKnownEntryType(odd)).toBe(false);
      expect(isKnownRole(odd)).toBe(false);
    }
    expect(isKnownRole("toolResult")).toBe(true);
  });

  it("every known type has its handler everywhere, and an unknown one goes the unknown way", () => {
    for (const type of [...KNOWN_ENTRY_TYPES, "future_type"]) {
      const entry = entryOf(type, { message: messageOf("user"), summary: "s", content: "c" });
      const facts = entryFacts(entry);
      expect(facts.kind).toBe(type === "message" ? "user" : type);
      expect(entrySearchText(entry, facts)).toContain(type);
      expect(() => entryToContextMessages(entry)).not.toThrow();
      expect(() => editableRole(entry)).not.toThrow();
      expect(() => passesFilter(filterNode(type, null), "default", null)).not.toThrow();
      const problems: Problem[] = [];
      validateEntry(entry as never, 2, problems);
      expect(problems.map((problem) => problem.kind)).toEqual(
        KNOWN_ENTRY_TYPES.has(type) ? [] : ["unknown-type"],
      );
    }
    // Unknown types take no part in context and are shown by the filter.
    expect(entryToContextMessages(entryOf("future_type"))).toEqual([]);
    expect(passesFilter(filterNode("future_type", null), "default", null)).toBe(true);
  });

  it("every known role has its handler everywhere, and an unknown one is shown, never sent", () => {
    for (const role of [...KNOWN_ROLES, "futureRole"]) {
      const entry = entryOf("message", { message: messageOf(role) });
      const facts = entryFacts(entry);
      expect(facts.role).toBe(role);
      expect(entrySearchText(entry, facts)).toContain(role.toLowerCase());
      expect(entryToContextMessages(entry)).toHaveLength(1);
      expect(() => passesFilter(filterNode("message", role), "no-tools", null)).not.toThrow();
      const llm = messageToLlm(messageOf(role));
      if (role === "futureRole") expect(llm).toBeUndefined();
      else expect(llm?.role).toMatch(/^(user|assistant|toolResult|system)$/);
    }
    expect(editableRole(entryOf("message", { message: messageOf("futureRole") }))).toBeNull();
    expect(editableRole(entryOf("custom_message"))).toBe("custom");
  });
});
