/**
 * The graph grown by appends equals the graph built afresh: after each of
 * many random Pi-style appends to generated sessions, the visible tree
 * grown from the one before (filter-grown.ts) equals `visibleTree` of the
 * grown list, in every filter mode, with folds and with search matches;
 * the chains and the layout grown likewise equal `foldChains` and
 * `layoutGraph` (given the rows of the layout before). Appends that are not
 * a plain append under the leaf return null, and the whole build is used.
 */

import { describe, expect, it } from "vitest";
import { applySessionDelta } from "../ipc/session-delta.ts";
import { growthSince } from "../ipc/session-nodes-grown.ts";
import { LiveSession } from "../ipc/testing/live-session.ts";
import type { SessionView } from "../ipc/contract.ts";
import { generateSession, Rng } from "../session/testing/generate-session.ts";
import {
  FILTER_MODES,
  type FilterMode,
  type VisibleTree,
  type VisibleTreeOptions,
  visibleTree,
} from "./filter.ts";
import { growVisibleTree } from "./filter-grown.ts";
import { indexNodeList } from "./indexed-nodes.ts";
import { type FoldedGraph, type FoldOptions, foldChains } from "./chains.ts";
import { growFoldedGraph } from "./chains-grown.ts";
import type { VisibleTreeState } from "./visible-tree.ts";
import { GrownGraph } from "./folded-graph.ts";
import { DEFAULT_LAYOUT, type Layout, layoutGraph } from "./layout.ts";
import { growLayout } from "./layout-grown.ts";

/** Every lookup of the tree, for every entry of the list, as plain data (one comparison is quicker than many). */
function treeLookups(tree: VisibleTree, ids: readonly string[]) {
  const { at } = tree;
  return {
    order: tree.order,
    count: tree.count,
    roots: tree.roots,
    entries: ids.map((id) => [
      id,
      tree.position.get(id),
      tree.parent.get(id),
      tree.children.get(id),
      tree.childCount(id),
    ]),
    // Entries are positions in each tree's own list (a grown list keeps its order): read as ids.
    at: tree.order.map((_, p) => [at.fields.id(at.entry(p)), at.parent[p]]),
    childStart: [...at.childStart],
    childList: [...at.childList],
  };
}

function expectSameTree(actual: VisibleTree, expected: VisibleTree, ids: readonly string[], what: string) {
  expect(treeLookups(actual, ids), what).toEqual(treeLookups(expected, ids));
}

/** The variants of the filter each step is checked in. */
interface Variant {
  mode: FilterMode;
  /** Ids folded (fixed at the start). */
  folded: ReadonlySet<string>;
  /** Whether only "matches" show: ids whose last hex digit is even (a set that grows by new ids only). */
  search: boolean;
  /** Whether branches are hidden as archived ones are: below ids ending in 3 or 7 (`hiddenBranch`). */
  archived?: boolean;
}

function optionsOf(variant: Variant, view: SessionView): VisibleTreeOptions {
  const matches = variant.search
    ? new Set(
        view.nodes
          .toArray()
          .filter((node) => Number.parseInt(node.id.slice(-1), 16) % 2 === 0)
          .map((node) => node.id),
      )
    : null;
  // By position in this view's own list, as the graph model passes the nodes' archived column.
  const { fields } = view.nodes;
  const hiddenBranch = variant.archived ? (i: number) => /[37]$/.test(fields.id(i)) : null;
  return { mode: variant.mode, leafId: view.leafId, folded: variant.folded, matches, hiddenBranch };
}

describe("the visible tree grown by appends", () => {
  it("equals the tree walked afresh after each random append, in every mode, with folds and searches", () => {
    let grown = 0;
    let walked = 0;
    let grownArchived = 0;
    let hiddenAdded = 0;
    for (let seed = 1; seed <= 16; seed++) {
      const rng = new Rng(seed * 7 + 1);
      const live = new LiveSession(
        rng,
        generateSession({ seed, entryCount: rng.int(5, 60) }).text,
        seed % 2 === 0,
      );
      let view = live.view();
      const some = view.nodes.toArray().filter((node) => node.children.length > 0);
      const variants: Variant[] = FILTER_MODES.flatMap((mode) => [
        { mode, folded: new Set<string>(), search: false },
        { mode, folded: new Set<string>(), search: true },
        { mode, folded: new Set(some.length > 0 ? [rng.pick(some).id] : []), search: false },
        { mode, folded: new Set<string>(), search: false, archived: true },
      ]);
      let trees = variants.map((variant) =>
        visibleTree(indexNodeList(view.nodes), view.roots, optionsOf(variant, view)),
      );
      for (let step = 0; step < 30; step++) {
        const { delta, fresh, what } = live.step();
        const next = applySessionDelta(view, delta);
        const growth = growthSince(next.nodes, view.nodes);
        const indexed = indexNodeList(next.nodes);
        const ids = fresh.nodes.toArray().map((node) => node.id);
        trees = variants.map((variant, v) => {
          const options = optionsOf(variant, next);
          const whole = visibleTree(indexNodeList(fresh.nodes), fresh.roots, optionsOf(variant, fresh));
          const tree = growth && growVisibleTree(trees[v]!, indexed, next.roots, options, growth.changed);
          const at = `seed ${seed}, step ${step} (${what}), ${variant.mode}${variant.search ? " searched" : ""}${variant.folded.size > 0 ? " folded" : ""}${variant.archived ? " archived" : ""}`;
          if (tree) {
            grown++;
            if (variant.archived) {
              grownArchived++;
              const added = fresh.nodes.count - view.nodes.count;
              for (let k = 0; k < added; k++)
                if (/[37]$/.test(next.nodes.fields.id(view.nodes.count + k))) hiddenAdded++;
            }
            expectSameTree(tree, whole, ids, at);
            return tree;
          }
          walked++;
          return visibleTree(indexed, next.roots, options);
        });
        view = next;
      }
    }
    // Most appends are a turn at the leaf: grown; branches and labels are walked again.
    console.log(`visible trees grown ${grown}, walked again ${walked}`);
    expect(grown).toBeGreaterThan(walked * 3);
    // The archived variant grew too, over new entries its predicate hides.
    console.log(`archived variant: grown ${grownArchived}, hidden entries added ${hiddenAdded}`);
    expect(hiddenAdded).toBeGreaterThan(10);
  });
});

/** Every lookup of a folded graph, for every entry of the list and every node, as plain data. */
function graphLookups(graph: FoldedGraph, ids: readonly string[]) {
  return {
    nodes: graph.nodes.map((node) => ({ ...node })),
    roots: graph.roots,
    nodeOfEntry: ids.map((id) => [id, graph.nodeOfEntry.get(id), graph.nodeOfEntry.has(id)]),
    byId: graph.nodes.map((node) => graph.byId.get(node.id)),
    gone: ids.filter((id) => graph.byId.has(id) && !graph.nodes.some((node) => node.id === id)),
  };
}

/** What the graph model keeps on its own: the leaf, labels, matches and folds. */
/** A layout with its maps as plain ones (a grown layout's are layered, layered-map.ts), to compare. */
function plainLayout(layout: Layout) {
  return { ...layout, positions: new Map(layout.positions), rows: new Map(layout.rows) };
}

function foldOptionsOf(options: VisibleTreeOptions, expanded: ReadonlySet<string>): FoldOptions {
  const { leafId, matches, folded } = options;
  return {
    keep: (id, label) =>
      id === leafId || label !== null || (matches?.has(id) ?? false) || (folded?.has(id) ?? false),
    expanded,
  };
}

describe("the folded graph grown by appends", () => {
  it("equals the graph folded afresh after each random append, in every mode, with folds, searches and chains opened", () => {
    let grown = 0;
    let folded = 0;
    let laidOutGrown = 0;
    let laidOut = 0;
    for (let seed = 1; seed <= 16; seed++) {
      const layoutOptions = {
        ...DEFAULT_LAYOUT,
        direction: seed % 3 === 0 ? ("TB" as const) : ("LR" as const),
      };
      const rng = new Rng(seed * 11 + 3);
      const live = new LiveSession(
        rng,
        generateSession({ seed, entryCount: rng.int(5, 80) }).text,
        seed % 2 === 1,
      );
      let view = live.view();
      const some = view.nodes.toArray().filter((node) => node.children.length > 0);
      const variants: (Variant & { expanded: boolean })[] = FILTER_MODES.flatMap((mode) => [
        { mode, folded: new Set<string>(), search: false, expanded: false },
        { mode, folded: new Set<string>(), search: false, expanded: true },
        { mode, folded: new Set<string>(), search: true, expanded: false },
        { mode, folded: new Set(some.length > 0 ? [rng.pick(some).id] : []), search: false, expanded: false },
      ]);
      const expandedOf = variants.map((variant) => {
        if (!variant.expanded) return new Set<string>();
        const tree = visibleTree(indexNodeList(view.nodes), view.roots, optionsOf(variant, view));
        const chains = foldChains(tree, foldOptionsOf(optionsOf(variant, view), new Set())).nodes.filter(
          (node) => node.kind === "chain",
        );
        return new Set(chains.length > 0 ? [rng.pick(chains).id, chains[0]!.id] : []);
      });
      let states = variants.map((variant, v) => {
        const options = optionsOf(variant, view);
        const tree = visibleTree(indexNodeList(view.nodes), view.roots, options);
        const graph = foldChains(tree, foldOptionsOf(options, expandedOf[v]!));
        return { tree, graph, layout: layoutGraph(graph, layoutOptions) };
      });
      for (let step = 0; step < 30; step++) {
        const { delta, fresh, what } = live.step();
        const next = applySessionDelta(view, delta);
        const growth = growthSince(next.nodes, view.nodes);
        const indexed = indexNodeList(next.nodes);
        const ids = fresh.nodes.toArray().map((node) => node.id);
        states = variants.map((variant, v) => {
          const options = optionsOf(variant, next);
          const foldOptions = foldOptionsOf(options, expandedOf[v]!);
          const wholeTree = visibleTree(indexNodeList(fresh.nodes), fresh.roots, options);
          const whole = foldChains(wholeTree, foldOptions);
          const previous = states[v]!;
          const tree =
            (growth && growVisibleTree(previous.tree, indexed, next.roots, options, growth.changed)) ??
            visibleTree(indexed, next.roots, options);
          const graph = growFoldedGraph(previous.graph, tree as VisibleTreeState, foldOptions);
          const at = `seed ${seed}, step ${step} (${what}), ${variant.mode}${variant.search ? " searched" : ""}${variant.folded.size > 0 ? " folded" : ""}${variant.expanded ? " expanded" : ""}`;
          const wholeLayout = layoutGraph(whole, layoutOptions, previous.layout);
          let layout: Layout | null = null;
          if (graph) {
            grown++;
            expect(graphLookups(graph, ids), at).toEqual(graphLookups(whole, ids));
            layout = graph instanceof GrownGraph ? growLayout(previous.layout, graph, layoutOptions) : null;
          } else folded++;
          if (layout) {
            laidOutGrown++;
            expect(plainLayout(layout), at).toEqual(plainLayout(wholeLayout));
          } else laidOut++;
          return {
            tree,
            graph: graph ?? foldChains(tree, foldOptions),
            layout: layout ?? layoutGraph(graph ?? whole, layoutOptions, previous.layout),
          };
        });
        view = next;
      }
    }
    console.log(
      `folded graphs grown ${grown}, folded again ${folded}; layouts grown ${laidOutGrown}, laid out again ${laidOut}`,
    );
    expect(grown).toBeGreaterThan(folded * 3);
    expect(laidOutGrown).toBeGreaterThan(laidOut);
  });
});
