// @vitest-environment happy-dom
import "../testing/setup.ts";
import { render, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { MessageView, sameMessageProps } from "./message-view.tsx";

/** Each string the row shows, counted as it is drawn (the real function, which shows bidi controls). */
const shown = vi.hoisted(() => ({ count: 0 }));
vi.mock(import("../../../shared/text/bidi.ts"), async (original) => {
  const real = await original();
  return {
    ...real,
    showBidiControls: (text: string) => {
      shown.count++;
      return real.showBidiControls(text);
    },
  };
});

const onReveal = () => {};
const answer = (text: string) => ({
  role: "assistant",
  content: [{ type: "text", text }],
  provider: "anthropic",
  model: "claude",
  stopReason: "stop",
  timestamp: 1,
});

describe("a drawn message row", () => {
  it("is not drawn again for the same message decoded afresh (a newer context answer); it is for another", () => {
    const row = (message: unknown) => (
      <MessageView message={message} entryId="e3" index={3} tokenEstimate={12} onReveal={onReveal} />
    );
    const view = render(row(answer("the same **words**")));
    const drawn = shown.count;
    expect(drawn).toBeGreaterThan(0);
    view.rerender(row(JSON.parse(JSON.stringify(answer("the same **words**")))));
    expect(shown.count).toBe(drawn);
    view.rerender(row(answer("other words")));
    expect(shown.count).toBeGreaterThan(drawn);
    expect(screen.getByText("other words")).toBeTruthy();
  });

  it("compares rows by content", () => {
    const props = { message: answer("x"), entryId: "e1", index: 1, tokenEstimate: 3, onReveal };
    expect(sameMessageProps(props, { ...props, message: answer("x") })).toBe(true);
    expect(sameMessageProps(props, { ...props, message: answer("y") })).toBe(false);
    expect(sameMessageProps(props, { ...props, index: 2 })).toBe(false);
    expect(sameMessageProps(props, { ...props, entryId: "e2" })).toBe(false);
    expect(sameMessageProps(props, { ...props, tokenEstimate: 4 })).toBe(false);
    expect(sameMessageProps(props, { ...props, onReveal: () => {} })).toBe(false);
  });
});
