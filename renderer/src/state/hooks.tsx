/**
 * Thin hooks over the vanilla stores: each component selects the one field
 * it needs (`useShallow` for derived arrays). The controller and its stores
 * come from one provider, so a test renders with its own fresh set.
 */

import { createContext, type ReactNode, useContext } from "react";
import { useStore } from "zustand";
import type { Controller } from "./controller.ts";
import type { GraphModel, PathIds } from "./graph-model.ts";
import {
  type AppearanceState,
  type ContextState,
  effectiveTheme,
  type LibraryState,
  type LiveState,
  type SessionState,
} from "./stores.ts";
import type { ManageState } from "./manage-state.ts";

const ControllerContext = createContext<Controller | null>(null);

export function ControllerProvider({
  controller,
  children,
}: {
  controller: Controller;
  children: ReactNode;
}) {
  return <ControllerContext.Provider value={controller}>{children}</ControllerContext.Provider>;
}

export function useController(): Controller {
  const controller = useContext(ControllerContext);
  if (!controller) throw new Error("useController() needs a <ControllerProvider> above it.");
  return controller;
}

export function useLibrary<T>(selector: (state: LibraryState) => T): T {
  return useStore(useController().stores.library, selector);
}

export function useSession<T>(selector: (state: SessionState) => T): T {
  return useStore(useController().stores.session, selector);
}

export function useContextPreview<T>(selector: (state: ContextState) => T): T {
  return useStore(useController().stores.context, selector);
}

export function useAppearance<T>(selector: (state: AppearanceState) => T): T {
  return useStore(useController().stores.appearance, selector);
}

/** The colours the window shows now ("light" or "dark"): the chosen theme, or the system's. */
export function useEffectiveTheme(): "light" | "dark" {
  return useAppearance(effectiveTheme);
}

export function useManage<T>(selector: (state: ManageState) => T): T {
  return useStore(useController().stores.manage, selector);
}

export function useLive<T>(selector: (state: LiveState) => T): T {
  return useStore(useController().stores.live, selector);
}

/** The derived graph model (memoised, so the same object until its inputs change). */
export function useGraphModel(): GraphModel | null {
  const controller = useController();
  return useStore(controller.stores.session, controller.selectors.model);
}

export function useGraphSelect<T>(selector: (model: GraphModel | null, state: SessionState) => T): T {
  const controller = useController();
  return useStore(controller.stores.session, (state) => selector(controller.selectors.model(state), state));
}

export function usePathSet(): PathIds {
  const controller = useController();
  return useStore(controller.stores.session, controller.selectors.pathSet);
}
