/**
 * The graph's status line in words, pure: how many entries the filter
 * shows, and when the file's last entry is not among them, what it is and
 * what hides it ("Default filter: 21 of 27 entries shown; the file's last
 * entry is a name change, hidden by this filter").
 */

/** What kind of entry the file's last one is, in words (by `TreeNodeView.kind`: a role or an entry type). */
const KIND_WORDS: Readonly<Record<string, string>> = {
  label: "a label",
  session_info: "a name change",
  model_change: "a model change",
  thinking_level_change: "a thinking level change",
  custom: "an extension's entry",
  custom_message: "an extension's message",
  usage: "a usage record",
  context_edit: "a context edit",
  compaction: "a compaction",
  branch_summary: "a branch summary",
  user: "a user message",
  assistant: "an answer",
  toolResult: "a tool result",
  bashExecution: "a bash command",
  branchSummary: "a branch summary",
  compactionSummary: "a compaction summary",
  system: "a system message",
};

export function kindInWords(kind: string): string {
  return KIND_WORDS[kind] ?? `an entry of kind "${kind}"`;
}

/** What hides the file's last entry, when something does. */
export type LeafHiddenBy = "filter" | "search" | "fold" | "archived";

const HIDDEN_WORDS: Readonly<Record<LeafHiddenBy, string>> = {
  filter: "hidden by this filter",
  search: "hidden by the search (only matches)",
  fold: "hidden in a folded branch",
  archived: "in an archived branch (Show archived shows it)",
};

export interface StatusFacts {
  /** The filter's name as the toolbar's menu shows it ("Default"). */
  filter: string;
  shown: number;
  entries: number;
  /** Graph nodes drawn (entries and folded chains). */
  nodes: number;
  /** The file's last entry, when it is not shown: its kind and why. */
  leafHidden: { kind: string; by: LeafHiddenBy } | null;
}

export function statusText(facts: StatusFacts): string {
  const entries = facts.entries === 1 ? "entry" : "entries";
  let text = `${facts.filter} filter: ${facts.shown.toLocaleString("en-US")} of ${facts.entries.toLocaleString("en-US")} ${entries} shown`;
  if (facts.nodes !== facts.shown)
    text += ` (${facts.nodes.toLocaleString("en-US")} nodes: long runs folded into chains)`;
  if (facts.leafHidden) {
    text += `; the file's last entry is ${kindInWords(facts.leafHidden.kind)}, ${HIDDEN_WORDS[facts.leafHidden.by]}`;
  }
  return text;
}
