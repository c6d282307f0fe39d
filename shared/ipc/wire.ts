/**
 * The wire form of the contract's node lists: columnar, for the views that
 * carry a whole session (100k nodes are about a fifth of their JSON as
 * objects). It is applied at the transport boundary only: the handlers return
 * `SessionView`s, `app/ipc/bind.ts` encodes what leaves the main process (an
 * answer, an event), and each client decodes what arrives, so the renderer
 * sees `SessionView`s with `TreeNodeView[]` again, equal to what was sent.
 *
 * A list is one array per field. Whatever decoding can derive is not sent:
 * `depth` (the parent's plus one), `children` (the nodes that name the node
 * as parent, in list order, as in a depth-first list); parents are distances
 * back in the list, lines and times differences from the node before. The
 * rare node where a derivation does not hold (a list that is not a whole
 * tree, a time that is not an ISO string) has its own value in an exception
 * list, so every list round-trips exactly.
 *
 * A view the main process has as saved wire text (app/store/saved-view.ts,
 * `viewWithEncodedNodes`) is sent as that text: spliced into the WebSocket
 * frame by `stringifyWire`, or handed to Electron as a string.
 */

import { childListsOf, type NodeColumns, type NodeFields } from "../graph/indexed-nodes.ts";
import type {
  ArborEvents,
  EventName,
  RequestName,
  RequestResult,
  SessionDelta,
  SessionView,
  TreeNodeView,
} from "./contract.ts";

/** Values for some of the nodes: `at` holds their indices, each as the difference from the one before. */
export interface SparseColumn<T> {
  at: number[];
  values: T[];
}

/** The (type, kind, role, stopReason) of a node; most sessions have a dozen distinct ones. */
export type NodeShape = [type: string, kind: string, role: string | null, stopReason: string | null];

export const WIRE_NODES_FORMAT = 1;

export interface WireNodes {
  format: typeof WIRE_NODES_FORMAT;
  ids: string[];
  /** How far back in the list each node's parent is; 0: no parent, or one in `parentIds`. */
  parents: number[];
  shapeTable: NodeShape[];
  /** Each node's index in `shapeTable`. */
  shapes: number[];
  previews: string[];
  /** Each node's line minus the one before it (the first: minus 0); see `lineValues`. */
  lines: number[];
  /** Each node's timestamp in ms since the epoch, minus the one before it; see `timestampValues`. */
  times: number[];
  tokenEstimates: number[];
  /** Bit 0: `isError`, bit 1: `toolCallsOnly`, bit 2: `hasText`. */
  flags: number[];
  /** The distinct lists of tool names; `toolNames` holds indices into it. */
  toolSets: string[][];
  toolNames: SparseColumn<number>;
  labels: SparseColumn<string>;
  targetIds: SparseColumn<string>;
  tokensBefore: SparseColumn<number>;
  /** Exceptions to the derivations above, for the nodes where they do not hold. */
  parentIds: SparseColumn<string>;
  depths: SparseColumn<number>;
  children: SparseColumn<string[]>;
  /** Lines that are not a safe integer away from the one before (the difference sent is then 0). */
  lineValues: SparseColumn<number>;
  /** Timestamps that are not what `Date#toISOString` gives (the difference sent is then 0). */
  timestampValues: SparseColumn<string>;
}

/**
 * A view's nodes on the wire: columns, or (a saved view, whose wire form was
 * read from disk and never parsed) that form's JSON text, as a string or, on
 * the sending side, spliced into the frame as it is (`WireJson`).
 */
export type WireSessionView = Omit<SessionView, "nodes"> & { nodes: WireNodes | WireJson | string };
export type WireSessionDelta = Omit<SessionDelta, "added" | "changed"> & {
  added: WireNodes;
  changed: WireNodes;
};

/** What a request's result is on the wire. */
export type WireResult<N extends RequestName> =
  RequestResult<N> extends SessionView
    ? WireSessionView
    : RequestResult<N> extends SessionView | null
      ? WireSessionView | null
      : RequestResult<N>;

/** What an event's payload is on the wire. */
export type WireEvent<E extends EventName> = E extends "session.appended"
  ? { sessionId: string; delta: WireSessionDelta }
  : E extends "session.reloaded"
    ? Omit<ArborEvents[E], "view"> & { view: WireSessionView | null }
    : ArborEvents[E];

/** Thrown when what arrived is not in the wire format (a client and a main process of different versions). */
export class WireFormatError extends Error {
  constructor(what: string) {
    super(`Arbor received a node list it cannot read (${what}); reload the window.`);
    this.name = "WireFormatError";
  }
}

/**
 * How node lists already in their wire form as JSON text (a saved view's)
 * travel: `spliced` into the frame's text by `stringifyWire` (the WebSocket),
 * or as a `string` the client parses (Electron's structured clone copies a
 * string at once, where a tree of 100k objects takes long).
 */
export type EncodedNodesForm = "spliced" | "string";

/** JSON text that `stringifyWire` writes into its output as it is; only `stringifyWire` can write it. */
export class WireJson {
  constructor(readonly json: string) {}

  toJSON(): string {
    if (splicing === null) throw new Error("WireJson is written by stringifyWire, not JSON.stringify.");
    splicing.push(this.json);
    return `${SPLICE_MARK}:${splicing.length - 1}`;
  }
}

/** Unguessable, so no string a session holds can stand for a splice. */
const SPLICE_MARK = (() => {
  const words = crypto.getRandomValues(new Uint32Array(4));
  return `\u0000arbor-wire-json-${Array.from(words, (word) => word.toString(36)).join("-")}`;
})();
let splicing: string[] | null = null;

/** `JSON.stringify(value)`, with the JSON text of each `WireJson` in it written in its place. */
export function stringifyWire(value: unknown): string {
  const outer = splicing;
  const texts: string[] = [];
  splicing = texts;
  let text: string;
  try {
    text = JSON.stringify(value);
  } finally {
    splicing = outer;
  }
  if (texts.length === 0) return text;
  const parts: string[] = [];
  let from = 0;
  for (let i = 0; i < texts.length; i++) {
    const mark = JSON.stringify(`${SPLICE_MARK}:${i}`);
    const at = text.indexOf(mark, from);
    if (at === -1) throw new Error("stringifyWire: a splice mark went missing");
    parts.push(text.slice(from, at), texts[i]!);
    from = at + mark.length;
  }
  parts.push(text.slice(from));
  return parts.join("");
}

/** The wire text of the nodes of views made by `viewWithEncodedNodes`, and their other fields. */
const encodedViews = new WeakMap<SessionView, { fields: Omit<SessionView, "nodes">; json: string }>();

/** The node table of views made by `decodeSessionView`. */
const viewTables = new WeakMap<SessionView, NodeTable>();

/** A session view whose `nodes` are made (by `make`, once) only if something reads them. */
function viewWithLazyNodes(fields: Omit<SessionView, "nodes">, make: () => TreeNodeView[]): SessionView {
  let nodes: TreeNodeView[] | undefined;
  const view = { ...fields } as SessionView;
  Object.defineProperty(view, "nodes", {
    enumerable: true,
    get: () => {
      nodes ??= make();
      return nodes;
    },
  });
  return view;
}

/**
 * A session view whose nodes are known as the JSON text of their wire form
 * (a saved view read from disk): it is sent with that text as it is. Its
 * `nodes` are decoded (`decode`, once) only if something reads them.
 */
export function viewWithEncodedNodes(
  fields: Omit<SessionView, "nodes">,
  nodesJson: string,
  decode: () => TreeNodeView[],
): SessionView {
  const view = viewWithLazyNodes(fields, decode);
  encodedViews.set(view, { fields: { ...fields }, json: nodesJson });
  return view;
}

/**
 * The columns a view decoded from the wire holds its nodes in (see
 * `NodeTable`): what reads every node reads them there, and leaves
 * `view.nodes` (which makes every node's object) to what needs the objects.
 */
export function nodeTableOf(view: SessionView): NodeTable | undefined {
  return viewTables.get(view);
}

/** How many nodes a view holds, without making them. */
export function nodeCount(view: SessionView): number {
  return viewTables.get(view)?.count ?? view.nodes.length;
}

const IS_ERROR = 1;
const TOOL_CALLS_ONLY = 2;
const HAS_TEXT = 4;

class SparseWriter<T> {
  readonly column: SparseColumn<T> = { at: [], values: [] };
  private last = 0;

  add(index: number, value: T): void {
    this.column.at.push(index - this.last);
    this.column.values.push(value);
    this.last = index;
  }
}

/** The map under `key` in `map`, made when there is none. */
function level<K, V extends Map<unknown, unknown>>(map: Map<K, V>, key: K): V {
  let next = map.get(key);
  if (next === undefined) {
    next = new Map() as V;
    map.set(key, next);
  }
  return next;
}

/** Indices of distinct values, by identity (strings, numbers, null) one level per tuple member. */
class ShapeTable {
  readonly table: NodeShape[] = [];
  private readonly root = new Map<unknown, Map<unknown, Map<unknown, Map<unknown, number>>>>();

  indexOf(type: string, kind: string, role: string | null, stopReason: string | null): number {
    // A session has a dozen shapes or so: a scan of them beats four map lookups per node.
    const table = this.table;
    if (table.length <= 32) {
      for (let i = 0; i < table.length; i++) {
        const shape = table[i]!;
        if (shape[0] === type && shape[1] === kind && shape[2] === role && shape[3] === stopReason) return i;
      }
    }
    const byStop = level(level(level(this.root, type), kind), role);
    let index = byStop.get(stopReason);
    if (index === undefined) {
      index = this.table.length;
      this.table.push([type, kind, role, stopReason]);
      byStop.set(stopReason, index);
    }
    return index;
  }
}

const DAY_MS = 86_400_000;
const TWO_DIGITS = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, "0"));
const THREE_DIGITS = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, "0"));

/** Indices of distinct lists of tool names, one map level per name. */
class ToolSets {
  readonly table: string[][] = [];
  private readonly root: ToolSetLevel = { index: undefined, next: new Map() };

  indexOf(names: readonly string[]): number {
    let at = this.root;
    for (const name of names) {
      let next = at.next.get(name);
      if (!next) {
        next = { index: undefined, next: new Map() };
        at.next.set(name, next);
      }
      at = next;
    }
    if (at.index === undefined) {
      at.index = this.table.length;
      this.table.push([...names]);
    }
    return at.index;
  }
}

interface ToolSetLevel {
  index: number | undefined;
  next: Map<string, ToolSetLevel>;
}

/**
 * Finds a node's parent among the nodes before it. In a depth-first list it
 * is the node just before or one of that node's ancestors, found by walking
 * up (every step leaves a finished subtree behind, so all the walks of a list
 * add up to its length). Any other list falls back to a map of ids.
 */
class ParentFinder {
  private static readonly MAX_WALK = 256;
  private readonly parentIndex: Int32Array;
  private indexOfId: Map<string, number> | null = null;

  constructor(count: number) {
    this.parentIndex = new Int32Array(count);
  }

  /** An index before `i` of a node with id `parentId`, if there is one. */
  find(ids: readonly string[], i: number, parentId: string): number | undefined {
    let steps = 0;
    for (let p = i - 1; p >= 0 && steps < ParentFinder.MAX_WALK; p = this.parentIndex[p]!, steps++) {
      if (ids[p] === parentId) return p;
    }
    if (steps < ParentFinder.MAX_WALK) {
      // The walk reached a root: in a depth-first list the parent is not before the node.
      if (this.indexOfId === null) return undefined;
    }
    if (this.indexOfId === null) {
      this.indexOfId = new Map();
      for (let k = 0; k < i; k++) if (!this.indexOfId.has(ids[k]!)) this.indexOfId.set(ids[k]!, k);
    }
    return this.indexOfId.get(parentId);
  }

  /** Notes node `i`'s parent (after `find`, so a node is never its own parent). */
  record(ids: readonly string[], i: number, parentIndex: number | undefined): void {
    this.parentIndex[i] = parentIndex ?? -1;
    if (this.indexOfId !== null && !this.indexOfId.has(ids[i]!)) this.indexOfId.set(ids[i]!, i);
  }
}

/** The digit at `at`, or a large negative number for any other character. */
function digitAt(text: string, at: number): number {
  const code = text.charCodeAt(at) - 48;
  return code >= 0 && code <= 9 ? code : -1000;
}

function twoDigits(text: string, at: number): number {
  return digitAt(text, at) * 10 + digitAt(text, at + 1);
}

/**
 * `new Date(ms).toISOString()`, several times faster: the date part is kept
 * from the call before (timestamps in a list are mostly on the same day).
 */
class IsoTimes {
  private day = Number.NaN;
  private prefix = "";

  format(ms: number): string {
    const day = Math.floor(ms / DAY_MS) * DAY_MS;
    if (day !== this.day) {
      const iso = new Date(day).toISOString();
      this.day = day;
      this.prefix = iso.slice(0, iso.indexOf("T") + 1);
    }
    let rest = ms - day;
    const hours = Math.floor(rest / 3_600_000);
    rest -= hours * 3_600_000;
    const minutes = Math.floor(rest / 60_000);
    rest -= minutes * 60_000;
    const seconds = Math.floor(rest / 1000);
    const milliseconds = rest - seconds * 1000;
    return `${this.prefix}${TWO_DIGITS[hours]}:${TWO_DIGITS[minutes]}:${TWO_DIGITS[seconds]}.${THREE_DIGITS[milliseconds]}Z`;
  }

  /** The ms `timestamp` stands for, if `format` gives it back exactly; else null (it travels as a string). */
  parse(timestamp: string): number | null {
    const prefix = this.prefix;
    const at = prefix.length;
    if (at > 0 && timestamp.length === at + 13 && timestamp.startsWith(prefix)) {
      // The day of the one before: "HH:MM:SS.mmmZ" in canonical digits is what `format` gives back.
      const hours = twoDigits(timestamp, at);
      const minutes = twoDigits(timestamp, at + 3);
      const seconds = twoDigits(timestamp, at + 6);
      const milliseconds = twoDigits(timestamp, at + 9) * 10 + digitAt(timestamp, at + 11);
      if (
        hours >= 0 &&
        hours < 24 &&
        minutes >= 0 &&
        minutes < 60 &&
        seconds >= 0 &&
        seconds < 60 &&
        milliseconds >= 0 &&
        timestamp.charCodeAt(at + 2) === 58 /* : */ &&
        timestamp.charCodeAt(at + 5) === 58 &&
        timestamp.charCodeAt(at + 8) === 46 /* . */ &&
        timestamp.charCodeAt(at + 12) === 90 /* Z */
      ) {
        return this.day + hours * 3_600_000 + minutes * 60_000 + seconds * 1000 + milliseconds;
      }
      return null;
    }
    const ms = Date.parse(timestamp);
    if (!Number.isSafeInteger(ms)) return null;
    return this.format(ms) === timestamp ? ms : null;
  }
}

export function encodeNodes(nodes: readonly TreeNodeView[]): WireNodes {
  const n = nodes.length;
  const ids: string[] = [];
  const parents: number[] = [];
  const shapes: number[] = [];
  const previews: string[] = [];
  const lines: number[] = [];
  const times: number[] = [];
  const tokenEstimates: number[] = [];
  const flags: number[] = [];
  const shapeTable = new ShapeTable();
  const toolSets = new ToolSets();
  const toolNames = new SparseWriter<number>();
  const labels = new SparseWriter<string>();
  const targetIds = new SparseWriter<string>();
  const tokensBefore = new SparseWriter<number>();
  const parentIds = new SparseWriter<string>();
  const depths = new SparseWriter<number>();
  const children = new SparseWriter<string[]>();
  const lineValues = new SparseWriter<number>();
  const timestampValues = new SparseWriter<string>();

  const parentFinder = new ParentFinder(n);
  /**
   * How many children decoding derives for each node so far (the nodes naming
   * it as parent, in list order), and whether they are the node's own so far.
   */
  const derivedCount = new Uint32Array(n);
  const childrenDiffer = new Uint8Array(n);
  const isoTimes = new IsoTimes();
  let lastLine = 0;
  let lastTime = 0;
  for (let i = 0; i < n; i++) {
    const node = nodes[i]!;
    ids[i] = node.id;
    const parentIndex = node.parentId === null ? undefined : parentFinder.find(ids, i, node.parentId);
    parentFinder.record(ids, i, parentIndex);
    let derivedDepth: number | null;
    if (node.parentId === null) {
      parents[i] = 0;
      derivedDepth = 0;
    } else if (parentIndex !== undefined) {
      parents[i] = i - parentIndex;
      derivedDepth = nodes[parentIndex]!.depth + 1;
      const count = derivedCount[parentIndex]!;
      if (nodes[parentIndex]!.children[count] !== node.id) childrenDiffer[parentIndex] = 1;
      derivedCount[parentIndex] = count + 1;
    } else {
      parents[i] = 0;
      parentIds.add(i, node.parentId);
      derivedDepth = null;
    }
    if (node.depth !== derivedDepth) depths.add(i, node.depth);

    shapes[i] = shapeTable.indexOf(node.type, node.kind, node.role, node.stopReason);
    previews[i] = node.preview;

    const lineStep = node.line - lastLine;
    if (
      Number.isSafeInteger(node.line) &&
      Number.isSafeInteger(lineStep) &&
      lastLine + lineStep === node.line
    ) {
      lines[i] = lineStep;
      lastLine = node.line;
    } else {
      lines[i] = 0;
      lineValues.add(i, node.line);
    }

    const ms = typeof node.timestamp === "string" ? isoTimes.parse(node.timestamp) : null;
    if (ms !== null && lastTime + (ms - lastTime) === ms) {
      times[i] = ms - lastTime;
      lastTime = ms;
    } else {
      times[i] = 0;
      timestampValues.add(i, node.timestamp);
    }

    tokenEstimates[i] = node.tokenEstimate;
    flags[i] =
      (node.isError ? IS_ERROR : 0) |
      (node.toolCallsOnly ? TOOL_CALLS_ONLY : 0) |
      (node.hasText ? HAS_TEXT : 0);
    if (node.toolNames.length > 0) toolNames.add(i, toolSets.indexOf(node.toolNames));
    if (node.label !== null) labels.add(i, node.label);
    if (node.targetId !== null) targetIds.add(i, node.targetId);
    if (node.tokensBefore !== null) tokensBefore.add(i, node.tokensBefore);
  }
  for (let i = 0; i < n; i++) {
    const actual = nodes[i]!.children;
    if (childrenDiffer[i] === 1 || derivedCount[i] !== actual.length) children.add(i, [...actual]);
  }
  return {
    format: WIRE_NODES_FORMAT,
    ids,
    parents,
    shapeTable: shapeTable.table,
    shapes,
    previews,
    lines,
    times,
    tokenEstimates,
    flags,
    toolSets: toolSets.table,
    toolNames: toolNames.column,
    labels: labels.column,
    targetIds: targetIds.column,
    tokensBefore: tokensBefore.column,
    parentIds: parentIds.column,
    depths: depths.column,
    children: children.column,
    lineValues: lineValues.column,
    timestampValues: timestampValues.column,
  };
}

/** Reads a sparse column along the list, node by node in order (no lookups). */
class SparseCursor<T> {
  private k = 0;
  private next: number;
  private readonly at: number[];
  private readonly values: T[];

  constructor(column: SparseColumn<T> | undefined, count: number, name: string) {
    if (!column || !Array.isArray(column.at) || !Array.isArray(column.values)) {
      throw new WireFormatError(`no column "${name}"`);
    }
    if (column.at.length !== column.values.length) throw new WireFormatError(`"${name}" is uneven`);
    let index = -1;
    for (let k = 0; k < column.at.length; k++) {
      const step = column.at[k]!;
      index = k === 0 ? step : index + step;
      if (!(Number.isInteger(step) && (k === 0 ? step >= 0 : step > 0) && index < count)) {
        throw new WireFormatError(`"${name}" names node ${index} of ${count}`);
      }
    }
    this.at = column.at;
    this.values = column.values;
    this.next = column.at.length > 0 ? column.at[0]! : -1;
  }

  /** The value for node `i` (asked for in increasing order), if the column has one. */
  valueAt(i: number): T | undefined {
    if (i !== this.next) return undefined;
    const value = this.values[this.k]!;
    this.k++;
    this.next = this.k < this.at.length ? this.next + this.at[this.k]! : -1;
    return value;
  }
}

/**
 * The one empty list every decoded node without tools or children starts
 * with: 100k nodes would otherwise allocate 200k empty arrays. Frozen, so a
 * consumer that tried to push into it would fail loudly instead of sharing.
 */
const EMPTY: string[] = Object.freeze([]) as unknown as string[];

export function decodeNodes(sent: WireNodes | WireJson | string): TreeNodeView[] {
  return new NodeTable(sent).views();
}

/** A sparse column as a dense array: the value of each node that has one, `missing` for the others. */
function denseColumn<T, M>(
  column: SparseColumn<T> | undefined,
  count: number,
  name: string,
  missing: M,
): (T | M)[] {
  const cursor = new SparseCursor(column, count, name);
  const values: (T | M)[] = [];
  for (let i = 0; i < count; i++) values.push(cursor.valueAt(i) ?? missing);
  return values;
}

/**
 * A node list decoded column by column, with no object per node: the
 * renderer's passes over every node (the filter, chain folding, the tree's
 * shape) read the columns, and a node's whole `TreeNodeView` is made only
 * when something asks for it (`view`): the nodes drawn, a few thousand of
 * 100k. `views()` makes them all, as `decodeNodes` does. Every check
 * `decodeNodes` makes is made when the table is built.
 */
export class NodeTable implements NodeColumns<TreeNodeView> {
  readonly count: number;
  /** What the graph maths read of each node (see shared/graph/indexed-nodes.ts). */
  readonly fields: NodeFields = {
    id: (i) => this.ids[i]!,
    type: (i) => this.type(i),
    role: (i) => this.role(i),
    label: (i) => this.label(i),
    hasText: (i) => this.hasText(i),
    stopReason: (i) => this.stopReason(i),
  };
  readonly ids: readonly string[];
  /** Position of each node's parent in the list (`parents`), -1 for one named only by id, or none. */
  readonly parent: Int32Array;
  /**
   * True when nothing in the list is an exception to what decoding derives:
   * no parent named by id only, no children or depth sent as they are. A
   * depth-first list of a whole tree with unique ids (what the main process
   * sends) is one.
   */
  readonly derivedShape: boolean;
  private readonly wire: WireNodes;
  private readonly depth: Int32Array;
  private readonly line: Float64Array;
  private readonly time: Float64Array;
  private readonly parentIds: (string | null)[];
  private readonly timestamps: (string | null)[];
  private readonly labels: (string | null)[];
  private readonly targetIds: (string | null)[];
  private readonly tokensBefore: (number | null)[];
  private readonly toolSetOf: (number | null)[];
  private readonly sentChildren: (string[] | null)[];
  /** Derived children of each node: `childList[childStart[i] .. childStart[i + 1])`, positions in order. */
  private readonly childStart: Int32Array;
  private readonly childList: Int32Array;
  private readonly made: (TreeNodeView | undefined)[] = [];
  private readonly isoTimes = new IsoTimes();

  constructor(sent: WireNodes | WireJson | string) {
    const wire: WireNodes =
      typeof sent === "string"
        ? parseWireText(sent)
        : sent instanceof WireJson
          ? parseWireText(sent.json)
          : sent;
    if (typeof wire !== "object" || wire === null || wire.format !== WIRE_NODES_FORMAT) {
      throw new WireFormatError("not format 1");
    }
    const n = Array.isArray(wire.ids) ? wire.ids.length : -1;
    for (const column of [
      "parents",
      "shapes",
      "previews",
      "lines",
      "times",
      "tokenEstimates",
      "flags",
    ] as const) {
      if (!Array.isArray(wire[column]) || wire[column].length !== n) {
        throw new WireFormatError(`column "${column}" does not have one value per node`);
      }
    }
    this.wire = wire;
    this.count = n;
    this.ids = wire.ids;
    this.parentIds = denseColumn(wire.parentIds, n, "parentIds", null);
    const depths = denseColumn(wire.depths, n, "depths", null);
    const lineValues = denseColumn(wire.lineValues, n, "lineValues", null);
    this.timestamps = denseColumn(wire.timestampValues, n, "timestampValues", null);
    this.toolSetOf = denseColumn(wire.toolNames, n, "toolNames", null);
    this.labels = denseColumn(wire.labels, n, "labels", null);
    this.targetIds = denseColumn(wire.targetIds, n, "targetIds", null);
    this.tokensBefore = denseColumn(wire.tokensBefore, n, "tokensBefore", null);
    this.sentChildren = denseColumn(wire.children, n, "children", null);
    const { parents, shapes, lines, times, shapeTable, toolSets } = wire;
    const parent = new Int32Array(n);
    const depth = new Int32Array(n);
    const line = new Float64Array(n);
    const time = new Float64Array(n);
    let lastLine = 0;
    let lastTime = 0;
    let exceptions = false;
    for (let i = 0; i < n; i++) {
      const back = parents[i]!;
      let p = -1;
      if (back > 0) {
        p = i - back;
        if (p < 0) throw new WireFormatError(`node ${i} has its parent ${back} places before the first`);
      }
      parent[i] = p;
      const sentDepth = depths[i];
      depth[i] = sentDepth ?? (p === -1 ? 0 : depth[p]! + 1);
      if (!shapeTable[shapes[i]!]) throw new WireFormatError(`node ${i} has no shape`);
      const toolSet = this.toolSetOf[i];
      if (toolSet !== null && toolSet !== undefined && !toolSets[toolSet]) {
        throw new WireFormatError(`node ${i} names tool set ${toolSet}`);
      }
      const next = lastLine + lines[i]!;
      const lineValue = lineValues[i];
      if (lineValue === null || lineValue === undefined) {
        lastLine = next;
        line[i] = next;
      } else {
        line[i] = lineValue;
      }
      if (this.timestamps[i] === null) lastTime += times[i]!;
      time[i] = lastTime;
      if (this.parentIds[i] !== null || sentDepth !== null || this.sentChildren[i] !== null)
        exceptions = true;
    }
    // Nodes whose children were sent as they are get no derived ones.
    const { childStart, childList } = childListsOf(parent, (p) => this.sentChildren[p] === null);
    this.parent = parent;
    this.depth = depth;
    this.line = line;
    this.time = time;
    this.childStart = childStart;
    this.childList = childList;
    this.derivedShape = !exceptions;
  }

  private shape(i: number): NodeShape {
    return this.wire.shapeTable[this.wire.shapes[i]!]!;
  }

  type(i: number): string {
    return this.shape(i)[0];
  }

  kind(i: number): string {
    return this.shape(i)[1];
  }

  role(i: number): string | null {
    return this.shape(i)[2];
  }

  stopReason(i: number): string | null {
    return this.shape(i)[3];
  }

  hasText(i: number): boolean {
    return (this.wire.flags[i]! & HAS_TEXT) !== 0;
  }

  label(i: number): string | null {
    return this.labels[i]!;
  }

  preview(i: number): string {
    return this.wire.previews[i]!;
  }

  /** The tool names node `i` calls (shared: not to be changed). */
  toolNames(i: number): readonly string[] {
    const toolSet = this.toolSetOf[i];
    return toolSet === null || toolSet === undefined ? EMPTY : this.wire.toolSets[toolSet]!;
  }

  /** Node `i` as `decodeNodes` gives it, made once. */
  node(i: number): TreeNodeView {
    const made = this.made[i];
    if (made !== undefined) return made;
    if (!(i >= 0 && i < this.count)) throw new RangeError(`No node ${i} in a list of ${this.count}.`);
    const wire = this.wire;
    const p = this.parent[i]!;
    const shape = this.shape(i);
    const flag = wire.flags[i]!;
    const sent = this.sentChildren[i];
    let children = EMPTY;
    if (sent !== null && sent !== undefined) children = [...sent];
    else {
      const from = this.childStart[i]!;
      const to = this.childStart[i + 1]!;
      if (to > from) {
        children = [];
        for (let k = from; k < to; k++) children.push(this.ids[this.childList[k]!]!);
      }
    }
    const toolNames = this.toolNames(i);
    const view: TreeNodeView = {
      id: this.ids[i]!,
      parentId: p === -1 ? this.parentIds[i]! : this.ids[p]!,
      children,
      type: shape[0],
      role: shape[2],
      kind: shape[1],
      preview: wire.previews[i]!,
      label: this.labels[i]!,
      depth: this.depth[i]!,
      line: this.line[i]!,
      timestamp: this.timestamps[i] ?? this.isoTimes.format(this.time[i]!),
      toolNames: toolNames.length === 0 ? EMPTY : [...toolNames],
      tokenEstimate: wire.tokenEstimates[i]!,
      isError: (flag & IS_ERROR) !== 0,
      toolCallsOnly: (flag & TOOL_CALLS_ONLY) !== 0,
      hasText: (flag & HAS_TEXT) !== 0,
      stopReason: shape[3],
      tokensBefore: this.tokensBefore[i]!,
      targetId: this.targetIds[i]!,
    };
    this.made[i] = view;
    return view;
  }

  /** Every node, in order (what `decodeNodes` returns). */
  views(): TreeNodeView[] {
    const views: TreeNodeView[] = [];
    for (let i = 0; i < this.count; i++) views.push(this.node(i));
    return views;
  }
}

function parseWireText(text: string): WireNodes {
  try {
    return JSON.parse(text) as WireNodes;
  } catch {
    throw new WireFormatError("nodes that are not JSON");
  }
}

export function encodeSessionView(view: SessionView, form: EncodedNodesForm = "string"): WireSessionView {
  const encoded = encodedViews.get(view);
  if (encoded !== undefined) {
    return { ...encoded.fields, nodes: form === "spliced" ? new WireJson(encoded.json) : encoded.json };
  }
  return { ...view, nodes: encodeNodes(view.nodes) };
}

/** The view as sent; its nodes stay columns (`nodeTableOf`) until `nodes` is read. */
export function decodeSessionView(wire: WireSessionView): SessionView {
  const { nodes, ...fields } = wire;
  const table = new NodeTable(nodes);
  const view = viewWithLazyNodes(fields, () => table.views());
  viewTables.set(view, table);
  return view;
}

export function encodeSessionDelta(delta: SessionDelta): WireSessionDelta {
  return { ...delta, added: encodeNodes(delta.added), changed: encodeNodes(delta.changed) };
}

export function decodeSessionDelta(wire: WireSessionDelta): SessionDelta {
  return { ...wire, added: decodeNodes(wire.added), changed: decodeNodes(wire.changed) };
}

interface Codec<Plain, Wire> {
  encode(value: Plain, form: EncodedNodesForm): Wire;
  decode(value: Wire): Plain;
}

const plain: Codec<never, never> = { encode: (value) => value, decode: (value) => value };
const view: Codec<SessionView, WireSessionView> = { encode: encodeSessionView, decode: decodeSessionView };
const viewOrNull: Codec<SessionView | null, WireSessionView | null> = {
  encode: (value, form) => (value === null ? null : encodeSessionView(value, form)),
  decode: (value) => (value === null ? null : decodeSessionView(value)),
};

/** Every request's result codec: a request added to the contract must say how its result travels. */
const RESULT_CODECS: { [N in RequestName]: Codec<RequestResult<N>, WireResult<N>> } = {
  "app.info": plain,
  "library.list": plain,
  "library.rescan": plain,
  "library.search": plain,
  "session.open": view,
  "session.current": viewOrNull,
  "session.context": plain,
  "session.entry": plain,
  "session.search": plain,
  "session.setLabel": plain,
  "session.rename": plain,
  "session.fork": view,
  "session.clone": view,
  "session.new": view,
};

/** Every event's payload codec. */
const EVENT_CODECS: { [E in EventName]: Codec<ArborEvents[E], WireEvent<E>> } = {
  "library.progress": plain,
  "library.changed": plain,
  "library.sessionChanged": plain,
  "session.appended": {
    encode: (payload) => ({ sessionId: payload.sessionId, delta: encodeSessionDelta(payload.delta) }),
    decode: (payload) => ({ sessionId: payload.sessionId, delta: decodeSessionDelta(payload.delta) }),
  },
  "session.reloaded": {
    encode: (payload, form) => ({ ...payload, view: viewOrNull.encode(payload.view, form) }),
    decode: (payload) => ({ ...payload, view: viewOrNull.decode(payload.view) }),
  },
  "session.switched": plain,
};

/** `form`: how nodes already in wire form travel on this transport (see `EncodedNodesForm`). */
export function encodeResult<N extends RequestName>(
  name: N,
  result: RequestResult<N>,
  form: EncodedNodesForm = "string",
): WireResult<N> {
  return RESULT_CODECS[name].encode(result, form);
}

export function decodeResult<N extends RequestName>(name: N, result: WireResult<N>): RequestResult<N> {
  return RESULT_CODECS[name].decode(result);
}

export function encodeEvent<E extends EventName>(
  name: E,
  payload: ArborEvents[E],
  form: EncodedNodesForm = "string",
): WireEvent<E> {
  return EVENT_CODECS[name].encode(payload, form);
}

export function decodeEvent<E extends EventName>(name: E, payload: WireEvent<E>): ArborEvents[E] {
  return EVENT_CODECS[name].decode(payload);
}
