// @vitest-environment happy-dom
import "../testing/setup.ts";
import { render } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { MarkdownText, renderMarkdown } from "./markdown.tsx";

describe("markdown rendering", () => {
  it("renders a text once while it stays among the recent ones, and each text as its own", () => {
    const first = renderMarkdown("Some **bold** words");
    expect(renderMarkdown("Some **bold** words")).toBe(first);
    expect(renderMarkdown("Other *words*")).not.toBe(first);
    // Shown twice at once, the one element draws twice.
    const { container } = render(
      <>
        <MarkdownText text="Some **bold** words" />
        <MarkdownText text="Some **bold** words" />
      </>,
    );
    expect([...container.querySelectorAll("strong")].map((strong) => strong.textContent)).toEqual([
      "bold",
      "bold",
    ]);
  });

  it("keeps about 2 MB of recent texts: the oldest is rendered anew once more has come", () => {
    const oldest = renderMarkdown("the oldest text");
    for (let i = 0; i < 40; i++) renderMarkdown(`${i} ${"x".repeat(60 * 1024)}`);
    expect(renderMarkdown("the oldest text")).not.toBe(oldest);
    // A long text is rendered each time, never kept.
    const long = `long ${"y".repeat(70 * 1024)}`;
    expect(renderMarkdown(long)).not.toBe(renderMarkdown(long));
  });
});
