import { describe, expect, it } from "vitest";
import { bidiSegments, hasBidiControls, showBidiControls } from "./bidi.ts";

describe("bidirectional controls", () => {
  it("are shown as markers, never applied: a name cannot pose as another", () => {
    const posing = "\u202Etxt.exe";
    expect(hasBidiControls(posing)).toBe(true);
    expect(showBidiControls(posing)).toBe("⟨RLO⟩txt.exe");
    expect(showBidiControls("a\u2066b\u2069c\u200Fd")).toBe("a⟨LRI⟩b⟨PDI⟩c⟨RLM⟩d");
    const plain = "plain text, עברית ו-English";
    expect(showBidiControls(plain)).toBe(plain);
    expect(hasBidiControls(plain)).toBe(false);
  });

  it("are split out for a view that marks them", () => {
    expect(bidiSegments("\u202Etxt.exe")).toEqual([
      { kind: "control", short: "RLO", codePoint: "U+202E", name: "right-to-left override" },
      { kind: "text", text: "txt.exe" },
    ]);
    expect(bidiSegments("no controls")).toEqual([{ kind: "text", text: "no controls" }]);
    expect(bidiSegments("a\u202Ab\u202C")).toEqual([
      { kind: "text", text: "a" },
      { kind: "control", short: "LRE", codePoint: "U+202A", name: "left-to-right embedding" },
      { kind: "text", text: "b" },
      { kind: "control", short: "PDF", codePoint: "U+202C", name: "pop directional formatting" },
    ]);
  });
});
