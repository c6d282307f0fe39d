/**
 * What the graph draws, derived from the session state by the pure graph
 * maths of shared/graph: Pi's /tree filter, chain folding, the layout. Each
 * step is memoised on the identity of its inputs, so a selector can call
 * `model(state)` on every store change and get the same object back until
 * something it depends on changed.
 */

import type { SessionView, TreeNodeView } from "../../../shared/ipc/contract.ts";
import {
  DEFAULT_LAYOUT,
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
 * Pi's /tree filter over the view, with folds, (when the search filters) only the matches, and
 * archived branches hidden unless they are shown: read from the nodes' columns in the same pass.
 */
function createVisible(indexed: Indexed) {
  return memoLast(
    (
      view: SessionView,
      mode: SessionState["filterMode"],
      folded: ReadonlySet<string>,
      onlyMatches: ReadonlySet<string> | null,
      showArchived: boolean,
    ) =>
      visibleTree(indexed(view), view.roots, {
        mode,
        leafId: view.leafId,
        folded,
        matches: onlyMatches,
        // The indexed list holds the view's nodes in their order: position i is node i of both.
        hiddenBranch: showArchived ? null : view.nodes.fields.archived,
      }),
  );
}

/** Chains folded into one node, except entries worth seeing on their own: the leaf, labels, matches, folds. */
function createFolded() {
  return memoLast(
    (
      tree: VisibleTree,
      view: SessionView,
      found: ReadonlySet<string>,
      foldedSet: ReadonlySet<string>,
      expanded: ReadonlySet<string>,
    ) => {
      return foldChains(tree, {
        keep: (id, label) => id === view.leafId || label !== null || found.has(id) || foldedSet.has(id),
        expanded,
      });
    },
  );
}

/**
 * The layout, keeping the rows of the last layout of this session and filter:
 * appends, searches and chains opening never move a drawn row. A new open (or
 * reload) of the session, or another filter, starts afresh (the leaf's branch
 * first again).
 */
function createLayout() {
  let lastRows: { key: string; rows: Layout["rows"] } | null = null;
  return memoLast((graph: FoldedGraph, direction: LayoutDirection, key: string) => {
    const previous = lastRows?.key === key ? lastRows : undefined;
    const drawn = layoutGraph(graph, { ...DEFAULT_LAYOUT, direction }, previous);
    lastRows = { key, rows: drawn.rows };
    return drawn;
  });
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

/** The root-to-selection path, marked along parent positions. */
function createPath(indexed: Indexed) {
  return memoLast((view: SessionView, selectedId: string | null): PathIds => {
    // Along parent positions: a path can be 100k entries long, a set of their ids ~20 ms.
    const { indexOf, parent } = indexed(view);
    const onPath = new Uint8Array(indexed(view).count);
    const start = selectedId === null ? undefined : indexOf.get(selectedId);
    if (start !== undefined) for (let i = start; i !== -1 && onPath[i] === 0; i = parent[i]!) onPath[i] = 1;
    return {
      has(id) {
        const i = indexOf.get(id);
        return i !== undefined && onPath[i] === 1;
      },
    };
  });
}

export function createGraphSelectors(): GraphSelectors {
  // Parents and children as index arrays: the passes over every node look up no ids.
  const indexed = memoLast(indexView);
  const matches = createMatches(indexed);
  const visible = createVisible(indexed);
  const folded = createFolded();
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
      const graph = folded(tree, view, found, state.folded, state.expandedChains);
      const rowsKey = `${view.sessionId}\n${state.filterMode}\n${state.showArchived}\n${state.layoutEpoch}`;
      return model(view, tree, found, graph, layout(graph, state.direction, rowsKey));
    },
    indexed,
    pathSet(state) {
      return state.view ? path(state.view, state.selectedId) : NO_PATH;
    },
  };
}
