/**
 * Every known entry type and role has its own look in the graph and the
 * overview; an unknown one from a file is shown as "unknown", never thrown on.
 */

import { describe, expect, it } from "vitest";
import type { TreeNodeView } from "../../../shared/ipc/contract.ts";
import { KNOWN_ENTRY_TYPES, KNOWN_ROLES } from "../../../shared/session/types.ts";
import { nodeLook } from "./node-look.ts";
import { overviewStyle } from "./overview-scene.ts";

function nodeOf(type: string, role: string | null): TreeNodeView {
  return {
    id: "e1",
    parentId: null,
    children: [],
    type,
    role,
    kind: type === "message" ? (role ?? "message") : type,
    preview: "",
    label: null,
    depth: 0,
    line: 2,
    timestamp: "",
    toolNames: [],
    tokenEstimate: 0,
    isError: false,
    toolCallsOnly: false,
    hasText: true,
    stopReason: null,
    tokensBefore: null,
    targetId: null,
    archived: false,
  };
}

describe("the look of each entry type and role", () => {
  it("gives every known type and role a title of its own, and an unknown one an unknown look", () => {
    const titles = new Set<string>();
    for (const type of KNOWN_ENTRY_TYPES) {
      if (type === "message") continue;
      const look = nodeLook(nodeOf(type, null));
      expect(look.title).not.toMatch(/^Unknown/);
      expect(look.className).toBe(`kind-${type}`);
      titles.add(look.title);
    }
    for (const role of KNOWN_ROLES) {
      const look = nodeLook(nodeOf("message", role));
      expect(look.className).toBe(`kind-${role}`);
      titles.add(look.title);
    }
    // Branch summaries and custom messages look the same as entries and as messages.
    expect(titles.size).toBe(KNOWN_ENTRY_TYPES.size - 1 + KNOWN_ROLES.size - 2);
    expect(nodeLook(nodeOf("future_type", null))).toEqual({
      className: "kind-future_type kind-unknown",
      title: "Unknown · future_type",
    });
    expect(nodeLook(nodeOf("message", "futureRole"))).toEqual({
      className: "kind-futureRole unknown",
      title: "Message · futureRole",
    });
    expect(nodeLook(nodeOf("message", null)).title).toBe("Message · no role");
  });

  it("colours every known type and role in the overview; unknown ones as settings", () => {
    expect(overviewStyle(nodeOf("message", "user"))).toBe("user");
    expect(overviewStyle({ ...nodeOf("message", "assistant"), toolCallsOnly: true })).toBe("tool");
    expect(overviewStyle(nodeOf("message", "compactionSummary"))).toBe("summary");
    expect(overviewStyle(nodeOf("compaction", null))).toBe("summary");
    expect(overviewStyle(nodeOf("custom", null))).toBe("custom");
    expect(overviewStyle(nodeOf("label", null))).toBe("settings");
    expect(overviewStyle(nodeOf("future_type", null))).toBe("settings");
    expect(overviewStyle(nodeOf("message", "futureRole"))).toBe("settings");
    expect(overviewStyle({ ...nodeOf("message", "user"), isError: true })).toBe("error");
  });
});
