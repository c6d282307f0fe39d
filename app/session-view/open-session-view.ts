/**
 * The open session's view: one per open session, made when the session
 * becomes the runtime's session and disposed with it (see
 * `session-views.ts`). It answers the view, contexts, entries and searches
 * of the session, and sends what changes in the view to every client
 * (`session.appended`, `session.reloaded`).
 */

import {
  ArborError,
  type ContextPage,
  type ContextPageRequest,
  type ContextView,
  type EntryDetail,
  SESSION_SEARCH_MAX_LIMIT,
  type SessionDelta,
  type SessionSearchResult,
  type SessionView,
  type TextPath,
} from "../../shared/ipc/contract.ts";
import {
  contextView,
  entryDetail,
  type SessionViewContent,
  sessionViewContent,
} from "../../shared/ipc/views.ts";
import {
  contextPageOf,
  lastWindow,
  type PagedContext,
  pagedContext,
  pageLength,
} from "../../shared/ipc/context-pages.ts";
import { sessionErrors } from "../../shared/error-texts.ts";
import { EntrySearch } from "../../shared/session/entry-search.ts";
import { objectNodes } from "../../shared/ipc/session-nodes.ts";
import type { EntryReader } from "../../shared/session/entry-reader.ts";
import type { SessionIndex } from "../../shared/session/tree-index.ts";
import type { EventSink } from "../ipc/event-sink.ts";
import type { IssuedIds } from "../ipc/issued-ids.ts";
import type { LibraryView } from "../library-view/library-view.ts";
import { DisposableObject, toDisposable } from "../../shared/lifecycle/disposable.ts";
import type { OpenSession, SessionReloadReason } from "../runtime/open-session.ts";
import { LIVE_WINDOW_MS } from "../store/append.ts";
import type { SavedView } from "../store/saved-view.ts";
import { editTargetsOnPath, grownContextView } from "../../shared/ipc/leaf-context-grown.ts";
import { savedLeafContext, savedLeafEntry, sessionViewFromSaved } from "./saved-view-answers.ts";
import { SentView } from "./sent-view.ts";
import {
  cutContextPage,
  cutContextView,
  cutEntryDetail,
  type LineBytes,
  type TextSource,
  WholeTexts,
} from "./text-answers.ts";

/** The whole context last asked for, ready to page (see `OpenSessionView.paged`). */
interface PagedAnswer {
  key: string;
  context: PagedContext;
  /** Each entry's line length, for a context built from the index (undefined: from a saved view). */
  lineBytes: LineBytes | undefined;
  /** The index it was built from (undefined: from a saved view). */
  index: SessionIndex | undefined;
  /** The saved view it was read from, if it was. */
  savedView: SavedView | undefined;
  /** The ids the context edits on its path name, once a context was grown from it (`editTargetsOnPath`). */
  editTargets: ReadonlySet<string> | undefined;
}

/**
 * See `SessionViewServices.indexBuildDelayMs`. A window asks for the leaf's context and entry together once
 * it has read the view (its map came with the view); a short quiet after their answers, and the index is
 * built while the window draws them, before a live session's next append or the user's first click needs it.
 */
export const INDEX_BUILD_DELAY_MS = 150;

/** What the views of a window's sessions share. */
export interface SessionViewServices {
  events: EventSink;
  ids: IssuedIds;
  /** Knows the file a session was forked from. */
  library: LibraryView;
  now: () => number;
  /**
   * Runs work once the answers given so far have left the process, so that
   * long work does not hold them back (see `WindowServicesOptions.afterReplies`).
   */
  afterReplies: (work: () => void) => void;
  /** How long after the last answer read from its saved view a session builds its index (see `buildIndexSoon`). */
  indexBuildDelayMs: number;
  /** Errors of work done after the replies (building the index). */
  onInternalError?: ((error: unknown, request: string) => void) | undefined;
}

export class OpenSessionView extends DisposableObject {
  /** The view as every client last heard of it; none until a view of this session was sent. */
  private sent: SentView | undefined;
  /** What pages of long texts are read from. */
  private readonly wholeTexts = new WholeTexts((source) =>
    "entryId" in source
      ? this.wholeEntry(source.entryId).entry
      : this.pagedContext(source.leafId, source.llm).context.whole,
  );
  /**
   * The whole context last asked for, ready to page, so that paging through
   * 100k messages builds it once. Kept while the file grows: appends never
   * change the context of a leaf already there (its path and the entries on
   * it stay as they are); dropped when the file is read again.
   */
  private paged: PagedAnswer | undefined;
  /** The index build `buildIndexSoon` scheduled (put off by each answer read from the saved view), or done. */
  private indexBuild: ReturnType<typeof setTimeout> | "done" | undefined;
  /** One search per index: its texts are built on the first search and kept while the index grows by appends. */
  private readonly searches = new WeakMap<SessionIndex, EntrySearch>();

  constructor(
    readonly session: OpenSession,
    private readonly services: SessionViewServices,
  ) {
    super();
  }

  /** The whole view, as it is now (what changed since the view last sent goes out first as a delta). */
  view(): SessionView {
    const { session } = this;
    const sent = this.sentView();
    const saved = sent.saved;
    const content = saved?.view.content ?? sessionViewContent(session.index, session.reader);
    const fields = {
      sessionId: this.services.ids.sessionId(session.path),
      path: session.path,
      ...this.viewFields(content),
      ...sent.rootsAndProblems(),
    };
    if (saved) return sessionViewFromSaved(fields, saved);
    return { ...fields, nodes: objectNodes([...sent.nodes.nodes()]) };
  }

  /** The context from `leafId`: its figures, and its messages whole or, past one answer's budget, the last page. */
  context(leafId: string | null, llm: boolean): ContextView {
    const { context, lineBytes } = this.pagedContext(leafId, llm);
    return cutContextView(lastWindow(context), lineBytes);
  }

  /** The messages `from` on of the context from `leafId`: as many of `count` as fit one answer. */
  contextPage({ leafId, llm, from, count }: ContextPageRequest): ContextPage {
    const { context, lineBytes } = this.pagedContext(leafId, llm);
    const total = context.whole.messages.length;
    if (from > total || (from === total && total > 0)) {
      throw new ArborError("not-found", sessionErrors.noMessages(from, total));
    }
    const page = contextPageOf(context, from, pageLength(context, from, count));
    return cutContextPage(page, context.whole, lineBytes);
  }

  entry(entryId: string): EntryDetail {
    return cutEntryDetail(this.wholeEntry(entryId));
  }

  /** A page of a string an entry or context answer cut short. */
  text(source: TextSource, path: TextPath, offset: number, length: number): { text: string; length: number } {
    return this.wholeTexts.page(source, path, offset, length);
  }

  private pagedContext(leafId: string | null, llm: boolean): PagedAnswer {
    const key = JSON.stringify([leafId, llm]);
    const held = this.paged;
    // A context holds while the index grows in place; a rebuilt one (an orphan's parent arrived, an id came
    // again) may have moved any path.
    if (held?.key === key && this.stillHolds(held)) return held;
    const saved = savedLeafContext(this.session.savedView, leafId, llm);
    if (saved) {
      this.buildIndexSoon();
      this.paged = {
        key,
        context: pagedContext(saved),
        lineBytes: undefined,
        index: undefined,
        savedView: this.session.savedView,
        editTargets: undefined,
      };
    } else {
      const { index, reader } = this.session;
      const lineBytes: LineBytes = (entryId) => index.nodes.get(entryId)?.byteLength;
      const grown = this.grownContext(leafId, llm);
      const whole = grown?.whole ?? contextView(index, reader, leafId, llm);
      this.paged = {
        key,
        context: pagedContext(whole, lineBytes),
        lineBytes,
        index,
        savedView: undefined,
        editTargets: grown?.editTargets,
      };
    }
    return this.paged;
  }

  /** Whether a context built (or read from the saved view) is still the one of its leaf. */
  private stillHolds(answer: PagedAnswer): boolean {
    const { session } = this;
    if (answer.index !== undefined) return answer.index === session.index;
    return answer.savedView === session.savedView || session.indexGrewFrom(answer.savedView!);
  }

  /**
   * Following the leaf of a live session asks for the context of an entry
   * just below the last one built: grown from it, at the cost of the entries
   * between (`grownContextView`), when it can be. A context read from the
   * saved view grows too, while the index is the view's grown by appends.
   */
  private grownContext(leafId: string | null, llm: boolean) {
    const { index, reader } = this.session;
    const last = this.paged;
    const from = last?.context.whole;
    if (!last || !from || leafId === null || from.leafId === null) return null;
    if (!this.stillHolds(last)) return null;
    if ((from.llm !== null) !== llm) return null;
    // One walk of the path, the first time; the messages a context grows by name no entry.
    const editTargets = last.editTargets ?? editTargetsOnPath(index, from.leafId);
    last.editTargets = editTargets;
    const whole = grownContextView(index, reader, from, leafId, editTargets);
    return whole === null ? null : { whole, editTargets };
  }

  private wholeEntry(entryId: string): EntryDetail {
    const saved = savedLeafEntry(this.session.savedView, entryId);
    if (!saved) return entryDetail(this.session.index, this.session.reader, entryId);
    this.buildIndexSoon();
    return saved;
  }

  async search(query: string, limit = SESSION_SEARCH_MAX_LIMIT): Promise<SessionSearchResult> {
    // The first search of a large session reads most of its file: other requests are answered between reads.
    const found = await this.searchOf(this.session.index, this.session.reader).search(
      query,
      limit,
      () => new Promise((resolvePause) => setImmediate(resolvePause)),
    );
    return { query, ...found };
  }

  /** The index changed: what changed in the view since it was sent goes out as `session.appended`. */
  advance(): void {
    // Until a view of this session was sent, there is nothing to send a delta of.
    const advanced = this.sent?.advance(this.session);
    if (!advanced) return;
    const { content, changes } = advanced;
    const delta: SessionDelta = {
      baseBytes: changes.baseBytes,
      ...this.viewFields(content),
      added: changes.added,
      changed: changes.changed,
      removed: changes.removed,
      roots: changes.roots,
      problems: changes.problems,
    };
    const sessionId = this.services.ids.sessionId(this.session.path);
    this.services.events.emit("session.appended", { sessionId, delta });
  }

  /** The file was read again (or is gone): its view is sent whole, and deltas start from it. */
  reloaded(reason: SessionReloadReason): void {
    const { session } = this;
    this.sent = undefined;
    this.wholeTexts.clear();
    this.paged = undefined;
    this.services.events.emit("session.reloaded", {
      sessionId: this.services.ids.sessionId(session.path),
      reason,
      view: session.exists ? this.view() : null,
    });
  }

  private sentView(): SentView {
    if (this.sent) {
      this.advance();
      return this.sent;
    }
    const savedView = this.session.savedView;
    this.sent = savedView
      ? SentView.fromSavedView(savedView)
      : SentView.fromIndex(this.session.index, this.session.reader);
    return this.sent;
  }

  private viewFields(content: SessionViewContent) {
    const { session, services } = this;
    return {
      headerId: content.headerId,
      cwd: content.cwd,
      name: content.name,
      version: content.version,
      parentSessionId: services.library.parentSessionId(session.path, content.parentSession),
      leafId: content.leafId,
      bytes: content.bytes,
      live: services.now() - session.foreignChangeMs < LIVE_WINDOW_MS,
    };
  }

  /**
   * A session opened from a saved view answers its first requests (the view,
   * the leaf's context and entry, the branch map) without its index. The
   * index is built once those answers have left and `indexBuildDelayMs` has
   * passed without another answer read from the saved view: the window draws
   * what it was sent first, and the build (a second of work at 100k entries,
   * in one piece) is over before a live session's next append or the user's
   * next click needs it. A request that needs the index sooner builds it then.
   */
  private buildIndexSoon(): void {
    const { session } = this;
    this.services.afterReplies(() => {
      if (this.isDisposed || this.indexBuild === "done") return;
      if (this.indexBuild) {
        this.indexBuild.refresh();
        return;
      }
      const timer = setTimeout(() => {
        if (this.isDisposed) return;
        this.indexBuild = "done";
        try {
          // A look at the file builds the index first (and reads it again if it did not read the view's bytes).
          session.refresh();
        } catch (error) {
          this.services.onInternalError?.(error, "session.index");
        }
      }, this.services.indexBuildDelayMs);
      this.indexBuild = timer;
      this.register(toDisposable(() => clearTimeout(timer)));
    });
  }

  private searchOf(index: SessionIndex, reader: EntryReader): EntrySearch {
    let search = this.searches.get(index);
    if (!search) {
      search = new EntrySearch(index, reader);
      this.searches.set(index, search);
    }
    return search;
  }
}
