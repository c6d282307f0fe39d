/**
 * The graph's status line in words, pure: how many entries the filter
 * shows, and when the file's last entry is not among them, what it is and
 * what hides it ("Default filter: 21 of 27 entries shown; the file's last
 * entry is a name change, hidden by this filter").
 */

import {
  isKnownEntryType,
  isKnownRole,
  type KnownEntryType,
  type KnownRole,
} from "../../../shared/session/types.ts";
import { figure } from "../text/figures.ts";

/** What kind of entry the file's last one is, in words, by entry type (a new Pi type must be named here)... */
const TYPE_WORDS: Readonly<Record<KnownEntryType, string>> = {
  message: "a message",
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
};

/** ...and a message's by its role (`TreeNodeView.kind` is a message's role, or else the entry's type). */
const ROLE_WORDS: Readonly<Record<KnownRole, string>> = {
  user: "a user message",
  assistant: "an answer",
  toolResult: "a tool result",
  bashExecution: "a bash command",
  custom: "an extension's message",
  branchSummary: "a branch summary",
  compactionSummary: "a compaction summary",
  system: "a system message",
};

export function kindInWords(kind: string): string {
  // An entry type first: "custom" is both a type (an extension's state) and a role.
  if (isKnownEntryType(kind)) return TYPE_WORDS[kind];
  if (isKnownRole(kind)) return ROLE_WORDS[kind];
  return `an entry of kind "${kind}"`;
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
  let text = `${facts.filter} filter: ${figure(facts.shown)} of ${figure(facts.entries)} ${entries} shown`;
  if (facts.nodes !== facts.shown) text += ` (${figure(facts.nodes)} nodes: long runs folded into chains)`;
  if (facts.leafHidden) {
    text += `; the file's last entry is ${kindInWords(facts.leafHidden.kind)}, ${HIDDEN_WORDS[facts.leafHidden.by]}`;
  }
  return text;
}
