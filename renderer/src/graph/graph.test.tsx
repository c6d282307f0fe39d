// @vitest-environment happy-dom
import "../testing/setup.ts";
import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { chainId, cycleFilterMode, FILTER_MODES, visibleTree } from "../../../shared/graph/index.ts";
import {
  type Explorer,
  flowViewport,
  generatedSessions,
  renderExplorer,
} from "../testing/render-explorer.tsx";
import { TEST_VIEWPORT } from "../testing/setup.ts";
import { sessionViewOf } from "../testing/session-view.ts";
import { assistant, conversation, type HandEntry, sessionText, user } from "../testing/sessions.ts";

/** Every entry the graph shows, its own node or inside a chain node. */
function shownEntries(explorer: Explorer): Set<string> {
  const graph = explorer.controller.model()!.graph;
  const entries = new Set<string>();
  for (const id of explorer.drawnIds()) {
    const node = graph.byId.get(id);
    if (!node) throw new Error(`A drawn node ${id} is not in the graph model.`);
    if (node.kind === "chain") for (const entryId of node.entryIds) entries.add(entryId);
    else entries.add(node.entryId);
  }
  return entries;
}

function expectedVisible(explorer: Explorer, sessionId: string, mode: (typeof FILTER_MODES)[number]) {
  const view = sessionViewOf(sessionId, explorer.client.index(sessionId));
  const nodes = new Map(view.nodes.toArray().map((node) => [node.id, node]));
  return visibleTree(nodes, view.roots, { mode, leafId: view.leafId }).order;
}

function key(init: KeyboardEventInit & { key: string }, target: Document | Element = document.body) {
  fireEvent.keyDown(target, init);
}

function cursorOf(explorer: Explorer): string | null {
  return explorer.controller.stores.session.getState().cursorId;
}

describe("the session graph", () => {
  it("draws every entry visible in each of Pi's filter modes, and nothing else", async () => {
    for (const seed of [3, 8, 14]) {
      const explorer = await renderExplorer(generatedSessions([seed], 80), { open: `s${seed}` });
      const filter = screen.getByRole("combobox", { name: "Filter" }) as HTMLSelectElement;
      for (const mode of FILTER_MODES) {
        fireEvent.change(filter, { target: { value: mode } });
        await waitFor(() => expect(explorer.controller.stores.session.getState().filterMode).toBe(mode));
        const expected = expectedVisible(explorer, `s${seed}`, mode);
        expect(shownEntries(explorer), `seed ${seed}, ${mode}`).toEqual(new Set(expected));
      }
      explorer.unmount();
    }
  });

  it("cycles the filter with Ctrl+O and back with Shift+Ctrl+O", async () => {
    const explorer = await renderExplorer(generatedSessions([6], 60), { open: "s6" });
    const filter = screen.getByRole("combobox", { name: "Filter" }) as HTMLSelectElement;
    let mode = filter.value as (typeof FILTER_MODES)[number];
    expect(mode).toBe("default");
    for (let i = 0; i < 6; i++) {
      key({ key: "o", ctrlKey: true });
      mode = cycleFilterMode(mode);
      await waitFor(() => expect(filter.value).toBe(mode));
      expect(shownEntries(explorer)).toEqual(new Set(expectedVisible(explorer, "s6", mode)));
    }
    key({ key: "O", ctrlKey: true, shiftKey: true });
    mode = cycleFilterMode(mode, true);
    await waitFor(() => expect(filter.value).toBe(mode));
    // From the search boxes and the Filter select too, and the browser does not get it.
    const searches = [
      screen.getByRole("searchbox", { name: "Search entries" }),
      screen.getByRole("searchbox", { name: "Search sessions" }),
    ];
    for (const target of [...searches, filter]) {
      target.focus();
      const notHandled = fireEvent.keyDown(target, { key: "o", ctrlKey: true });
      expect(notHandled).toBe(false);
      mode = cycleFilterMode(mode);
      await waitFor(() => expect(filter.value).toBe(mode));
    }
    explorer.unmount();
  });

  it("moves the cursor with Up/Down along the visible order, wrapping, and Enter selects it as leaf", async () => {
    const explorer = await renderExplorer(generatedSessions([12], 50), { open: "s12" });
    const order = explorer.controller.model()!.visible.order;
    const start = cursorOf(explorer)!;
    const at = order.indexOf(start);
    key({ key: "ArrowDown" });
    expect(cursorOf(explorer)).toBe(order[(at + 1) % order.length]);
    key({ key: "ArrowUp" });
    key({ key: "ArrowUp" });
    const up = order[(at - 1 + order.length) % order.length]!;
    expect(cursorOf(explorer)).toBe(up);
    // The cursor is drawn on its node (or on the chain holding it).
    const graphNode = explorer.controller.model()!.graph.nodeOfEntry.get(up)!;
    await waitFor(() => expect(explorer.node(graphNode)!.firstElementChild!.classList).toContain("cursor"));
    key({ key: "Enter" });
    expect(explorer.controller.stores.session.getState().selectedId).toBe(up);
    await explorer.waitForContext(up);
    // From the first entry, Up wraps to the last.
    act(() => explorer.controller.setCursor(order[0]!));
    key({ key: "ArrowUp" });
    expect(cursorOf(explorer)).toBe(order[order.length - 1]);
    explorer.unmount();
  });

  it("Ctrl+Left folds a branch and Ctrl+Right unfolds it; Left/Right jump between branch points", async () => {
    // u0 - a0 - u1 - a1 with a second branch from a0: b1 - c1.
    const entries = [
      user("u0", "start"),
      assistant("a0", "first answer"),
      user("u1", "go on"),
      assistant("a1", "second answer"),
      user("b1", "other way", "a0"),
      assistant("c1", "other answer"),
    ];
    const explorer = await renderExplorer([{ sessionId: "b", text: sessionText(entries) }], { open: "b" });
    // The leaf is c1: its branch comes first.
    expect(explorer.controller.model()!.visible.order).toEqual(["u0", "a0", "b1", "c1", "u1", "a1"]);
    act(() => explorer.controller.setCursor("b1"));
    key({ key: "ArrowLeft", ctrlKey: true });
    await waitFor(() => expect(explorer.node("c1")).toBeNull());
    expect(explorer.node("b1")!.querySelector(".entry-node")!.classList).toContain("folded");
    key({ key: "ArrowRight", ctrlKey: true });
    await waitFor(() => expect(explorer.node("c1")).not.toBeNull());
    // Right from u0 follows first children down to the branch point's first child.
    act(() => explorer.controller.setCursor("u0"));
    key({ key: "ArrowRight" });
    expect(cursorOf(explorer)).toBe("b1");
    act(() => explorer.controller.setCursor("a1"));
    key({ key: "ArrowLeft" });
    expect(cursorOf(explorer)).toBe("u1");
    key({ key: "ArrowLeft" });
    expect(cursorOf(explorer)).toBe("u0");
    // The fold button on a node does the same as Ctrl+Left; a cursor below it moves up to it.
    act(() => explorer.controller.setCursor("a1"));
    fireEvent.click(within(explorer.node("u1")!).getByRole("button", { name: "Fold" }));
    await waitFor(() => expect(explorer.node("a1")).toBeNull());
    expect(cursorOf(explorer)).toBe("u1");
    explorer.unmount();
  });

  it("folds long runs into a chain node named after its first entry; a click expands it, Fold chains folds it again", async () => {
    const explorer = await renderExplorer([{ sessionId: "c", text: sessionText(conversation(12)) }], {
      open: "c",
    });
    // a11, the leaf, is kept: u0..u11 is one chain.
    const chain = explorer.node(chainId("u0"));
    expect(chain).not.toBeNull();
    expect(chain!.textContent).toContain("23 entries");
    expect(chain!.textContent).toContain("Question number 0");
    expect(chain!.textContent).toContain("Question number 11");
    expect(explorer.node("u5")).toBeNull();
    fireEvent.click(chain!);
    await waitFor(() => expect(explorer.node("u5")).not.toBeNull());
    expect(explorer.node(chainId("u0"))).toBeNull();
    expect(explorer.drawnIds()).toHaveLength(24);
    fireEvent.click(screen.getByRole("button", { name: "Fold chains" }));
    await waitFor(() => expect(explorer.node(chainId("u0"))).not.toBeNull());
    // Selecting an entry inside a folded chain opens that chain; selecting elsewhere leaves it open.
    act(() => explorer.controller.select("u5"));
    await waitFor(() => expect(explorer.node("u5")).not.toBeNull());
    expect(explorer.node(chainId("u0"))).toBeNull();
    act(() => explorer.controller.select("u2"));
    act(() => explorer.controller.select("a9"));
    expect(explorer.controller.stores.session.getState().selectedId).toBe("a9");
    expect(explorer.drawnIds()).toHaveLength(24);
    explorer.unmount();
  });

  it("keeps the entry the user is at in its place on screen when the layout changes under it", async () => {
    const explorer = await renderExplorer([{ sessionId: "c", text: sessionText(conversation(12)) }], {
      open: "c",
    });
    const { controller } = explorer;
    // Left to right (the default is top down): the leaf moves along x below.
    act(() => controller.setDirection("LR"));
    /** Where an entry's node (or its chain) is on screen. */
    const onScreen = (entryId: string) => {
      const model = controller.model()!;
      const at = model.layout.positions.get(model.graph.nodeOfEntry.get(entryId) ?? entryId)!;
      const { x, y, zoom } = flowViewport();
      return { x: Math.round(at.x * zoom + x), y: Math.round(at.y * zoom + y) };
    };
    await waitFor(() => expect(explorer.node("a11")).not.toBeNull());
    const leaf = onScreen("a11");
    // Matches break the chain before the leaf into nodes: the leaf moves right in the layout, not on screen.
    act(() => controller.setSearchQuery("number 3"));
    await waitFor(() => expect(explorer.node("u3")).not.toBeNull());
    expect(controller.model()!.layout.positions.get("a11")!.x).toBeGreaterThan(0);
    expect(onScreen("a11")).toEqual(leaf);
    act(() => controller.clearSearch());
    await waitFor(() => expect(explorer.node("u3")).toBeNull());
    expect(onScreen("a11")).toEqual(leaf);
    // A chain clicked open: its first entry stays where the chain was, the leaf moves away.
    const chain = onScreen("u0");
    fireEvent.click(explorer.node(chainId("u0"))!);
    await waitFor(() => expect(explorer.node("u5")).not.toBeNull());
    expect(onScreen("u0")).toEqual(chain);
    expect(onScreen("a11")).not.toEqual(leaf);
    explorer.unmount();
  });

  it("moves the view and the nodes in one task when the layout changes: no task ends with one moved alone", async () => {
    const explorer = await renderExplorer([{ sessionId: "c", text: sessionText(conversation(12)) }], {
      open: "c",
    });
    const { controller } = explorer;
    act(() => controller.setDirection("LR"));
    await waitFor(() => expect(explorer.node("a11")).not.toBeNull());
    // Any move of the view the opening started is over.
    await act(() => new Promise((done) => setTimeout(done, 400)));
    /** Where React Flow draws the leaf on screen: its node's own place and the viewport. */
    const drawnOnScreen = () => {
      const match = /translate\(([-\d.e]+)px, ?([-\d.e]+)px\)/.exec(
        explorer.node("a11")?.style.transform ?? "",
      );
      if (!match) return null;
      const { x, y, zoom } = flowViewport();
      return { x: Math.round(Number(match[1]) * zoom + x), y: Math.round(Number(match[2]) * zoom + y) };
    };
    const before = drawnOnScreen();
    const layoutBefore = controller.model()!.layout.positions.get("a11")!;
    // Outside act, React schedules its renders as in the window (the graph's deferred one in a task of its
    // own): what each task leaves is what a frame would show.
    const environment = globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean };
    environment.IS_REACT_ACT_ENVIRONMENT = false;
    const seen: ({ x: number; y: number } | null)[] = [];
    try {
      // Matches break the chain before the leaf into nodes: the leaf moves right in the layout.
      controller.setSearchQuery("number 3");
      for (let turn = 0; turn < 200 && explorer.node("u3") === null; turn++) {
        await new Promise((done) => setTimeout(done, 0));
        seen.push(drawnOnScreen());
      }
    } finally {
      environment.IS_REACT_ACT_ENVIRONMENT = true;
    }
    expect(explorer.node("u3"), "the matches drawn").not.toBeNull();
    expect(controller.model()!.layout.positions.get("a11")!.x).toBeGreaterThan(layoutBefore.x);
    // The leaf stayed where it was on screen after every task, not only at the end.
    expect(seen.length).toBeGreaterThan(1);
    for (const at of seen) expect(at).toEqual(before);
    explorer.unmount();
  });

  it("keeps every drawn node in place when Pi continues an older branch", async () => {
    // u0 - a0 - b0 (an early side branch), and the main line u1 .. a3 from a0 (the leaf).
    const [u0, a0, ...rest] = conversation(4);
    const entries: HandEntry[] = [
      u0!,
      a0!,
      user("b0", "a side question"),
      { ...rest[0]!, parentId: "a0" },
      ...rest.slice(1),
    ];
    const explorer = await renderExplorer([{ sessionId: "s", text: sessionText(entries) }], { open: "s" });
    const { controller } = explorer;
    await waitFor(() => expect(controller.model()?.view.leafId).toBe("a3"));
    const before = new Map(controller.model()!.layout.positions);
    expect(before.get("b0")!.y).toBeGreaterThan(before.get("u0")!.y);
    // Pi goes back to b0 and answers it: the leaf moves to that branch.
    act(() => {
      explorer.client.append("s", [
        {
          type: "message",
          parentId: "b0",
          message: { role: "assistant", content: [{ type: "text", text: "side answer" }], timestamp: 5 },
        },
      ]);
    });
    await waitFor(() => expect(controller.model()!.view.leafId).not.toBe("a3"));
    const after = controller.model()!.layout.positions;
    let compared = 0;
    for (const [id, position] of before) {
      if (!after.has(id)) continue;
      expect(after.get(id), id).toEqual(position);
      compared++;
    }
    expect(compared).toBeGreaterThan(2);
    expect(after.get("b0")).toEqual(before.get("b0"));
    explorer.unmount();
  });

  it("searches with / , steps through matches with Enter and Shift+Enter, and clears with Esc", async () => {
    const explorer = await renderExplorer([{ sessionId: "c", text: sessionText(conversation(12)) }], {
      open: "c",
    });
    key({ key: "/" });
    const search = screen.getByRole("searchbox", { name: "Search entries" });
    expect(document.activeElement).toBe(search);
    fireEvent.change(search, { target: { value: "answer 1" } });
    // "answer" and "1" must both match: a1, a10, a11.
    await waitFor(() => expect(explorer.node("a10")!.firstElementChild!.classList).toContain("match"));
    expect(explorer.node("a1")!.firstElementChild!.classList).toContain("match");
    act(() => explorer.controller.setCursor("u0"));
    fireEvent.keyDown(search, { key: "Enter" });
    expect(cursorOf(explorer)).toBe("a1");
    fireEvent.keyDown(search, { key: "Enter" });
    expect(cursorOf(explorer)).toBe("a10");
    fireEvent.keyDown(search, { key: "Enter", shiftKey: true });
    expect(cursorOf(explorer)).toBe("a1");
    expect(screen.getByText("1/3")).toBeTruthy();
    fireEvent.keyDown(search, { key: "Escape" });
    expect(explorer.controller.stores.session.getState().searchQuery).toBe("");
    await waitFor(() => expect(explorer.node("a1")).toBeNull());
    explorer.unmount();
  });

  it("in a large session, searches once typing pauses; Enter does not wait for the pause", async () => {
    // 60 entries stand for 20k: the rule is the count, and jsdom draws slowly.
    const explorer = await renderExplorer(generatedSessions([31], 60), {
      open: "s31",
      searchAsTypedBelow: 50,
    });
    const search = screen.getByRole("searchbox", { name: "Search entries" }) as HTMLInputElement;
    const asked = () => explorer.controller.stores.session.getState().searchQuery;
    fireEvent.change(search, { target: { value: "u" } });
    fireEvent.change(search, { target: { value: "us" } });
    expect(search.value).toBe("us");
    expect(asked()).toBe("");
    await waitFor(() => expect(asked()).toBe("us"));
    fireEvent.change(search, { target: { value: "use" } });
    fireEvent.keyDown(search, { key: "Enter" });
    expect(asked()).toBe("use");
    fireEvent.keyDown(search, { key: "Escape" });
    expect(search.value).toBe("");
    expect(asked()).toBe("");
    explorer.unmount();
  });

  it("adds the main process's full-text matches: later lines, tool call arguments", async () => {
    const caller: HandEntry = {
      id: "a0",
      message: {
        role: "assistant",
        content: [
          { type: "text", text: "Reading it." },
          { type: "toolCall", id: "t0", name: "read", arguments: { path: "src/hidden/yeti.ts" } },
        ],
        provider: "anthropic",
        model: "claude-test",
        stopReason: "error",
        timestamp: 2,
      },
    };
    const entries = [user("u0", "Fix it\nthe gremlin hides on line two"), caller, user("u1", "Next")];
    const explorer = await renderExplorer([{ sessionId: "f", text: sessionText(entries) }], { open: "f" });
    const search = screen.getByRole("searchbox", { name: "Search entries" });
    const state = () => explorer.controller.stores.session.getState();
    const isMatch = (id: string) => explorer.node(id)!.firstElementChild!.classList.contains("match");

    fireEvent.change(search, { target: { value: "yeti" } });
    // The previews hold no "yeti": nothing matches until the full-text answer, which is awaited visibly.
    expect(state().searching).toBe(true);
    expect(isMatch("a0")).toBe(false);
    expect(document.querySelector(".match-info")!.getAttribute("aria-busy")).toBe("true");
    await waitFor(() => expect(isMatch("a0")).toBe(true));
    expect(state().searching).toBe(false);
    expect(document.querySelector(".match-info")!.textContent).toBe("–/1");
    expect(explorer.client.calls.filter((call) => call.name === "session.search")).toEqual([
      { name: "session.search", params: { query: "yeti", limit: 100_000 } },
    ]);

    fireEvent.change(search, { target: { value: "gremlin two" } });
    await waitFor(() => expect(isMatch("u0")).toBe(true));
    expect(isMatch("a0")).toBe(false);

    // A space or a capital asks nothing new, and the matches stay.
    const searches = () => explorer.client.calls.filter((call) => call.name === "session.search").length;
    fireEvent.change(search, { target: { value: "Gremlin  two " } });
    expect(state().searching).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(searches()).toBe(2);
    expect(isMatch("u0")).toBe(true);

    // A late answer for an older query is dropped: only the words in the box count.
    const shown: (string | undefined)[] = [];
    const stop = explorer.controller.stores.session.subscribe((next) => shown.push(next.fullText?.query));
    explorer.client.held.add("session.search");
    fireEvent.change(search, { target: { value: "yeti" } });
    await waitFor(() => expect(searches()).toBe(3));
    fireEvent.change(search, { target: { value: "next" } });
    await waitFor(() => expect(searches()).toBe(4));
    expect(state().searching).toBe(true);
    act(() => explorer.client.release());
    await waitFor(() => expect(state().searching).toBe(false));
    stop();
    expect(shown).not.toContain("yeti");
    expect(state().fullText?.query).toBe("next");
    expect(isMatch("u1")).toBe(true);
    expect(isMatch("a0")).toBe(false);
    explorer.unmount();
  });

  it("asks the full-text matches again as the session grows, at most once a second", async () => {
    const explorer = await renderExplorer([{ sessionId: "g", text: sessionText(conversation(3)) }], {
      open: "g",
    });
    const search = screen.getByRole("searchbox", { name: "Search entries" });
    const state = () => explorer.controller.stores.session.getState();
    const searches = () => explorer.client.calls.filter((call) => call.name === "session.search").length;
    fireEvent.change(search, { target: { value: "question" } });
    await waitFor(() => expect(state().fullText?.ids.size).toBe(3));
    expect(searches()).toBe(1);
    // Two appends in a row: one more search, and the matches found meanwhile stay shown.
    let first: string | undefined;
    act(() => {
      [first] = explorer.client.append("g", [
        {
          type: "message",
          message: { role: "user", content: "Fix it\nA question on line two", timestamp: 9 },
        },
      ]);
      explorer.client.append("g", [
        { type: "message", message: { role: "user", content: "another question", timestamp: 10 } },
      ]);
    });
    expect(state().fullText?.ids.size).toBe(3);
    await waitFor(() => expect(state().fullText?.ids.size).toBe(5), { timeout: 3000 });
    expect(state().fullText!.ids.has(first!)).toBe(true);
    expect(searches()).toBe(2);
    explorer.unmount();
  });

  it("shades nodes by their part in the selected context and lights the path", async () => {
    const entries = [
      user("u0", "one"),
      assistant("a0", "two"),
      user("u1", "three"),
      { id: "k0", type: "compaction", summary: "so far", firstKeptEntryId: "u1", tokensBefore: 12345 },
      assistant("a1", "four"),
      { id: "e0", type: "context_edit", targetId: "a1", replacement: null },
      user("u2", "five"),
      user("x0", "elsewhere", "u0"),
    ];
    const explorer = await renderExplorer([{ sessionId: "k", text: sessionText(entries) }], { open: "k" });
    act(() => explorer.controller.setFilterMode("all"));
    act(() => explorer.controller.select("u2"));
    act(() => explorer.controller.expandChain(chainId("a0")));
    await explorer.waitForContext("u2");
    const shade = (id: string) => explorer.node(id)?.querySelector<HTMLElement>(".entry-node")?.dataset.shade;
    await waitFor(() => expect(shade("u2")).toBe("context"));
    expect(shade("u0")).toBe("summarised");
    expect(shade("a0")).toBe("summarised");
    expect(shade("u1")).toBe("context");
    expect(shade("k0")).toBe("context");
    expect(shade("a1")).toBe("dropped");
    expect(shade("e0")).toBe("path");
    expect(shade("x0")).toBe("off-path");
    expect(explorer.node("k0")!.textContent).toContain("12k tokens before");
    const region = explorer.preview();
    expect(region.textContent).toContain("12,345 tokens before");
    expect(region.textContent).toContain("1 context edit applied");
    const onPath = document.querySelectorAll(".react-flow__edge.on-path");
    expect(onPath.length).toBeGreaterThan(0);
    explorer.unmount();
  });
});

describe("labels, links and live sessions", () => {
  it("Shift+L edits the cursor's label through session.setLabel, and the badge appears", async () => {
    const explorer = await renderExplorer([{ sessionId: "c", text: sessionText(conversation(3)) }], {
      open: "c",
    });
    act(() => explorer.controller.setCursor("a2"));
    key({ key: "L", shiftKey: true });
    const input = await screen.findByRole("textbox", { name: "Label" });
    fireEvent.change(input, { target: { value: "checkpoint" } });
    fireEvent.click(screen.getByRole("button", { name: "Save label" }));
    await waitFor(() => expect(explorer.node("a2")?.textContent).toContain("checkpoint"));
    expect(explorer.client.calls.filter((call) => call.name === "session.setLabel")).toEqual([
      { name: "session.setLabel", params: { targetId: "a2", label: "checkpoint" } },
    ]);
    explorer.unmount();
  });

  it("the label dialog opens with the old label selected, so typing replaces it", async () => {
    const explorer = await renderExplorer([{ sessionId: "c", text: sessionText(conversation(3)) }], {
      open: "c",
    });
    act(() => explorer.controller.setCursor("a2"));
    key({ key: "L", shiftKey: true });
    fireEvent.change(await screen.findByRole("textbox", { name: "Label" }), {
      target: { value: "root cause" },
    });
    fireEvent.click(screen.getByRole("button", { name: "Save label" }));
    await waitFor(() => expect(explorer.node("a2")?.textContent).toContain("root cause"));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    key({ key: "L", shiftKey: true });
    const input = await screen.findByRole<HTMLInputElement>("textbox", { name: "Label" });
    expect(input.value).toBe("root cause");
    expect(document.activeElement).toBe(input);
    expect([input.selectionStart, input.selectionEnd]).toEqual([0, "root cause".length]);
    explorer.unmount();
  });

  it("the label dialog is modal: the window behind is inert, Esc closes it from a button, focus returns", async () => {
    const explorer = await renderExplorer([{ sessionId: "c", text: sessionText(conversation(3)) }], {
      open: "c",
    });
    const graph = screen.getByRole("region", { name: "Session graph" });
    graph.focus();
    key({ key: "L", shiftKey: true }, graph);
    const input = await screen.findByRole("textbox", { name: "Label" });
    expect(document.activeElement).toBe(input);
    expect(graph.closest("[inert]")).not.toBeNull();
    // Tab wraps around inside it, both ways.
    const save = screen.getByRole("button", { name: "Save label" });
    save.focus();
    fireEvent.keyDown(save, { key: "Tab" });
    expect(document.activeElement).toBe(input);
    fireEvent.keyDown(input, { key: "Tab", shiftKey: true });
    expect(document.activeElement).toBe(save);
    const cancel = screen.getByRole("button", { name: "Cancel" });
    cancel.focus();
    fireEvent.keyDown(cancel, { key: "Escape" });
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(graph.closest("[inert]")).toBeNull();
    expect(document.activeElement).toBe(graph);
    explorer.unmount();
  });

  it("copies a deep link, and a deep link opens its session with its entry selected and revealed", async () => {
    const sessions = [
      { sessionId: "one", text: sessionText(conversation(2)) },
      { sessionId: "two", text: sessionText(conversation(8)) },
    ];
    const first = await renderExplorer(sessions, { open: "two" });
    act(() => first.controller.select("u3"));
    fireEvent.click(screen.getByRole("tab", { name: "Entry" }));
    fireEvent.click(await screen.findByRole("button", { name: "Copy link" }));
    await waitFor(() => expect(first.clipboard).toHaveLength(1));
    const link = new URL(first.clipboard[0]!);
    expect(link.searchParams.get("session")).toBe("two");
    expect(link.searchParams.get("leaf")).toBe("u3");
    first.unmount();

    const second = await renderExplorer(sessions, { search: link.search });
    await second.waitForContext("u3");
    expect(second.controller.stores.session.getState().view?.sessionId).toBe("two");
    expect(second.controller.stores.session.getState().cursorId).toBe("u3");
    expect(second.node("u3")!.querySelector(".entry-node")!.classList).toContain("selected");
    second.unmount();
  });

  it("draws appended entries with a brief mark, follows the leaf, and shows the live badge", async () => {
    const explorer = await renderExplorer([{ sessionId: "c", text: sessionText(conversation(2)) }], {
      open: "c",
    });
    act(() => {
      explorer.client.append("c", [
        { type: "message", id: "n0", message: { role: "user", content: "more", timestamp: 1 } },
      ]);
    });
    await waitFor(() => expect(explorer.node("n0")).not.toBeNull());
    expect(explorer.node("n0")!.querySelector(".entry-node")!.classList).toContain("recent");
    expect(explorer.controller.stores.session.getState().selectedId).toBe("n0");
    expect(screen.getByText("live")).toBeTruthy();
    await explorer.waitForContext("n0");
    // Without follow, the selection stays.
    fireEvent.click(screen.getByRole("button", { name: "Follow leaf" }));
    act(() => explorer.controller.select("u1"));
    act(() => {
      explorer.client.append("c", [
        { type: "message", id: "n1", message: { role: "user", content: "again", timestamp: 2 } },
      ]);
    });
    await waitFor(() => expect(explorer.node("n1")).not.toBeNull());
    expect(explorer.controller.stores.session.getState().selectedId).toBe("u1");
    explorer.unmount();
  });

  it("leaves the graph toolbar as it is at an append that changes nothing it shows", async () => {
    const explorer = await renderExplorer([{ sessionId: "c", text: sessionText(conversation(2)) }], {
      open: "c",
    });
    const toolbar = screen.getByRole("toolbar", { name: "Graph" });
    const changes: string[] = [];
    const observer = new MutationObserver((records) => {
      for (const record of records) changes.push(`${record.type} ${record.attributeName ?? ""}`);
    });
    observer.observe(toolbar, { subtree: true, childList: true, attributes: true, characterData: true });
    act(() => {
      explorer.client.append("c", [
        { type: "message", id: "n0", message: { role: "user", content: "more", timestamp: 1 } },
      ]);
    });
    await waitFor(() => expect(explorer.node("n0")).not.toBeNull());
    await explorer.waitForContext("n0");
    observer.disconnect();
    // React writes a controlled input's attributes again whenever it draws it: none was drawn.
    expect(changes).toEqual([]);
    explorer.unmount();
  });

  it("shows a reload notice when the file was rewritten, and closes the view when it was deleted", async () => {
    const explorer = await renderExplorer([{ sessionId: "c", text: sessionText(conversation(2)) }], {
      open: "c",
    });
    const view = explorer.controller.stores.session.getState().view!;
    act(() => explorer.client.emit("session.reloaded", { sessionId: "c", reason: "truncated", view }));
    expect(await screen.findByText(/The file got shorter/)).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Dismiss" }));
    act(() => explorer.client.emit("session.reloaded", { sessionId: "c", reason: "deleted", view: null }));
    expect(await screen.findByText(/The file was deleted: the session was closed/)).toBeTruthy();
    expect(screen.getByText("Open a session from the library to see its tree.")).toBeTruthy();
    explorer.unmount();
  });
});

describe("a large session", () => {
  it("mounts only the nodes in view of a 10,000-entry session", async () => {
    const saved = { ...TEST_VIEWPORT };
    TEST_VIEWPORT.width = 1600;
    TEST_VIEWPORT.height = 900;
    try {
      const started = performance.now();
      const explorer = await renderExplorer(generatedSessions([77], 10_000), { open: "s77" });
      await waitFor(() => expect(explorer.drawnIds().length).toBeGreaterThan(0));
      const elapsed = performance.now() - started;
      const model = explorer.controller.model()!;
      expect(model.graph.nodes.length).toBeGreaterThan(1000);
      expect(explorer.drawnIds().length).toBeLessThan(150);
      expect(elapsed).toBeLessThan(15_000);
      // The file's leaf, or the node standing for it, is among the few drawn: the view opens on it.
      expect(explorer.drawnIds()).toContain(model.leafHost);
      explorer.unmount();
    } finally {
      Object.assign(TEST_VIEWPORT, saved);
    }
  });

  it("marks where a leaf hidden by the filter is", async () => {
    const entries = [...conversation(2), { id: "l0", type: "label", targetId: "u0", label: "start" }];
    const explorer = await renderExplorer([{ sessionId: "h", text: sessionText(entries) }], { open: "h" });
    expect(explorer.node("l0")).toBeNull();
    // a0, u1, a1 fold into a chain: the chain stands for the hidden leaf.
    expect(explorer.controller.model()!.leafHost).toBe(chainId("a0"));
    expect(explorer.node(chainId("a0"))!.textContent).toContain("leaf ↓");
    expect(screen.getByText(/the file's last entry is a label, hidden by this filter/)).toBeTruthy();
    act(() => explorer.controller.setFilterMode("all"));
    await waitFor(() => expect(explorer.node("l0")!.textContent).toContain("leaf"));
    // Folded away: the status line says so, not that the filter hides it.
    act(() => explorer.controller.toggleFold("u0"));
    await waitFor(() => expect(explorer.node("l0")).toBeNull());
    expect(screen.getByText(/the file's last entry is a label, hidden in a folded branch/)).toBeTruthy();
    explorer.unmount();
  });
});

describe("layout direction", () => {
  it("lays the tree out top to bottom with handles on the top and bottom of each node, left to right as a toggle", async () => {
    const explorer = await renderExplorer([{ sessionId: "c", text: sessionText(conversation(1)) }], {
      open: "c",
    });
    expect(explorer.controller.stores.session.getState().direction).toBe("TB");
    const before = explorer.controller.model()!.layout.positions.get("a0")!;
    // a0 is the second entry of one line: row 1 down (TB), column 1 across (LR).
    expect(before).toEqual({ x: 0, y: 64 + 20 });
    expect(explorer.node("a0")!.querySelector(".react-flow__handle-top")).not.toBeNull();
    expect(explorer.node("a0")!.querySelector(".react-flow__handle-bottom")).not.toBeNull();
    fireEvent.click(screen.getByRole("button", { name: "Layout direction" }));
    await waitFor(() => expect(explorer.controller.stores.session.getState().direction).toBe("LR"));
    expect(explorer.controller.model()!.layout.positions.get("a0")!).toEqual({ x: 240 + 48, y: 0 });
    explorer.unmount();
  });
});
