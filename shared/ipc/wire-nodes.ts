/**
 * The wire form of node lists, and its encoder: columnar, for the views that
 * carry a whole session (100k nodes are about a fifth of their JSON as
 * objects). node-table.ts decodes it.
 *
 * A list is one array per field. Whatever decoding can derive is not sent:
 * `depth` (the parent's plus one), `children` (the nodes that name the node
 * as parent, in list order, as in a depth-first list); parents are distances
 * back in the list, lines and times differences from the node before. The
 * rare node where a derivation does not hold (a list that is not a whole
 * tree, a time that is not an ISO string) has its own value in an exception
 * list, so every list round-trips exactly.
 */

import type { TreeNodeView } from "./contract.ts";
import { requestErrors } from "../error-texts.ts";
import { IsoTimes } from "./iso-times.ts";

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
  /** Bit 0: `isError`, bit 1: `toolCallsOnly`, bit 2: `hasText`, bit 3: `archived`. */
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

/** Thrown when what arrived is not in the wire format (a client and a main process of different versions). */
export class WireFormatError extends Error {
  constructor(what: string) {
    super(requestErrors.unreadableNodes(what));
    this.name = "WireFormatError";
  }
}

/** Bits of `WireNodes.flags`. */
export const IS_ERROR = 1;
export const TOOL_CALLS_ONLY = 2;
export const HAS_TEXT = 4;
export const ARCHIVED = 8;

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

/**
 * The wire form of `nodes`. One piece: each node's columns are written in one
 * step of one pass (100k nodes on an open), each sharing the running state
 * (the line, the time, the parent walk) of the node before.
 */
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
      (node.hasText ? HAS_TEXT : 0) |
      (node.archived ? ARCHIVED : 0);
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
