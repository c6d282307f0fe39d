/** `arbor tree`: the index as JSON, or as an indented tree in the manner of Pi's `/tree`. */

import type { EntryReader, SessionIndex } from "../../shared/session/index.ts";

export interface TreeJsonNode {
  id: string;
  parentId: string | null;
  /** The parent the entry names, when the tree could not use it (orphan, self-parent, cycle). */
  declaredParentId?: string | null;
  children: readonly string[];
  type: string;
  role?: string;
  label?: string;
  depth: number;
  line: number;
}

export interface TreeJson {
  leafId: string | null;
  roots: string[];
  orphans: string[];
  sessionName: string | null;
  parentSession: string | null;
  /** In depth-first order, children in Pi's order. */
  nodes: TreeJsonNode[];
}

/** Depth-first, children in order; iterative so a 100k-deep chain does not overflow the stack. */
export function walkDepthFirst(index: SessionIndex, visit: (id: string) => void): void {
  const stack = [...index.roots].reverse();
  while (stack.length > 0) {
    const id = stack.pop()!;
    visit(id);
    const children = index.nodes.get(id)!.children;
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
}

export function treeJson(index: SessionIndex, reader: EntryReader): TreeJson {
  const nodes: TreeJsonNode[] = [];
  walkDepthFirst(index, (id) => {
    const node = index.nodes.get(id)!;
    const out: TreeJsonNode = {
      id,
      parentId: node.parentId,
      children: node.children,
      type: node.entry.type,
      depth: node.depth,
      line: node.line,
    };
    const declared = node.entry.parentId;
    if (declared !== node.parentId) out.declaredParentId = typeof declared === "string" ? declared : null;
    const role = reader.facts(id)?.role;
    if (role) out.role = role;
    const label = index.labels.get(id)?.label;
    if (label) out.label = label;
    nodes.push(out);
  });
  return {
    leafId: index.leafId,
    roots: index.roots,
    orphans: index.orphans,
    sessionName: index.sessionName ?? null,
    parentSession: index.parentSession ?? null,
    nodes,
  };
}

/**
 * Indented as Pi's `/tree` indents (`flattenTree` in its tree selector): a
 * chain without branches stays at one indent; the children of a branch point
 * get `├─`/`└─` one level in, and the chain below each of them one level
 * further; several roots (orphans, cut cycles) sit at the left edge with
 * their descendants one level in. Children keep Pi's order (by timestamp;
 * Pi's selector also lifts the branch holding the current leaf to the top).
 * `*` marks the file's leaf. Iterative, so a 100k-deep chain is fine.
 */
export function renderTreeText(
  index: SessionIndex,
  reader: EntryReader,
  write: (line: string) => void,
): void {
  // `prefix`: what precedes this node's text; `under`: what its descendants inherit from the levels above;
  // `branched`: the node is a child of a branch point (or one of several roots), so its chain steps in once.
  const stack: { id: string; prefix: string; under: string; branched: boolean }[] = [];
  const roots = index.roots;
  for (let i = roots.length - 1; i >= 0; i--) {
    stack.push({ id: roots[i]!, prefix: "", under: "", branched: roots.length > 1 });
  }
  while (stack.length > 0) {
    const { id, prefix, under, branched } = stack.pop()!;
    write(`${prefix}${describeNode(index, reader, id)}`);
    const children = index.nodes.get(id)!.children;
    if (children.length === 1) {
      const next = branched ? `${under}   ` : under;
      stack.push({ id: children[0]!, prefix: next, under: next, branched: false });
      continue;
    }
    for (let i = children.length - 1; i >= 0; i--) {
      const last = i === children.length - 1;
      stack.push({
        id: children[i]!,
        prefix: under + (last ? "└─ " : "├─ "),
        under: under + (last ? "   " : "│  "),
        branched: true,
      });
    }
  }
}

function describeNode(index: SessionIndex, reader: EntryReader, id: string): string {
  const facts = reader.facts(id)!;
  const label = index.labels.get(id)?.label;
  const marks = `${id === index.leafId ? " *" : ""}${label ? ` [${label}]` : ""}`;
  const preview = facts.preview
    ? `: ${facts.preview.length > 70 ? `${facts.preview.slice(0, 69)}…` : facts.preview}`
    : "";
  return `${id} ${facts.kind}${marks}${preview}`;
}
