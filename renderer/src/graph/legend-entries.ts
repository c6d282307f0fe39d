/**
 * What the legend lists, made from the same tables the graph draws with: a
 * sample node of every known role and entry type looked up by `nodeLook`
 * (so the stripe's class and the title are the graph's own), the context
 * shades by the `ContextShade` union (a new shade fails to compile until it
 * is explained here), and the marks and edges. Pure.
 */

import type { TreeNodeView } from "../../../shared/ipc/contract.ts";
import { KNOWN_ENTRY_TYPES, KNOWN_ROLES } from "../../../shared/session/types.ts";
import type { ContextShade } from "../state/stores.ts";
import { nodeLook } from "./node-look.ts";

export interface LegendItem {
  /** Classes of the sample drawn (the graph's own). */
  className: string;
  name: string;
  meaning: string;
}

function sample(type: string, role: string | null, fields: Partial<TreeNodeView> = {}): TreeNodeView {
  return {
    id: "sample",
    parentId: null,
    children: [],
    type,
    role,
    kind: role ?? type,
    preview: "",
    label: null,
    depth: 0,
    line: 0,
    timestamp: "",
    toolNames: ["read"],
    tokenEstimate: 0,
    isError: false,
    toolCallsOnly: false,
    hasText: true,
    stopReason: null,
    tokensBefore: 0,
    targetId: "…",
    archived: false,
    ...fields,
  };
}

/** The left stripe: one sample per role and entry type (messages by role), plus the variants that change it. */
export function stripeItems(): LegendItem[] {
  const nodes: TreeNodeView[] = [
    ...[...KNOWN_ROLES].map((role) => sample("message", role)),
    sample("message", "assistant", { toolCallsOnly: true }),
    sample("message", "toolResult", { isError: true }),
    ...[...KNOWN_ENTRY_TYPES].filter((type) => type !== "message").map((type) => sample(type, null)),
    sample("something-new", null),
  ];
  const seen = new Set<string>();
  const items: LegendItem[] = [];
  for (const node of nodes) {
    const look = nodeLook(node);
    const name = look.title
      .replace(/ · read$/, "")
      .replace(/ · 0 tokens before$/, "")
      .replace(/ → …$/, "");
    if (seen.has(`${look.className}|${name}`)) continue;
    seen.add(`${look.className}|${name}`);
    items.push({ className: `entry-node legend-sample ${look.className}`, name, meaning: meaningOf(node) });
  }
  return items;
}

function meaningOf(node: TreeNodeView): string {
  if (node.toolCallsOnly) return "an answer that only calls tools (dashed stripe)";
  if (node.isError) return "failed: a red border and title";
  if (node.type === "something-new") return "an entry type Arbor does not know (dotted stripe)";
  return node.type === "message" ? `a message of role ${node.role}` : `an entry of type ${node.type}`;
}

/** The fills: how each entry stands in the selected entry's context (context-shades.ts). */
const SHADE_MEANINGS: Readonly<Record<ContextShade, string>> = {
  context: "in the context Pi would send from the selected entry",
  summarised: "on the path, but replaced by a compaction's summary",
  edited: "in the context, changed by a context edit",
  dropped: "on the path, dropped by a context edit",
  path: "on the path, not a message the model sees (a label, a model change…)",
  "off-path": "not on the selected entry's path (faded)",
};

export function shadeItems(): LegendItem[] {
  return (Object.keys(SHADE_MEANINGS) as ContextShade[]).map((shade) => ({
    className: `entry-node legend-sample shade-${shade}`,
    name: shade,
    meaning: SHADE_MEANINGS[shade],
  }));
}

/** Marks on nodes, and the edges. */
export function markItems(): LegendItem[] {
  return [
    { className: "entry-node legend-sample selected", name: "selected", meaning: "the entry taken as leaf" },
    {
      className: "entry-node legend-sample cursor",
      name: "cursor",
      meaning: "the keyboard cursor (arrows move it)",
    },
    {
      className: "entry-node legend-sample leaf",
      name: "leaf",
      meaning: "the file's last entry: Pi goes on from it",
    },
    { className: "entry-node legend-sample match", name: "match", meaning: "matches the search" },
    {
      className: "entry-node legend-sample folded",
      name: "folded",
      meaning: "its branch is folded (Ctrl+Left)",
    },
    {
      className: "chain-node legend-sample",
      name: "chain",
      meaning: "a run of entries without branches: click to expand",
    },
    {
      className: "legend-edge on-path",
      name: "thick edge",
      meaning: "the selected entry's path from the root",
    },
    { className: "legend-edge", name: "thin edge", meaning: "parent to child" },
  ];
}
