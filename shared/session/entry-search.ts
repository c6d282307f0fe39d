/**
 * Full-text search of one session's entries, for the explorer's search box:
 * every word of the query must occur (case-insensitively, anywhere) in what
 * the entry says: its label, type and role, all of its text, the names and
 * arguments of the tools it calls, a bash command, a summary, a custom
 * message. Tool results' output is left out (it is the bulk of a session's
 * bytes, and Pi's `/tree` search skips it too); their tool name counts.
 *
 * The renderer matches what it holds (a preview of each entry) at once;
 * this finds the rest. Texts are built on the first search, reading the
 * bodies in long sequential runs without keeping them, and then only for
 * entries added since. They stay in memory while the session is open: for
 * the e2e perf test's 100k-entry, 40 MB session, 26 MB (measured); each
 * string is cut at 64k characters, so a tool call writing a whole file
 * costs no more than that.
 */

import type { EntryReader } from "./entry-reader.ts";
import type { EntryFacts } from "./facts.ts";
import { isRecord } from "./facts.ts";
import type { SessionIndex, TreeNode } from "./tree-index.ts";
import { assertNever, isKnownEntryType, isKnownRole, type KnownRole, type SessionEntry } from "./types.ts";

/** The words of a query, lowercased; an entry matches when it holds every one. */
export function searchWords(query: string): string[] {
  return query.toLowerCase().split(/\s+/).filter(Boolean);
}

/** A query by its words, joined by one space: two queries that differ in spaces or case have one key. */
export function searchKey(query: string): string {
  return searchWords(query).join(" ");
}

export interface EntrySearchResult {
  /** Matching entry ids, in the order the index holds its nodes (the first line of each id). */
  entryIds: string[];
  /** More entries matched than the limit let through. */
  truncated: boolean;
}

/**
 * Each searched string is cut at this many characters: a tool call that writes
 * a whole file is searched in its first 64k characters, and the texts a search
 * keeps stay a fraction of the session's size.
 */
const MAX_PART_CHARS = 64 * 1024;

/** An entry's searchable text, lowercased, without its label (labels change by appends; they are matched apart). */
export function entrySearchText(entry: SessionEntry, facts: EntryFacts | undefined): string {
  const parts: string[] = [entry.id, String(entry.type)];
  if (facts) parts.push(facts.kind, ...facts.toolNames);
  if (!isKnownEntryType(entry.type)) {
    // An unknown type: its preview, if the facts have one.
    if (facts) parts.push(facts.preview);
  } else {
    switch (entry.type) {
      case "message":
        collectMessage(entry.message, parts);
        break;
      case "custom_message":
        parts.push(String(entry.customType));
        collectText(entry.content, parts);
        break;
      case "compaction":
      case "branch_summary":
        if (typeof entry.summary === "string") parts.push(entry.summary);
        break;
      case "model_change":
      case "thinking_level_change":
      case "custom":
      case "label":
      case "session_info":
      case "usage":
      case "context_edit":
        // Settings and extension entries: their preview (a model, a level, a name) is in the facts.
        if (facts) parts.push(facts.preview);
        break;
      default:
        assertNever(entry, "entry type");
    }
  }
  for (let i = 0; i < parts.length; i++) {
    if (parts[i]!.length > MAX_PART_CHARS) parts[i] = parts[i]!.slice(0, MAX_PART_CHARS);
  }
  return parts.join("\n").toLowerCase();
}

/** Whether a message's text is searched, by role: a tool's output is not (its name is, in the facts). */
const SEARCHES_TEXT: Record<KnownRole, boolean> = {
  user: true,
  assistant: true,
  toolResult: false,
  bashExecution: true,
  custom: true,
  branchSummary: true,
  compactionSummary: true,
  system: true,
};

/** A message's role and what it says (an unknown role's text too). */
function collectMessage(message: unknown, parts: string[]): void {
  if (!isRecord(message)) return;
  const role = message.role;
  if (typeof role === "string") parts.push(role);
  if (isKnownRole(role) && !SEARCHES_TEXT[role]) return;
  collectText(message.content, parts);
  if (Array.isArray(message.content)) {
    for (const block of message.content) {
      if (isRecord(block) && block.type === "toolCall") collectStrings(block.arguments, parts, 0);
    }
  }
  for (const key of ["command", "summary", "errorMessage"] as const) {
    if (typeof message[key] === "string") parts.push(message[key]);
  }
}

/** Strings deep in a tool call's arguments, bounded so a huge argument cannot blow the stack. */
function collectStrings(value: unknown, into: string[], depth: number): void {
  if (depth > 20) return;
  if (typeof value === "string") into.push(value);
  else if (typeof value === "number" || typeof value === "boolean") into.push(String(value));
  else if (Array.isArray(value)) for (const item of value) collectStrings(item, into, depth + 1);
  else if (isRecord(value)) {
    for (const key in value) {
      into.push(key);
      collectStrings(value[key], into, depth + 1);
    }
  }
}

/** The text and thinking blocks of string or block content. */
function collectText(content: unknown, into: string[]): void {
  if (typeof content === "string") {
    into.push(content);
    return;
  }
  if (!Array.isArray(content)) return;
  for (const block of content) {
    if (!isRecord(block)) continue;
    if (block.type === "text" && typeof block.text === "string") into.push(block.text);
    else if (block.type === "thinking" && typeof block.thinking === "string") into.push(block.thinking);
  }
}

/** Deferred bodies are read this many bytes at a time between pauses (see `EntrySearch.search`). */
const BATCH_BYTES = 4 * 1024 * 1024;

/**
 * The search of one index. An index extended in place (appends) keeps the
 * texts built so far; a node object other than the one a text was built
 * from gets its text again.
 */
export class EntrySearch {
  private readonly texts = new Map<string, { node: TreeNode; text: string }>();

  /** `reader`: the whole entries of `index`. */
  constructor(
    readonly index: SessionIndex,
    private readonly reader: EntryReader,
  ) {}

  /**
   * Every entry holding all the query's words, up to `limit`. The first
   * search of a large session reads most of its file: `pause` is awaited
   * between reads of a few MB, so that a caller serving other requests
   * (the main process) can answer them meanwhile.
   */
  async search(query: string, limit: number, pause?: () => Promise<void>): Promise<EntrySearchResult> {
    const words = searchWords(query);
    if (words.length === 0) return { entryIds: [], truncated: false };
    // Entries appended while a pause let other work run are caught up too. A search asked during
    // another's pause reads only what that one has not read yet: each node is looked at when reached.
    while (this.hasMissing()) await this.catchUp(pause);
    const entryIds: string[] = [];
    for (const node of this.index.nodes.values()) {
      const text = this.texts.get(node.id)!.text;
      const label = this.index.labels.get(node.id)?.label.toLowerCase() ?? "";
      if (!words.every((word) => text.includes(word) || label.includes(word))) continue;
      if (entryIds.length === limit) return { entryIds, truncated: true };
      entryIds.push(node.id);
    }
    return { entryIds, truncated: false };
  }

  private hasMissing(): boolean {
    for (const node of this.index.nodes.values()) if (this.texts.get(node.id)?.node !== node) return true;
    return false;
  }

  /**
   * Builds the texts of nodes that have none yet, or a stale one: deferred
   * bodies are read a batch at a time, with a pause after every few MB of
   * the file's lines, whether they were read or were whole already.
   */
  private async catchUp(pause: (() => Promise<void>) | undefined): Promise<void> {
    let batch: TreeNode[] = [];
    let sincePause = 0;
    const readBatch = () => {
      this.reader.readEntries(batch, (node, entry) => this.remember(node, entry));
      batch = [];
    };
    for (const node of [...this.index.nodes.values()]) {
      if (this.texts.get(node.id)?.node === node) continue;
      // Whole already, or a tool result, whose body holds nothing searchable: no need to read it.
      if (!node.deferred || this.reader.facts(node.id)?.kind === "toolResult")
        this.remember(node, node.entry);
      else batch.push(node);
      sincePause += node.byteLength;
      if (sincePause >= BATCH_BYTES) {
        readBatch();
        sincePause = 0;
        if (pause) await pause();
      }
    }
    readBatch();
  }

  private remember(node: TreeNode, entry: SessionEntry): void {
    this.texts.set(node.id, { node, text: entrySearchText(entry, this.reader.facts(node.id)) });
  }
}
