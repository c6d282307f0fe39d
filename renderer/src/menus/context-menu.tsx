/**
 * A context menu: a list of items at a point of the window, driven by the
 * keyboard as a desktop menu is (Up/Down, Home/End, Enter or Space, Escape,
 * a letter goes to the next item starting with it) and closed by a click
 * outside it, a scroll, or the window losing focus. Focus goes back where it
 * was when it closes.
 */

import {
  type KeyboardEvent as ReactKeyboardEvent,
  type RefObject,
  useEffect,
  useLayoutEffect,
  useRef,
  useState,
} from "react";
import type { MenuItem } from "./menu-items.ts";

/** Space kept between the menu and the window's edge. */
const EDGE_PX = 4;

export interface ContextMenuProps {
  items: readonly MenuItem[];
  /** The menu's top-left corner, in the window's coordinates (moved in when it would not fit). */
  at: { x: number; y: number };
  /** Names the menu for assistive technology. */
  label: string;
  onClose(): void;
}

type Runnable = Extract<MenuItem, { kind: "item" }>;

function enabledIndexes(items: readonly MenuItem[]): number[] {
  const indexes: number[] = [];
  items.forEach((item, index) => {
    if (item.kind === "item" && !item.disabled) indexes.push(index);
  });
  return indexes;
}

/** The item a key moves to from `current` (an index into `items`), or null when the key is not a move. */
export function menuKeyTarget(items: readonly MenuItem[], current: number, key: string): number | null {
  const enabled = enabledIndexes(items);
  if (enabled.length === 0) return null;
  const at = enabled.indexOf(current);
  switch (key) {
    case "ArrowDown":
      return enabled[(at + 1) % enabled.length]!;
    case "ArrowUp":
      return enabled[at <= 0 ? enabled.length - 1 : at - 1]!;
    case "Home":
      return enabled[0]!;
    case "End":
      return enabled[enabled.length - 1]!;
  }
  if (key.length !== 1 || key === " ") return null;
  // A letter: the next item after the current one that starts with it, wrapping.
  const letter = key.toLowerCase();
  for (let step = 1; step <= enabled.length; step++) {
    const index = enabled[(at + step + enabled.length) % enabled.length]!;
    if ((items[index] as Runnable).label.toLowerCase().startsWith(letter)) return index;
  }
  return null;
}

/** The menu's place: `at`, moved left or up as far as needed to keep it inside the window once measured. */
function useInsideWindow(menu: RefObject<HTMLDivElement | null>, at: { x: number; y: number }) {
  const [place, setPlace] = useState(at);
  useLayoutEffect(() => {
    const box = menu.current?.getBoundingClientRect();
    if (!box) return;
    const x = Math.max(EDGE_PX, Math.min(at.x, window.innerWidth - box.width - EDGE_PX));
    const y = Math.max(EDGE_PX, Math.min(at.y, window.innerHeight - box.height - EDGE_PX));
    setPlace({ x, y });
  }, [at, menu]);
  return place;
}

/**
 * Closes on a click outside, a wheel turn, a resize or the window losing focus; focus goes back when it
 * closes. Not on any `scroll` event: the window scrolls panels itself (the inspector shows the entry the
 * right-click selected), and every scroll a person makes starts with a wheel turn or a pointer down.
 */
function useDismiss(menu: RefObject<HTMLDivElement | null>, close: RefObject<() => void>) {
  useEffect(() => {
    const before = document.activeElement;
    const outside = (event: Event) => {
      if (!(event.target instanceof Node) || !menu.current?.contains(event.target)) close.current();
    };
    const blur = () => close.current();
    const listeners: [string, (event: Event) => void, boolean][] = [
      ["pointerdown", outside, true],
      ["wheel", outside, true],
      ["resize", blur, false],
      ["blur", blur, false],
    ];
    for (const [name, listener, capture] of listeners) window.addEventListener(name, listener, capture);
    return () => {
      for (const [name, listener, capture] of listeners) window.removeEventListener(name, listener, capture);
      // Unless an action moved the focus on (a dialog's field), it goes back where it was.
      const now = document.activeElement;
      const lost = now === null || now === document.body || (menu.current?.contains(now) ?? false);
      if (lost && before instanceof HTMLElement && before.isConnected) before.focus({ preventScroll: true });
    };
  }, [menu, close]);
}

export function ContextMenu({ items, at, label, onClose }: ContextMenuProps) {
  const menu = useRef<HTMLDivElement>(null);
  const [active, setActive] = useState(() => enabledIndexes(items)[0] ?? -1);
  const close = useRef(onClose);
  close.current = onClose;
  const place = useInsideWindow(menu, at);
  useDismiss(menu, close);

  useEffect(() => {
    menu.current?.querySelector<HTMLElement>(`[data-index="${active}"]`)?.focus({ preventScroll: true });
  }, [active]);

  const run = (item: Runnable) => {
    if (item.disabled) return;
    close.current();
    item.run();
  };

  const onKeyDown = (event: ReactKeyboardEvent) => {
    // The window's own keys (the graph's arrows, Ctrl+Z) never see the menu's.
    event.stopPropagation();
    if (event.key === "Escape" || event.key === "Tab") {
      event.preventDefault();
      close.current();
      return;
    }
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      const item = items[active];
      if (item?.kind === "item") run(item);
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const next = menuKeyTarget(items, active, event.key);
    if (next !== null) {
      event.preventDefault();
      setActive(next);
    }
  };

  return (
    <div
      ref={menu}
      className="context-menu"
      role="menu"
      aria-label={label}
      tabIndex={-1}
      style={{ left: place.x, top: place.y }}
      onKeyDown={onKeyDown}
      onContextMenu={(event) => event.preventDefault()}
    >
      {items.map((item, index) =>
        item.kind === "separator" ? (
          <hr key={item.id} className="menu-separator" />
        ) : (
          <div
            key={item.id}
            role="menuitem"
            className="menu-item"
            data-item={item.id}
            data-index={index}
            tabIndex={index === active ? 0 : -1}
            aria-disabled={item.disabled ? "true" : undefined}
            title={item.hint}
            onPointerMove={() => {
              if (!item.disabled && index !== active) setActive(index);
            }}
            onClick={() => run(item)}
            onKeyDown={() => undefined}
          >
            <span className="menu-label">{item.label}</span>
            {item.shortcut ? <kbd className="menu-shortcut">{item.shortcut}</kbd> : null}
          </div>
        ),
      )}
    </div>
  );
}
