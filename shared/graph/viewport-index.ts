/**
 * A spatial index over axis-aligned boxes (graph nodes, edges' bounding
 * boxes), so a zoomed-out drawing visits only what a viewport shows and a
 * pointer finds the node under it. A uniform grid in flat arrays, built once
 * per layout in linear time: each box goes into every cell it covers, except
 * boxes covering more than `maxCellsPerBox` cells (a long edge of a wide
 * branch point), which go to one list every query scans. Pure; boxes as data.
 */

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface Point {
  x: number;
  y: number;
}

/** A React Flow style viewport: a flow point p shows at `p * zoom + (x, y)` on screen. */
export interface Viewport {
  x: number;
  y: number;
  zoom: number;
}

export interface BoxIndex {
  /** How many boxes were indexed. */
  readonly size: number;
  /** The box around all of them (an empty box at the origin when there are none). */
  readonly bounds: Box;
  /**
   * Calls `visit` once for each box that intersects `rect` (touching counts), by its index in the
   * boxes given, in no particular order. Returns how many it visited.
   */
  query(rect: Box, visit: (item: number) => void): number;
  /** The box containing `point`, else the nearest one within `radius`; -1 when none is. Ties: the lowest index. */
  nearest(point: Point, radius?: number): number;
}

export interface BoxIndexOptions {
  /** Cell size; by default about one box per cell over the boxes' extent. */
  cellWidth?: number;
  cellHeight?: number;
  /** Boxes covering more cells than this are kept apart and tested on every query. */
  maxCellsPerBox?: number;
}

const DEFAULT_MAX_CELLS_PER_BOX = 16;

/** The rectangle of flow coordinates a viewport of `width` x `height` screen pixels shows. */
export function viewportRect(viewport: Viewport, width: number, height: number): Box {
  return {
    // 0 - x, not -x: no -0 for a viewport at the origin.
    x: (0 - viewport.x) / viewport.zoom,
    y: (0 - viewport.y) / viewport.zoom,
    width: width / viewport.zoom,
    height: height / viewport.zoom,
  };
}

/**
 * Boxes as flat arrays of their sides, box i from (`x0[i]`, `y0[i]`) to
 * (`x1[i]`, `y1[i]`), all of one length: what a caller with many boxes
 * builds instead of an object per box.
 */
export interface BoxSides {
  readonly x0: Float64Array;
  readonly y0: Float64Array;
  readonly x1: Float64Array;
  readonly y1: Float64Array;
}

/** The boxes' sides as flat arrays, and the extent they cover together (all 0 when there are none). */
interface Corners extends BoxSides {
  readonly count: number;
  readonly minX: number;
  readonly minY: number;
  readonly maxX: number;
  readonly maxY: number;
}

/** Sides for `count` boxes, all 0, to be filled in. */
export function boxSides(count: number): BoxSides {
  return {
    x0: new Float64Array(count),
    y0: new Float64Array(count),
    x1: new Float64Array(count),
    y1: new Float64Array(count),
  };
}

function sidesOf(boxes: readonly Box[]): BoxSides {
  const count = boxes.length;
  const sides = boxSides(count);
  for (let i = 0; i < count; i++) {
    const box = boxes[i]!;
    sides.x0[i] = box.x;
    sides.y0[i] = box.y;
    sides.x1[i] = box.x + box.width;
    sides.y1[i] = box.y + box.height;
  }
  return sides;
}

function cornersOf({ x0, y0, x1, y1 }: BoxSides): Corners {
  const count = x0.length;
  let minX = Number.POSITIVE_INFINITY;
  let minY = Number.POSITIVE_INFINITY;
  let maxX = Number.NEGATIVE_INFINITY;
  let maxY = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < count; i++) {
    if (x0[i]! < minX) minX = x0[i]!;
    if (y0[i]! < minY) minY = y0[i]!;
    if (x1[i]! > maxX) maxX = x1[i]!;
    if (y1[i]! > maxY) maxY = y1[i]!;
  }
  if (count === 0) minX = minY = maxX = maxY = 0;
  return { count, x0, y0, x1, y1, minX, minY, maxX, maxY };
}

/** The uniform grid laid over the extent: where a coordinate falls, clamped to the grid's cells. */
class Grid {
  readonly columns: number;
  readonly rows: number;
  private readonly minX: number;
  private readonly minY: number;
  private readonly cellWidth: number;
  private readonly cellHeight: number;

  constructor(corners: Corners, options: BoxIndexOptions) {
    const { count, minX, minY, maxX, maxY } = corners;
    const extentWidth = Math.max(maxX - minX, 1);
    const extentHeight = Math.max(maxY - minY, 1);
    const side = Math.sqrt((extentWidth * extentHeight) / Math.max(count, 1));
    let cellWidth = Math.max(options.cellWidth ?? side, 1e-9);
    let cellHeight = Math.max(options.cellHeight ?? side, 1e-9);
    // At most about four cells a box, so building stays linear whatever cell size was asked for.
    const maxCells = 4 * count + 16;
    const asked = Math.ceil(extentWidth / cellWidth) * Math.ceil(extentHeight / cellHeight);
    if (asked > maxCells) {
      const grow = Math.sqrt(asked / maxCells);
      cellWidth *= grow;
      cellHeight *= grow;
    }
    this.columns = Math.max(1, Math.ceil(extentWidth / cellWidth));
    this.rows = Math.max(1, Math.ceil(extentHeight / cellHeight));
    this.minX = minX;
    this.minY = minY;
    this.cellWidth = cellWidth;
    this.cellHeight = cellHeight;
  }

  column(x: number): number {
    return Math.min(this.columns - 1, Math.max(0, Math.floor((x - this.minX) / this.cellWidth)));
  }

  row(y: number): number {
    return Math.min(this.rows - 1, Math.max(0, Math.floor((y - this.minY) / this.cellHeight)));
  }
}

/**
 * The boxes of each cell as compressed rows: `starts[cell]..starts[cell + 1]` in `items`. Boxes
 * covering more than `maxCellsPerBox` cells are in `large` instead.
 */
interface Cells {
  readonly starts: Int32Array;
  readonly items: Int32Array;
  readonly large: readonly number[];
}

/** Two passes, counting then filling, so the cells are two typed arrays rather than a list per cell. */
function fillCells(corners: Corners, grid: Grid, maxCellsPerBox: number): Cells {
  const { count, x0, y0, x1, y1 } = corners;
  const { columns, rows } = grid;
  const starts = new Int32Array(columns * rows + 1);
  const large: number[] = [];
  const isLarge = new Uint8Array(count);
  for (let i = 0; i < count; i++) {
    const c0 = grid.column(x0[i]!);
    const c1 = grid.column(x1[i]!);
    const r0 = grid.row(y0[i]!);
    const r1 = grid.row(y1[i]!);
    if ((c1 - c0 + 1) * (r1 - r0 + 1) > maxCellsPerBox) {
      isLarge[i] = 1;
      large.push(i);
      continue;
    }
    for (let r = r0; r <= r1; r++) for (let c = c0; c <= c1; c++) starts[r * columns + c + 1]! += 1;
  }
  for (let cell = 0; cell < columns * rows; cell++) starts[cell + 1]! += starts[cell]!;
  const items = new Int32Array(starts[columns * rows]!);
  const fill = starts.slice(0, columns * rows);
  for (let i = 0; i < count; i++) {
    if (isLarge[i]) continue;
    const c0 = grid.column(x0[i]!);
    const c1 = grid.column(x1[i]!);
    const r0 = grid.row(y0[i]!);
    const r1 = grid.row(y1[i]!);
    for (let r = r0; r <= r1; r++)
      for (let c = c0; c <= c1; c++) {
        const cell = r * columns + c;
        items[fill[cell]!] = i;
        fill[cell]! += 1;
      }
  }
  return { starts, items, large };
}

function intersects(
  corners: Corners,
  i: number,
  left: number,
  top: number,
  right: number,
  bottom: number,
): boolean {
  return (
    corners.x0[i]! <= right && corners.x1[i]! >= left && corners.y0[i]! <= bottom && corners.y1[i]! >= top
  );
}

function queryCells(
  corners: Corners,
  grid: Grid,
  cells: Cells,
  rect: Box,
  visit: (item: number) => void,
): number {
  const { count, x0, y0, minX, minY, maxX, maxY } = corners;
  const { starts, items, large } = cells;
  const left = rect.x;
  const top = rect.y;
  const right = rect.x + rect.width;
  const bottom = rect.y + rect.height;
  let visited = 0;
  // Every box, large ones too, lies within the extent.
  if (count === 0 || right < minX || bottom < minY || left > maxX || top > maxY) return 0;
  const qc0 = grid.column(left);
  const qc1 = grid.column(right);
  const qr0 = grid.row(top);
  const qr1 = grid.row(bottom);
  for (let r = qr0; r <= qr1; r++) {
    for (let c = qc0; c <= qc1; c++) {
      const cell = r * grid.columns + c;
      for (let at = starts[cell]!; at < starts[cell + 1]!; at++) {
        const i = items[at]!;
        // A box in several cells is reported from the first of them the query covers.
        if (c !== Math.max(qc0, grid.column(x0[i]!)) || r !== Math.max(qr0, grid.row(y0[i]!))) continue;
        if (!intersects(corners, i, left, top, right, bottom)) continue;
        visited += 1;
        visit(i);
      }
    }
  }
  for (const i of large) {
    if (!intersects(corners, i, left, top, right, bottom)) continue;
    visited += 1;
    visit(i);
  }
  return visited;
}

function nearestBox(index: BoxIndex, corners: Corners, point: Point, radius: number): number {
  const { x0, y0, x1, y1 } = corners;
  let best = -1;
  let bestDistance = Number.POSITIVE_INFINITY;
  index.query({ x: point.x - radius, y: point.y - radius, width: 2 * radius, height: 2 * radius }, (i) => {
    const dx = Math.max(x0[i]! - point.x, 0, point.x - x1[i]!);
    const dy = Math.max(y0[i]! - point.y, 0, point.y - y1[i]!);
    const distance = Math.hypot(dx, dy);
    if (distance > radius) return;
    if (distance < bestDistance || (distance === bestDistance && i < best)) {
      best = i;
      bestDistance = distance;
    }
  });
  return best;
}

export function createBoxIndex(boxes: readonly Box[] | BoxSides, options: BoxIndexOptions = {}): BoxIndex {
  const corners = cornersOf(Array.isArray(boxes) ? sidesOf(boxes) : (boxes as BoxSides));
  const grid = new Grid(corners, options);
  const cells = fillCells(corners, grid, options.maxCellsPerBox ?? DEFAULT_MAX_CELLS_PER_BOX);
  const index: BoxIndex = {
    size: corners.count,
    bounds: {
      x: corners.minX,
      y: corners.minY,
      width: corners.maxX - corners.minX,
      height: corners.maxY - corners.minY,
    },
    query: (rect, visit) => queryCells(corners, grid, cells, rect, visit),
    nearest: (point, radius = 0) => nearestBox(index, corners, point, radius),
  };
  return index;
}
