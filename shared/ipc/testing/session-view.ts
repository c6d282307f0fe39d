/** A session's view built in memory with the main process's own view builders: for tests on either side. */

import { type EntryReader, inMemoryEntryReader } from "../../session/entry-reader.ts";
import type { SessionIndex } from "../../session/tree-index.ts";
import type { SessionView, TreeNodeView } from "../contract.ts";
import { objectNodes } from "../session-nodes.ts";
import { treeNodeViews } from "../views.ts";

/** The view of an index; its entries are read by `options.reader`, by default from memory (`readSession`). */
export function sessionViewOf(
  sessionId: string,
  index: SessionIndex,
  options: { path?: string; live?: boolean; reader?: EntryReader } = {},
): SessionView {
  return {
    sessionId,
    path: options.path ?? `/sessions/${sessionId}.jsonl`,
    headerId: index.header?.id ?? null,
    cwd: index.header?.cwd ?? null,
    name: index.sessionName ?? null,
    version: index.version,
    parentSessionId: null,
    leafId: index.leafId,
    roots: [...index.roots],
    nodes: objectNodes(treeNodeViews(index, options.reader ?? inMemoryEntryReader(index))),
    problems: index.problems,
    bytes: index.byteLength,
    live: options.live ?? false,
  };
}

/** A view with its nodes as an array of objects, for comparing views whatever their nodes' implementation. */
export type PlainSessionView = Omit<SessionView, "nodes"> & { nodes: readonly TreeNodeView[] };

export function plainView(view: SessionView): PlainSessionView;
export function plainView(view: SessionView | null): PlainSessionView | null;
export function plainView(view: SessionView | null): PlainSessionView | null {
  return view === null ? null : { ...view, nodes: view.nodes.toArray() };
}
