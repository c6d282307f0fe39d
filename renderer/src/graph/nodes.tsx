/**
 * The graph's node components, memoised; `nodeTypes` is module-level so
 * React Flow never sees a new object. State that changes with the selection
 * (selected, cursor, path shading, search match, live highlight, folding) is
 * selected per node id from the stores, never carried in node data.
 */

import { Handle, type NodeProps, type NodeTypes, Position } from "@xyflow/react";
import { memo } from "react";
import { showBidiControls } from "../../../shared/text/bidi.ts";
import { UserText } from "../text/user-text.tsx";
import { isFoldable } from "../state/navigation.ts";
import { useContextPreview, useController, useGraphSelect, useLive, useSession } from "../state/hooks.tsx";
import type { ChainFlowNode, EntryFlowNode } from "./flow-elements.ts";
import { nodeLook } from "./node-look.ts";

function useDirectionPositions() {
  const direction = useSession((s) => s.direction);
  return direction === "LR"
    ? { target: Position.Left, source: Position.Right }
    : { target: Position.Top, source: Position.Bottom };
}

/** The shade of an entry: from the context when it has arrived, else on or off the local path. */
function useShade(entryId: string): string {
  const controller = useController();
  const fromContext = useContextPreview((s) => s.shades.get(entryId));
  const onPath = useSession((s) => controller.selectors.pathSet(s).has(entryId));
  return fromContext ?? (onPath ? "path" : "off-path");
}

/** On the node where the file's leaf would be: the leaf itself is hidden by the filter (or is in this chain). */
function HiddenLeafBadge() {
  const leafId = useGraphSelect((model) => model?.view.leafId ?? null);
  const kind = useGraphSelect((model) =>
    leafId === null ? "entry" : (model?.nodesById.get(leafId)?.kind ?? "entry"),
  );
  if (leafId === null) return null;
  return (
    <span
      className="badge leaf-badge"
      title={`The file's leaf ${leafId} (${kind}) is here: hidden by the filter, or inside this chain`}
    >
      leaf ↓
    </span>
  );
}

export const EntryNode = memo(function EntryNode({ id, data }: NodeProps<EntryFlowNode>) {
  const controller = useController();
  const node = data.node;
  const look = nodeLook(node);
  const selected = useSession((s) => s.selectedId === id);
  const cursor = useSession((s) => s.cursorId === id);
  const isLeaf = useSession((s) => s.view?.leafId === id);
  const hostsHiddenLeaf = useGraphSelect((model) => !isLeaf && model?.leafHost === id);
  const folded = useSession((s) => s.folded.has(id));
  const foldable = useGraphSelect((model) => (model ? isFoldable(model.visible, id) : false));
  const match = useGraphSelect((model) => model?.matches.has(id) ?? false);
  const recent = useLive((s) => s.recent.has(id));
  const shade = useShade(id);
  const positions = useDirectionPositions();
  const classes = [
    "entry-node",
    look.className,
    `shade-${shade}`,
    selected ? "selected" : "",
    cursor ? "cursor" : "",
    isLeaf ? "leaf" : "",
    match ? "match" : "",
    recent ? "recent" : "",
    folded ? "folded" : "",
    node.archived ? "archived" : "",
  ]
    .filter(Boolean)
    .join(" ");
  return (
    <div
      className={classes}
      data-kind={node.kind}
      data-shade={shade}
      data-selected={selected ? "true" : undefined}
      aria-current={cursor ? "true" : undefined}
      title={`${look.title}\n${showBidiControls(node.preview)}\n${id} · line ${node.line}`}
    >
      <Handle type="target" position={positions.target} isConnectable={false} />
      <div className="node-title">
        <span className="node-kind">{look.title}</span>
        {node.label !== null ? (
          <span className="badge label" title={showBidiControls(node.label)}>
            <UserText text={node.label} />
          </span>
        ) : null}
        {isLeaf ? <span className="badge leaf-badge">leaf</span> : null}
        {hostsHiddenLeaf ? <HiddenLeafBadge /> : null}
        {foldable || folded ? (
          <button
            type="button"
            className="fold-toggle nodrag nopan"
            aria-label={folded ? "Unfold" : "Fold"}
            aria-expanded={!folded}
            onClick={(event) => {
              event.stopPropagation();
              controller.toggleFold(id);
            }}
          >
            {folded ? "⊞" : "⊟"}
          </button>
        ) : null}
      </div>
      <div className="node-preview">
        {node.preview ? <UserText text={node.preview} /> : <span className="muted">(no text)</span>}
      </div>
      <Handle type="source" position={positions.source} isConnectable={false} />
    </div>
  );
});

export const ChainNode = memo(function ChainNode({ id, data }: NodeProps<ChainFlowNode>) {
  const controller = useController();
  const cursorInside = useGraphSelect(
    (model, state) => state.cursorId !== null && model?.graph.nodeOfEntry.get(state.cursorId) === id,
  );
  const onPath = useSession((s) => controller.selectors.pathSet(s).has(data.first.id));
  const recent = useLive((s) => s.recent.has(data.last.id));
  const hostsLeaf = useGraphSelect((model) => model?.leafHost === id);
  const positions = useDirectionPositions();
  const classes = [
    "chain-node",
    onPath ? "shade-path" : "shade-off-path",
    cursorInside ? "cursor" : "",
    recent ? "recent" : "",
  ]
    .filter(Boolean)
    .join(" ");
  return (
    <div className={classes} title="A run of entries without branches: click to expand">
      <Handle type="target" position={positions.target} isConnectable={false} />
      <div className="node-title">
        <span className="node-kind">{data.entryIds.length} entries</span>
        {hostsLeaf ? <HiddenLeafBadge /> : null}
        <span className="badge">expand</span>
      </div>
      <div className="node-preview chain-ends">
        <UserText text={data.first.preview || nodeLook(data.first).title} />
        <span className="chain-ellipsis">…</span>
        <UserText text={data.last.preview || nodeLook(data.last).title} />
      </div>
      <Handle type="source" position={positions.source} isConnectable={false} />
    </div>
  );
});

export const nodeTypes: NodeTypes = { entry: EntryNode, chain: ChainNode };
