/**
 * The window's branch requests: the open session's branch map
 * (`session.branches`) and two of its tips compared, or a tip of it with one
 * of another session of the library (`session.compare`, the other session
 * named by an id Arbor issued, never a path). The map is built once per
 * index and kept up to date as the index grows by appends; a session opened
 * from a saved view (app/store/saved-view.ts) answers with the map saved
 * with it until its index is needed, so the map of a large session is there
 * as soon as its view is, not seconds later; another session
 * compared with is kept open until a different one is asked for, or the
 * file changes, or the window goes.
 */

import { statSync } from "node:fs";
import { type BranchMap, BranchModel, type RunFacts } from "../../shared/branches/index.ts";
import { type CompareSide, compareBranches } from "../../shared/compare/index.ts";
import { manageErrors } from "../../shared/error-texts.ts";
import { ArborError, type CompareRequest, type CompareView } from "../../shared/ipc/contract.ts";
import { DisposableObject, toDisposable } from "../../shared/lifecycle/disposable.ts";
import type { SessionIndex } from "../../shared/session/tree-index.ts";
import type { IssuedIds } from "../ipc/issued-ids.ts";
import type { LibraryView } from "../library-view/library-view.ts";
import type { SessionRuntime } from "../runtime/session-runtime.ts";
import { requireOpenSession } from "../session-view/session-views.ts";
import { type IndexedFile, openIndexedFile } from "../store/open-indexed-file.ts";
import { savedBranchMap } from "../session-view/saved-view-answers.ts";

/** Turns of message detail sent when the request does not say. */
const DEFAULT_DETAIL_TURNS = 20;

export interface SessionBranchesOptions {
  runtime: SessionRuntime;
  library: LibraryView;
  ids: IssuedIds;
}

export class SessionBranches extends DisposableObject {
  private readonly models = new WeakMap<SessionIndex, BranchModel>();
  /** The other session last compared with, open. */
  private other: { path: string; file: IndexedFile } | undefined;

  constructor(private readonly options: SessionBranchesOptions) {
    super();
    this.register(toDisposable(() => this.closeOther()));
  }

  /** The open session's branch map; refused when no session is open. */
  map(): BranchMap {
    return this.savedMap() ?? this.model().branchMap();
  }

  /**
   * The map saved with the open session's saved view, while the session is
   * still the bytes it was saved for (`savedView` is undefined once the
   * index changed): read without building the index.
   */
  private savedMap(): BranchMap | undefined {
    const saved = requireOpenSession(this.options.runtime).savedView;
    return saved && savedBranchMap(saved);
  }

  /** The full facts of a branch (by its tip) or a segment of the open session's map. */
  facts(of: { leafId: string } | { segmentId: string }): RunFacts {
    const model = this.model();
    const facts = "leafId" in of ? model.branchFacts(of.leafId) : model.segmentFacts(of.segmentId);
    if (facts) return facts;
    throw new ArborError(
      "not-found",
      "leafId" in of ? manageErrors.noBranchAt(of.leafId) : manageErrors.noSegmentAt(of.segmentId),
    );
  }

  /** The open session's model: made for its index, then brought up to date with what was appended. */
  private model(): BranchModel {
    const { index, reader } = requireOpenSession(this.options.runtime);
    let model = this.models.get(index);
    if (model) model.update();
    else {
      model = BranchModel.build(index, reader);
      this.models.set(index, model);
    }
    return model;
  }

  async compare(request: CompareRequest): Promise<CompareView> {
    const { runtime, ids } = this.options;
    const session = requireOpenSession(runtime);
    const left: CompareSide = {
      index: session.index,
      reader: session.reader,
      tipId: request.left.leafId,
      file: session.path,
    };
    const right = await this.rightSide(request.right, left);
    for (const side of [left, right]) {
      if (!side.index.nodes.has(side.tipId)) {
        const where = side.index === left.index ? "the open session" : "that session";
        throw new ArborError("not-found", manageErrors.noTipIn(side.tipId, where));
      }
    }
    const detail = request.detail ?? { fromTurn: 0, turns: DEFAULT_DETAIL_TURNS };
    const comparison = compareBranches(left, right, {
      detail: { from: detail.fromTurn, count: detail.turns },
    });
    return {
      ...comparison,
      leftSessionId: ids.sessionId(session.path),
      rightSessionId: ids.sessionId(right.file!),
      detail: comparison.detail!,
    };
  }

  /** The right side: in the open session, or in the library session `sessionId` names (opened read-only). */
  private async rightSide(right: CompareRequest["right"], open: CompareSide): Promise<CompareSide> {
    const path =
      right.sessionId === undefined ? open.file! : await this.options.library.sessionPath(right.sessionId);
    if (path === undefined) {
      throw new ArborError("not-found", manageErrors.sessionIdNotIssued);
    }
    if (path === open.file) return { ...open, tipId: right.leafId };
    const other = this.openOther(path);
    return { index: other.index, reader: other.reader, tipId: right.leafId, file: path };
  }

  private openOther(path: string): IndexedFile {
    const kept = this.other;
    if (kept?.path === path) {
      const now = statSync(path);
      const { file } = kept;
      if (now.size === file.size && now.mtimeMs === file.mtimeMs && now.ino === file.ino) return file;
    }
    this.closeOther();
    const file = openIndexedFile(path);
    if (this.isDisposed) file.close();
    else this.other = { path, file };
    return file;
  }

  private closeOther(): void {
    this.other?.file.close();
    this.other = undefined;
  }
}
