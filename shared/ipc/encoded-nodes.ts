/**
 * A node list known as the JSON text of its wire form (a saved view read
 * from disk, app/store/saved-view.ts): the encoder sends that text as it is,
 * and the list is decoded, once and into columns, only if something reads
 * its nodes.
 */

import type { IdIndex } from "../graph/indexed-nodes.ts";
import type { TreeNodeView } from "./contract.ts";
import { NodeTable } from "./node-table.ts";
import type { SessionNodeFields, SessionNodes } from "./session-nodes.ts";

/** The nodes whose wire form's JSON text is `wireJson` (not parsed until a node is read). */
export function encodedNodes(wireJson: string): SessionNodes {
  return new EncodedNodes(wireJson);
}

class EncodedNodes implements SessionNodes {
  private decoded: NodeTable | null = null;

  constructor(readonly wireJson: string) {}

  private get table(): NodeTable {
    this.decoded ??= new NodeTable(this.wireJson);
    return this.decoded;
  }

  get count(): number {
    return this.table.count;
  }

  get ids(): readonly string[] {
    return this.table.ids;
  }

  get fields(): SessionNodeFields {
    return this.table.fields;
  }

  get parent(): Int32Array {
    return this.table.parent;
  }

  get derivedShape(): boolean {
    return this.table.derivedShape;
  }

  idIndex(): IdIndex {
    return this.table.idIndex();
  }

  node(i: number): TreeNodeView {
    return this.table.node(i);
  }

  toArray(): readonly TreeNodeView[] {
    return this.table.toArray();
  }
}
