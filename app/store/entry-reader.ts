/**
 * The file-backed `EntryReader` (see shared/session/entry-reader.ts): the
 * whole entries of an index built structure-first, their bodies read from the
 * file's bytes by offset and parsed when asked for. Bodies wanted together (a
 * path, the facts of every entry, a search) are read in long sequential runs;
 * parsed bodies are kept in a cache of bounded size, oldest out first.
 */

import { type EntryFacts, entryFacts } from "../../shared/session/facts.ts";
import { boundEntryDepth } from "../../shared/session/nesting.ts";
import type { EntryReader } from "../../shared/session/entry-reader.ts";
import type { SessionIndex, TreeNode } from "../../shared/session/tree-index.ts";
import type { SessionEntry } from "../../shared/session/types.ts";

/** Reads `length` bytes at `offset` of the session's bytes (the file, for a store). */
export type BodyReader = (offset: number, length: number) => Uint8Array;

/**
 * Parsed bodies are kept until their lines add up to this many bytes, then
 * the oldest go first: a context walk over a long path is paid once, while a
 * 700 MB file cannot fill memory with parsed objects.
 */
const BODY_CACHE_BYTES = 192 * 1024 * 1024;

/** Deferred bodies wanted together are read in runs of lines of up to this many bytes. */
const RUN_READ_BYTES = 4 * 1024 * 1024;

export class FileEntryReader implements EntryReader {
  /**
   * The cache: parsed bodies by their node's line (no two nodes of an index
   * share one), so a path of 100k entries costs no map lookups. Grown when
   * first written to.
   */
  private readonly bodies: (SessionEntry | undefined)[] = [];
  /** The cached nodes in the order they came, the oldest from `oldestCached` on. */
  private readonly cached: TreeNode[] = [];
  private oldestCached = 0;
  private cachedBytes = 0;
  /** `index.entries[0 .. factsFilled)` all have facts (see `fillFacts`). */
  private factsFilled = 0;

  /** The reader of `index`, an index of the bytes `readBody` reads. */
  constructor(
    private readonly index: SessionIndex,
    readonly readBody: BodyReader,
    private readonly cacheBytes = BODY_CACHE_BYTES,
  ) {}

  /** A reader of another index of the same bytes (one rebuilt after an append), with a cache of its own. */
  forIndex(index: SessionIndex): FileEntryReader {
    return new FileEntryReader(index, this.readBody, this.cacheBytes);
  }

  entry(id: string): SessionEntry | undefined {
    const node = this.index.nodes.get(id);
    return node ? this.entryOfNode(node) : undefined;
  }

  entryOfNode(node: TreeNode): SessionEntry {
    if (!node.deferred) return node.entry;
    const cached = this.bodies[node.line];
    if (cached !== undefined) return cached;
    const body = loadBody(node, this.readBody);
    this.remember(node, body);
    return body;
  }

  entriesOfNodes(nodes: readonly TreeNode[]): SessionEntry[] {
    const bodies = this.bodies;
    let unread = 0;
    for (const node of nodes) if (node.deferred && bodies[node.line] === undefined) unread++;
    if (unread <= 1) return nodes.map((node) => this.entryOfNode(node));
    const missing = nodes.filter((node) => node.deferred && bodies[node.line] === undefined);
    const loaded = new Map<TreeNode, SessionEntry>();
    readInRuns(missing, this.readBody, (node, body) => {
      loaded.set(node, body);
      this.remember(node, body);
    });
    return nodes.map((node) => loaded.get(node) ?? this.entryOfNode(node));
  }

  readEntries(nodes: readonly TreeNode[], visit: (node: TreeNode, entry: SessionEntry) => void): void {
    const unread: TreeNode[] = [];
    for (const node of nodes) {
      const body = node.deferred ? this.bodies[node.line] : node.entry;
      if (body) visit(node, body);
      else unread.push(node);
    }
    if (unread.length > 0) readInRuns(unread, this.readBody, visit);
  }

  facts(id: string): EntryFacts | undefined {
    const node = this.index.nodes.get(id);
    return node ? this.factsOfNode(node) : undefined;
  }

  factsOfNode(node: TreeNode): EntryFacts {
    if (node.facts) return node.facts;
    // Facts are asked for every entry at once (a view of the tree): read the bodies in bulk.
    if (node.deferred) {
      this.fillFacts();
      if (node.facts) return node.facts;
    }
    node.facts = entryFacts(this.entryOfNode(node));
    return node.facts;
  }

  /**
   * Computes the facts of every entry from `entries[factsFilled]` on that has
   * none yet, reading deferred bodies in long sequential reads instead of one
   * read per line (2-3x faster on a 40 MB file); the parsed bodies are dropped
   * again, so memory holds facts, not entries.
   */
  private fillFacts(): void {
    const { entries, nodes } = this.index;
    const pending: TreeNode[] = [];
    for (let i = this.factsFilled; i < entries.length; i++) {
      const node = nodes.get(entries[i]!.id);
      if (!node || node.facts) continue;
      const parsed = node.deferred ? this.bodies[node.line] : node.entry;
      if (parsed) node.facts = entryFacts(parsed);
      else pending.push(node);
    }
    readInRuns(pending, this.readBody, (node, body) => {
      node.facts = entryFacts(body);
    });
    this.factsFilled = entries.length;
  }

  /** Keeps a parsed body, letting the oldest go once the cache holds more than its budget. */
  private remember(node: TreeNode, body: SessionEntry): void {
    const bodies = this.bodies;
    if (bodies[node.line] !== undefined) return;
    this.cachedBytes += node.byteLength;
    const cached = this.cached;
    while (this.cachedBytes > this.cacheBytes && this.oldestCached < cached.length) {
      const oldest = cached[this.oldestCached++]!;
      bodies[oldest.line] = undefined;
      this.cachedBytes -= oldest.byteLength;
    }
    if (this.oldestCached > 1024 && this.oldestCached * 2 > cached.length) {
      cached.splice(0, this.oldestCached);
      this.oldestCached = 0;
    }
    // Grown one slot at a time: the array stays packed (a write far past its end would make it a dictionary).
    while (bodies.length <= node.line) bodies.push(undefined);
    bodies[node.line] = body;
    cached.push(node);
  }
}

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
    const text = bodyDecoder.decode(bytes);
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== "object" || parsed === null) return stub;
    // As the parser did: fields nested too deep for any answer give way to a note.
    body = boundEntryDepth(parsed as Record<string, unknown>, text.length).entry as SessionEntry;
  } catch {
    // The file changed under us (a store notices and reloads); show what the skim saw.
    return stub;
  }
  if (body.id !== stub.id || body.type !== stub.type)
    body = { ...body, id: stub.id, type: stub.type } as SessionEntry;
  return body;
}
