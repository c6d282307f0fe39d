/**
 * What the graph's canvases (the overview, the minimap) share about the page: a backing store sized
 * in device pixels, and the palette read from the theme's custom properties, read again when the
 * system's colour scheme changes; and React Flow's viewport changes.
 */

import type { useStoreApi } from "@xyflow/react";
import type { Controller } from "../state/controller.ts";
import { type OverviewPalette, overviewPalette } from "./overview-draw.ts";

/** A drawing run at most once a frame, however often it is asked for. */
export interface Redraw {
  schedule(): void;
  dispose(): void;
}

export function createRedraw(draw: () => void): Redraw {
  let request = 0;
  const run = () => {
    request = 0;
    draw();
  };
  return {
    schedule() {
      if (request === 0) request = requestAnimationFrame(run);
    },
    dispose() {
      if (request !== 0) cancelAnimationFrame(request);
      request = 0;
    },
  };
}

/**
 * Calls `listener` when what both canvases draw may have changed: React Flow's viewport, the session
 * (graph, selection, direction) or the context's shading. Returns the unsubscribe.
 */
export function onGraphChange(
  controller: Controller,
  flowStore: ReturnType<typeof useStoreApi>,
  listener: () => void,
): () => void {
  const stops = [
    onViewportChange(flowStore, listener),
    controller.stores.session.subscribe(listener),
    controller.stores.context.subscribe((next, previous) => {
      if (next.shades !== previous.shades) listener();
    }),
  ];
  return () => {
    for (const stop of stops) stop();
  };
}

/** Calls `listener` when React Flow's viewport pans, zooms or resizes. Returns the unsubscribe. */
export function onViewportChange(
  flowStore: ReturnType<typeof useStoreApi>,
  listener: () => void,
): () => void {
  return flowStore.subscribe((next, previous) => {
    if (
      next.transform !== previous.transform ||
      next.width !== previous.width ||
      next.height !== previous.height
    )
      listener();
  });
}

/**
 * Sizes the canvas's backing store for `width` x `height` CSS pixels at the device pixel ratio, read
 * each time: moving the window to another screen, or the browser's zoom, changes it. Returns the ratio.
 */
export function sizeCanvas(canvas: HTMLCanvasElement, width: number, height: number): number {
  const pixelRatio = window.devicePixelRatio || 1;
  const backingWidth = Math.max(1, Math.round(width * pixelRatio));
  const backingHeight = Math.max(1, Math.round(height * pixelRatio));
  // Assigning a size clears the canvas, even the same size: only on a change.
  if (canvas.width !== backingWidth) canvas.width = backingWidth;
  if (canvas.height !== backingHeight) canvas.height = backingHeight;
  return pixelRatio;
}

export interface PaletteWatch {
  palette(): OverviewPalette;
  dispose(): void;
}

/** The palette of `element`'s theme; `onChange` runs after the theme changed it (styles.css, theme.ts). */
export function watchPalette(element: Element, onChange: () => void): PaletteWatch {
  const read = (): OverviewPalette => {
    const style = getComputedStyle(element);
    return overviewPalette((variable) => style.getPropertyValue(variable));
  };
  // Read at the first draw, not when the canvas mounts: reading a custom property forces a style
  // recalculation, which in the commit of a large graph costs tens of milliseconds (measured: 35-240 ms
  // opening a 100k-entry session), and in an animation frame is the recalculation the frame does anyway.
  let palette: OverviewPalette | null = null;
  // The theme lives on <html> (renderer/src/theme.ts): a change of it is a change of every colour.
  const observer =
    typeof MutationObserver === "function"
      ? new MutationObserver(() => {
          palette = null;
          onChange();
        })
      : null;
  observer?.observe(element.ownerDocument.documentElement, {
    attributes: true,
    attributeFilter: ["data-theme"],
  });
  return {
    palette: () => {
      palette ??= read();
      return palette;
    },
    dispose: () => observer?.disconnect(),
  };
}
