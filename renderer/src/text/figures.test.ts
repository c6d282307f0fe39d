import { describe, expect, it } from "vitest";
import { figure, localFigure } from "./figures.ts";

describe("figures", () => {
  it("write counts as toLocaleString does: en-US for figures, the user's locale otherwise", () => {
    for (const n of [0, 1, 999, 1_000, 50_001, 1_234_567, -42, 3.5]) {
      expect(figure(n)).toBe(n.toLocaleString("en-US"));
      expect(localFigure(n)).toBe(n.toLocaleString());
    }
    expect(figure(1_234_567)).toBe("1,234,567");
  });
});
