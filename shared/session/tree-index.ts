/**
 * The tree index: every entry by id, children in Pi's order, roots, depth,
 * the file's leaf, resolved labels, the session name. Built in one linear
 * pass over the parsed records (plus sorting children, which is linear when
 * they are already in order, as they almost always are).
 *
 * Damage is reported and worked around the way Pi reads it where Pi reads it
 * at all: a later duplicate id wins; an entry whose parent is missing is a
 * root; a parent cycle, which makes Pi loop forever, is broken at its
 * earliest line.
 */

import { entryFacts, type EntryFacts } from "./facts.ts";
import { migrateInMemory } from "./migrate.ts";
import type { EntryRecord, ParsedSession } from "./parse.ts";
import { type Problem, problem } from "./problems.ts";
import {
  CURRENT_SESSION_VERSION,
  KNOWN_ENTRY_TYPES,
  KNOWN_ROLES,
  type SessionEntry,
  type SessionHeader,
} from "./types.ts";

export interface TreeNode {
  readonly id: string;
  readonly entry: SessionEntry;
  /** 1-based line of the entry (the later one, for a duplicate id). */
  readonly line: number;
  readonly offset: number;
  readonly byteLength: number;
  /** Parent in the tree: `null` for roots, orphans and the entry where a cycle was broken. */
  parentId: string | null;
  /** The parent node itself (`null` with `parentId`): walks follow it without id lookups. */
  parent: TreeNode | null;
  /** `entry` is a skim; the whole entry is read on demand (`SessionIndex.entryOfNode`). */
  readonly deferred: boolean;
  /** Child ids in Pi's `/tree` order: by timestamp, file order on ties (grown by `addChild`). */
  children: string[];
  depth: number;
  /** Role, preview, tool names, token estimate: kept from the parse, or computed when first asked (`SessionIndex.factsOfNode`). */
  facts: EntryFacts | undefined;
  /** A deferred node's whole entry while the index's body cache holds it (read it with `SessionIndex.entryOfNode`). */
  body: SessionEntry | undefined;
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
  /** Line of each of `entries`. */
  entryLines: number[];
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
  parentSession: string | undefined;
  problems: Problem[];
  byteLength: number;
  lineCount: number;
  unterminatedLastLine: ParsedSession["unterminatedLastLine"];
  /**
   * True when the index was built structure-first: `entries`, `byId` and
   * `nodes[].entry` then hold each entry's small fields only (type, ids,
   * timestamp, label fields, the message's role...), and `entry(id)` reads
   * the whole entry from the file when asked.
   */
  deferredBodies: boolean;
  /** The whole entry (Pi's `getEntry`), its body read and parsed on demand if deferred. */
  entry(id: string): SessionEntry | undefined;
  /** The same for a node already at hand (no id lookup). */
  entryOfNode(node: TreeNode): SessionEntry;
  /** The same for many nodes (a path): deferred bodies are read in long sequential reads. */
  entriesOfNodes(nodes: readonly TreeNode[]): SessionEntry[];
  /**
   * Visits each node's whole entry, reading deferred bodies in long sequential
   * runs (in file order) without keeping them: for a pass over most of a
   * session (a search), which would flush the body cache.
   */
  readEntries(nodes: readonly TreeNode[], visit: (node: TreeNode, entry: SessionEntry) => void): void;
  /** Role, preview, tool names and token estimate of an entry, computed once when first asked. */
  facts(id: string): EntryFacts | undefined;
  /** The same for a node already at hand (no id lookup). */
  factsOfNode(node: TreeNode): EntryFacts;
  /** What the index was built from, kept so appended lines can be added (`extendSessionIndex`). */
  readonly source: IndexSource;
}

/** The parse behind an index: its records and the parser's own problems. */
export interface IndexSource {
  header: SessionHeader | null;
  headerLine: number | null;
  records: EntryRecord[];
  parseProblems: Problem[];
  nextPiIndex: number;
  readBody: BodyReader | undefined;
}

/** Reads `length` bytes at `offset` of the session's bytes (the file, for a store). */
export type BodyReader = (offset: number, length: number) => Uint8Array;

/**
 * Parsed bodies are kept until their lines add up to this many bytes, then
 * the oldest go first: a context walk over a long path is paid once, while a
 * 700 MB file cannot fill memory with parsed objects.
 */
const BODY_CACHE_BYTES = 192 * 1024 * 1024;

/**
 * Builds the index; `parsed` is migrated in memory first and should not be
 * reused. Deferred (skimmed) records need `readBody` to read whole entries.
 */
export function buildSessionIndex(
  parsed: ParsedSession,
  readBody?: BodyReader,
  bodyCacheBytes = BODY_CACHE_BYTES,
): SessionIndex {
  const source: IndexSource = {
    header: parsed.header,
    headerLine: parsed.headerLine,
    records: parsed.records,
    parseProblems: parsed.problems.slice(),
    nextPiIndex: parsed.records.reduce((max, record) => Math.max(max, record.piIndex + 1), 1),
    readBody,
  };
  const version = migrateInMemory(parsed);
  const problems = parsed.problems;
  const entries: SessionEntry[] = [];
  const entryLines: number[] = [];
  const nodes = new Map<string, TreeNode>();
  /** Filled only for ids seen twice: the line that used the id first. */
  const firstLineOfId = new Map<string, number>();
  /** Every node made so far, and (from the first duplicate id on) the latest node of each id. */
  const made: TreeNode[] = [];
  let latestOfId: Map<string, TreeNode> | null = null;
  const labels = new Map<string, LabelState>();
  let sessionName: string | undefined;

  for (const record of parsed.records) {
    const entry = validateEntry(record, problems);
    entries.push(entry);
    entryLines.push(record.line);
    // The node keeps the facts the parser kept (structure-with-facts); a later line with the same id replaces it.
    const node = createNode(record, entry);
    // One map operation per entry: a duplicate id shows as a map that did not grow.
    const size = nodes.size;
    nodes.set(entry.id, node);
    let previous: TreeNode | undefined;
    if (latestOfId !== null) {
      previous = latestOfId.get(entry.id);
      latestOfId.set(entry.id, node);
    } else if (nodes.size === size) {
      latestOfId = new Map();
      for (const earlier of made) latestOfId.set(earlier.id, earlier);
      previous = latestOfId.get(entry.id);
      latestOfId.set(entry.id, node);
    }
    made.push(node);
    if (previous) {
      const first = firstLineOfId.get(entry.id) ?? previous.line;
      firstLineOfId.set(entry.id, first);
      problems.push(
        problem(
          "duplicate-id",
          previous.line,
          `Entry id "${entry.id}" is used again at line ${record.line}; that later line wins, as in Pi.`,
          { relatedLine: record.line, entryId: entry.id },
        ),
        problem(
          "duplicate-id",
          record.line,
          `Entry id "${entry.id}" was already used at line ${first}; this line replaces it, as in Pi.`,
          { relatedLine: first, entryId: entry.id },
        ),
      );
    }
    if (entry.type === "label") applyLabel(labels, entry);
    if (entry.type === "session_info") sessionName = sessionNameOf(entry);
  }

  const { roots, orphans } = linkParents(nodes, problems);
  sortChildren(nodes);

  const lastEntry = entries[entries.length - 1];
  /** `entries[0 .. factsFilled)` all have facts (see `fillFacts`). */
  let factsFilled = 0;
  const deferredBodies = parsed.records.some((record) => record.deferred);
  if (deferredBodies && !readBody) throw new Error("buildSessionIndex: skimmed records need a body reader");
  // The cache lives on the nodes (`node.body`): a path of 100k entries costs no map lookups. Oldest out first.
  const cached: TreeNode[] = [];
  let oldestCached = 0;
  let cachedBytes = 0;
  const remember = (node: TreeNode, body: SessionEntry) => {
    if (node.body !== undefined) return;
    cachedBytes += node.byteLength;
    while (cachedBytes > bodyCacheBytes && oldestCached < cached.length) {
      const oldest = cached[oldestCached++]!;
      oldest.body = undefined;
      cachedBytes -= oldest.byteLength;
    }
    if (oldestCached > 1024 && oldestCached * 2 > cached.length) {
      cached.splice(0, oldestCached);
      oldestCached = 0;
    }
    node.body = body;
    cached.push(node);
  };
  const entryOfNode = (node: TreeNode): SessionEntry => {
    if (!node.deferred || !readBody) return node.entry;
    if (node.body !== undefined) return node.body;
    const body = loadBody(node, readBody);
    remember(node, body);
    return body;
  };
  const entriesOfNodes = (list: readonly TreeNode[]): SessionEntry[] => {
    let unread = 0;
    if (readBody) for (const node of list) if (node.deferred && node.body === undefined) unread++;
    if (unread <= 1) return list.map(entryOfNode);
    const missing = list.filter((node) => node.deferred && node.body === undefined);
    const loaded = new Map<TreeNode, SessionEntry>();
    readInRuns(missing, readBody!, (node, body) => {
      loaded.set(node, body);
      remember(node, body);
    });
    return list.map((node) => loaded.get(node) ?? entryOfNode(node));
  };
  const readEntries = (
    list: readonly TreeNode[],
    visit: (node: TreeNode, entry: SessionEntry) => void,
  ): void => {
    const unread: TreeNode[] = [];
    for (const node of list) {
      const body = node.deferred && readBody ? node.body : node.entry;
      if (body) visit(node, body);
      else unread.push(node);
    }
    if (unread.length > 0) readInRuns(unread, readBody!, visit);
  };
  const entry = (id: string): SessionEntry | undefined => {
    const node = nodes.get(id);
    return node ? entryOfNode(node) : undefined;
  };
  const factsOfNode = (node: TreeNode): EntryFacts => {
    if (node.facts) return node.facts;
    // Facts are asked for every entry at once (a view of the tree): read the bodies in bulk.
    if (node.deferred && readBody) {
      factsFilled = fillFacts(entries, factsFilled, nodes, readBody);
      if (node.facts) return node.facts;
    }
    node.facts = entryFacts(entryOfNode(node));
    return node.facts;
  };
  const header = parsed.header;
  const parentSession = typeof header?.parentSession === "string" ? header.parentSession : undefined;
  return {
    header,
    headerLine: parsed.headerLine,
    version,
    entries,
    entryLines,
    byId: new EntriesById(nodes),
    nodes,
    roots,
    orphans,
    leafId: lastEntry && parsed.trailingNonEntryLine === null ? lastEntry.id : null,
    trailingNonEntryLine: parsed.trailingNonEntryLine,
    labels,
    sessionName,
    parentSession,
    problems: problems.sort((a, b) => a.line - b.line),
    byteLength: parsed.byteLength,
    lineCount: parsed.lineCount,
    unterminatedLastLine: parsed.unterminatedLastLine,
    deferredBodies,
    entry,
    entryOfNode,
    entriesOfNodes,
    readEntries,
    source,
    facts(id) {
      const node = nodes.get(id);
      return node ? factsOfNode(node) : undefined;
    },
    factsOfNode,
  };
}

/** Deferred bodies wanted together are read in runs of lines of up to this many bytes. */
const RUN_READ_BYTES = 4 * 1024 * 1024;

/**
 * Reads the bodies of deferred `nodes` with one read per run of nearby lines
 * instead of one per line, in file order (the nodes may come in any order:
 * Pi's order is not always the file's, in a damaged file or after a migration).
 */
function readInRuns(
  nodes: readonly TreeNode[],
  readBody: BodyReader,
  sink: (node: TreeNode, body: SessionEntry) => void,
): void {
  const sorted = [...nodes].sort((a, b) => a.offset - b.offset);
  let run: TreeNode[] = [];
  const flush = () => {
    if (run.length === 0) return;
    const start = run[0]!.offset;
    const last = run[run.length - 1]!;
    let bytes: Uint8Array | null = null;
    try {
      bytes = readBody(start, last.offset + last.byteLength - start);
    } catch {
      // The file changed under us (a store notices and reloads): what the skim saw.
    }
    for (const node of run) {
      const at = node.offset - start;
      sink(node, bytes ? parseBody(node, bytes.subarray(at, at + node.byteLength)) : node.entry);
    }
    run = [];
  };
  for (const node of sorted) {
    const runStart = run[0]?.offset ?? node.offset;
    if (node.offset + node.byteLength - runStart > RUN_READ_BYTES) flush();
    run.push(node);
  }
  flush();
}

/**
 * Computes the facts of every entry from `entries[from]` on that has none
 * yet, reading deferred bodies in long sequential reads instead of one read
 * per line (2-3x faster on a 40 MB file); the parsed bodies are dropped
 * again, so memory holds facts, not entries. Returns how far it got.
 */
function fillFacts(
  entries: readonly SessionEntry[],
  from: number,
  nodes: ReadonlyMap<string, TreeNode>,
  readBody: BodyReader,
): number {
  const pending: TreeNode[] = [];
  for (let i = from; i < entries.length; i++) {
    const node = nodes.get(entries[i]!.id);
    if (!node || node.facts) continue;
    const parsed = node.deferred ? node.body : node.entry;
    if (parsed) node.facts = entryFacts(parsed);
    else pending.push(node);
  }
  readInRuns(pending, readBody, (node, body) => {
    node.facts = entryFacts(body);
  });
  return entries.length;
}

const bodyDecoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

/**
 * Parses a deferred entry's line. The skim already proved it valid JSON; the
 * fields the index filled in (a missing id or type) are carried over.
 */
function loadBody(node: TreeNode, readBody: BodyReader): SessionEntry {
  const stub = node.entry;
  let bytes: Uint8Array;
  try {
    bytes = readBody(node.offset, node.byteLength);
  } catch {
    // The file changed under us (a store notices and reloads); show what the skim saw.
    return stub;
  }
  return parseBody(node, bytes);
}

/** A deferred entry from its line's bytes, or the skim's stub if they no longer parse. */
function parseBody(node: TreeNode, bytes: Uint8Array): SessionEntry {
  const stub = node.entry;
  let body: SessionEntry;
  try {
    body = JSON.parse(bodyDecoder.decode(bytes)) as SessionEntry;
  } catch {
    // The file changed under us (a store notices and reloads); show what the skim saw.
    return stub;
  }
  if (typeof body !== "object" || body === null) return stub;
  if (body.id !== stub.id || body.type !== stub.type)
    body = { ...body, id: stub.id, type: stub.type } as SessionEntry;
  return body;
}

function createNode(record: EntryRecord, entry: SessionEntry): TreeNode {
  return {
    id: entry.id,
    entry,
    line: record.line,
    offset: record.offset,
    byteLength: record.byteLength,
    parentId: null,
    parent: null,
    deferred: record.deferred,
    children: [],
    depth: -1,
    facts: record.facts,
    body: undefined,
  };
}

/**
 * Most nodes have one child: the first gets an array of exactly one, where a
 * push onto an empty array would reserve room for 17 (100k nodes: ~15 MB).
 */
function addChild(parent: TreeNode, id: string): void {
  if (parent.children.length === 0) parent.children = [id];
  else parent.children.push(id);
}

/** Pi's rule: the latest session_info names the session; an empty name clears it. */
function sessionNameOf(entry: SessionEntry & { type: "session_info" }): string | undefined {
  const name = entry.name;
  return typeof name === "string" ? name.trim() || undefined : undefined;
}

function selfParentProblem(node: TreeNode): Problem {
  return problem(
    "self-parent",
    node.line,
    `Entry "${node.id}" names itself as its parent; it is shown as a root.`,
    {
      entryId: node.id,
    },
  );
}

function orphanProblem(node: TreeNode, parentId: string): Problem {
  return problem(
    "orphan",
    node.line,
    `Entry "${node.id}" has parent "${parentId}", which is not in the file; it is shown as a root.`,
    { entryId: node.id },
  );
}

function applyLabel(labels: Map<string, LabelState>, entry: SessionEntry & { type: "label" }): void {
  const target = entry.targetId;
  if (typeof target !== "string") return;
  // Pi: a truthy label sets it; anything else (absent, undefined, "") clears it.
  if (entry.label) labels.set(target, { label: String(entry.label), timestamp: entry.timestamp });
  else labels.delete(target);
}

/** Checks the fields the index relies on. Returns the entry to index (copied if a field had to be filled in). */
function validateEntry(record: EntryRecord, problems: Problem[]): SessionEntry {
  const value = record.value;
  const line = record.line;
  // Copied only when a field must be filled in. No closure for it: this runs once per entry.
  let patched: Record<string, unknown> | null = null;
  if (typeof value.id !== "string" || value.id.length === 0) {
    const id = `line-${line}`;
    problems.push(
      problem(
        "missing-id",
        line,
        `The entry has no id; it is shown as "${id}" and nothing can refer to it.`,
        {
          entryId: id,
        },
      ),
    );
    patched = { ...value, id };
  }
  const id = (patched ?? value).id as string;
  if (typeof value.type !== "string") {
    problems.push(
      problem("missing-type", line, "The entry has no type; it is shown as an unknown entry.", {
        entryId: id,
      }),
    );
    patched = { ...(patched ?? value), type: "unknown" };
  } else if (!KNOWN_ENTRY_TYPES.has(value.type)) {
    problems.push(
      problem(
        "unknown-type",
        line,
        `Unknown entry type "${value.type}"; it is shown but takes no part in context.`,
        {
          entryId: id,
        },
      ),
    );
  }
  if (!("parentId" in value)) {
    problems.push(
      problem("missing-parent-id", line, "The entry has no parentId; it is shown as a root.", {
        entryId: id,
      }),
    );
  } else if (value.parentId !== null && (typeof value.parentId !== "string" || value.parentId === "")) {
    problems.push(
      problem(
        "invalid-field",
        line,
        "The entry's parentId is neither an entry id nor null; it is shown as a root.",
        {
          entryId: id,
        },
      ),
    );
  }
  if (typeof value.timestamp !== "string") {
    problems.push(
      problem("invalid-field", line, "The entry's timestamp is not a string; it sorts with unknown time.", {
        entryId: id,
      }),
    );
  }
  if (value.type === "message") {
    const message = value.message;
    if (typeof message !== "object" || message === null || Array.isArray(message)) {
      problems.push(
        problem(
          "invalid-field",
          line,
          "The message entry has no message object; it takes no part in context.",
          {
            entryId: id,
          },
        ),
      );
    } else {
      const role = (message as { role?: unknown }).role;
      if (typeof role !== "string") {
        problems.push(
          problem("invalid-field", line, "The message has no role; it is shown as an unknown message.", {
            entryId: id,
          }),
        );
      } else if (!KNOWN_ROLES.has(role)) {
        problems.push(
          problem(
            "unknown-role",
            line,
            `Unknown message role "${role}"; it is shown but never sent to a model.`,
            {
              entryId: id,
            },
          ),
        );
      }
    }
  }
  return (patched ?? value) as SessionEntry;
}

/** The parent an entry declares, if it is a usable id. */
export function declaredParentId(entry: SessionEntry): string | null {
  const parentId: unknown = entry.parentId;
  return typeof parentId === "string" && parentId.length > 0 ? parentId : null;
}

function linkParents(
  nodes: Map<string, TreeNode>,
  problems: Problem[],
): { roots: string[]; orphans: string[] } {
  const orphans: string[] = [];
  let before: TreeNode | null = null;
  for (const node of nodes.values()) {
    const previous = before;
    before = node;
    const parentId = declaredParentId(node.entry);
    if (parentId === null) continue;
    if (parentId === node.id) {
      problems.push(selfParentProblem(node));
      continue;
    }
    // Most parents are the entry just before: no lookup for them.
    const parent = previous !== null && previous.id === parentId ? previous : nodes.get(parentId);
    if (!parent) {
      orphans.push(node.id);
      problems.push(orphanProblem(node, parentId));
      continue;
    }
    node.parentId = parentId;
    node.parent = parent;
  }
  const roots: string[] = [];
  for (const node of nodes.values()) {
    if (node.parent === null) roots.push(node.id);
    else addChild(node.parent, node.id);
  }
  // Every node reachable from a root gets its depth; those left over hang in or below a parent cycle.
  let reached = assignDepths(nodes);
  if (reached < nodes.size) {
    const cuts = breakCycles(nodes, problems);
    for (const cut of cuts) roots.push(cut.id);
    reached += assignDepths(nodes);
  }
  // `nodes` iterates in first-insertion order; Pi lists roots and children in file order of the winning line.
  roots.sort((a, b) => nodes.get(a)!.line - nodes.get(b)!.line);
  for (const node of nodes.values()) {
    if (node.children.length > 1 && !isSortedByLine(nodes, node.children)) {
      node.children.sort((a, b) => nodes.get(a)!.line - nodes.get(b)!.line);
    }
  }
  return { roots, orphans };
}

function isSortedByLine(nodes: Map<string, TreeNode>, ids: string[]): boolean {
  for (let i = 1; i < ids.length; i++) {
    if (nodes.get(ids[i - 1]!)!.line > nodes.get(ids[i]!)!.line) return false;
  }
  return true;
}

/**
 * Cuts every parent cycle at its member with the earliest line. Called only
 * when some nodes were not reached from a root (their depth is still -1), and
 * looks only at those; linear in their number.
 */
function breakCycles(nodes: Map<string, TreeNode>, problems: Problem[]): TreeNode[] {
  const walkOf = new Map<TreeNode, number>();
  const cuts: TreeNode[] = [];
  let walk = 0;
  for (const start of nodes.values()) {
    if (start.depth !== -1 || walkOf.has(start)) continue;
    walk += 1;
    const path: TreeNode[] = [];
    let node: TreeNode | undefined = start;
    while (node && !walkOf.has(node)) {
      walkOf.set(node, walk);
      path.push(node);
      node = node.parentId === null ? undefined : nodes.get(node.parentId);
    }
    if (!node || walkOf.get(node) !== walk) continue;
    // `node` was reached twice in this walk: the cycle is path[index of node ..].
    const cycle = path.slice(path.indexOf(node));
    let cut = cycle[0]!;
    for (const member of cycle) if (member.line < cut.line) cut = member;
    const lines = cycle.map((member) => member.line).sort((a, b) => a - b);
    const next = cycle[(cycle.indexOf(cut) + 1) % cycle.length]!;
    problems.push(
      problem(
        "cycle",
        cut.line,
        `Entries on lines ${lines.join(", ")} are each other's ancestors (Pi would hang); "${cut.id}" is shown as a root.`,
        { entryId: cut.id, relatedLine: next.line },
      ),
    );
    const parent = nodes.get(cut.parentId!)!;
    parent.children.splice(parent.children.indexOf(cut.id), 1);
    cut.parentId = null;
    cut.parent = null;
    cuts.push(cut);
  }
  return cuts;
}

/** Pi's `/tree` order: a stable sort of each child list by `new Date(timestamp)`. */
function sortChildren(nodes: Map<string, TreeNode>): void {
  const time = (id: string) => new Date(nodes.get(id)!.entry.timestamp).getTime();
  for (const node of nodes.values()) {
    const children = node.children;
    if (children.length < 2) continue;
    let sorted = true;
    for (let i = 1; i < children.length && sorted; i++) {
      if (!(time(children[i - 1]!) <= time(children[i]!))) sorted = false;
    }
    // The same comparator as Pi's, NaN included, so even odd timestamps order the same way.
    if (!sorted) children.sort((a, b) => time(a) - time(b));
  }
}

/** Marks a node on the walk `assignDepths` is taking. */
const ON_WALK = -2;
/** Marks a node whose parents lead into a cycle (set back to -1 when `assignDepths` is done). */
const UNREACHED = -3;

/**
 * Gives every node still at depth -1 whose parents lead up to a root its
 * depth; returns how many it reached. It follows parent references, not ids
 * (no lookups), each node once: a walk stops at the first node with a depth.
 * Nodes in or below a parent cycle stay at -1.
 */
function assignDepths(nodes: Map<string, TreeNode>): number {
  const walk: TreeNode[] = [];
  let reached = 0;
  let unreached = false;
  for (const start of nodes.values()) {
    if (start.depth !== -1) continue;
    let top: TreeNode | null = start;
    while (top !== null && top.depth === -1) {
      top.depth = ON_WALK;
      walk.push(top);
      top = top.parent;
    }
    const above = top === null ? -1 : top.depth;
    if (top !== null && above < 0) {
      // Into this walk again (a cycle), or into a node found to be below one.
      for (const node of walk) node.depth = UNREACHED;
      unreached = true;
    } else {
      for (let i = walk.length - 1, depth = above + 1; i >= 0; i--, depth++) walk[i]!.depth = depth;
      reached += walk.length;
    }
    walk.length = 0;
  }
  if (unreached) for (const node of nodes.values()) if (node.depth === UNREACHED) node.depth = -1;
  return reached;
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

/** Where a reader of appended bytes starts: after the last complete line (an unterminated one is read again). */
export function resumePoint(index: SessionIndex): {
  offset: number;
  lineNumber: number;
  piIndex: number;
  header: SessionHeader | null;
  headerLine: number | null;
} {
  const partial = index.unterminatedLastLine;
  const offset = partial ? partial.offset : index.byteLength;
  const lineNumber = partial ? partial.line : index.lineCount + 1;
  // Records are in line order: the last one before the resumed line carries the count.
  const records = index.source.records;
  let at = records.length - 1;
  while (at >= 0 && records[at]!.line >= lineNumber) at--;
  const piIndex = at >= 0 ? records[at]!.piIndex + 1 : 1;
  return { offset, lineNumber, piIndex, header: index.header, headerLine: index.source.headerLine };
}

/**
 * Adds the lines parsed from `resumePoint(index)` onwards. In the common case
 * (new ids, parents already known or earlier in the tail) the index is updated
 * in place, in time proportional to the new lines; otherwise (a re-read
 * unterminated line that had parsed, duplicate ids, an orphan's parent
 * arriving, a legacy file) it is rebuilt from the kept records plus the new.
 * Returns the index to use from now on.
 */
export function extendSessionIndex(
  index: SessionIndex,
  tail: ParsedSession,
): { index: SessionIndex; rebuilt: boolean } {
  const source = index.source;
  const partial = index.unterminatedLastLine;
  const resumedLine = partial ? partial.line : index.lineCount + 1;
  // Whatever the old index said about a line being re-read no longer holds.
  const keptParseProblems = source.parseProblems.filter(
    (p) => p.line < resumedLine && p.kind !== "unterminated-last-line",
  );
  // Only records of a re-read last line go; found from the end, so an append costs what it adds.
  let kept = source.records.length;
  while (kept > 0 && source.records[kept - 1]!.line >= resumedLine) kept--;
  const rereads = kept !== source.records.length;
  const keptRecords = rereads ? source.records.slice(0, kept) : source.records;
  const needsRebuild =
    rereads ||
    index.version < CURRENT_SESSION_VERSION ||
    tail.header !== source.header ||
    index.trailingNonEntryLine !== null ||
    tail.trailingNonEntryLine !== null ||
    !appendsCleanly(index, tail.records);
  if (needsRebuild) {
    const parsed: ParsedSession = {
      header: tail.header ?? source.header,
      headerLine: source.headerLine ?? tail.headerLine,
      records: [...keptRecords, ...tail.records],
      problems: [...keptParseProblems, ...tail.problems],
      byteLength: tail.byteLength,
      lineCount: tail.lineCount,
      unterminatedLastLine: tail.unterminatedLastLine,
      trailingNonEntryLine: trailingAfter(index, tail, resumedLine),
    };
    return { index: buildSessionIndex(parsed, source.readBody), rebuilt: true };
  }

  // In place. Problems of the old lines stay; those of a re-read (unparsed) last line go.
  for (let i = index.problems.length - 1; i >= 0; i--) {
    if (index.problems[i]!.line >= resumedLine) index.problems.splice(i, 1);
  }
  source.parseProblems = [...keptParseProblems, ...tail.problems];
  const problems = index.problems;
  const problemsBefore = problems.length;
  problems.push(...tail.problems);
  const added: TreeNode[] = [];
  for (const record of tail.records) {
    source.records.push(record);
    const entry = validateEntry(record, problems);
    index.entries.push(entry);
    index.entryLines.push(record.line);
    const node = createNode(record, entry);
    index.nodes.set(entry.id, node);
    added.push(node);
    if (entry.type === "label") applyLabel(index.labels, entry);
    if (entry.type === "session_info") index.sessionName = sessionNameOf(entry);
  }
  for (const node of added) {
    const parentId = declaredParentId(node.entry);
    const parent = parentId === null ? undefined : index.nodes.get(parentId);
    if (parentId === null || parentId === node.id || !parent) {
      if (parentId === node.id) {
        problems.push(selfParentProblem(node));
      } else if (parentId !== null) {
        index.orphans.push(node.id);
        problems.push(orphanProblem(node, parentId));
      }
      index.roots.push(node.id);
      node.depth = 0;
      continue;
    }
    node.parentId = parentId;
    node.parent = parent;
    node.depth = parent.depth + 1;
    addChild(parent, node.id);
    orderChildren(index.nodes, parent);
  }
  const last = added[added.length - 1];
  if (last) index.leafId = last.id;
  index.byteLength = tail.byteLength;
  index.lineCount = Math.max(index.lineCount, tail.lineCount);
  index.unterminatedLastLine = tail.unterminatedLastLine;
  index.trailingNonEntryLine = trailingAfter(index, tail, resumedLine);
  if (problems.length > problemsBefore) problems.sort((a, b) => a.line - b.line);
  return { index, rebuilt: false };
}

/** A non-entry value after the last entry stays the last thing read until an entry follows it. */
function trailingAfter(index: SessionIndex, tail: ParsedSession, resumedLine: number): number | null {
  if (tail.trailingNonEntryLine !== null || tail.records.length > 0) return tail.trailingNonEntryLine;
  const kept = index.trailingNonEntryLine;
  return kept !== null && kept < resumedLine ? kept : null;
}

/**
 * Whether new records can go into the index as they are: fresh ids, each
 * parent already indexed, earlier in the tail, or missing for good (not
 * something an existing orphan waits for).
 */
function appendsCleanly(index: SessionIndex, records: readonly EntryRecord[]): boolean {
  const waitedFor = new Set<string>();
  for (const id of index.orphans) {
    const parentId = declaredParentId(index.nodes.get(id)!.entry);
    if (parentId !== null) waitedFor.add(parentId);
  }
  const tailIds = new Set<string>();
  for (const record of records) {
    const id = record.value.id;
    if (typeof id !== "string" || id === "" || index.nodes.has(id) || tailIds.has(id) || waitedFor.has(id)) {
      return false;
    }
    tailIds.add(id);
  }
  // A parent named before it appears (later in the same tail) would be an orphan now but not in a fresh read.
  const seen = new Set<string>();
  for (const record of records) {
    const parentId = record.value.parentId;
    if (typeof parentId === "string" && tailIds.has(parentId) && !seen.has(parentId)) return false;
    seen.add(record.value.id as string);
  }
  return true;
}

/** Keeps one child list in Pi's order after an append: file order, then a stable sort by time. */
function orderChildren(nodes: Map<string, TreeNode>, parent: TreeNode): void {
  const children = parent.children;
  const n = children.length;
  if (n < 2) return;
  const time = (id: string) => new Date(nodes.get(id)!.entry.timestamp).getTime();
  // The new child has the latest line; it is in place if it is not earlier than its left neighbour.
  if (time(children[n - 2]!) <= time(children[n - 1]!)) return;
  children.sort((a, b) => nodes.get(a)!.line - nodes.get(b)!.line);
  children.sort((a, b) => time(a) - time(b));
}

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
