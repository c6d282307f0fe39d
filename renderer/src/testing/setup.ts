/**
 * What happy-dom lacks for React Flow and the virtualiser: element sizes
 * (happy-dom lays nothing out), ResizeObserver and DOMMatrixReadOnly, as
 * React Flow's own testing guide mocks them. Import first in every
 * component test; `cleanup` runs after each test.
 */

import { cleanup } from "@testing-library/react";
import { afterEach } from "vitest";

/** The size every element reports: big enough that every node of a test session is "visible". */
export const TEST_VIEWPORT = { width: 100_000, height: 100_000 };

class TestResizeObserver {
  private readonly callback: ResizeObserverCallback;
  constructor(callback: ResizeObserverCallback) {
    this.callback = callback;
  }
  observe(target: Element) {
    const rect = target.getBoundingClientRect();
    const entry = {
      target,
      contentRect: rect,
      borderBoxSize: [{ inlineSize: rect.width, blockSize: rect.height }],
      contentBoxSize: [{ inlineSize: rect.width, blockSize: rect.height }],
      devicePixelContentBoxSize: [],
    } as unknown as ResizeObserverEntry;
    this.callback([entry], this as unknown as ResizeObserver);
  }
  unobserve() {}
  disconnect() {}
}

class TestDOMMatrixReadOnly {
  m22: number;
  constructor(transform?: string) {
    const scale = transform?.match(/scale\(([0-9.]+)\)/)?.[1];
    this.m22 = scale !== undefined ? Number(scale) : 1;
  }
}

let installed = false;

export function installDomMocks(): void {
  if (installed) return;
  installed = true;
  globalThis.ResizeObserver = TestResizeObserver as unknown as typeof ResizeObserver;
  (globalThis as { DOMMatrixReadOnly?: unknown }).DOMMatrixReadOnly = TestDOMMatrixReadOnly;
  Object.defineProperties(HTMLElement.prototype, {
    offsetWidth: { configurable: true, get: () => TEST_VIEWPORT.width },
    offsetHeight: { configurable: true, get: () => TEST_VIEWPORT.height },
    // What the virtualiser reads for a scroll container's size: a window-sized pane.
    clientWidth: { configurable: true, get: () => 480 },
    clientHeight: { configurable: true, get: () => 800 },
  });
  HTMLElement.prototype.getBoundingClientRect = function getBoundingClientRect() {
    const { width, height } = TEST_VIEWPORT;
    return {
      x: 0,
      y: 0,
      top: 0,
      left: 0,
      right: width,
      bottom: height,
      width,
      height,
      toJSON: () => ({}),
    } as DOMRect;
  };
  (SVGElement.prototype as unknown as { getBBox: () => unknown }).getBBox = () => ({
    x: 0,
    y: 0,
    width: 0,
    height: 0,
  });
}

installDomMocks();
afterEach(() => cleanup());
