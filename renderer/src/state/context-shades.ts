/** How each entry on the selected path stands in its context: the graph's shading. Pure. */

import type { ContextView } from "../../../shared/ipc/contract.ts";
import type { ContextShade } from "./stores.ts";

export function contextShades(view: ContextView): Map<string, ContextShade> {
  const shades = new Map<string, ContextShade>();
  const inContext = new Set(view.messages.map((message) => message.entryId));
  const compactionAt = view.compaction ? view.pathIds.indexOf(view.compaction.entryId) : -1;
  view.pathIds.forEach((id, i) => {
    if (inContext.has(id)) shades.set(id, "context");
    else if (compactionAt >= 0 && i < compactionAt) shades.set(id, "summarised");
    else shades.set(id, "path");
  });
  for (const edit of view.edits) {
    if (shades.has(edit.targetId)) shades.set(edit.targetId, edit.drop ? "dropped" : "edited");
  }
  return shades;
}
