/** A session's view built in memory with the main process's own view builders: for tests on either side. */

import type { SessionIndex } from "../../session/tree-index.ts";
import type { SessionView } from "../contract.ts";
import { treeNodeViews } from "../views.ts";

export function sessionViewOf(
  sessionId: string,
  index: SessionIndex,
  options: { path?: string; live?: boolean } = {},
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
    nodes: treeNodeViews(index),
    problems: index.problems,
    bytes: index.byteLength,
    live: options.live ?? false,
  };
}
