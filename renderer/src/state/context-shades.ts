/** How each entry on the selected path stands in its context: the graph's shading. Pure. */

import type { ContextView, TreeNodeView } from "../../../shared/ipc/contract.ts";
import type { IndexedNodes } from "../../../shared/graph/index.ts";
import type { ContextShade, ShadeLookup } from "./stores.ts";

/** No context: nothing is shaded. */
export const NO_SHADES: ShadeLookup = { get: () => undefined };

const OFF_PATH = 0;
const ON_PATH = 1;
/** On the path, before the compaction in effect: summarised away, unless kept. */
const BEFORE_COMPACTION = 2;

/**
 * The shade of each entry on the context's path, walked along the session
 * view's parent positions: a leaf 100k entries deep costs one typed array,
 * not a list of its path's ids sent along or a map of them.
 */
export function contextShades(context: ContextView, tree: IndexedNodes<TreeNodeView>): ShadeLookup {
  const { indexOf, parent } = tree;
  const leaf = context.leafId === null ? undefined : indexOf.get(context.leafId);
  if (leaf === undefined) return NO_SHADES;
  const place = new Uint8Array(tree.count);
  for (let i = leaf; i !== -1 && place[i] === OFF_PATH; i = parent[i]!) place[i] = ON_PATH;
  const compaction = context.compaction === null ? undefined : indexOf.get(context.compaction.entryId);
  if (compaction !== undefined && place[compaction] === ON_PATH) {
    for (let i = parent[compaction]!; i !== -1 && place[i] === ON_PATH; i = parent[i]!) {
      place[i] = BEFORE_COMPACTION;
    }
  }
  const inContext = new Set(context.messages.map((message) => message.entryId));
  const edited = new Map<string, ContextShade>(
    context.edits.map((edit) => [edit.targetId, edit.drop ? "dropped" : "edited"]),
  );
  return {
    get(entryId) {
      const i = indexOf.get(entryId);
      if (i === undefined || place[i] === OFF_PATH) return undefined;
      const edit = edited.get(entryId);
      if (edit !== undefined) return edit;
      if (inContext.has(entryId)) return "context";
      return place[i] === BEFORE_COMPACTION ? "summarised" : "path";
    },
  };
}
