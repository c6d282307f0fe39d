/**
 * The geometry a window opens with, as pure maths: read what was saved
 * (anything malformed counts as nothing saved), keep it on a screen that is
 * still attached, and step new windows down and right so they do not sit
 * exactly on top of each other. window.ts does the reading and writing of
 * the JSON file in userData.
 */

export interface Rectangle {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface WindowState {
  /** The window's normal (not maximised, not full-screen) bounds. */
  bounds: Rectangle;
  maximized: boolean;
  fullScreen: boolean;
}

export const DEFAULT_SIZE = { width: 1280, height: 820 } as const;
export const MINIMUM_SIZE = { width: 640, height: 420 } as const;
/** How far each further window steps down and right. */
export const CASCADE_STEP = 28;
/**
 * How much of a window's top strip (where the title bar is) must be on a
 * screen for the window to count as reachable there: enough to grab.
 */
const TITLE_STRIP_HEIGHT = 32;
const MINIMUM_VISIBLE_HEIGHT = 16;
const MINIMUM_VISIBLE_WIDTH = 80;

function isFiniteNumber(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value);
}

/** The saved state, or null when the file's content is not one. */
export function parseWindowState(text: string | null): WindowState | null {
  if (text === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null) return null;
  const record = value as Record<string, unknown>;
  const bounds = record.bounds as Record<string, unknown> | undefined;
  if (typeof bounds !== "object" || bounds === null) return null;
  const { x, y, width, height } = bounds;
  if (!isFiniteNumber(x) || !isFiniteNumber(y) || !isFiniteNumber(width) || !isFiniteNumber(height)) {
    return null;
  }
  if (width <= 0 || height <= 0) return null;
  return {
    bounds: { x: Math.round(x), y: Math.round(y), width: Math.round(width), height: Math.round(height) },
    maximized: record.maximized === true,
    fullScreen: record.fullScreen === true,
  };
}

export function serializeWindowState(state: WindowState): string {
  return `${JSON.stringify(state, null, 2)}\n`;
}

function overlap(a: Rectangle, b: Rectangle): Rectangle | null {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  const right = Math.min(a.x + a.width, b.x + b.width);
  const bottom = Math.min(a.y + a.height, b.y + b.height);
  return right > x && bottom > y ? { x, y, width: right - x, height: bottom - y } : null;
}

function centred(size: { width: number; height: number }, area: Rectangle): Rectangle {
  const width = Math.min(size.width, area.width);
  const height = Math.min(size.height, area.height);
  return {
    x: area.x + Math.round((area.width - width) / 2),
    y: area.y + Math.round((area.height - height) / 2),
    width,
    height,
  };
}

/**
 * Bounds for a window on the screens there are now (their work areas, the
 * primary first). Saved bounds are kept when the top strip of the window
 * (where the title bar is) is still reachable on some screen, shrunk to fit
 * that screen; otherwise the window is centred on the primary screen. With
 * nothing saved: the default size, centred.
 */
export function fitToScreens(saved: Rectangle | null, workAreas: readonly Rectangle[]): Rectangle {
  const primary = workAreas[0] ?? { x: 0, y: 0, ...DEFAULT_SIZE };
  if (saved === null) return centred(DEFAULT_SIZE, primary);
  const titleStrip: Rectangle = { x: saved.x, y: saved.y, width: saved.width, height: TITLE_STRIP_HEIGHT };
  let best: { area: Rectangle; visible: number } | null = null;
  for (const area of workAreas) {
    const shared = overlap(titleStrip, area);
    if (!shared || shared.height < Math.min(MINIMUM_VISIBLE_HEIGHT, saved.height)) continue;
    if (shared.width < Math.min(MINIMUM_VISIBLE_WIDTH, saved.width)) continue;
    if (best === null || shared.width > best.visible) best = { area, visible: shared.width };
  }
  if (best === null) return centred({ width: saved.width, height: saved.height }, primary);
  const area = best.area;
  const width = Math.max(Math.min(saved.width, area.width), Math.min(MINIMUM_SIZE.width, area.width));
  const height = Math.max(Math.min(saved.height, area.height), Math.min(MINIMUM_SIZE.height, area.height));
  // Keep the whole window on that screen once it fits there.
  const x = Math.min(Math.max(saved.x, area.x), area.x + area.width - width);
  const y = Math.min(Math.max(saved.y, area.y), area.y + area.height - height);
  return { x, y, width, height };
}

/**
 * Steps `bounds` down and right past every open window that starts at the
 * same corner, wrapping back to the screen's top-left corner when the next
 * step would leave the work area.
 */
export function cascade(
  bounds: Rectangle,
  openWindows: readonly Rectangle[],
  workArea: Rectangle,
): Rectangle {
  const taken = new Set(openWindows.map((window) => `${window.x},${window.y}`));
  let { x, y } = bounds;
  for (let step = 0; step < 50 && taken.has(`${x},${y}`); step += 1) {
    x += CASCADE_STEP;
    y += CASCADE_STEP;
    if (x + bounds.width > workArea.x + workArea.width || y + bounds.height > workArea.y + workArea.height) {
      x = workArea.x;
      y = workArea.y;
    }
  }
  return { ...bounds, x, y };
}
