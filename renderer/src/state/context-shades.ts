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

/** On the path and giving the context a message (`ContextView.pathRuns`); a flag over the others. */
const GIVES = 4;

/**
 * The shade of each entry on the context's path, walked along the session
 * view's parent positions: a leaf 100k entries deep costs one typed array,
 * not a list of its path's ids sent along or a map of them. Which entries
 * give the context a message comes as run lengths along the same walk
 * (`pathRuns`), so a context sent in pages shades as one sent whole.
 */
export function contextShades(context: ContextView, tree: IndexedNodes<TreeNodeView>): ShadeLookup {
  const { indexOf, parent } = tree;
  const leaf = context.leafId === null ? undefined : indexOf.get(context.leafId);
  if (leaf === undefined) return NO_SHADES;
  const place = new Uint8Array(tree.count);
  const runs = context.pathRuns;
  let run = 0;
  let left = runs[0] ?? 0;
  for (let i = leaf; i !== -1 && place[i] === OFF_PATH; i = parent[i]!) {
    while (left === 0 && run < runs.length - 1) left = runs[++run]!;
    place[i] = ON_PATH | (run % 2 === 0 && left > 0 ? GIVES : 0);
    if (left > 0) left--;
  }
  const compaction = context.compaction === null ? undefined : indexOf.get(context.compaction.entryId);
  if (compaction !== undefined && place[compaction] !== OFF_PATH) {
    for (let i = parent[compaction]!; i !== -1 && (place[i]! & ON_PATH) !== 0; i = parent[i]!) {
      place[i] = (place[i]! & GIVES) | BEFORE_COMPACTION;
    }
  }
  const edited = new Map<string, ContextShade>(
    context.edits.map((edit) => [edit.targetId, edit.drop ? "dropped" : "edited"]),
  );
  return {
    get(entryId) {
      const i = indexOf.get(entryId);
      if (i === undefined || place[i] === OFF_PATH) return undefined;
      const edit = edited.get(entryId);
      if (edit !== undefined) return edit;
      if ((place[i]! & GIVES) !== 0) return "context";
      return (place[i]! & BEFORE_COMPACTION) !== 0 ? "summarised" : "path";
    },
  };
}
