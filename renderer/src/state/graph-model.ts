/**
 * What the graph draws, derived from the session state by the pure graph
 * maths of shared/graph: Pi's /tree filter, chain folding, the layout. Each
 * step is memoised on the identity of its inputs, so a selector can call
 * `model(state)` on every store change and get the same object back until
 * something it depends on changed.
 */

import type { SessionView, TreeNodeView } from "../../../shared/ipc/contract.ts";
import { growFoldedGraph } from "../../../shared/graph/chains-grown.ts";
import { growVisibleTree } from "../../../shared/graph/filter-grown.ts";
import { GrownGraph, WalkedGraph } from "../../../shared/graph/folded-graph.ts";
import { growLayout } from "../../../shared/graph/layout-grown.ts";
import { VisibleTreeState } from "../../../shared/graph/visible-tree.ts";
import { growthSince, prepareGrowth } from "../../../shared/ipc/session-nodes-grown.ts";
import {
  DEFAULT_LAYOUT,
  type FilterMode,
  type FoldedGraph,
  foldChains,
  type IdLookup,
  type IndexedNodes,
  indexNodeList,
  type Layout,
  type LayoutDirection,
  layoutGraph,
  type VisibleTree,
  visibleTree,
} from "../../../shared/graph/index.ts";
import { searchKey, searchWords } from "../../../shared/session/entry-search.ts";
import { nearestVisible } from "./navigation.ts";
import type { FullTextMatches, SessionState } from "./stores.ts";

export interface GraphModel {
  view: SessionView;
  nodesById: IdLookup<TreeNodeView>;
  visible: VisibleTree;
  /** Index of each visible entry in `visible.order` (`visible.position`). */
  position: IdLookup<number>;
  /**
   * Entries matching the search query (all words), in any mode: by what the
   * renderer holds of them at once, and by their whole text once the main
   * process's full-text search answers.
   */
  matches: ReadonlySet<string>;
  /** Visible matches in the visible order: what Enter / Shift+Enter step through. */
  matchOrder: readonly string[];
  graph: FoldedGraph;
  layout: Layout;
  /**
   * Where the file's leaf shows: itself, or when the filter hides it (a label,
   * a usage entry...) its nearest visible ancestor's graph node.
   */
  leafHost: string | null;
}

export const NODE_WIDTH = DEFAULT_LAYOUT.nodeWidth;
export const NODE_HEIGHT = DEFAULT_LAYOUT.nodeHeight;

function memoLast<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
  let last: { args: A; result: R } | null = null;
  return (...args: A) => {
    if (last && last.args.length === args.length && last.args.every((arg, i) => Object.is(arg, args[i]))) {
      return last.result;
    }
    const result = fn(...args);
    last = { args, result };
    return result;
  };
}

/** The text the search looks in: label, type, role, tool names, preview, id. */
export function searchableText(
  node: Pick<TreeNodeView, "label" | "type" | "kind" | "role" | "preview" | "id"> & {
    toolNames: readonly string[];
  },
): string {
  return [node.label ?? "", node.type, node.kind, node.role ?? "", ...node.toolNames, node.preview, node.id]
    .join(" ")
    .toLowerCase();
}

/** The searchable text of every node of a view, read field by field (of columns: no node is made). */
function searchableTexts(view: SessionView): (readonly [string, string])[] {
  const { count, fields } = view.nodes;
  const texts: (readonly [string, string])[] = [];
  for (let i = 0; i < count; i++) {
    const id = fields.id(i);
    const text = searchableText({
      id,
      label: fields.label(i),
      type: fields.type(i),
      kind: fields.kind(i),
      role: fields.role(i),
      toolNames: fields.toolNames(i),
      preview: fields.preview(i),
    });
    texts.push([id, text] as const);
  }
  return texts;
}

/** The view's nodes indexed (of columns decoded as a whole tree: no node is made until asked for by id). */
function indexView(view: SessionView): IndexedNodes<TreeNodeView> {
  return indexNodeList(view.nodes);
}

/** The entries from the root to the selection: what the graph highlights. */
export interface PathIds {
  has(id: string): boolean;
}

const NO_PATH: PathIds = { has: () => false };

export interface GraphSelectors {
  model(state: SessionState): GraphModel | null;
  /** The view's nodes with parents and children as index arrays (built once per view). */
  indexed(view: SessionView): IndexedNodes<TreeNodeView>;
  /** Root-to-selection ids, computed locally so the path lights up before the context arrives. */
  pathSet(state: SessionState): PathIds;
}

type Indexed = (view: SessionView) => IndexedNodes<TreeNodeView>;
type Matches = (view: SessionView, query: string, fullText: FullTextMatches | null) => ReadonlySet<string>;

/**
 * The entries matching a query: by the text the renderer holds of them, and by
 * the main process's full-text answer once it is for this query.
 */
function createMatches(indexed: Indexed): Matches {
  const texts = memoLast(searchableTexts);
  const previewMatches = memoLast((view: SessionView, query: string): ReadonlySet<string> => {
    const words = searchWords(query);
    const found = new Set<string>();
    if (words.length === 0) return found;
    for (const [id, text] of texts(view)) if (words.every((word) => text.includes(word))) found.add(id);
    return found;
  });
  return memoLast(
    (view: SessionView, query: string, fullText: FullTextMatches | null): ReadonlySet<string> => {
      const found = previewMatches(view, query);
      if (fullText === null || fullText.query !== searchKey(query) || fullText.ids.size === 0) return found;
      const byId = indexed(view).byId;
      const all = new Set(found);
      for (const id of fullText.ids) if (byId.has(id)) all.add(id);
      return all;
    },
  );
}

/**
 * Pi's /tree filter over the view, with folds, (when the search filters)
 * only the matches, and archived branches hidden unless they are shown (read
 * from the nodes' column in the same pass). A view grown by appends from the
 * one before grows the tree before (filter-grown.ts): the cost of what was
 * added, not a walk of the whole session; anything else walks it again.
 */
function createVisible(indexed: Indexed) {
  let last: {
    view: SessionView;
    mode: FilterMode;
    folded: ReadonlySet<string>;
    onlyMatches: ReadonlySet<string> | null;
    showArchived: boolean;
    tree: VisibleTree;
  } | null = null;
  return (
    view: SessionView,
    mode: FilterMode,
    folded: ReadonlySet<string>,
    onlyMatches: ReadonlySet<string> | null,
    showArchived: boolean,
  ): VisibleTree => {
    if (
      last &&
      last.view === view &&
      last.mode === mode &&
      last.folded === folded &&
      last.onlyMatches === onlyMatches &&
      last.showArchived === showArchived
    )
      return last.tree;
    const options = {
      mode,
      leafId: view.leafId,
      folded,
      matches: onlyMatches,
      // The indexed list holds the view's nodes in their order: position i is node i of both.
      hiddenBranch: showArchived ? null : view.nodes.fields.archived,
    };
    const growth =
      last && last.mode === mode && last.folded === folded && last.showArchived === showArchived
        ? growthSince(view.nodes, last.view.nodes)
        : null;
    const tree =
      (last && growth && growVisibleTree(last.tree, indexed(view), view.roots, options, growth.changed)) ??
      visibleTree(indexed(view), view.roots, options);
    last = { view, mode, folded, onlyMatches, showArchived, tree };
    return tree;
  };
}

/**
 * Chains folded into one node, except entries worth seeing on their own: the
 * leaf, labels, matches, folds. A tree grown from the one folded before
 * grows its fold (chains-grown.ts) when the search is the same, whose
 * matches then changed only with the entries the growth checked.
 */
function createFolded(whenIdle: ((task: () => void) => void) | undefined) {
  let last: {
    tree: VisibleTree;
    search: readonly [string, FullTextMatches | null];
    folded: ReadonlySet<string>;
    expanded: ReadonlySet<string>;
    graph: FoldedGraph;
  } | null = null;
  return (
    tree: VisibleTree,
    view: SessionView,
    found: ReadonlySet<string>,
    search: readonly [string, FullTextMatches | null],
    foldedSet: ReadonlySet<string>,
    expanded: ReadonlySet<string>,
  ): FoldedGraph => {
    const same =
      last !== null &&
      last.search[0] === search[0] &&
      last.search[1] === search[1] &&
      last.folded === foldedSet &&
      last.expanded === expanded;
    if (same && last!.tree === tree) return last!.graph;
    const options = {
      keep: (id: string, label: string | null) =>
        id === view.leafId || label !== null || found.has(id) || foldedSet.has(id),
      expanded,
    };
    const grows = same && tree instanceof VisibleTreeState && tree.change?.from === last!.tree;
    const grown = grows ? growFoldedGraph(last!.graph, tree as VisibleTreeState, options) : null;
    const graph = grown ?? foldChains(tree, options);
    // The first append after a walk passes over every entry twice: the node list starts a line to grow
    // (its shape and roots), and the walked graph is keyed by entry. Both are done while the page is idle
    // after the walk instead, so the first append of a live session costs what it adds.
    if (grown === null && whenIdle && graph instanceof WalkedGraph) {
      const nodes = view.nodes;
      whenIdle(() => {
        prepareGrowth(nodes);
        graph.keys();
      });
    }
    last = { tree, search, folded: foldedSet, expanded, graph };
    return graph;
  };
}

/**
 * The layout, keeping the rows of the last layout of this session and filter:
 * appends, searches and chains opening never move a drawn row. A new open (or
 * reload) of the session, or another filter, starts afresh (the leaf's branch
 * first again). A graph grown from the last one laid out grows its layout
 * (layout-grown.ts) when it can.
 */
function createLayout() {
  let last: { graph: FoldedGraph; direction: LayoutDirection; key: string; layout: Layout } | null = null;
  return (graph: FoldedGraph, direction: LayoutDirection, key: string): Layout => {
    if (last && last.graph === graph && last.direction === direction && last.key === key) return last.layout;
    const previous = last?.key === key ? last.layout : undefined;
    const options = { ...DEFAULT_LAYOUT, direction };
    const grows =
      previous !== undefined &&
      last!.direction === direction &&
      graph instanceof GrownGraph &&
      graph.change.from === last!.graph;
    const drawn =
      (grows ? growLayout(previous, graph as GrownGraph, options) : null) ??
      layoutGraph(graph, options, previous);
    last = { graph, direction, key, layout: drawn };
    return drawn;
  };
}

/** The steps' results gathered into one model, with the match order and where the leaf shows. */
function createModel(indexed: Indexed) {
  const matchOrder = memoLast((tree: VisibleTree, found: ReadonlySet<string>) =>
    found.size === 0 ? [] : tree.order.filter((id) => found.has(id)),
  );
  return memoLast(
    (
      view: SessionView,
      tree: VisibleTree,
      found: ReadonlySet<string>,
      graph: FoldedGraph,
      drawn: Layout,
    ): GraphModel => {
      const positions = tree.position;
      const nodesById = indexed(view).byId;
      const host = view.leafId === null ? null : nearestVisible(nodesById, positions, tree, view.leafId);
      return {
        view,
        nodesById,
        visible: tree,
        position: positions,
        matches: found,
        matchOrder: matchOrder(tree, found),
        graph,
        layout: drawn,
        leafHost: host === null ? null : (graph.nodeOfEntry.get(host) ?? null),
      };
    },
  );
}

/** The marks of a root-to-selection path by entry position: shared by the versions of a view grown by appends. */
interface PathMarks {
  view: SessionView;
  start: number | undefined;
  onPath: Uint8Array;
}

/**
 * The marks of the path to `start` in `view`, from those of the view it grew
 * from when the new part of the path is only new entries hanging from the
 * old selection (following the leaf): the old marks are kept and the new
 * entries marked, in place (earlier versions do not know those entries).
 */
function grownPath(last: PathMarks, view: SessionView, start: number, parent: Int32Array, count: number) {
  if (last.start === undefined || growthSince(view.nodes, last.view.nodes) === null) return null;
  const oldCount = last.view.nodes.count;
  const added: number[] = [];
  let i = start;
  for (; i >= oldCount; i = parent[i]!) added.push(i);
  if (i !== last.start) return null;
  let onPath = last.onPath;
  if (onPath.length < count) {
    onPath = new Uint8Array(Math.max(count, onPath.length * 2));
    onPath.set(last.onPath);
  }
  for (const e of added) onPath[e] = 1;
  return onPath;
}

/** The root-to-selection path, marked along parent positions. */
function createPath(indexed: Indexed) {
  let last: PathMarks | null = null;
  return memoLast((view: SessionView, selectedId: string | null): PathIds => {
    // Along parent positions: a path can be 100k entries long, a set of their ids ~20 ms.
    const { indexOf, parent, count } = indexed(view);
    const start = selectedId === null ? undefined : indexOf.get(selectedId);
    let onPath = last && start !== undefined ? grownPath(last, view, start, parent, count) : null;
    if (onPath === null) {
      onPath = new Uint8Array(count);
      if (start !== undefined) for (let i = start; i !== -1 && onPath[i] === 0; i = parent[i]!) onPath[i] = 1;
    }
    last = { view, start, onPath };
    const marks = onPath;
    return {
      has(id) {
        const i = indexOf.get(id);
        return i !== undefined && i < count && marks[i] === 1;
      },
    };
  });
}

/** The search the matches come from, as one value: the same pair while neither changes. */
function createSearchOf() {
  let last: readonly [string, FullTextMatches | null] = ["", null];
  return (state: SessionState) => {
    if (last[0] !== state.searchQuery || last[1] !== state.fullText)
      last = [state.searchQuery, state.fullText];
    return last;
  };
}

/** `whenIdle`: runs a task when the page is idle (warm-ups for the next append); absent in tests. */
export function createGraphSelectors(whenIdle?: (task: () => void) => void): GraphSelectors {
  // Parents and children as index arrays: the passes over every node look up no ids.
  const indexed = memoLast(indexView);
  const matches = createMatches(indexed);
  const visible = createVisible(indexed);
  const folded = createFolded(whenIdle);
  const searchOf = createSearchOf();
  const layout = createLayout();
  const model = createModel(indexed);
  const path = createPath(indexed);
  return {
    model(state) {
      const view = state.view;
      if (!view) return null;
      const found = matches(view, state.searchQuery, state.fullText);
      const onlyMatches = state.searchFilter && searchWords(state.searchQuery).length > 0 ? found : null;
      const tree = visible(view, state.filterMode, state.folded, onlyMatches, state.showArchived);
      const search = searchOf(state);
      const graph = folded(tree, view, found, search, state.folded, state.expandedChains);
      const rowsKey = `${view.sessionId}\n${state.filterMode}\n${state.showArchived}\n${state.layoutEpoch}`;
      return model(view, tree, found, graph, layout(graph, state.direction, rowsKey));
    },
    indexed,
    pathSet(state) {
      return state.view ? path(state.view, state.selectedId) : NO_PATH;
    },
  };
}
