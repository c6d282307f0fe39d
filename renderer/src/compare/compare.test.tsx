// @vitest-environment happy-dom
import "../testing/setup.ts";
import { act, fireEvent, screen, waitFor } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { SessionBuilder } from "../../../shared/branches/testing/session-builder.ts";
import { KNOWN_ENTRY_TYPES, KNOWN_ROLES } from "../../../shared/session/types.ts";
import { BranchModel } from "../../../shared/branches/index.ts";
import { FILTER_MODES } from "../../../shared/graph/index.ts";
import { sessionViewOf } from "../../../shared/ipc/testing/session-view.ts";
import { inMemoryEntryReader, readSession } from "../../../shared/session/index.ts";
import { generateSession } from "../../../shared/session/testing/generate-session.ts";
import {
  chooseDefaultView,
  clampFitZoom,
  laneTips,
  leastExtentOfTips,
  READABLE_MIN_ZOOM,
} from "../branch-map/default-view.ts";
import { createGraphSelectors } from "../state/graph-model.ts";
import { initialSessionState } from "../state/stores.ts";
import { viewInAddress } from "../branch-map/branches-part.ts";
import { markItems, shadeItems, stripeItems } from "../graph/legend-entries.ts";
import { nodeLook } from "../graph/node-look.ts";
import { renderExplorer } from "../testing/render-explorer.tsx";
import { conversation, sessionText } from "../testing/sessions.ts";
import { degenerateNote } from "./compare-pane.tsx";
import { filterTips } from "./compare-picker.tsx";
import { compareOnShiftClick, compareTips } from "./start-compare.ts";

/** One prompt asked twice: the tests fail on the first try and pass on the second. */
function retrySession(): string {
  return new SessionBuilder()
    .user("u1", null, "Fix the parser")
    .assistant("a1", "u1", { text: "Changed the tokenizer.", usage: { input: 10, output: 5, cost: 0.25 } })
    .user("u2", "a1", "Run the unit tests")
    .assistant("a2", "u2", { tools: [{ name: "bash", args: { command: "npm test" }, id: "c1" }] })
    .toolResult("t2", "a2", { toolCallId: "c1", toolName: "bash", text: "2 failed", isError: true })
    .user("v2", "a1", "Run the whole unit test suite")
    .assistant("b2", "v2", { tools: [{ name: "bash", args: { command: "npm test" }, id: "c2" }] })
    .toolResult("s2", "b2", { toolCallId: "c2", toolName: "bash", text: "42 passed", isError: false })
    .text();
}

describe("readable sizes", () => {
  it("opens in the map when the entry graph fitted whole would have text under 9 px, else in the graph", () => {
    const viewport = { width: 800, height: 600 };
    expect(chooseDefaultView({ width: 300, height: 400 }, viewport)).toBe("entries");
    expect(chooseDefaultView({ width: 300, height: 40_000 }, viewport)).toBe("map");
    expect(chooseDefaultView({ width: 30_000, height: 400 }, viewport)).toBe("map");
    // Nothing laid out yet: the graph.
    expect(chooseDefaultView({ width: 300, height: 40_000 }, { width: 0, height: 0 })).toBe("entries");
  });

  it("never reckons the entry graph larger from a session's tips than its layout is, in either direction", () => {
    // The bound lets a session open in the map without laying its graph out: it must never say unreadable
    // for a graph that is readable. Generated sessions (branches, labels, compactions, damage), every filter.
    const selectors = createGraphSelectors();
    let checked = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const index = readSession(generateSession({ seed, damage: seed % 3 === 0 }).text);
      const map = BranchModel.build(index, inMemoryEntryReader(index)).branchMap();
      const view = sessionViewOf("s", index);
      for (const direction of ["TB", "LR"] as const)
        for (const filterMode of FILTER_MODES)
          for (const showArchived of [false, true]) {
            const state = { ...initialSessionState, view, direction, filterMode, showArchived };
            const tips = laneTips(map, state);
            if (tips === null) continue;
            const model = selectors.model(state)!;
            const least = leastExtentOfTips(tips, direction);
            const what = `seed ${seed} ${direction} ${filterMode} ${showArchived}`;
            expect(least.width, what).toBeLessThanOrEqual(model.layout.width);
            expect(least.height, what).toBeLessThanOrEqual(model.layout.height);
            checked++;
          }
    }
    // Three filters (default, no tools, all) say anything: the others can hide whole branches.
    expect(checked).toBe(40 * 2 * 3 * 2);
  });

  it("clamps Fit's zoom to the least readable one", () => {
    expect(clampFitZoom(0.1, 2)).toEqual({ zoom: READABLE_MIN_ZOOM, clamped: true });
    expect(clampFitZoom(1.5, 2)).toEqual({ zoom: 1.5, clamped: false });
    expect(clampFitZoom(3, 2)).toEqual({ zoom: 2, clamped: false });
  });

  it("takes the view from the address", () => {
    expect(viewInAddress("?view=map&token=x")).toBe("map");
    expect(viewInAddress("?view=entries")).toBe("entries");
    expect(viewInAddress("?view=other")).toBeNull();
  });
});

describe("the legend", () => {
  it("has a stripe for every known role and entry type, with the graph's own classes and titles", () => {
    const items = stripeItems();
    const classes = items.map((item) => item.className);
    for (const role of KNOWN_ROLES) expect(classes.some((c) => c.includes(`kind-${role}`))).toBe(true);
    for (const type of KNOWN_ENTRY_TYPES)
      if (type !== "message") expect(classes.some((c) => c.includes(`kind-${type}`))).toBe(true);
    const user = items.find((item) => item.className.endsWith("kind-user"))!;
    expect(user.name).toBe(nodeLook({ type: "message", role: "user" } as never).title);
    expect(classes.some((c) => c.includes("tool-call-only"))).toBe(true);
    expect(shadeItems().map((item) => item.name)).toEqual([
      "context",
      "summarised",
      "edited",
      "dropped",
      "path",
      "off-path",
    ]);
    expect(markItems().some((item) => item.className.includes("on-path"))).toBe(true);
  });
});

describe("the map and the compare view in the explorer", () => {
  it("opens in the branch map when the graph would be unreadable, and M switches to the entries", async () => {
    const explorer = await renderExplorer([{ sessionId: "r", text: retrySession() }], {
      open: "r",
      graphViewport: { width: 200, height: 150 },
    });
    await waitFor(() => expect(screen.getByRole("region", { name: "Branch map" })).toBeTruthy());
    await waitFor(() => expect(document.querySelectorAll(".map-row").length).toBeGreaterThan(1));
    expect(explorer.client.calls.some((call) => call.name === "session.branches")).toBe(true);
    // A tip's row opens it in the entry graph, selected.
    const tip = document.querySelector<HTMLElement>('.map-row[data-entry-id="s2"] .map-row-open')!;
    fireEvent.click(tip);
    await waitFor(() => expect(explorer.controller.stores.session.getState().selectedId).toBe("s2"));
    expect(explorer.controller.branches.store.getState().view).toBe("entries");
    fireEvent.keyDown(document.body, { key: "m" });
    expect(explorer.controller.branches.store.getState().view).toBe("map");
    explorer.unmount();
  });

  it("draws a map that came with the session's view without asking for it, and opens in it when its tips say so", async () => {
    // Two tips: at least one lane of 288 px (a node and its gap), on a graph 100 px wide.
    const explorer = await renderExplorer([{ sessionId: "r", text: retrySession(), mapWithView: true }], {
      open: "r",
      graphViewport: { width: 100, height: 600 },
    });
    await waitFor(() => expect(document.querySelectorAll(".map-row").length).toBeGreaterThan(1));
    expect(explorer.controller.branches.store.getState().view).toBe("map");
    expect(explorer.client.calls.some((call) => call.name === "session.branches")).toBe(false);
    explorer.unmount();
  });

  it("keeps the map fresh on appends while it shows, and drops it while the entries show", async () => {
    const explorer = await renderExplorer([{ sessionId: "r", text: retrySession(), mapWithView: true }], {
      open: "r",
      graphViewport: { width: 100, height: 600 },
    });
    const { controller, client } = explorer;
    const branchRequests = () => client.calls.filter((call) => call.name === "session.branches").length;
    const tips = () => controller.branches.store.getState().map?.leaves.map((leaf) => leaf.leafId) ?? [];
    await waitFor(() => expect(tips()).toContain("s2"));
    act(() => {
      client.append("r", [
        { type: "message", id: "n1", parentId: "a1", message: { role: "user", content: "Another way" } },
      ]);
    });
    await waitFor(() => expect(tips()).toContain("n1"), { timeout: 2_000 });
    expect(branchRequests()).toBe(1);

    act(() => controller.branches.setView("entries"));
    act(() => {
      client.append("r", [
        { type: "message", id: "n2", parentId: "n1", message: { role: "user", content: "More" } },
      ]);
    });
    await waitFor(() => expect(controller.branches.store.getState().map).toBeNull());
    expect(branchRequests()).toBe(1);
    act(() => controller.branches.setView("map"));
    await waitFor(() => expect(tips()).toContain("n2"));
    expect(branchRequests()).toBe(2);
    explorer.unmount();
  });

  it("compares on Shift-click: aligned rows, the divergence, swap, Markdown, Escape", async () => {
    const explorer = await renderExplorer([{ sessionId: "r", text: retrySession() }], { open: "r" });
    const { controller } = explorer;
    act(() => controller.select("t2"));
    expect(compareOnShiftClick(controller, { shiftKey: false }, "s2")).toBe(false);
    act(() => {
      expect(compareOnShiftClick(controller, { shiftKey: true }, "s2")).toBe(true);
    });
    const pane = await screen.findByRole("region", { name: "Compare branches" });
    await waitFor(() => expect(pane.querySelectorAll(".compare-row").length).toBeGreaterThan(0));
    expect(pane.querySelector(".compare-shared")!.textContent).toContain("Shared: 2 entries, up to a1");
    expect(pane.querySelector(".compare-row.change-changed ins.diff-added")!.textContent).toContain("whole");
    const divergence = pane.querySelector(".compare-row.divergence")!;
    expect(divergence.querySelector(".compare-cell.left")!.textContent).toContain("2 failed");
    expect(divergence.querySelector(".compare-cell.right")!.textContent).toContain("42 passed");
    expect(pane.querySelector('[data-side="left"] [data-testid="left-cost"]')).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Copy as Markdown" }));
    await waitFor(() => expect(explorer.clipboard.at(-1)).toContain("# Compare t2 (left) with s2 (right)"));
    fireEvent.click(screen.getByRole("button", { name: "Swap sides" }));
    await waitFor(() =>
      expect(document.querySelector('.compare-head[data-side="left"]')!.textContent).toContain("s2"),
    );
    fireEvent.keyDown(document.body, { key: "Escape" });
    await waitFor(() => expect(screen.queryByRole("region", { name: "Compare branches" })).toBeNull());
    explorer.unmount();
  });

  it("says when one tip is the other's ancestor, or the same entry", async () => {
    const explorer = await renderExplorer([{ sessionId: "r", text: retrySession() }], { open: "r" });
    await act(() => compareTips(explorer.controller, "a1", "s2"));
    const view = explorer.controller.branches.store.getState().compare!.view!;
    expect(degenerateNote(view)).toBe(
      "The left tip is an ancestor of the right one: everything after it is on the right only.",
    );
    expect(screen.getByRole("note").textContent).toContain("ancestor of the right one");
    await act(() => compareTips(explorer.controller, "s2", "s2"));
    expect(degenerateNote(explorer.controller.branches.store.getState().compare!.view!)).toBe(
      "These two tips are the same entry.",
    );
    explorer.unmount();
  });

  it("picks the other tip in the picker by filter and Enter", async () => {
    const explorer = await renderExplorer([{ sessionId: "r", text: retrySession() }], { open: "r" });
    act(() => explorer.controller.select("t2"));
    fireEvent.keyDown(document.body, { key: "c" });
    const dialog = await screen.findByRole("dialog", { name: /Compare t2 with/ });
    await waitFor(() => expect(dialog.querySelectorAll('[role="option"]').length).toBe(1));
    fireEvent.keyDown(dialog, { key: "Enter" });
    await screen.findByRole("region", { name: "Compare branches" });
    expect(explorer.controller.branches.store.getState().compare!.request.right.leafId).toBe("s2");
    explorer.unmount();
  });

  it("filters tips by every word of the filter", () => {
    const leaf = (leafId: string, label: string | null, prompt: string) =>
      ({ leafId, label, lastPrompt: { entryId: leafId, text: prompt } }) as never;
    const leaves = [
      leaf("a", null, "run the tests"),
      leaf("b", "docs", "write docs"),
      leaf("c", null, "tests"),
    ];
    expect(filterTips(leaves, "tests run", "x").map((l: { leafId: string }) => l.leafId)).toEqual(["a"]);
    expect(filterTips(leaves, "", "b").map((l: { leafId: string }) => l.leafId)).toEqual(["a", "c"]);
  });

  it("lists archived tips only while archived branches are shown", () => {
    const leaves = [
      { leafId: "a", label: null, lastPrompt: null, archived: false },
      { leafId: "b", label: null, lastPrompt: null, archived: true },
    ] as never[];
    expect(filterTips(leaves, "", "x").map((l: { leafId: string }) => l.leafId)).toEqual(["a"]);
    expect(filterTips(leaves, "", "x", true).map((l: { leafId: string }) => l.leafId)).toEqual(["a", "b"]);
  });
});

describe("the keyboard cursor in a folded chain", () => {
  it("opens the chain it moves into, so the cursor is drawn", async () => {
    const explorer = await renderExplorer([{ sessionId: "c", text: sessionText(conversation(6)) }], {
      open: "c",
    });
    const { controller } = explorer;
    const before = controller.model()!;
    const order = before.visible.order;
    const folded = order.filter((id) => before.graph.nodeOfEntry.get(id) !== id);
    expect(folded.length).toBeGreaterThan(1);
    // Down the visible order from the root: wherever the cursor lands, it is a node of its own.
    act(() => controller.setCursor(order[0]!));
    for (let i = 1; i < order.length; i++) {
      act(() => controller.moveCursor(1));
      const cursor = controller.stores.session.getState().cursorId!;
      expect(cursor).toBe(order[i]);
      expect(controller.model()!.graph.nodeOfEntry.get(cursor)).toBe(cursor);
    }
    explorer.unmount();
  });
});
