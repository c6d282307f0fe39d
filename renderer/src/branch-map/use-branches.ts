/** Hooks over the branches part's store (see branches-part.ts). */

import { useStore } from "zustand";
import { useController } from "../state/hooks.tsx";
import type { BranchesState } from "./branches-part.ts";

export function useBranches<T>(selector: (state: BranchesState) => T): T {
  return useStore(useController().branches.store, selector);
}
