/**
 * Keyboard navigation against Pi 1.6's own /tree selector: the same key
 * presses from the same leaf put the cursor on the same entry, with the
 * same folds and filter mode. Runs in Node (Pi's TUI is a Node module).
 */

import { describe, expect, it } from "vitest";
import { inMemoryEntryReader, type SessionIndex } from "../../../shared/session/index.ts";
import { Rng, generateSession } from "../../../shared/session/testing/generate-session.ts";
import { createFakeClient } from "../testing/fake-client.ts";
import { createController } from "./controller.ts";
import { createStores } from "./stores.ts";

const piRoot = new URL("../../../node_modules/@earendil-works/pi-coding-agent/dist/", import.meta.url);

interface PiTreeList {
  filterMode: string;
  selectedIndex: number;
  foldedNodes: Set<string>;
  filteredNodes: { node: { entry: { id: string } } }[];
  handleInput(keyData: string): void;
}
const { TreeSelectorComponent } = (await import(
  new URL("modes/interactive/components/tree-selector.js", piRoot).href
)) as { TreeSelectorComponent: new (...args: unknown[]) => { treeList: PiTreeList } };
const { initTheme } = (await import(new URL("modes/interactive/theme/theme.js", piRoot).href)) as {
  initTheme: (name: string) => void;
};
const { KeybindingsManager } = (await import(new URL("core/keybindings.js", piRoot).href)) as {
  KeybindingsManager: new () => unknown;
};
const { setKeybindings } = (await import(
  new URL("../../../node_modules/@earendil-works/pi-tui/dist/index.js", import.meta.url).href
)) as { setKeybindings: (keybindings: unknown) => void };
initTheme("dark");
// Pi's app key bindings (its defaults: Ctrl+Left folds, Ctrl+O cycles the filter...), as Pi's interactive mode installs them.
setKeybindings(new KeybindingsManager());

interface PiTreeNode {
  entry: unknown;
  children: PiTreeNode[];
  label?: string;
  labelTimestamp?: string;
}

/** Pi's `SessionManager.getTree()` shape, from our index (whose tree shared/graph's tests check against Pi's). */
function piTree(index: SessionIndex): PiTreeNode[] {
  const reader = inMemoryEntryReader(index);
  const build = (id: string): PiTreeNode => {
    const node = index.nodes.get(id)!;
    const label = index.labels.get(id);
    return {
      entry: reader.entry(id),
      children: node.children.map(build),
      ...(label ? { label: label.label, labelTimestamp: label.timestamp } : {}),
    };
  };
  return index.roots.map(build);
}

/** Terminal key sequences Pi reads, and the same key for the explorer. */
const KEYS = {
  up: "\x1b[A",
  down: "\x1b[B",
  foldOrUp: "\x1b[1;5D",
  unfoldOrDown: "\x1b[1;5C",
  cycleFilter: "\x0f",
} as const;
type Key = keyof typeof KEYS;

describe("keyboard navigation, against Pi 1.6's /tree", () => {
  it("moves the cursor, folds and cycles filters exactly as Pi does", async () => {
    let steps = 0;
    let foldedSteps = 0;
    const modes = new Set<string>();
    for (let seed = 1; seed <= 24; seed++) {
      const generated = generateSession({ seed, entryCount: 70 });
      const client = createFakeClient([{ sessionId: "s", text: generated.text }]);
      const controller = createController(client, createStores(), {
        location: { search: "", href: "http://arbor.test/" },
      });
      await controller.openSession("s");
      const leafId = client.index("s").leafId;
      const pi = new TreeSelectorComponent(
        piTree(client.index("s")),
        leafId,
        50,
        () => {},
        () => {},
      ).treeList;
      const rng = new Rng(seed * 7919);
      for (let i = 0; i < 60; i++) {
        const key = rng.weighted<Key>({ up: 4, down: 4, foldOrUp: 3, unfoldOrDown: 3, cycleFilter: 1 });
        pi.handleInput(KEYS[key]);
        if (key === "cycleFilter") controller.cycleFilter(false);
        else if (key === "up") controller.moveCursor(-1);
        else if (key === "down") controller.moveCursor(1);
        else controller[key]();
        const state = controller.stores.session.getState();
        const what = `seed ${seed}, step ${i} (${key})`;
        expect(state.filterMode, what).toBe(pi.filterMode);
        expect([...state.folded].sort(), what).toEqual([...pi.foldedNodes].sort());
        const piCursor = pi.filteredNodes[pi.selectedIndex]?.node.entry.id ?? null;
        if (pi.filteredNodes.length > 0) expect(state.cursorId, what).toBe(piCursor);
        steps++;
        if (pi.foldedNodes.size > 0) foldedSteps++;
        modes.add(pi.filterMode);
      }
      controller.dispose();
    }
    expect(steps).toBe(24 * 60);
    expect(foldedSteps).toBeGreaterThan(100);
    expect(modes.size).toBe(5);
  });
});
