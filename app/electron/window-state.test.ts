import { describe, expect, it } from "vitest";
import {
  CASCADE_STEP,
  cascade,
  DEFAULT_SIZE,
  fitToScreens,
  parseWindowState,
  serializeWindowState,
  type WindowState,
} from "./window-state.ts";

const laptop = { x: 0, y: 0, width: 1440, height: 875 };
const monitorOnTheRight = { x: 1440, y: 0, width: 2560, height: 1415 };

describe("parseWindowState", () => {
  it("reads what serializeWindowState wrote", () => {
    const state: WindowState = {
      bounds: { x: 10, y: 20, width: 900, height: 700 },
      maximized: true,
      fullScreen: false,
    };
    expect(parseWindowState(serializeWindowState(state))).toEqual(state);
  });

  it("counts anything malformed as nothing saved", () => {
    for (const text of [
      null,
      "",
      "{",
      "null",
      "[]",
      '{"bounds":null}',
      '{"bounds":{"x":0,"y":0,"width":"800","height":600}}',
      '{"bounds":{"x":0,"y":0,"width":0,"height":600}}',
      '{"bounds":{"x":1e999,"y":0,"width":800,"height":600}}',
    ]) {
      expect(parseWindowState(text)).toBeNull();
    }
  });

  it("rounds fractional bounds and reads flags strictly", () => {
    expect(
      parseWindowState(
        '{"bounds":{"x":1.4,"y":2.6,"width":800.5,"height":600},"maximized":"yes","fullScreen":1}',
      ),
    ).toEqual({ bounds: { x: 1, y: 3, width: 801, height: 600 }, maximized: false, fullScreen: false });
  });
});

describe("fitToScreens", () => {
  it("centres the default size on the primary screen when nothing was saved", () => {
    expect(fitToScreens(null, [laptop])).toEqual({
      x: (1440 - DEFAULT_SIZE.width) / 2,
      y: Math.round((875 - DEFAULT_SIZE.height) / 2),
      ...DEFAULT_SIZE,
    });
  });

  it("keeps saved bounds that are on a screen", () => {
    const saved = { x: 1600, y: 100, width: 1200, height: 900 };
    expect(fitToScreens(saved, [laptop, monitorOnTheRight])).toEqual(saved);
  });

  it("moves a window whose screen was unplugged back to the primary screen", () => {
    const saved = { x: 1600, y: 100, width: 1200, height: 800 };
    expect(fitToScreens(saved, [laptop])).toEqual({ x: 120, y: 38, width: 1200, height: 800 });
  });

  it("shrinks a window larger than its screen and pulls it fully onto it", () => {
    expect(fitToScreens({ x: 1200, y: -5, width: 3000, height: 2000 }, [laptop, monitorOnTheRight])).toEqual({
      x: 1440,
      y: 0,
      width: 2560,
      height: 1415,
    });
  });

  it("recovers a window whose title bar is off every screen", () => {
    const aboveTheScreen = { x: 100, y: -700, width: 1000, height: 720 };
    const fitted = fitToScreens(aboveTheScreen, [laptop]);
    expect(fitted.y).toBeGreaterThanOrEqual(0);
    expect(fitted.x).toBeGreaterThanOrEqual(0);
    const sliver = { x: 1430, y: 100, width: 1000, height: 700 };
    expect(fitToScreens(sliver, [laptop]).x + 1000).toBeLessThanOrEqual(1440);
  });

  it("has a size to offer even with no screen information", () => {
    expect(fitToScreens(null, [])).toEqual({ x: 0, y: 0, ...DEFAULT_SIZE });
  });
});

describe("cascade", () => {
  const bounds = { x: 100, y: 50, width: 1000, height: 700 };

  it("leaves a window alone when no other starts at its corner", () => {
    expect(cascade(bounds, [{ ...bounds, x: 300 }], laptop)).toEqual(bounds);
  });

  it("steps past every window already there", () => {
    const open = [bounds, { ...bounds, x: 100 + CASCADE_STEP, y: 50 + CASCADE_STEP }];
    expect(cascade(bounds, open, laptop)).toEqual({
      ...bounds,
      x: 100 + 2 * CASCADE_STEP,
      y: 50 + 2 * CASCADE_STEP,
    });
  });

  it("wraps to the screen's corner instead of walking off it", () => {
    const open = Array.from({ length: 6 }, (_, i) => ({
      ...bounds,
      x: 100 + i * CASCADE_STEP,
      y: 50 + i * CASCADE_STEP,
    }));
    const next = cascade(bounds, open, laptop);
    expect(next.x + next.width).toBeLessThanOrEqual(laptop.width);
    expect(next.y + next.height).toBeLessThanOrEqual(laptop.height);
    expect(open.some((window) => window.x === next.x && window.y === next.y)).toBe(false);
  });
});
