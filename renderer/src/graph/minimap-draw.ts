/**
 * The minimap's two layers, drawn with the overview's pieces (overview-draw.ts):
 * the whole graph fitted into the minimap, each node at least a pixel and
 * coloured by kind, the selected path over it; and on a canvas stacked above,
 * the viewport as a rectangle with the rest of the graph dimmed. The nodes
 * layer is drawn when the layout or the highlights change, the viewport layer
 * on every pan and zoom.
 */

import type { Box, Viewport } from "../../../shared/graph/index.ts";
import { viewportRect } from "../../../shared/graph/index.ts";
import { NODE_HEIGHT, NODE_WIDTH } from "../state/graph-model.ts";
import {
  beginFrame,
  fillNodes,
  type GraphToScreen,
  type OverviewContext,
  type OverviewFrame,
  type OverviewHighlights,
  type OverviewPalette,
  sceneItems,
  strokeEdges,
  strokeRings,
} from "./overview-draw.ts";
import type { OverviewScene } from "./overview-scene.ts";

/** React Flow's minimap size (its MiniMap defaults), in CSS pixels; styles.css sizes the canvases so. */
export const MINIMAP_WIDTH = 200;
export const MINIMAP_HEIGHT = 150;
/** Room around the graph, in CSS pixels, so nodes at its edge are not cut. */
const MINIMAP_PADDING_PX = 5;
/** The smallest a node is drawn, in CSS pixels: at 100k entries a node is a fifth of a pixel wide. */
const MIN_NODE_PX = 1.5;

export type MinimapFrame = Pick<OverviewFrame, "width" | "height" | "pixelRatio">;

/**
 * The graph's bounds fitted into the minimap, centred, aspect kept. Fixed per layout (React Flow's
 * minimap also fits the viewport, so it rescales on pans): the nodes layer then never moves.
 */
export function minimapMapping(bounds: Box, width: number, height: number): GraphToScreen {
  const room = (size: number) => Math.max(1, size - 2 * MINIMAP_PADDING_PX);
  const scale = Math.min(room(width) / Math.max(1, bounds.width), room(height) / Math.max(1, bounds.height));
  return {
    scale,
    x: width / 2 - (bounds.x + bounds.width / 2) * scale,
    y: height / 2 - (bounds.y + bounds.height / 2) * scale,
  };
}

/** The graph point under a point of the minimap (CSS pixels from its top-left corner). */
export function minimapToGraph(
  map: GraphToScreen,
  point: { x: number; y: number },
): { x: number; y: number } {
  return { x: (point.x - map.x) / map.scale, y: (point.y - map.y) / map.scale };
}

/** Draws every node of the scene once, the selected path's edges over them and a ring round the selection. */
export function drawMinimapNodes(
  ctx: OverviewContext,
  scene: OverviewScene,
  frame: MinimapFrame,
  highlights: Pick<OverviewHighlights, "path" | "shades" | "selected">,
  palette: OverviewPalette,
): number {
  const map = minimapMapping(scene.bounds, frame.width, frame.height);
  const px = (pixels: number) => pixels / map.scale;
  beginFrame(ctx, frame, map);
  ctx.setLineDash([]);
  ctx.globalAlpha = 1;
  const count = scene.ids.length;
  const filled = fillNodes(
    ctx,
    scene,
    (visit) => {
      for (let item = 0; item < count; item++) visit(item);
      return count;
    },
    { ...highlights, matches: new Set(), recent: new Set() },
    palette,
    { width: Math.max(NODE_WIDTH, px(MIN_NODE_PX)), height: Math.max(NODE_HEIGHT, px(MIN_NODE_PX)) },
  );
  const onPath = new Set(filled.onPath);
  const pathEdges: number[] = [];
  scene.edgeChild.forEach((child, edge) => {
    if (onPath.has(child)) pathEdges.push(edge);
  });
  strokeEdges(ctx, scene, pathEdges, palette.path, px(2));
  strokeRings(ctx, scene, sceneItems(scene, highlights.selected), px(2), px(2), palette.accent);
  return filled.count;
}

/** Dims the minimap outside the viewport and outlines the viewport (flowWidth x flowHeight at `viewport`). */
export function drawMinimapViewport(
  ctx: OverviewContext,
  scene: OverviewScene,
  frame: MinimapFrame,
  view: { viewport: Viewport; flowWidth: number; flowHeight: number },
  palette: OverviewPalette,
): Box {
  const map = minimapMapping(scene.bounds, frame.width, frame.height);
  beginFrame(ctx, frame, map);
  const box = viewportRect(view.viewport, view.flowWidth, view.flowHeight);
  const whole = minimapToGraph(map, { x: 0, y: 0 });
  ctx.setLineDash([]);
  ctx.beginPath();
  ctx.rect(whole.x, whole.y, frame.width / map.scale, frame.height / map.scale);
  ctx.rect(box.x, box.y, box.width, box.height);
  ctx.globalAlpha = 0.6;
  ctx.fillStyle = palette.mask;
  ctx.fill("evenodd");
  ctx.globalAlpha = 1;
  // The outline is drawn inside the minimap: a view larger than the graph, or panned past its edge, keeps
  // its visible edges on the border; a view wholly off the minimap leaves a mark at the border nearest it.
  const line = 1.5 / map.scale;
  const inset = line / 2;
  const area = {
    x: whole.x + inset,
    y: whole.y + inset,
    width: frame.width / map.scale - line,
    height: frame.height / map.scale - line,
  };
  const left = Math.max(box.x, area.x);
  const top = Math.max(box.y, area.y);
  const right = Math.min(box.x + box.width, area.x + area.width);
  const bottom = Math.min(box.y + box.height, area.y + area.height);
  ctx.strokeStyle = palette.accent;
  ctx.lineWidth = line;
  ctx.beginPath();
  if (right > left && bottom > top) {
    ctx.rect(left, top, right - left, bottom - top);
    ctx.stroke();
  } else {
    const mark = OFF_MINIMAP_MARK_PX / map.scale;
    const clamp = (value: number, from: number, size: number) =>
      Math.min(from + size - mark, Math.max(from, value - mark / 2));
    ctx.rect(
      clamp(box.x + box.width / 2, area.x, area.width),
      clamp(box.y + box.height / 2, area.y, area.height),
      mark,
      mark,
    );
    ctx.fillStyle = palette.accent;
    ctx.fill();
  }
  return box;
}

/** The mark that shows where the view is when it is wholly off the minimap, in CSS pixels. */
const OFF_MINIMAP_MARK_PX = 6;
