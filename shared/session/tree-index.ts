/**
 * The tree index: every entry by id, children in Pi's order, roots, depth,
 * the file's leaf, resolved labels, the session name. Data only: the whole
 * entries of an index built structure-first are read through an
 * `EntryReader` (entry-reader.ts). Built in one linear pass over the parsed
 * records (plus sorting children, which is linear when they are already in
 * order, as they almost always are).
 *
 * Damage is reported and worked around the way Pi reads it where Pi reads it
 * at all: a later duplicate id wins; an entry whose parent is missing is a
 * root; a parent cycle, which makes Pi loop forever, is broken at its
 * earliest line (tree-links.ts). Appended lines are added by
 * `extendSessionIndex` (extend-index.ts).
 */

import { isArchiveMarkerEntry } from "./arbor-entries.ts";
import type { EntryFacts } from "./facts.ts";
import { validateEntry } from "./entry-validation.ts";
import { migrateInMemory } from "./migrate.ts";
import type { ParsedSession } from "./parse.ts";
import type { RecordTable } from "./record-table.ts";
import { type Problem, problem } from "./problems.ts";
import { linkParents } from "./tree-links.ts";
import type { SessionEntry, SessionHeader } from "./types.ts";

export interface TreeNode {
  readonly id: string;
  readonly entry: SessionEntry;
  /** 1-based line of the entry (the later one, for a duplicate id): no two nodes of an index share one. */
  readonly line: number;
  readonly offset: number;
  readonly byteLength: number;
  /** Parent in the tree: `null` for roots, orphans and the entry where a cycle was broken (`parent`'s id). */
  readonly parentId: string | null;
  /** The parent node itself: walks follow it without id lookups. */
  parent: TreeNode | null;
  /** `entry` is a skim; the whole entry is read on demand (`EntryReader.entryOfNode`). */
  readonly deferred: boolean;
  /**
   * Child ids in Pi's `/tree` order: by timestamp, file order on ties. Read
   * only, and possibly made for this read (a node with one child keeps just
   * its id): the tree's builders change it through `addChild` and `setChildren`.
   */
  readonly children: readonly string[];
  /** `children.length`, without making a list to read it from. */
  readonly childCount: number;
  depth: number;
  /** Role, preview, tool names, token estimate: kept from the parse, or computed when first asked (`EntryReader.factsOfNode`). */
  facts: EntryFacts | undefined;
  /** Adds `id` after the other children (the builders in tree-links.ts and extend-index.ts only). */
  addChild(id: string): void;
  /** Replaces the children by a copy of `ids` (the builders in tree-links.ts only: sorting, cutting a cycle). */
  setChildren(ids: readonly string[]): void;
}

export interface LabelState {
  label: string;
  timestamp: string;
}

export interface SessionIndex {
  header: SessionHeader | null;
  headerLine: number | null;
  /** The version the file declares (1 when missing); entries are always version 3 in memory. */
  version: number;
  /** Every entry in file order, as Pi's `getEntries()` lists them (an overridden duplicate too). */
  entries: SessionEntry[];
  /** Pi's `byId`: the later line wins for a duplicate id (each node's entry, seen by id). */
  byId: ReadonlyMap<string, SessionEntry>;
  nodes: Map<string, TreeNode>;
  /** Root ids in file order (true roots, orphans, broken cycles). */
  roots: string[];
  /** Entries whose parent is not in the file. */
  orphans: string[];
  /**
   * The last entry in file order: where Pi resumes. `null` for an empty
   * session, and when a non-entry value follows the last entry (Pi then
   * resumes with an empty context; see `trailingNonEntryLine`).
   */
  leafId: string | null;
  trailingNonEntryLine: number | null;
  labels: Map<string, LabelState>;
  sessionName: string | undefined;
  /** Ids of Arbor's archive markers, in file order (their targets: `archivedTargets` in arbor-entries.ts). */
  archiveMarkers: string[];
  parentSession: string | undefined;
  problems: Problem[];
  byteLength: number;
  lineCount: number;
  unterminatedLastLine: ParsedSession["unterminatedLastLine"];
  /**
   * True when the index was built structure-first: `entries`, `byId` and
   * `nodes[].entry` then hold each entry's small fields only (type, ids,
   * timestamp, label fields, the message's role...), and whole entries are
   * read from the file by an `EntryReader`.
   */
  deferredBodies: boolean;
  /** What the index was built from, kept so appended lines can be added (`extendSessionIndex`). */
  readonly source: IndexSource;
}

/** The parse behind an index: its records and the parser's own problems. */
export interface IndexSource {
  header: SessionHeader | null;
  headerLine: number | null;
  records: RecordTable;
  parseProblems: Problem[];
}

/** Builds the index; `parsed` is migrated in memory first and should not be reused. */
export function buildSessionIndex(parsed: ParsedSession): SessionIndex {
  // Taken before the migration and the index add their own problems.
  const source: IndexSource = {
    header: parsed.header,
    headerLine: parsed.headerLine,
    records: parsed.records,
    parseProblems: parsed.problems.slice(),
  };
  const version = migrateInMemory(parsed);
  const problems = parsed.problems;
  const { entries, nodes, labels, sessionName, archiveMarkers } = indexRecords(parsed.records, problems);
  const { roots, orphans } = linkParents(nodes, problems);
  const lastEntry = entries[entries.length - 1];
  const header = parsed.header;
  return {
    header,
    headerLine: parsed.headerLine,
    version,
    entries,
    byId: new EntriesById(nodes),
    nodes,
    roots,
    orphans,
    leafId: lastEntry && parsed.trailingNonEntryLine === null ? lastEntry.id : null,
    trailingNonEntryLine: parsed.trailingNonEntryLine,
    labels,
    sessionName,
    archiveMarkers,
    parentSession: typeof header?.parentSession === "string" ? header.parentSession : undefined,
    problems: problems.sort((a, b) => a.line - b.line),
    byteLength: parsed.byteLength,
    lineCount: parsed.lineCount,
    unterminatedLastLine: parsed.unterminatedLastLine,
    deferredBodies: parsed.records.someDeferred(),
    source,
  };
}

/** What one pass over the records gives: the entries, a node per id, and the labels and name they set. */
interface IndexedRecords {
  entries: SessionEntry[];
  nodes: Map<string, TreeNode>;
  labels: Map<string, LabelState>;
  sessionName: string | undefined;
  archiveMarkers: string[];
}

/** Validates each record and makes its node, in file order (nodes are not linked yet). */
function indexRecords(records: RecordTable, problems: Problem[]): IndexedRecords {
  const count = records.length;
  // Made at its final length: grown by pushes, a million entries leave their old stores behind at the open's peak.
  const entries = new Array<SessionEntry>(count);
  const indexed: IndexedRecords = {
    entries,
    nodes: new Map(),
    labels: new Map(),
    sessionName: undefined,
    archiveMarkers: [],
  };
  const ids = new IdTable(indexed.nodes, problems, entries, records);
  for (let i = 0; i < count; i++) {
    const line = records.line(i);
    const entry = validateEntry(records.value(i), line, problems);
    // The node keeps the facts the parser kept (structure-with-facts); a later line with the same id replaces it.
    ids.add(createNode(records, i, entry), i);
    entries[i] = entry;
    applyLabelOrName(indexed, entry);
  }
  return indexed;
}

/**
 * Puts nodes in the map by id, a later line replacing an earlier one with
 * the same id (Pi's rule), and reports each id used again. One map operation
 * per node: a duplicate id shows as a map that did not grow.
 */
class IdTable {
  /** From the first duplicate id on: the line of the latest node of each id. */
  private latestLineOfId: Map<string, number> | null = null;
  /** Filled only for ids seen twice: the line that used the id first. */
  private readonly firstLineOfId = new Map<string, number>();

  /** `entries`: the index's list, filled in file order as nodes are added, each from its row of `records`. */
  constructor(
    private readonly nodes: Map<string, TreeNode>,
    private readonly problems: Problem[],
    private readonly entries: readonly SessionEntry[],
    private readonly records: RecordTable,
  ) {}

  /** Adds the node of the entry after the first `entriesBefore` entries. */
  add(node: TreeNode, entriesBefore: number): void {
    const nodes = this.nodes;
    const size = nodes.size;
    nodes.set(node.id, node);
    let previousLine: number | undefined;
    if (this.latestLineOfId !== null) {
      previousLine = this.latestLineOfId.get(node.id);
      this.latestLineOfId.set(node.id, node.line);
    } else if (nodes.size === size) {
      // The first id used again: the entries before say which line of each id came last.
      const latestLineOfId = new Map<string, number>();
      for (let i = 0; i < entriesBefore; i++) latestLineOfId.set(this.entries[i]!.id, this.records.line(i));
      previousLine = latestLineOfId.get(node.id);
      latestLineOfId.set(node.id, node.line);
      this.latestLineOfId = latestLineOfId;
    }
    if (previousLine !== undefined) this.reportDuplicate(previousLine, node);
  }

  private reportDuplicate(previousLine: number, node: TreeNode): void {
    const id = node.id;
    const first = this.firstLineOfId.get(id) ?? previousLine;
    this.firstLineOfId.set(id, first);
    this.problems.push(
      problem(
        "duplicate-id",
        previousLine,
        `Entry id "${id}" is used again at line ${node.line}; that later line wins, as in Pi.`,
        { relatedLine: node.line, entryId: id },
      ),
      problem(
        "duplicate-id",
        node.line,
        `Entry id "${id}" was already used at line ${first}; this line replaces it, as in Pi.`,
        { relatedLine: first, entryId: id },
      ),
    );
  }
}

/** The node of the entry parsed into `row` of `records`. */
export function createNode(records: RecordTable, row: number, entry: SessionEntry): TreeNode {
  return new IndexNode(records, row, entry);
}

/** The children of a node without any: shared, and frozen so no writer can give every node a child. */
const NO_CHILDREN: readonly string[] = Object.freeze([]);

/**
 * A node reads its id from its entry, its parent's id from its parent, and
 * its line, bytes and deferral from its row of the parse records, which the
 * index keeps anyway (`source.records`), and its facts from there too: six
 * fields less in each of a million nodes. Facts computed later go to the
 * records' later facts, not over the parse's (a saved parse holds only those).
 */
class IndexNode implements TreeNode {
  parent: TreeNode | null = null;
  /**
   * No child (`NO_CHILDREN`), one child's id, or an array of two or more of
   * this node's own. Almost every node has exactly one child: an array for
   * it would cost 56 B an entry.
   */
  private childIds: string | readonly string[] = NO_CHILDREN;
  depth = -1;

  constructor(
    private readonly records: RecordTable,
    private readonly row: number,
    readonly entry: SessionEntry,
  ) {}

  get facts(): EntryFacts | undefined {
    return this.records.laterFacts(this.row) ?? this.records.facts(this.row);
  }

  set facts(facts: EntryFacts | undefined) {
    this.records.setLaterFacts(this.row, facts);
  }

  get id(): string {
    return this.entry.id;
  }

  get parentId(): string | null {
    return this.parent === null ? null : this.parent.id;
  }

  get line(): number {
    return this.records.line(this.row);
  }

  get offset(): number {
    return this.records.offset(this.row);
  }

  get byteLength(): number {
    return this.records.byteLength(this.row);
  }

  get deferred(): boolean {
    return this.records.deferred(this.row);
  }

  get children(): readonly string[] {
    const ids = this.childIds;
    return typeof ids === "string" ? [ids] : ids;
  }

  get childCount(): number {
    const ids = this.childIds;
    return typeof ids === "string" ? 1 : ids.length;
  }

  addChild(id: string): void {
    const ids = this.childIds;
    if (typeof ids === "string") this.childIds = [ids, id];
    else if (ids.length === 0) this.childIds = id;
    else (ids as string[]).push(id);
  }

  setChildren(ids: readonly string[]): void {
    this.childIds = ids.length === 0 ? NO_CHILDREN : ids.length === 1 ? ids[0]! : ids.slice();
  }
}

/**
 * Applies a label entry to the labels, or a session_info entry to the name,
 * and notes Arbor's archive markers; other entries change none of them.
 */
export function applyLabelOrName(
  index: { labels: Map<string, LabelState>; sessionName: string | undefined; archiveMarkers: string[] },
  entry: SessionEntry,
): void {
  if (entry.type === "label") applyLabel(index.labels, entry);
  if (entry.type === "session_info") index.sessionName = sessionNameOf(entry);
  if (isArchiveMarkerEntry(entry)) index.archiveMarkers.push(entry.id);
}

/** Pi's rule: the latest session_info names the session; an empty name clears it. */
function sessionNameOf(entry: SessionEntry & { type: "session_info" }): string | undefined {
  const name = entry.name;
  return typeof name === "string" ? name.trim() || undefined : undefined;
}

function applyLabel(labels: Map<string, LabelState>, entry: SessionEntry & { type: "label" }): void {
  const target = entry.targetId;
  if (typeof target !== "string") return;
  // Pi: a truthy label sets it; anything else (absent, undefined, "") clears it.
  if (entry.label) labels.set(target, { label: String(entry.label), timestamp: entry.timestamp });
  else labels.delete(target);
}

/** The line of `index.entries[at]` (each entry was read from the row of the records at its position). */
export function entryLineAt(index: SessionIndex, at: number): number {
  return index.source.records.line(at);
}

/** The line of each of `index.entries`, as a list. */
export function entryLinesOf(index: SessionIndex): number[] {
  return index.entries.map((_, at) => entryLineAt(index, at));
}

/** Ids from a root down to `id` along tree parents (cycle-free by construction). */
export function pathToRoot(index: SessionIndex, id: string): string[] {
  const path: string[] = [];
  let node = index.nodes.get(id);
  while (node) {
    path.push(node.id);
    node = node.parent ?? undefined;
  }
  return path.reverse();
}

export type { EntryFacts };

/** Pi's `byId` without a second map: each node's entry, by id (a duplicate id's later line). */
class EntriesById implements ReadonlyMap<string, SessionEntry> {
  constructor(private readonly nodes: ReadonlyMap<string, TreeNode>) {}

  get size(): number {
    return this.nodes.size;
  }

  get(id: string): SessionEntry | undefined {
    return this.nodes.get(id)?.entry;
  }

  has(id: string): boolean {
    return this.nodes.has(id);
  }

  keys(): MapIterator<string> {
    return this.nodes.keys();
  }

  *values(): MapIterator<SessionEntry> {
    for (const node of this.nodes.values()) yield node.entry;
  }

  *entries(): MapIterator<[string, SessionEntry]> {
    for (const [id, node] of this.nodes) yield [id, node.entry];
  }

  [Symbol.iterator](): MapIterator<[string, SessionEntry]> {
    return this.entries();
  }

  forEach(visit: (entry: SessionEntry, id: string, map: ReadonlyMap<string, SessionEntry>) => void): void {
    for (const [id, node] of this.nodes) visit(node.entry, id, this);
  }
}
