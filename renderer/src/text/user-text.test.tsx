// @vitest-environment happy-dom
import "../testing/setup.ts";
import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { renderExplorer } from "../testing/render-explorer.tsx";
import { assistant, sessionText, user } from "../testing/sessions.ts";
import { UserText } from "./user-text.tsx";

describe("text from a session", () => {
  it("is isolated from what surrounds it, and its direction controls are shown as tags, not applied", () => {
    const { container, unmount } = render(<UserText text={"invoice\u202Etxt.exe"} />);
    const isolated = container.querySelector("bdi")!;
    expect(isolated.textContent).toBe("invoiceRLOtxt.exe");
    expect(isolated.textContent).not.toContain("\u202E");
    const tag = isolated.querySelector("abbr.bidi-control")!;
    expect(tag.textContent).toBe("RLO");
    expect(tag.getAttribute("title")).toContain("U+202E right-to-left override");
    unmount();
  });

  it("in the library, the header, the graph and the preview: no control reaches the page", async () => {
    const posing = "\u202Etxt.exe";
    const text = sessionText([
      user("u1", `open ${posing} please`),
      assistant("a1", `I will not open ${posing}.`),
    ]);
    const explorer = await renderExplorer([{ sessionId: "s", text }], { open: "s" });
    await explorer.waitForContext("a1");
    for (const region of [
      screen.getByRole("navigation", { name: "Library" }),
      document.querySelector(".app-header")!,
      explorer.node("a1") ?? document.querySelector(".react-flow")!,
      explorer.preview(),
    ]) {
      expect(region.textContent).not.toContain("\u202E");
      expect(region.textContent).toMatch(/RLO/);
    }
    explorer.unmount();
  });
});
