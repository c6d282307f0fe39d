/**
 * The open session's view as every client last heard of it: node views
 * kept up to date with its index (an append builds only what it adds and
 * changes), and the roots and problems as sent, so that only what changes
 * is sent again.
 */

import type { SessionDelta } from "../../shared/ipc/contract.ts";
import { listPatch, sameProblem } from "../../shared/ipc/session-delta.ts";
import { type SessionViewContent, sessionViewContent, TreeNodeViewCache } from "../../shared/ipc/views.ts";
import type { Problem } from "../../shared/session/problems.ts";
import type { EntryReader } from "../../shared/session/entry-reader.ts";
import type { SessionIndex } from "../../shared/session/tree-index.ts";
import type { OpenSession } from "../runtime/open-session.ts";
import type { SavedView } from "../store/saved-view.ts";
import { type SavedViewNodes, savedViewNodes } from "./saved-view-answers.ts";

/** What an append changed in the view sent: the delta's node and list changes, from `baseBytes`. */
export type SentViewChanges = Pick<
  SessionDelta,
  "baseBytes" | "added" | "changed" | "removed" | "roots" | "problems"
>;

export class SentView {
  private constructor(
    readonly nodes: TreeNodeViewCache,
    private roots: string[],
    private problems: Problem[],
    private bytes: number,
    /**
     * The saved view the state started from, while the index is still what
     * it describes: the view is then sent from it, its nodes' wire form as
     * it was saved, none of them built.
     */
    private savedNodes: SavedViewNodes | undefined,
  ) {}

  static fromSavedView(view: SavedView): SentView {
    const saved = savedViewNodes(view);
    // Decoded only if the index changes before the nodes were ever built (or something reads them).
    const nodes = TreeNodeViewCache.fromKnown({
      entryCount: view.entryCount,
      byteLength: view.content.bytes,
      roots: view.content.roots,
      nodes: () => saved.nodes.toArray(),
    });
    return new SentView(
      nodes,
      [...view.content.roots],
      [...view.content.problems],
      view.content.bytes,
      saved,
    );
  }

  static fromIndex(index: SessionIndex, reader: EntryReader): SentView {
    const nodes = new TreeNodeViewCache();
    nodes.update(index, reader);
    return new SentView(nodes, [...index.roots], [...index.problems], index.byteLength, undefined);
  }

  /** The saved view it is still the view of, if any. */
  get saved(): SavedViewNodes | undefined {
    return this.savedNodes;
  }

  /** Copies of the roots and problems as sent, for a whole view. */
  rootsAndProblems(): { roots: string[]; problems: Problem[] } {
    return { roots: [...this.roots], problems: [...this.problems] };
  }

  /**
   * Brings the view up to date with the session's index: what changed since
   * it was sent (and is sent now), with the content it has now; undefined
   * when nothing did.
   */
  advance(session: OpenSession): { content: SessionViewContent; changes: SentViewChanges } | undefined {
    // The session still holds the saved view it was sent: its index has not changed (it may not be built).
    if (this.savedNodes && session.savedView === this.savedNodes.view) return undefined;
    const index = session.index;
    // Built from the saved view's bytes and only extended since: its nodes are extended, not all compared.
    if (this.savedNodes && session.indexGrewFrom(this.savedNodes.view)) this.nodes.adopt(index);
    if (this.nodes.isCurrent(index)) return undefined;
    this.savedNodes = undefined;
    const { added, changed, removed } = this.nodes.update(index, session.reader);
    const content = sessionViewContent(index, session.reader);
    const changes: SentViewChanges = {
      baseBytes: this.bytes,
      added,
      changed,
      removed,
      roots: listPatch(this.roots, content.roots),
      problems: listPatch(this.problems, content.problems, sameProblem),
    };
    this.roots = content.roots;
    this.problems = content.problems;
    this.bytes = content.bytes;
    return { content, changes };
  }
}
