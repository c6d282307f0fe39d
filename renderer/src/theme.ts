/**
 * Puts the window's theme on the page: `data-theme` on <html> (styles.css
 * keys the dark colours on it), from the appearance store: the chosen theme,
 * or the operating system's for "system". Set once before anything is drawn,
 * from the system's preference, so a dark desktop does not flash light.
 */

import type { StoreApi } from "zustand/vanilla";
import { type AppearanceState, effectiveTheme } from "./state/stores.ts";

export const THEME_ATTRIBUTE = "data-theme";

/** Before the stores exist: the system's colours, until the chosen theme is known. */
export function applySystemThemeEarly(root: HTMLElement): void {
  const dark = typeof matchMedia === "function" && matchMedia("(prefers-color-scheme: dark)").matches;
  root.setAttribute(THEME_ATTRIBUTE, dark ? "dark" : "light");
}

/** Keeps `root`'s theme attribute on the store's effective theme; returns the unsubscribe. */
export function followTheme(root: HTMLElement, appearance: StoreApi<AppearanceState>): () => void {
  const apply = (state: AppearanceState) => {
    const theme = effectiveTheme(state);
    if (root.getAttribute(THEME_ATTRIBUTE) !== theme) root.setAttribute(THEME_ATTRIBUTE, theme);
  };
  apply(appearance.getState());
  return appearance.subscribe(apply);
}
