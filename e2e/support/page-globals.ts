/**
 * Types for the code the tests run inside the page (`page.evaluate`): the
 * tsconfig that checks e2e/ (tsconfig.node.json) has no DOM library, so a
 * page function takes the globals it uses from `globalThis` as these, e.g.
 * `const { document } = globalThis as unknown as PageGlobals;`. Only what
 * the tests use is declared.
 */

export interface PageNode {
  textContent: string | null;
  remove(): void;
}

export interface PageElement extends PageNode {
  click(): void;
  readonly attributes: Iterable<{ name: string; value: string }>;
  getAttribute(name: string): string | null;
  hasAttribute(name: string): boolean;
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): ArrayLike<PageElement> & Iterable<PageElement>;
  closest(selector: string): PageElement | null;
  cloneNode(deep: boolean): PageElement;
  append(...nodes: PageNode[]): void;
  addEventListener(type: string, listener: (event: PageEvent) => void, options?: object): void;
  blur(): void;
}

export interface PageEvent {
  /** `securitypolicyviolation` events. */
  effectiveDirective?: string;
}

export interface PageDocument extends PageElement {
  readonly body: PageElement;
  readonly activeElement: PageElement | null;
  title: string;
  createElement(tag: string): PageElement;
}

export interface PageMutationObserver {
  observe(
    target: PageElement,
    options: { subtree?: boolean; childList?: boolean; attributes?: boolean },
  ): void;
  disconnect(): void;
}

export interface PagePerformanceObserver {
  observe(options: { type: string; buffered?: boolean }): void;
  takeRecords(): { startTime: number; duration: number }[];
  disconnect(): void;
}

export interface PageGlobals {
  document: PageDocument;
  location: { href: string };
  navigator: { clipboard: { readText(): Promise<string>; writeText(text: string): Promise<void> } };
  performance: {
    now(): number;
    getEntriesByName(name: string): { startTime: number }[];
    clearMarks(): void;
  };
  requestAnimationFrame(callback: (now: number) => void): number;
  getComputedStyle(element: PageElement): { backgroundColor: string; color: string };
  MutationObserver: new (callback: () => void) => PageMutationObserver;
  PerformanceObserver: new (
    callback: (list: { getEntries(): { startTime: number; duration: number }[] }) => void,
  ) => PagePerformanceObserver;
}
