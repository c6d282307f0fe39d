/**
 * The IPC views of a session built in memory with the main process's own
 * view builders (shared/ipc/views.ts): used by the fake client in component tests.
 */

import type { ContextView } from "../../../shared/ipc/contract.ts";
import { sessionViewOf } from "../../../shared/ipc/testing/session-view.ts";
import { contextView, treeNodeViews } from "../../../shared/ipc/views.ts";
import { inMemoryEntryReader, type SessionIndex } from "../../../shared/session/index.ts";

export { sessionViewOf, treeNodeViews };

/** The main process's own context view (shared/ipc/views.ts) of an index read whole (`readSession`). */
export function contextViewOf(index: SessionIndex, leafId: string | null, llm: boolean): ContextView {
  return contextView(index, inMemoryEntryReader(index), leafId, llm);
}
