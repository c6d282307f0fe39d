/**
 * How the session on view follows its file: appends arrive as deltas
 * (`session.appended`), a missed one brings the whole view again
 * (`session.current`), a file rewritten, replaced or deleted is read
 * again or closed (`session.reloaded`), and a session moved to the trash is
 * closed (`session.closed`).
 */

import { screenErrors } from "../../../../shared/error-texts.ts";
import type { ArborEvents, SessionDelta, TreeNodeView } from "../../../../shared/ipc/contract.ts";
import { applySessionDelta } from "../../../../shared/ipc/session-delta.ts";
import { isKnownEntryType, type KnownEntryType } from "../../../../shared/session/types.ts";
import { initialSessionState, type SessionState } from "../stores.ts";
import { type ControllerKit, messageOf } from "./kit.ts";
import type { FollowNeeds } from "./session.ts";

/** Follow moves closer together than this are a burst: the view jumps to each rather than animating. */
const FOLLOW_ANIMATION_GAP_MS = 400;

/** How long appended entries stay highlighted. */
export const RECENT_HIGHLIGHT_MS = 4000;

/**
 * Whether follow mode moves to a new entry of each type: not for entries
 * about the session rather than in its conversation (a label, a name).
 */
const FOLLOWED_TYPES: Record<KnownEntryType, boolean> = {
  message: true,
  model_change: true,
  thinking_level_change: true,
  compaction: true,
  branch_summary: true,
  custom: true,
  custom_message: true,
  label: false,
  session_info: false,
  usage: true,
  context_edit: true,
};

/** An entry of a type this version does not know is followed. */
function isFollowed(type: string): boolean {
  return !isKnownEntryType(type) || FOLLOWED_TYPES[type];
}

export interface SessionUpdates {
  subscribe(): void;
  /** Another session was opened: the one a deletion closed no longer comes back. */
  forgetDeleted(): void;
}

export function createSessionUpdates(kit: ControllerKit, needs: FollowNeeds): SessionUpdates {
  const { client } = kit;
  const { session, live } = kit.stores;
  /** The session a deletion closed, until another opens: it comes back if its file is written again. */
  let closedByDeletion: string | null = null;
  const appends = createAppendQueue(kit, needs);

  function onReloaded({ sessionId, reason, view }: ArborEvents["session.reloaded"]) {
    // Appends before it come first (the view it brings is newer: they are then dropped as old).
    appends.flush();
    const state = session.getState();
    // A file deleted and written again (an editor's save, a copy over it) comes back if nothing else was opened.
    const back = state.view === null && closedByDeletion === sessionId && view !== null;
    if (state.view?.sessionId !== sessionId && !back) return;
    closedByDeletion = null;
    const why = {
      truncated: "The file got shorter",
      replaced: "The file was replaced",
      deleted: "The file was deleted",
      recreated: "The file was deleted and created again",
      rewritten: "The file was rewritten",
    }[reason];
    if (view === null) {
      session.setState({ ...initialSessionState, direction: state.direction, follow: state.follow });
      live.setState({ reloadNotice: `${why}: the session was closed.` });
      closedByDeletion = sessionId;
      return;
    }
    // Following the leaf, the view goes to the file's leaf as read now; otherwise the selection stays if it can.
    const selected = state.follow ? null : state.selectedId;
    needs.showView(view, needs.holds(view, selected) ? selected : null);
    live.setState({ reloadNotice: `${why}: Arbor read it again.` });
  }

  /** The session on view was closed without another opened (moved to the trash). */
  function onClosed({ sessionId }: ArborEvents["session.closed"]) {
    const state = session.getState();
    if (state.view?.sessionId !== sessionId) return;
    session.setState({ ...initialSessionState, direction: state.direction, follow: state.follow });
    live.setState({ reloadNotice: "The session was moved to the trash: it was closed." });
  }

  return {
    subscribe() {
      kit.own(
        client.on("session.appended", (event) => appends.add(event)),
        client.on("session.reloaded", onReloaded),
        client.on("session.closed", onClosed),
      );
    },
    forgetDeleted() {
      closedByDeletion = null;
    },
  };
}

/**
 * Appends waiting for the next frame (`afterNextFrame`), and before it for
 * the rest of `appendPauseMs` after the last ones applied: a burst faster
 * than that is applied a few lines at once, so the graph and the page follow
 * it at that pace, not once a line. Without a frame to wait for, each applies
 * as it comes.
 */
function createAppendQueue(kit: ControllerKit, needs: FollowNeeds) {
  const frame = kit.options.afterNextFrame;
  const pause = kit.options.appendPauseMs ?? 0;
  let lastApplied = Number.NEGATIVE_INFINITY;
  const schedule =
    frame &&
    ((run: () => void) => {
      const wait = lastApplied + pause - performance.now();
      if (wait <= 0) frame(run);
      else kit.later(wait, () => frame(run));
    });
  let waiting: ArborEvents["session.appended"][] = [];
  let lastFollowed = Number.NEGATIVE_INFINITY;
  // A burst's moves jump: an animation a frame would keep the view (and React Flow's culling) moving throughout.
  const centre = (entryId: string | null) => {
    const now = performance.now();
    needs.navigator.centreOn(entryId, now - lastFollowed > FOLLOW_ANIMATION_GAP_MS);
    lastFollowed = now;
  };
  const flush = () => {
    if (waiting.length === 0 || kit.isDisposed()) return;
    const events = waiting;
    waiting = [];
    lastApplied = performance.now();
    // In order, each session's run of appends together (the events of another session are dropped there).
    let from = 0;
    for (let k = 1; k <= events.length; k++) {
      if (k === events.length || events[k]!.sessionId !== events[from]!.sessionId) {
        const deltas = events.slice(from, k).map((event) => event.delta);
        applyAppends(kit, needs, events[from]!.sessionId, deltas, centre);
        from = k;
      }
    }
  };
  return {
    add(event: ArborEvents["session.appended"]) {
      if (schedule === undefined) {
        applyAppends(kit, needs, event.sessionId, [event.delta], centre);
        return;
      }
      waiting.push(event);
      if (waiting.length === 1) schedule(flush);
    },
    flush,
  };
}

/** The deltas of one session, in the order they came, applied to its view in one change of the store. */
function applyAppends(
  kit: ControllerKit,
  needs: FollowNeeds,
  sessionId: string,
  deltas: readonly SessionDelta[],
  centre: (entryId: string | null) => void,
) {
  const { session } = kit.stores;
  const state = session.getState();
  const current = state.view;
  // Another session's, or the one an open is waiting for: its answer holds this append already.
  if (current?.sessionId !== sessionId) return;
  let view = current;
  const added: TreeNodeView[] = [];
  for (const delta of deltas) {
    if (delta.baseBytes !== view.bytes) {
      // A delta of another version of the view: an older one is in it already, a newer one means one was missed.
      if (delta.bytes > view.bytes) {
        resync(kit, needs, sessionId);
        break;
      }
      continue;
    }
    view = applySessionDelta(view, delta);
    added.push(...delta.added);
  }
  if (view === current) return;
  const next: Partial<SessionState> = { view };
  // A label or a name (this window's own, often) moves the file's leaf but not the conversation: the cursor stays.
  // A rebuilt index (a repeated id, say) may move the leaf with nothing new: that is followed too.
  const leafType =
    view.leafId === null
      ? undefined
      : (added.findLast((node) => node.id === view.leafId) ?? kit.model()?.nodesById.get(view.leafId))?.type;
  const follow =
    state.follow &&
    view.leafId !== null &&
    (added.some((node) => isFollowed(node.type)) ||
      (view.leafId !== current.leafId && leafType !== undefined && isFollowed(leafType)));
  if (follow) {
    next.selectedId = view.leafId;
    next.cursorId = view.leafId;
  }
  session.setState(next);
  // The new leaf may be an entry the filter hides (a label, a usage entry): the cursor goes to the nearest visible one.
  needs.navigator.settleCursor();
  markRecent(
    kit,
    added.map((node) => node.id),
  );
  if (follow) centre(session.getState().cursorId);
}

/** A delta for a newer view than this one arrived: one was missed, so the whole view is fetched. */
function resync(kit: ControllerKit, needs: FollowNeeds, sessionId: string) {
  const { session } = kit.stores;
  void needs.fetchCurrent(
    (view) => {
      const state = session.getState();
      if (state.view?.sessionId !== sessionId || view?.sessionId !== sessionId) return;
      const follow = state.follow && view.leafId !== null && view.leafId !== state.view.leafId;
      session.setState(follow ? { view, selectedId: view.leafId, cursorId: view.leafId } : { view });
      needs.navigator.settleCursor();
      if (follow) needs.navigator.centreOn(session.getState().cursorId);
    },
    (error) => kit.notify("error", screenErrors.sessionNotUpdated(messageOf(error))),
  );
}

/** Highlights appended entries for `RECENT_HIGHLIGHT_MS`. */
function markRecent(kit: ControllerKit, ids: readonly string[]) {
  if (ids.length === 0) return;
  const { live } = kit.stores;
  live.setState({ recent: new Set([...live.getState().recent, ...ids]) });
  kit.later(RECENT_HIGHLIGHT_MS, () => {
    const recent = new Set(live.getState().recent);
    for (const id of ids) recent.delete(id);
    live.setState({ recent });
  });
}
