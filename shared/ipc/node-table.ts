/**
 * A node list decoded from its wire form (shared/ipc/wire-nodes.ts) column
 * by column, with no object per node: the renderer's passes over every node
 * (the filter, chain folding, the tree's shape, the search) read the columns,
 * and a node's whole `TreeNodeView` is made only when something asks for it
 * (`node`): the nodes drawn, a few thousand of 100k. `toArray()` makes them
 * all. Every check of the wire form is made when the table is built.
 */

import { childListsOf, type IdIndex, idIndexOf } from "../graph/indexed-nodes.ts";
import type { TreeNodeView } from "./contract.ts";
import { IsoTimes } from "./iso-times.ts";
import type { SessionNodeFields, SessionNodes } from "./session-nodes.ts";
import {
  ARCHIVED,
  HAS_TEXT,
  IS_ERROR,
  type NodeShape,
  type SparseColumn,
  TOOL_CALLS_ONLY,
  WIRE_NODES_FORMAT,
  WireFormatError,
  type WireNodes,
} from "./wire-nodes.ts";

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

/** Every node of a list in its wire form (or that form's JSON text), as objects. */
export function decodeNodes(sent: WireNodes | string): TreeNodeView[] {
  return [...new NodeTable(sent).toArray()];
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

/** The wire form `sent` stands for, checked to have one value per node in each dense column. */
function wireNodesOf(sent: WireNodes | string): WireNodes {
  const wire: WireNodes = typeof sent === "string" ? parseWireText(sent) : sent;
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
  return wire;
}

function parseWireText(text: string): WireNodes {
  try {
    return JSON.parse(text) as WireNodes;
  } catch {
    throw new WireFormatError("nodes that are not JSON");
  }
}

/** The columns of a node list (see the top of the file); no object per node until one is asked for. */
export class NodeTable implements SessionNodes {
  readonly count: number;
  /** What the passes over every node read of each node (see shared/graph/indexed-nodes.ts). */
  readonly fields: SessionNodeFields = {
    id: (i) => this.ids[i]!,
    type: (i) => this.shape(i)[0],
    kind: (i) => this.shape(i)[1],
    role: (i) => this.shape(i)[2],
    stopReason: (i) => this.shape(i)[3],
    label: (i) => this.labels[i]!,
    hasText: (i) => (this.wire.flags[i]! & HAS_TEXT) !== 0,
    preview: (i) => this.wire.previews[i]!,
    toolNames: (i) => this.toolNames(i),
    archived: (i) => (this.wire.flags[i]! & ARCHIVED) !== 0,
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
  /** Columns are decoded from the wire, not kept as its text. */
  readonly wireJson = null;
  /** Parents are sent as offsets back: each comes before its children. */
  readonly parentsFirst = true;
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
  private all: readonly TreeNodeView[] | null = null;
  private positions: IdIndex | null = null;
  private readonly isoTimes = new IsoTimes();

  constructor(sent: WireNodes | string) {
    const wire = wireNodesOf(sent);
    const n = wire.ids.length;
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

  /** The tool names node `i` calls (shared: not to be changed). */
  private toolNames(i: number): readonly string[] {
    const toolSet = this.toolSetOf[i];
    return toolSet === null || toolSet === undefined ? EMPTY : this.wire.toolSets[toolSet]!;
  }

  idIndex(): IdIndex {
    this.positions ??= idIndexOf(this.count, (i) => this.ids[i]!);
    return this.positions;
  }

  /** Node `i` as the main process built it, made once. */
  node(i: number): TreeNodeView {
    const made = this.made[i];
    if (made !== undefined) return made;
    if (!(i >= 0 && i < this.count)) throw new RangeError(`No node ${i} in a list of ${this.count}.`);
    const wire = this.wire;
    const p = this.parent[i]!;
    const shape = this.shape(i);
    const flag = wire.flags[i]!;
    const toolNames = this.toolNames(i);
    const view: TreeNodeView = {
      id: this.ids[i]!,
      parentId: p === -1 ? this.parentIds[i]! : this.ids[p]!,
      children: this.children(i),
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
      archived: (flag & ARCHIVED) !== 0,
    };
    this.made[i] = view;
    return view;
  }

  /** Node `i`'s children's ids: as sent, or derived from the parents. */
  private children(i: number): string[] {
    const sent = this.sentChildren[i];
    if (sent !== null && sent !== undefined) return [...sent];
    const from = this.childStart[i]!;
    const to = this.childStart[i + 1]!;
    if (to === from) return EMPTY;
    const children: string[] = [];
    for (let k = from; k < to; k++) children.push(this.ids[this.childList[k]!]!);
    return children;
  }

  /** Every node, in order: each made (once) now. */
  toArray(): readonly TreeNodeView[] {
    if (this.all === null) {
      const all: TreeNodeView[] = [];
      for (let i = 0; i < this.count; i++) all.push(this.node(i));
      this.all = all;
    }
    return this.all;
  }
}
