/**
 * Draws the overview scene on a 2D canvas context: the edges as simple
 * elbows, the nodes as rectangles filled by kind and faded by shade, then
 * rings for search matches, new entries, the leaf, the selection and the
 * cursor. Only what intersects the viewport is visited (the scene's viewport
 * index), and each colour is one path, so a frame of 10k nodes is a few
 * dozen fills. It takes the part of CanvasRenderingContext2D it uses, so
 * tests can record the calls.
 */

import { type Viewport, viewportRect } from "../../../shared/graph/index.ts";
import { NODE_HEIGHT, NODE_WIDTH, type PathIds } from "../state/graph-model.ts";
import type { ContextShade, ShadeLookup } from "../state/stores.ts";
import { edgeRoute, OVERVIEW_STYLES, type OverviewScene } from "./overview-scene.ts";

export type OverviewContext = Pick<
  CanvasRenderingContext2D,
  | "setTransform"
  | "clearRect"
  | "beginPath"
  | "rect"
  | "moveTo"
  | "lineTo"
  | "fill"
  | "stroke"
  | "setLineDash"
  | "fillStyle"
  | "strokeStyle"
  | "lineWidth"
  | "globalAlpha"
>;

/** Colours, from the theme's CSS custom properties (see OVERVIEW_COLOUR_VARIABLES). */
export interface OverviewPalette {
  /** By OVERVIEW_STYLES index. */
  styles: readonly string[];
  edge: string;
  path: string;
  accent: string;
  match: string;
  recent: string;
  leaf: string;
  /** What the minimap lays over the graph outside the viewport. */
  mask: string;
}

/** Where each palette colour comes from: renderer/src/styles.css defines them for light and dark. */
export const OVERVIEW_COLOUR_VARIABLES = {
  styles: {
    user: "--user",
    assistant: "--assistant",
    tool: "--tool",
    bash: "--bash",
    custom: "--custom",
    summary: "--summary",
    system: "--muted",
    settings: "--settings",
    error: "--error",
    chain: "--muted",
  } satisfies Record<(typeof OVERVIEW_STYLES)[number], string>,
  edge: "--border",
  path: "--path",
  accent: "--accent",
  match: "--match",
  recent: "--recent",
  leaf: "--text",
  mask: "--panel-2",
} as const;

/** The palette, reading each custom property with `read` (getComputedStyle(...).getPropertyValue). */
export function overviewPalette(read: (variable: string) => string): OverviewPalette {
  const colour = (variable: string) => read(variable).trim() || "#888888";
  const names = OVERVIEW_COLOUR_VARIABLES;
  return {
    styles: OVERVIEW_STYLES.map((style) => colour(names.styles[style])),
    edge: colour(names.edge),
    path: colour(names.path),
    accent: colour(names.accent),
    match: colour(names.match),
    recent: colour(names.recent),
    leaf: colour(names.leaf),
    mask: colour(names.mask),
  };
}

export interface OverviewHighlights {
  /** Entry ids from the root to the selection. */
  path: PathIds;
  /** How path entries stand in the selected context (from the context preview). */
  shades: ShadeLookup;
  /** Entry ids matching the search. */
  matches: ReadonlySet<string>;
  /** Entry ids appended a moment ago. */
  recent: ReadonlySet<string>;
  /** Archived entries, when Show archived draws them: faded as the DOM nodes are. */
  archived?: ((entryId: string) => boolean) | undefined;
  /** Graph node ids. */
  selected: string | null;
  cursor: string | null;
  leaf: string | null;
}

export interface OverviewFrame {
  viewport: Viewport;
  /** CSS pixels. */
  width: number;
  height: number;
  pixelRatio: number;
}

export interface OverviewDrawn {
  nodes: number;
  edges: number;
}

/** Opacity per shade: the context at full strength, what it summarised or dropped and what is off the path fainter. */
const SHADE_ALPHA: Record<ContextShade, number> = {
  context: 1,
  path: 1,
  edited: 1,
  summarised: 0.6,
  dropped: 0.35,
  "off-path": 0.45,
};
const ALPHAS = [...new Set(Object.values(SHADE_ALPHA))];
const ALPHA_LEVEL = Object.fromEntries(
  Object.entries(SHADE_ALPHA).map(([shade, alpha]) => [shade, ALPHAS.indexOf(alpha)]),
) as Record<ContextShade, number>;

/** Line widths and ring offsets in CSS pixels, whatever the zoom. */
const EDGE_PX = 1;
const PATH_EDGE_PX = 2.5;
const PATH_OUTLINE_PX = 1.5;

export function drawOverview(
  ctx: OverviewContext,
  scene: OverviewScene,
  frame: OverviewFrame,
  highlights: OverviewHighlights,
  palette: OverviewPalette,
): OverviewDrawn {
  const { viewport } = frame;
  const zoom = viewport.zoom;
  const px = (pixels: number) => pixels / zoom;
  beginFrame(ctx, frame, { scale: zoom, x: viewport.x, y: viewport.y });
  // A margin of a few pixels, so rings of nodes just outside the view still show at its edge.
  const view = viewportRect(viewport, frame.width, frame.height);
  const margin = px(12);
  const rect = {
    x: view.x - margin,
    y: view.y - margin,
    width: view.width + 2 * margin,
    height: view.height + 2 * margin,
  };
  const { path } = highlights;

  // Edges: off the path first, the path over them.
  const onPathEdges: number[] = [];
  const offPathEdges: number[] = [];
  const edges = scene.edges.query(rect, (edge) => {
    if (path.has(scene.firstEntry[scene.edgeChild[edge]!]!)) onPathEdges.push(edge);
    else offPathEdges.push(edge);
  });
  ctx.setLineDash([]);
  ctx.globalAlpha = 1;
  strokeEdges(ctx, scene, offPathEdges, palette.edge, px(EDGE_PX));
  strokeEdges(ctx, scene, onPathEdges, palette.path, px(PATH_EDGE_PX));

  const filled = fillNodes(ctx, scene, (visit) => scene.nodes.query(rect, visit), highlights, palette, {
    width: NODE_WIDTH,
    height: NODE_HEIGHT,
  });
  const rings = (items: readonly number[], offsetPx: number, widthPx: number, colour: string) =>
    strokeRings(ctx, scene, items, px(offsetPx), px(widthPx), colour);
  rings(filled.onPath, 0, PATH_OUTLINE_PX, palette.path);
  rings(filled.recent, 2, 3, palette.recent);
  rings(filled.matched, 2, 3, palette.match);
  rings(sceneItems(scene, highlights.leaf), 0.5, 2, palette.leaf);
  rings(sceneItems(scene, highlights.selected), 3, 3, palette.accent);
  ctx.setLineDash([px(4), px(3)]);
  rings(sceneItems(scene, highlights.cursor), 7, 2, palette.accent);
  ctx.setLineDash([]);
  return { nodes: filled.count, edges };
}

/** How graph coordinates map to a canvas's CSS pixels: screen = graph * scale + (x, y). */
export interface GraphToScreen {
  scale: number;
  x: number;
  y: number;
}

/** Clears the canvas and sets its transform, so what follows is drawn in graph coordinates at device pixels. */
export function beginFrame(
  ctx: OverviewContext,
  frame: Pick<OverviewFrame, "width" | "height" | "pixelRatio">,
  map: GraphToScreen,
): void {
  const { pixelRatio } = frame;
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.clearRect(0, 0, frame.width * pixelRatio, frame.height * pixelRatio);
  ctx.setTransform(
    pixelRatio * map.scale,
    0,
    0,
    pixelRatio * map.scale,
    pixelRatio * map.x,
    pixelRatio * map.y,
  );
}

/** The scene item of a graph node id, as a list of none or one. */
export function sceneItems(scene: OverviewScene, id: string | null): number[] {
  const item = id === null ? undefined : scene.itemOf.get(id);
  return item === undefined ? [] : [item];
}

/** Strokes the given edges as elbows, as one path. */
export function strokeEdges(
  ctx: OverviewContext,
  scene: OverviewScene,
  edges: readonly number[],
  colour: string,
  lineWidth: number,
): void {
  if (edges.length === 0) return;
  ctx.beginPath();
  const route = new Float64Array(8);
  for (const edge of edges) {
    const parent = scene.edgeParent[edge]!;
    const child = scene.edgeChild[edge]!;
    edgeRoute(scene.direction, scene.x[parent]!, scene.y[parent]!, scene.x[child]!, scene.y[child]!, route);
    ctx.moveTo(route[0]!, route[1]!);
    ctx.lineTo(route[2]!, route[3]!);
    ctx.lineTo(route[4]!, route[5]!);
    ctx.lineTo(route[6]!, route[7]!);
  }
  ctx.strokeStyle = colour;
  ctx.lineWidth = lineWidth;
  ctx.stroke();
}

export interface FilledNodes {
  count: number;
  /** Items on the selected path, matching the search, appended a moment ago. */
  onPath: number[];
  matched: number[];
  recent: number[];
}

/**
 * Fills the nodes `query` visits, one path per colour and opacity, each `size` large (in graph units)
 * about its box's centre: the overview draws them their own size, the minimap at least a pixel.
 */
export function fillNodes(
  ctx: OverviewContext,
  scene: OverviewScene,
  query: (visit: (item: number) => void) => number,
  highlights: Pick<OverviewHighlights, "path" | "shades" | "matches" | "recent" | "archived">,
  palette: OverviewPalette,
  size: { width: number; height: number },
): FilledNodes {
  const { path } = highlights;
  const buckets: number[][] = Array.from({ length: OVERVIEW_STYLES.length * ALPHAS.length }, () => []);
  const filled: FilledNodes = { count: 0, onPath: [], matched: [], recent: [] };
  filled.count = query((item) => {
    const entry = scene.firstEntry[item]!;
    const shade = highlights.archived?.(entry)
      ? "dropped"
      : (highlights.shades.get(entry) ?? (path.has(entry) ? "path" : "off-path"));
    buckets[scene.style[item]! * ALPHAS.length + ALPHA_LEVEL[shade]]!.push(item);
    if (path.has(entry)) filled.onPath.push(item);
    if (!scene.isChain[item] && highlights.matches.has(entry)) filled.matched.push(item);
    if (highlights.recent.has(entry)) filled.recent.push(item);
  });
  const dx = (NODE_WIDTH - size.width) / 2;
  const dy = (NODE_HEIGHT - size.height) / 2;
  buckets.forEach((items, bucket) => {
    if (items.length === 0) return;
    ctx.beginPath();
    for (const item of items) ctx.rect(scene.x[item]! + dx, scene.y[item]! + dy, size.width, size.height);
    ctx.globalAlpha = ALPHAS[bucket % ALPHAS.length]!;
    ctx.fillStyle = palette.styles[Math.floor(bucket / ALPHAS.length)]!;
    ctx.fill();
  });
  ctx.globalAlpha = 1;
  return filled;
}

/** Strokes a rectangle `offset` outside each item's box (graph units), as one path. */
export function strokeRings(
  ctx: OverviewContext,
  scene: OverviewScene,
  items: readonly number[],
  offset: number,
  lineWidth: number,
  colour: string,
): void {
  if (items.length === 0) return;
  ctx.beginPath();
  for (const item of items)
    ctx.rect(
      scene.x[item]! - offset,
      scene.y[item]! - offset,
      NODE_WIDTH + 2 * offset,
      NODE_HEIGHT + 2 * offset,
    );
  ctx.strokeStyle = colour;
  ctx.lineWidth = lineWidth;
  ctx.stroke();
}
