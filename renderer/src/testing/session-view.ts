/**
 * The IPC views of a session built in memory with the main process's own
 * view builders (shared/ipc/views.ts): used by the fake client in component tests.
 */

import type { ContextView, SessionView } from "../../../shared/ipc/contract.ts";
import { contextView, treeNodeViews } from "../../../shared/ipc/views.ts";
import type { SessionIndex } from "../../../shared/session/index.ts";

export { treeNodeViews };

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

/** The main process's own context view (shared/ipc/views.ts). */
export function contextViewOf(index: SessionIndex, leafId: string | null, llm: boolean): ContextView {
  return contextView(index, leafId, llm);
}
