/**
 * A stand-in for the browser's CanvasRenderingContext2D, which happy-dom does not have: it records
 * each fill and stroke with the shapes of its path and the style it was painted in. A test double
 * of a browser API, not of our code; the real canvases are drawn and read back in Chromium by
 * e2e/serve.perf.spec.ts and e2e/serve.explorer.spec.ts.
 */

import type { Box } from "../../../shared/graph/index.ts";
import type { OverviewContext } from "../graph/overview-draw.ts";

export interface Paint {
  kind: "fill" | "stroke";
  style: string;
  alpha: number;
  lineWidth: number;
  dash: number[];
  rects: Box[];
  /** Polylines: x, y pairs. */
  lines: number[][];
  /** A fill's rule. */
  rule: CanvasFillRule;
}

export class RecordingContext implements OverviewContext {
  fillStyle: string | CanvasGradient | CanvasPattern = "#000000";
  strokeStyle: string | CanvasGradient | CanvasPattern = "#000000";
  lineWidth = 1;
  globalAlpha = 1;
  transforms: number[][] = [];
  cleared: number[][] = [];
  paints: Paint[] = [];
  private dash: number[] = [];
  private rects: Box[] = [];
  private lines: number[][] = [];

  setTransform(a?: unknown, b?: number, c?: number, d?: number, e?: number, f?: number): void {
    this.transforms.push([a as number, b!, c!, d!, e!, f!]);
  }
  clearRect(x: number, y: number, width: number, height: number): void {
    this.cleared.push([x, y, width, height]);
  }
  beginPath(): void {
    this.rects = [];
    this.lines = [];
  }
  rect(x: number, y: number, width: number, height: number): void {
    this.rects.push({ x, y, width, height });
  }
  moveTo(x: number, y: number): void {
    this.lines.push([x, y]);
  }
  lineTo(x: number, y: number): void {
    this.lines[this.lines.length - 1]!.push(x, y);
  }
  setLineDash(segments: number[]): void {
    this.dash = [...segments];
  }
  fill(rule: unknown = "nonzero"): void {
    this.paint("fill", String(this.fillStyle), rule as CanvasFillRule);
  }
  stroke(): void {
    this.paint("stroke", String(this.strokeStyle));
  }
  private paint(kind: Paint["kind"], style: string, rule: CanvasFillRule = "nonzero") {
    this.paints.push({
      kind,
      style,
      alpha: this.globalAlpha,
      lineWidth: this.lineWidth,
      dash: this.dash,
      rects: this.rects,
      lines: this.lines,
      rule,
    });
  }
}
