import { describe, expect, it } from "vitest";
import { kindInWords, statusText } from "./status-text.ts";

describe("statusText", () => {
  const base = { filter: "Default", shown: 21, entries: 27, nodes: 21, leafHidden: null };

  it("says what the filter shows", () => {
    expect(statusText(base)).toBe("Default filter: 21 of 27 entries shown");
  });

  it("names the file's last entry and what hides it: the filter", () => {
    expect(statusText({ ...base, leafHidden: { kind: "session_info", by: "filter" } })).toBe(
      "Default filter: 21 of 27 entries shown; the file's last entry is a name change, hidden by this filter",
    );
  });

  it("... the search, a fold", () => {
    expect(statusText({ ...base, filter: "All entries", leafHidden: { kind: "label", by: "search" } })).toBe(
      "All entries filter: 21 of 27 entries shown; the file's last entry is a label, hidden by the search (only matches)",
    );
    expect(statusText({ ...base, leafHidden: { kind: "assistant", by: "fold" } })).toContain(
      "the file's last entry is an answer, hidden in a folded branch",
    );
  });

  it("counts chains when nodes are fewer than entries shown, and words an unknown kind", () => {
    expect(statusText({ ...base, nodes: 9 })).toBe(
      "Default filter: 21 of 27 entries shown (9 nodes: long runs folded into chains)",
    );
    expect(kindInWords("weird")).toBe('an entry of kind "weird"');
  });
});
