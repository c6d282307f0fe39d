/**
 * The session's entry tree as a React Flow graph, with its toolbar and viewport control. Zoomed
 * far out, a large graph is drawn on the overview canvas instead of as DOM nodes (overview-canvas.tsx).
 */

import {
  Background,
  Controls,
  type NodeMouseHandler,
  ReactFlow,
  ReactFlowProvider,
  useStore,
} from "@xyflow/react";
import { type ReactNode, useCallback, useDeferredValue, useEffect, useMemo, useRef, useState } from "react";
import { BASE_MIN_ZOOM, type FilterMode, minZoomFor, passesFilter } from "../../../shared/graph/index.ts";
import { ArchivedToggle } from "../manage/archived-toggle.tsx";
import { screenErrors } from "../../../shared/error-texts.ts";
import { searchKey } from "../../../shared/session/entry-search.ts";
import type { Problem } from "../../../shared/session/problems.ts";
import {
  useController,
  useEffectiveTheme,
  useGraphModel,
  useGraphSelect,
  usePathSet,
  useSession,
} from "../state/hooks.tsx";
import { BranchMapView } from "../branch-map/branch-map-view.tsx";
import { useBranches } from "../branch-map/use-branches.ts";
import { MapStatus, ViewSwitch } from "../branch-map/view-switch.tsx";
import { CompareButton } from "../compare/compare-picker.tsx";
import { compareOnShiftClick } from "../compare/start-compare.ts";
import { edgeAreaKey, edgeAreaOf, type FlowNode, flowEdges, flowNodes } from "./flow-elements.ts";
import { LegendButton } from "./legend.tsx";
import { MinimapCanvas } from "./minimap-canvas.tsx";
import { nodeTypes } from "./nodes.tsx";
import { type LeafHiddenBy, statusText } from "./status-text.ts";
import { OverviewCanvas, useOverview, useOverviewPointer } from "./overview-canvas.tsx";
import { FilterSelect } from "./filter-select.tsx";
import { ViewportControl } from "./viewport-control.tsx";

export const SEARCH_INPUT_ID = "graph-search";
/** The graph panel takes the focus when a session opens, so the explorer's keys reach it. */
export const GRAPH_PANEL_ID = "session-graph";

export function focusGraph(): void {
  document.getElementById(GRAPH_PANEL_ID)?.focus({ preventScroll: true });
}

export const FILTER_LABELS: Record<FilterMode, string> = {
  default: "Default",
  "no-tools": "No tool results",
  "user-only": "User messages",
  "labeled-only": "Labelled",
  all: "All entries",
};

/** The entry search. A large session's graph takes the words once typing pauses, not on every key. */
function SearchBox() {
  const controller = useController();
  const query = useSession((s) => s.searchQuery);
  const [text, setText] = useState(query);
  const pending = useRef<ReturnType<typeof setTimeout> | null>(null);
  const cancel = useCallback(() => {
    if (pending.current !== null) clearTimeout(pending.current);
    pending.current = null;
  }, []);
  // The query set elsewhere (Esc, a new session) is what the box shows.
  useEffect(() => {
    cancel();
    setText(query);
  }, [query, cancel]);
  useEffect(() => cancel, [cancel]);
  const commit = (value: string) => {
    cancel();
    controller.setSearchQuery(value);
  };
  return (
    <input
      id={SEARCH_INPUT_ID}
      type="search"
      aria-label="Search entries"
      placeholder="Search ( / )"
      value={text}
      onChange={(event) => {
        const value = event.target.value;
        setText(value);
        const pause = controller.searchPauseMs();
        if (pause === 0) commit(value);
        else {
          cancel();
          pending.current = setTimeout(() => commit(value), pause);
        }
      }}
      onKeyDown={(event) => {
        if (event.key === "Enter") {
          event.preventDefault();
          // Words still waiting for a pause count first.
          if (pending.current !== null) commit(text);
          controller.stepMatch(event.shiftKey ? -1 : 1);
        } else if (event.key === "Escape") {
          event.preventDefault();
          cancel();
          setText("");
          controller.clearSearch();
          event.currentTarget.blur();
        }
      }}
    />
  );
}

function GraphToolbar() {
  const controller = useController();
  const sessionId = useSession((s) => s.view?.sessionId ?? "");
  const direction = useSession((s) => s.direction);
  const follow = useSession((s) => s.follow);
  const query = useSession((s) => s.searchQuery);
  const searchFilter = useSession((s) => s.searchFilter);
  const searching = useSession((s) => s.searching);
  const matchInfo = useGraphSelect((model, state) => {
    if (!model || model.matches.size === 0) return model && query && !state.searching ? "no matches" : "";
    const at = state.cursorId === null ? -1 : model.matchOrder.indexOf(state.cursorId);
    const more = state.fullText?.query === searchKey(query) && state.fullText.truncated ? "+" : "";
    return `${at < 0 ? "–" : at + 1}/${model.matchOrder.length}${more}`;
  });
  const expanded = useSession((s) => s.expandedChains.size > 0);
  return (
    <div className="graph-toolbar" role="toolbar" aria-label="Graph">
      <ViewSwitch />
      <FilterSelect />
      {/* A new session starts a new box: typing still waiting for a pause belongs to the old one. */}
      <SearchBox key={sessionId} />
      <span
        className="match-info"
        aria-live="polite"
        aria-busy={searching}
        title={searching ? "Searching the whole text…" : undefined}
      >
        {matchInfo}
        {searching ? <span className="searching" aria-hidden="true" /> : null}
      </span>
      <label className="checkbox">
        <input
          type="checkbox"
          checked={searchFilter}
          onChange={(event) => controller.setSearchFilter(event.target.checked)}
        />
        only matches
      </label>
      <ArchivedToggle />
      <span className="spacer" />
      <button
        type="button"
        aria-label="Layout direction"
        title="Left to right / top to bottom"
        onClick={() => controller.setDirection(direction === "LR" ? "TB" : "LR")}
      >
        {direction === "LR" ? "→ LR" : "↓ TB"}
      </button>
      <button type="button" aria-pressed={follow} onClick={() => controller.setFollow(!follow)}>
        Follow leaf
      </button>
      <button
        type="button"
        onClick={() => controller.centreOn(controller.stores.session.getState().selectedId)}
      >
        Centre
      </button>
      <button type="button" onClick={() => controller.fitView()}>
        Fit
      </button>
      <button type="button" disabled={!expanded} onClick={() => controller.collapseChains()}>
        Fold chains
      </button>
      <LegendButton />
      <CompareButton />
    </div>
  );
}

/** What React Flow gets while the overview draws the graph: constant, so it re-adopts nothing while panning. */
const NO_NODES: FlowNode[] = [];
const NO_EDGES: ReturnType<typeof flowEdges> = [];
const NO_PANE_HANDLERS = {};

/** Below this zoom the background's dots are under 4 px apart. */
const DOTS_MIN_ZOOM = 0.2;
const showsDots = (state: { transform: [number, number, number] }) => state.transform[2] >= DOTS_MIN_ZOOM;

function Graph() {
  const controller = useController();
  // An append (or any change of the graph) reaches React Flow in a render of its own, after the urgent one
  // that moves the selection and the status line: React Flow's adoption of the nodes, and its nodes' and
  // edges' renders, are then a task of their own rather than half of the append's. The direction the
  // nodes' handles face comes with the model it was laid out in.
  const model = useDeferredValue(useGraphModel());
  const direction = useDeferredValue(useSession((s) => s.direction));
  const colorMode = useEffectiveTheme();
  const path = usePathSet();
  const overview = useOverview();
  const pointer = useOverviewPointer();
  // A long chain expanded can be wider than the usual zoom limit shows: Fit must still show all of it.
  const dots = useStore(showsDots);
  const viewWidth = useStore((s) => s.width);
  const viewHeight = useStore((s) => s.height);
  const minZoom = model ? minZoomFor(model.layout, { width: viewWidth, height: viewHeight }) : BASE_MIN_ZOOM;
  const areaKey = useStore(edgeAreaKey);
  const edges = useMemo(
    () => (model ? flowEdges(model, path, edgeAreaOf(areaKey)) : []),
    [model, path, areaKey],
  );
  const nodes = useMemo(
    () => (model ? flowNodes(model, direction, edgeAreaOf(areaKey)) : []),
    [model, direction, areaKey],
  );
  const onNodeClick: NodeMouseHandler<FlowNode> = (event, node) => {
    if (node.type === "chain") controller.expandChain(node.id);
    // Shift-click another entry: compare its branch with the selected one's.
    else if (!compareOnShiftClick(controller, event, node.id)) controller.select(node.id);
  };
  return (
    <ReactFlow<FlowNode>
      nodes={overview ? NO_NODES : nodes}
      edges={overview ? NO_EDGES : edges}
      nodeTypes={nodeTypes}
      onNodeClick={onNodeClick}
      {...(overview ? pointer.pane : NO_PANE_HANDLERS)}
      onlyRenderVisibleElements
      nodesDraggable={false}
      nodesConnectable={false}
      nodesFocusable={false}
      edgesFocusable={false}
      elementsSelectable={false}
      disableKeyboardA11y
      deleteKeyCode={null}
      selectionKeyCode={null}
      multiSelectionKeyCode={null}
      panActivationKeyCode={null}
      zoomActivationKeyCode={null}
      minZoom={minZoom}
      maxZoom={2}
      colorMode={colorMode}
      proOptions={{ hideAttribution: true }}
    >
      {/* Zoomed far out, the dots would be a pattern of sub-pixel tiles, costly to paint and no help. */}
      {overview || !dots ? null : <Background />}
      {overview ? <OverviewCanvas hover={pointer.hover} /> : null}
      {/* In every zoom, the overview's too: it draws from the overview's scene, not from React Flow's nodes,
          and staying mounted it costs nothing when the view crosses the overview's threshold. */}
      <MinimapCanvas />
      {/* Its fit button would call fitView, which never fits a graph larger than the view (see ViewportControl): the toolbar's Fit does. */}
      <Controls showInteractive={false} showFitView={false} />
      <ViewportControl drawn={model} />
    </ReactFlow>
  );
}

function StatusLine() {
  const overview = useOverview();
  const view = useBranches((s) => s.view);
  const status = useGraphSelect((model, state) => {
    if (!model) return null;
    const at = state.cursorId === null ? -1 : (model.position.get(state.cursorId) ?? -1);
    const leaf = model.view.leafId;
    const leafNode = leaf === null ? undefined : model.nodesById.get(leaf);
    let leafHidden: { kind: string; by: LeafHiddenBy } | null = null;
    if (leaf !== null && leafNode && !model.position.has(leaf)) {
      // Why: Pi's filter rules, "only matches", or a folded branch above it.
      const by: LeafHiddenBy = !passesFilter(leafNode, state.filterMode, leaf)
        ? "filter"
        : state.searchFilter && !model.matches.has(leaf)
          ? "search"
          : leafNode.archived && !state.showArchived
            ? "archived"
            : "fold";
      leafHidden = { kind: leafNode.kind, by };
    }
    const facts = {
      filter: FILTER_LABELS[state.filterMode],
      shown: model.visible.count,
      entries: model.view.nodes.count,
      nodes: model.graph.nodes.length,
      leafHidden,
    };
    // One string (a selector's answer is compared by value), split again below.
    return `${at + 1}\n${statusText(facts)}\n${facts.shown}\n${facts.entries}\n${facts.nodes}`;
  });
  if (view === "map") return <MapStatus />;
  if (status === null) return <div className="graph-status" aria-live="polite" />;
  const [cursor, text, shown, entries, nodes] = status.split("\n");
  return (
    <div
      className="graph-status"
      aria-live="polite"
      data-cursor={cursor}
      data-visible={shown}
      data-entries={entries}
      data-nodes={nodes}
    >
      {text}
      {overview ? " · overview (zoomed out)" : null}
    </div>
  );
}

const NO_PROBLEMS: readonly Problem[] = [];
/** A badly damaged file can hold a problem per line: the header lists this many, and counts the rest. */
export const PROBLEMS_LISTED = 500;
/** Problems a file without entries lists at most: what it is, not a scroll of its lines. */
const EMPTY_FILE_PROBLEMS_SHOWN = 5;

/** An empty session, or a file none of whose lines could be read as entries (and why, by line). */
function NoEntries({ problems }: { problems: readonly Problem[] }) {
  // Only an unreadable line means entries may be missing; a notice about the header (a BOM, a version) does not.
  if (!problems.some((problem) => problem.severity === "error")) {
    return <div className="empty">This session has no entries yet.</div>;
  }
  const shown = problems.slice(0, EMPTY_FILE_PROBLEMS_SHOWN);
  return (
    <div className="empty">
      <p>No entries could be read from this file. The file is left as it is.</p>
      <ul className="empty-problems">
        {shown.map((problem) => (
          <li key={`${problem.line}:${problem.kind}:${problem.message}`}>
            {problem.line > 0 ? `Line ${problem.line}: ` : ""}
            {problem.message}
          </li>
        ))}
      </ul>
      {problems.length > shown.length ? (
        <p>{`and ${problems.length - shown.length} more (the header's problems list has the first ${PROBLEMS_LISTED})`}</p>
      ) : null}
    </div>
  );
}

export function SessionGraph() {
  const controller = useController();
  const status = useSession((s) => s.status);
  const error = useSession((s) => s.error);
  const openingId = useSession((s) => s.openingId);
  const hasView = useSession((s) => s.view !== null);
  const empty = useSession((s) => s.view !== null && s.view.nodes.count === 0);
  // Only an empty session's: the panel is not drawn again at each append that brings a problem.
  const problems = useSession((s) =>
    s.view !== null && s.view.nodes.count === 0 ? s.view.problems : NO_PROBLEMS,
  );
  const graphView = useBranches((s) => s.view);
  let body: ReactNode;
  if (status === "error") {
    body = (
      <div className="error-view" role="alert">
        <p>{screenErrors.sessionNotOpened(error ?? "")}</p>
        {openingId ? (
          <button
            type="button"
            onClick={() =>
              void controller.openSession(openingId, controller.stores.session.getState().openingLeafId)
            }
          >
            Try again
          </button>
        ) : null}
      </div>
    );
  } else if (status === "loading" && !hasView) body = <div className="loading">Opening the session…</div>;
  else if (!hasView) body = <div className="empty">Open a session from the library to see its tree.</div>;
  else if (empty) body = <NoEntries problems={problems} />;
  else if (graphView === "map") body = <BranchMapView />;
  else
    body = (
      <div className="graph-canvas" data-testid="graph">
        <Graph />
      </div>
    );
  // The provider holds the viewport, which the status line reads too (overview or not).
  return (
    <section id={GRAPH_PANEL_ID} className="graph-panel" aria-label="Session graph" tabIndex={-1}>
      <ReactFlowProvider>
        {hasView ? <GraphToolbar /> : null}
        {body}
        {hasView ? <StatusLine /> : null}
      </ReactFlowProvider>
    </section>
  );
}
