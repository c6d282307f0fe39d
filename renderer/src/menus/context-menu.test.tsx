// @vitest-environment happy-dom
import "../testing/setup.ts";
import { fireEvent, render, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import type { ManageActions } from "../state/controller/session-manage.ts";
import { ContextMenu, menuKeyTarget } from "./context-menu.tsx";
import { entryMenuItems, type MenuActions, type MenuItem, sessionRowMenuItems } from "./menu-items.ts";

const noop = () => undefined;

function items(...labels: (string | null)[]): MenuItem[] {
  return labels.map((label, index) =>
    label === null
      ? { kind: "separator", id: `s${index}` }
      : {
          kind: "item",
          id: `i${index}`,
          label: label.replace(/^-/, ""),
          run: noop,
          disabled: label.startsWith("-"),
        },
  );
}

/** Every action a recording stand-in: the call's name and arguments. */
function recordingActions(): { actions: MenuActions; calls: unknown[][] } {
  const calls: unknown[][] = [];
  const manage = new Proxy({} as ManageActions, {
    get:
      (_target, name) =>
      (...args: unknown[]) => {
        calls.push([name, ...args]);
      },
  });
  return {
    calls,
    actions: {
      manage,
      beginLabel: (id) => calls.push(["beginLabel", id]),
      openSession: (id) => calls.push(["openSession", id]),
      compareWith: (id) => calls.push(["compareWith", id]),
      compareWithSource: (fork, source) => calls.push(["compareWithSource", fork, source]),
    },
  };
}

const ids = (list: MenuItem[]) => list.filter((item) => item.kind === "item").map((item) => item.id);

describe("menuKeyTarget", () => {
  const list = items("Label…", null, "-Remove label", "Fork here", "Fork before", "Clone");
  it("moves with the arrows (wrapping) and Home/End, over separators and disabled items", () => {
    expect(menuKeyTarget(list, 0, "ArrowDown")).toBe(3);
    expect(menuKeyTarget(list, 5, "ArrowDown")).toBe(0);
    expect(menuKeyTarget(list, 0, "ArrowUp")).toBe(5);
    expect(menuKeyTarget(list, 3, "ArrowUp")).toBe(0);
    expect(menuKeyTarget(list, 3, "Home")).toBe(0);
    expect(menuKeyTarget(list, 0, "End")).toBe(5);
  });
  it("goes to the next item starting with a letter, from the current one on, wrapping", () => {
    expect(menuKeyTarget(list, 0, "f")).toBe(3);
    expect(menuKeyTarget(list, 3, "F")).toBe(4);
    expect(menuKeyTarget(list, 4, "f")).toBe(3);
    expect(menuKeyTarget(list, 0, "r")).toBeNull();
    expect(menuKeyTarget(list, 0, "Shift")).toBeNull();
  });
});

describe("ContextMenu", () => {
  it("focuses its first item, runs the focused item on Enter and closes; Escape closes; so does a click outside", () => {
    const run = vi.fn();
    const onClose = vi.fn();
    const list: MenuItem[] = [
      { kind: "item", id: "a", label: "Archive branch", run: noop },
      { kind: "separator", id: "s" },
      { kind: "item", id: "b", label: "Clone this branch", run },
    ];
    const { unmount } = render(
      <ContextMenu items={list} at={{ x: 10, y: 10 }} label="Entry" onClose={onClose} />,
    );
    const menu = screen.getByRole("menu", { name: "Entry" });
    expect(document.activeElement).toBe(screen.getByRole("menuitem", { name: "Archive branch" }));
    fireEvent.keyDown(menu, { key: "ArrowDown" });
    expect(document.activeElement).toBe(screen.getByRole("menuitem", { name: "Clone this branch" }));
    fireEvent.keyDown(menu, { key: "Enter" });
    expect(run).toHaveBeenCalledOnce();
    expect(onClose).toHaveBeenCalledOnce();
    fireEvent.keyDown(menu, { key: "Escape" });
    expect(onClose).toHaveBeenCalledTimes(2);
    fireEvent.pointerDown(document.body);
    expect(onClose).toHaveBeenCalledTimes(3);
    unmount();
  });

  it("stays open while the window scrolls a panel itself; a wheel turn closes it", () => {
    const onClose = vi.fn();
    const list: MenuItem[] = [{ kind: "item", id: "a", label: "Archive branch", run: noop }];
    const panel = document.createElement("div");
    document.body.append(panel);
    const { unmount } = render(
      <ContextMenu items={list} at={{ x: 10, y: 10 }} label="Entry" onClose={onClose} />,
    );
    // The right-click selected the entry and the inspector scrolled to its top: no reason to close.
    fireEvent.scroll(panel);
    expect(onClose).not.toHaveBeenCalled();
    fireEvent.wheel(panel);
    expect(onClose).toHaveBeenCalledOnce();
    unmount();
    panel.remove();
  });

  it("does not run a disabled item", () => {
    const run = vi.fn();
    const onClose = vi.fn();
    const list: MenuItem[] = [
      { kind: "item", id: "a", label: "Open", run: noop },
      { kind: "item", id: "b", label: "Rename…", run, disabled: true },
    ];
    const { unmount } = render(
      <ContextMenu items={list} at={{ x: 0, y: 0 }} label="Session" onClose={onClose} />,
    );
    fireEvent.click(screen.getByRole("menuitem", { name: "Rename…" }));
    expect(run).not.toHaveBeenCalled();
    expect(screen.getByRole("menuitem", { name: "Rename…" }).getAttribute("aria-disabled")).toBe("true");
    unmount();
  });
});

describe("the menus' items", () => {
  const message = (role: string) => ({ kind: role, type: "message", role, label: null, archived: false });
  it("offers Fork before and the context edits on a user message, not on a non-message entry", () => {
    const { actions } = recordingActions();
    const user = ids(entryMenuItems({ entryId: "u1", node: message("user"), archiveRoot: null }, actions));
    expect(user).toEqual([
      "label",
      "continue",
      "fork",
      "fork-before",
      "clone",
      "archive",
      "note",
      "edit-context",
      "drop-context",
      "compare",
      "export-markdown",
      "export-html",
      "export-jsonl",
      "copy-id",
      "rename",
      "open-in-pi",
    ]);
    const assistant = ids(
      entryMenuItems({ entryId: "a1", node: message("assistant"), archiveRoot: null }, actions),
    );
    expect(assistant).not.toContain("fork-before");
    expect(assistant).toContain("edit-context");
    const compaction = { kind: "compaction", type: "compaction", role: null, label: null, archived: false };
    const other = ids(entryMenuItems({ entryId: "c1", node: compaction, archiveRoot: null }, actions));
    expect(other).not.toContain("edit-context");
    expect(other).not.toContain("fork-before");
  });

  it("reaches the open session's Rename and Open in Pi from an entry", () => {
    const { actions, calls } = recordingActions();
    const list = entryMenuItems({ entryId: "a1", node: message("assistant"), archiveRoot: null }, actions);
    for (const id of ["rename", "open-in-pi"]) {
      const item = list.find((candidate) => candidate.id === id);
      if (item?.kind !== "item") throw new Error(`no ${id} item`);
      item.run();
    }
    expect(calls).toEqual([["beginRename"], ["openInPi"]]);
  });

  it("offers Remove label on a labelled entry, and Unarchive of the marker's entry on an archived one", () => {
    const { actions, calls } = recordingActions();
    const node = { ...message("assistant"), label: "checkpoint", archived: true };
    const list = entryMenuItems({ entryId: "a3", node, archiveRoot: "a1" }, actions);
    expect(ids(list)).toContain("unlabel");
    expect(ids(list)).not.toContain("archive");
    const unarchive = list.find((item) => item.id === "unarchive");
    if (unarchive?.kind !== "item") throw new Error("no Unarchive item");
    unarchive.run();
    expect(calls).toEqual([["setArchived", "a1", false]]);
    const compare = list.find((item) => item.id === "compare");
    if (compare?.kind !== "item") throw new Error("no Compare with… item");
    compare.run();
    expect(calls.at(-1)).toEqual(["compareWith", "a3"]);
  });

  it("runs each library row action on its own session or project", () => {
    const { actions, calls } = recordingActions();
    const list = sessionRowMenuItems(
      { sessionId: "s1", projectId: "p1", broken: false, sourceSessionId: "s0" },
      actions,
    );
    for (const item of list) if (item.kind === "item") item.run();
    expect(calls).toEqual([
      ["openSession", "s1"],
      ["beginRename", "s1"],
      ["openInPi", "s1"],
      ["cloneSession", "s1"],
      ["compareWithSource", "s1", "s0"],
      ["exportBranch", "markdown", { sessionId: "s1" }],
      ["exportBranch", "html", { sessionId: "s1" }],
      ["exportBranch", "jsonl", { sessionId: "s1" }],
      ["newSession", "p1"],
      ["chooseImport", "p1"],
      ["beginTrash", "s1"],
    ]);
    const broken = sessionRowMenuItems({ sessionId: "s2", projectId: "p1", broken: true }, actions);
    const disabled = broken.filter((item) => item.kind === "item" && item.disabled).map((item) => item.id);
    expect(disabled).toEqual(["rename", "clone", "export-markdown", "export-html", "export-jsonl"]);
  });
});
