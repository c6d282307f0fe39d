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
import { NODE_HEIGHT, NODE_WIDTH } from "../state/graph-model.ts";
import type { ContextShade } from "../state/stores.ts";
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
  };
}

export interface OverviewHighlights {
  /** Entry ids from the root to the selection. */
  path: ReadonlySet<string>;
  /** How path entries stand in the selected context (from the context preview). */
  shades: ReadonlyMap<string, ContextShade>;
  /** Entry ids matching the search. */
  matches: ReadonlySet<string>;
  /** Entry ids appended a moment ago. */
  recent: ReadonlySet<string>;
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
  const { viewport, pixelRatio } = frame;
  const zoom = viewport.zoom;
  const px = (pixels: number) => pixels / zoom;
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.clearRect(0, 0, frame.width * pixelRatio, frame.height * pixelRatio);
  ctx.setTransform(
    pixelRatio * zoom,
    0,
    0,
    pixelRatio * zoom,
    pixelRatio * viewport.x,
    pixelRatio * viewport.y,
  );
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
  ctx.beginPath();
  const route = (edge: number) => {
    const parent = scene.edgeParent[edge]!;
    const child = scene.edgeChild[edge]!;
    const [sx, sy, ax, ay, bx, by, tx, ty] = edgeRoute(
      scene.direction,
      scene.x[parent]!,
      scene.y[parent]!,
      scene.x[child]!,
      scene.y[child]!,
    );
    ctx.moveTo(sx, sy);
    ctx.lineTo(ax, ay);
    ctx.lineTo(bx, by);
    ctx.lineTo(tx, ty);
  };
  const edges = scene.edges.query(rect, (edge) => {
    if (path.has(scene.firstEntry[scene.edgeChild[edge]!]!)) onPathEdges.push(edge);
    else route(edge);
  });
  ctx.setLineDash([]);
  ctx.globalAlpha = 1;
  ctx.strokeStyle = palette.edge;
  ctx.lineWidth = px(EDGE_PX);
  ctx.stroke();
  if (onPathEdges.length > 0) {
    ctx.beginPath();
    for (const edge of onPathEdges) route(edge);
    ctx.strokeStyle = palette.path;
    ctx.lineWidth = px(PATH_EDGE_PX);
    ctx.stroke();
  }

  // Nodes, one path per colour and opacity.
  const buckets: number[][] = Array.from({ length: OVERVIEW_STYLES.length * ALPHAS.length }, () => []);
  const onPath: number[] = [];
  const matched: number[] = [];
  const recent: number[] = [];
  const nodes = scene.nodes.query(rect, (item) => {
    const entry = scene.firstEntry[item]!;
    const shade = highlights.shades.get(entry) ?? (path.has(entry) ? "path" : "off-path");
    buckets[scene.style[item]! * ALPHAS.length + ALPHA_LEVEL[shade]]!.push(item);
    if (path.has(entry)) onPath.push(item);
    if (!scene.isChain[item] && highlights.matches.has(entry)) matched.push(item);
    if (highlights.recent.has(entry)) recent.push(item);
  });
  buckets.forEach((items, bucket) => {
    if (items.length === 0) return;
    ctx.beginPath();
    for (const item of items) ctx.rect(scene.x[item]!, scene.y[item]!, NODE_WIDTH, NODE_HEIGHT);
    ctx.globalAlpha = ALPHAS[bucket % ALPHAS.length]!;
    ctx.fillStyle = palette.styles[Math.floor(bucket / ALPHAS.length)]!;
    ctx.fill();
  });
  ctx.globalAlpha = 1;

  const rings = (items: readonly number[], offsetPx: number, widthPx: number, colour: string) => {
    if (items.length === 0) return;
    const offset = px(offsetPx);
    ctx.beginPath();
    for (const item of items)
      ctx.rect(
        scene.x[item]! - offset,
        scene.y[item]! - offset,
        NODE_WIDTH + 2 * offset,
        NODE_HEIGHT + 2 * offset,
      );
    ctx.strokeStyle = colour;
    ctx.lineWidth = px(widthPx);
    ctx.stroke();
  };
  const one = (id: string | null): number[] => {
    const item = id === null ? undefined : scene.itemOf.get(id);
    return item === undefined ? [] : [item];
  };
  rings(onPath, 0, PATH_OUTLINE_PX, palette.path);
  rings(recent, 2, 3, palette.recent);
  rings(matched, 2, 3, palette.match);
  rings(one(highlights.leaf), 0.5, 2, palette.leaf);
  rings(one(highlights.selected), 3, 3, palette.accent);
  ctx.setLineDash([px(4), px(3)]);
  rings(one(highlights.cursor), 7, 2, palette.accent);
  ctx.setLineDash([]);
  return { nodes, edges };
}
