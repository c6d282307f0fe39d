/**
 * The nodes of a session's view (`SessionView.nodes`): every node,
 * depth-first from the roots, children in Pi's order, behind one interface
 * with four implementations:
 * - objects the main process built, or applying a delta gave (`objectNodes`);
 * - columns decoded from the wire (node-table.ts): a 100k-node list whose
 *   objects are made only for the nodes something asks for (those drawn);
 * - the JSON text of their wire form (encoded-nodes.ts: a saved view's),
 *   sent as it is and decoded only if something reads the nodes;
 * - a list grown by appends (session-nodes-grown.ts): one of the others with
 *   the appended nodes after it and the changed ones over it, nothing copied.
 * Readers go through `fields` for passes over every node, and make a node's
 * object with `node(i)` for the few they need. Positions (`node`, `fields`,
 * `ids`, `parent`) are depth-first as the main process sends a list; a list
 * grown by appends keeps every position and puts the new nodes last (each
 * after its parent, children still in order). `toArray()` is depth-first.
 */

import { type IdIndex, idIndexOf, type NodeFields, type NodeList } from "../graph/indexed-nodes.ts";
import type { TreeNodeView } from "./contract.ts";

/** What the readers of every node read of node `i`: the graph passes' fields, and the search's. */
export interface SessionNodeFields extends NodeFields {
  kind(i: number): string;
  preview(i: number): string;
  /** The tool names node `i` calls (may be shared with the list: not to be changed). */
  toolNames(i: number): readonly string[];
  /** Node `i` is archived (hidden by default). */
  archived(i: number): boolean;
}

export interface SessionNodes extends NodeList<TreeNodeView> {
  /** How many nodes the list holds. */
  readonly count: number;
  /** Each node's id, in order. */
  readonly ids: readonly string[];
  readonly fields: SessionNodeFields;
  /** Node `i`: the same object whenever it is asked for (of columns: made when first asked for). */
  node(i: number): TreeNodeView;
  /** Position of each node's parent, -1 without one in the list, when the list knows them (columns); else null. */
  readonly parent: Int32Array | null;
  /**
   * True when `parent` is known and the list is a whole tree, each parent
   * before its children, whose children and depths are those its parents
   * give (no exception to them): it can be indexed from `parent` without
   * making a node.
   */
  readonly derivedShape: boolean;
  /** The position of each id, built once (shared by whoever indexes the list). */
  idIndex(): IdIndex;
  /** Every node, depth-first (of columns: makes every node's object, once). For the few that need them all. */
  toArray(): readonly TreeNodeView[];
  /** The JSON text of the list's wire form when the list is known as that (a saved view's): sent as it is. */
  readonly wireJson: string | null;
}

/** A list of node objects; `nodes` is kept, not copied (not to be changed afterwards). */
export function objectNodes(nodes: readonly TreeNodeView[]): SessionNodes {
  return new NodeObjects(nodes);
}

class NodeObjects implements SessionNodes {
  readonly count: number;
  readonly fields: SessionNodeFields;
  readonly parent = null;
  readonly derivedShape = false;
  readonly wireJson = null;
  private idList: readonly string[] | null = null;
  private positions: IdIndex | null = null;

  constructor(private readonly nodes: readonly TreeNodeView[]) {
    this.count = nodes.length;
    this.fields = {
      id: (i) => nodes[i]!.id,
      type: (i) => nodes[i]!.type,
      kind: (i) => nodes[i]!.kind,
      role: (i) => nodes[i]!.role,
      label: (i) => nodes[i]!.label,
      hasText: (i) => nodes[i]!.hasText,
      stopReason: (i) => nodes[i]!.stopReason,
      preview: (i) => nodes[i]!.preview,
      toolNames: (i) => nodes[i]!.toolNames,
      archived: (i) => nodes[i]!.archived,
    };
  }

  /** Made when first read: a list of objects is indexed from them, not from its ids. */
  get ids(): readonly string[] {
    this.idList ??= this.nodes.map((node) => node.id);
    return this.idList;
  }

  idIndex(): IdIndex {
    this.positions ??= idIndexOf(this.count, (i) => this.nodes[i]!.id);
    return this.positions;
  }

  node(i: number): TreeNodeView {
    const node = this.nodes[i];
    if (node === undefined) throw new RangeError(`No node ${i} in a list of ${this.count}.`);
    return node;
  }

  toArray(): readonly TreeNodeView[] {
    return this.nodes;
  }
}
