// @vitest-environment happy-dom
import "./testing/setup.ts";
import { act, fireEvent, screen, waitFor } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { ArborError } from "../../shared/ipc/contract.ts";
import { renderExplorer } from "./testing/render-explorer.tsx";
import { conversation, sessionText } from "./testing/sessions.ts";
import { effectiveTheme } from "./state/stores.ts";
import { followTheme, THEME_ATTRIBUTE } from "./theme.ts";

describe("the theme switch", () => {
  it("chooses light, dark or the system's for every window; the page and the graph follow", async () => {
    const explorer = await renderExplorer([{ sessionId: "c", text: sessionText(conversation(3)) }], {
      open: "c",
    });
    const { appearance } = explorer.controller.stores;
    const root = document.documentElement;
    const stop = followTheme(root, appearance);
    act(() => appearance.setState({ systemDark: false }));
    const select = screen.getByRole<HTMLSelectElement>("combobox", { name: "Theme" });
    expect(select.value).toBe("system");
    expect(root.getAttribute(THEME_ATTRIBUTE)).toBe("light");

    fireEvent.change(select, { target: { value: "dark" } });
    await waitFor(() => expect(root.getAttribute(THEME_ATTRIBUTE)).toBe("dark"));
    expect(explorer.client.calls.filter((call) => call.name === "app.setTheme")).toEqual([
      { name: "app.setTheme", params: { theme: "dark" } },
    ]);
    await waitFor(() => expect(document.querySelector(".react-flow")?.classList.contains("dark")).toBe(true));

    // "system" follows the operating system, whichever it is now.
    fireEvent.change(select, { target: { value: "system" } });
    act(() => appearance.setState({ systemDark: true }));
    await waitFor(() => expect(root.getAttribute(THEME_ATTRIBUTE)).toBe("dark"));
    act(() => appearance.setState({ systemDark: false }));
    expect(root.getAttribute(THEME_ATTRIBUTE)).toBe("light");

    // Chosen in another window (or the desktop app's menu): this one follows.
    act(() => explorer.client.emit("app.themeChanged", { theme: "light" }));
    expect(select.value).toBe("light");
    expect(effectiveTheme(appearance.getState())).toBe("light");
    stop();
    explorer.unmount();
  });

  it("a refused choice goes back to the theme before, with a notice", async () => {
    const explorer = await renderExplorer([{ sessionId: "c", text: sessionText(conversation(2)) }], {
      open: "c",
      prepare: (client) =>
        client.failing.set("app.setTheme", new ArborError("io", "The disk is full; nothing was written.")),
    });
    const select = screen.getByRole<HTMLSelectElement>("combobox", { name: "Theme" });
    fireEvent.change(select, { target: { value: "dark" } });
    await waitFor(() => expect(screen.getByRole("alert").textContent).toContain("The theme was not changed"));
    expect(select.value).toBe("system");
    explorer.unmount();
  });
});
