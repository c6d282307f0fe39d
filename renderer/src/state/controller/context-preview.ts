/**
 * The context preview part of the controller: the selected entry's context
 * (agent or llm) and its detail, loaded as the selection moves, the pages of
 * a long context as the preview scrolls and copying it (context-pages.ts);
 * the texts shown whole.
 */

import type { IndexedNodes } from "../../../../shared/graph/index.ts";
import type { ContextView, SessionView, TreeNodeView } from "../../../../shared/ipc/contract.ts";
import { grownFrom, grownPages, pageOfView } from "../../../../shared/ipc/context-reading.ts";
import { contextShades, NO_SHADES } from "../context-shades.ts";
import { initialContextState } from "../stores.ts";
import type { Controller } from "./api.ts";
import { createContextPages } from "./context-pages.ts";
import { type ControllerKit, messageOf, type Timer } from "./kit.ts";

export interface ContextPreviewPart {
  readonly actions: Pick<Controller, "setContextMode" | "showWhole" | "copyContext" | "showContextRows">;
  /** Follows the selection, the session and the agent/llm mode. */
  subscribe(): void;
}

export function createContextPreview(kit: ControllerKit): ContextPreviewPart {
  const { session, context } = kit.stores;
  const { loadContext, loadDetail } = createLoads(kit);
  const pages = createContextPages(kit);
  const loadBoth = () => {
    void loadContext();
    void loadDetail();
  };
  const followLoads = throttled(kit, FOLLOW_LOAD_PAUSE_MS, loadBoth);

  function subscribe() {
    pages.subscribe();
    kit.own(
      // What was shown whole, and the context on view, belong to the session they were shown in.
      session.subscribe((state, previous) => {
        if (state.view?.sessionId !== previous.view?.sessionId)
          context.setState({ shownWhole: new Set(), view: null, pages: [], shades: NO_SHADES });
      }),
      // The context and the inspector follow the selection (and the agent/llm toggle).
      session.subscribe((state, previous) => {
        const sameSession = state.view?.sessionId === previous.view?.sessionId;
        if (state.selectedId !== previous.selectedId || !sameSession) {
          // Following the leaf through a burst, the context is asked for at most once a pause.
          const followed =
            sameSession && state.view !== previous.view && state.selectedId === state.view?.leafId;
          if (followed) followLoads.ask();
          else {
            followLoads.cancel();
            loadBoth();
          }
        } else if (state.view !== previous.view && state.view) {
          if (context.getState().status === "error") void loadContext();
          // An append changed the selected entry's own node (a label set or removed, an archive): its detail too.
          if (
            previous.view &&
            state.selectedId !== null &&
            nodeChanged(previous.view, state.view, state.selectedId)
          )
            void loadDetail();
        }
      }),
      context.subscribe((state, previous) => {
        if (state.mode !== previous.mode) void loadContext();
      }),
    );
  }

  return {
    actions: {
      setContextMode: (mode) => context.setState({ mode }),
      showWhole(key, shown) {
        const now = context.getState().shownWhole;
        if (now.has(key) === shown) return;
        const next = new Set(now);
        if (shown) next.add(key);
        else next.delete(key);
        context.setState({ shownWhole: next });
      },
      ...pages.actions,
    },
    subscribe,
  };
}

/**
 * Whether entry `id`'s node differs between two versions of a view: a list
 * grown by an append keeps each unchanged node's object and puts a new one
 * over each changed node (shared/ipc/session-nodes.ts). Two id lookups.
 */
function nodeChanged(before: SessionView, after: SessionView, id: string): boolean {
  const at = before.nodes.idIndex().positions.get(id);
  const now = after.nodes.idIndex().positions.get(id);
  if (at === undefined || now === undefined) return false;
  return before.nodes.node(at) !== after.nodes.node(now);
}

/** How far above a new selection the leaf of the context on view is looked for (`continuesFrom`). */
const CONTINUATION_STEPS = 64;

/** Whether `leafId` is `selectedId` or one of its closest ancestors (a few steps up at most). */
function continuesFrom(tree: IndexedNodes<TreeNodeView>, leafId: string | null, selectedId: string): boolean {
  const leaf = leafId === null ? undefined : tree.indexOf.get(leafId);
  let at = tree.indexOf.get(selectedId);
  if (leaf === undefined || at === undefined) return false;
  for (let step = 0; step <= CONTINUATION_STEPS && at !== -1; step++, at = tree.parent[at]!) {
    if (at === leaf) return true;
  }
  return false;
}

/** Follow moves closer together than this load the context once, at the end of the pause. */
const FOLLOW_LOAD_PAUSE_MS = 300;

/** Runs `run` at once, then at most once per `pause` ms while asked again (the last ask at the end). */
function throttled(kit: ControllerKit, pause: number, run: () => void) {
  let timer: Timer | null = null;
  let asked = false;
  const end = () => {
    timer = null;
    if (!asked) return;
    asked = false;
    run();
    timer = kit.later(pause, end);
  };
  return {
    ask() {
      if (timer !== null) {
        asked = true;
        return;
      }
      run();
      timer = kit.later(pause, end);
    },
    cancel() {
      if (timer !== null) kit.cancel(timer);
      timer = null;
      asked = false;
    },
  };
}

/**
 * One request at a time: a question asked while another is out waits for its
 * answer, and only the newest of those waiting is asked then. Following a
 * live session moves the selection with every line; the page then asks for
 * the context as fast as answers come, not once a line.
 */
function oneAtATime() {
  let out: Promise<unknown> | null = null;
  return {
    /** Resolves once no request is out (at once when none is). */
    async idle(): Promise<void> {
      while (out !== null) await out.catch(() => undefined);
    },
    ask<T>(request: Promise<T>): Promise<T> {
      const asked = request.finally(() => {
        if (out === asked) out = null;
      });
      out = asked;
      return asked;
    },
  };
}

/** Loads the selection's context and its detail: each keeps its own serial, so only the newest answer is shown. */
function createLoads(kit: ControllerKit): { loadContext(): Promise<void>; loadDetail(): Promise<void> } {
  const { client } = kit;
  const { session, context } = kit.stores;
  let contextSerial = 0;
  let detailSerial = 0;
  const contextTurn = oneAtATime();
  const detailTurn = oneAtATime();

  async function loadContext() {
    const { view, selectedId } = session.getState();
    const mode = context.getState().mode;
    const serial = ++contextSerial;
    if (!view || selectedId === null) {
      context.setState({ ...initialContextState, mode });
      return;
    }
    const held = context.getState();
    // The context on view stays up while the next one loads (following a live session asks for one each
    // pause: dropping it each time would blank the preview and draw it again from nothing), unless it is of
    // the other form. Its shading stays only when the new selection hangs just below its leaf, as when
    // following; anywhere else it would shade another path.
    const keepsView = held.view !== null && held.forMode === mode;
    const keepsShades =
      keepsView && continuesFrom(kit.selectors.indexed(view), held.view!.leafId, selectedId);
    context.setState({
      status: "loading",
      error: null,
      forId: selectedId,
      forMode: mode,
      shades: keepsShades ? held.shades : NO_SHADES,
      ...(keepsView ? {} : { view: null, pages: [] }),
    });
    await contextTurn.idle();
    if (serial !== contextSerial || kit.isDisposed()) return;
    try {
      const result: ContextView = await contextTurn.ask(
        client.request("session.context", { leafId: selectedId, llm: mode === "llm" }),
      );
      if (serial !== contextSerial || kit.isDisposed()) return;
      // Shaded along the view as it is now (an append may have come meanwhile): its index is the graph's.
      // Following the leaf, the shades on view grow by the new entries instead of walking the whole path.
      const now = session.getState().view;
      const { shades: previous, view: before, pages: held } = context.getState();
      const shades = now
        ? contextShades(result, kit.selectors.indexed(now), { nodes: now.nodes, previous })
        : NO_SHADES;
      // A followed leaf's context grows at its end: the pages fetched while scrolled up stay.
      const pages = before && grownFrom(before, result) ? grownPages(held, result) : [pageOfView(result)];
      context.setState({ status: "ready", view: result, pages, shades });
    } catch (error) {
      if (serial !== contextSerial || kit.isDisposed()) return;
      context.setState({ status: "error", error: messageOf(error), view: null, pages: [] });
    }
  }

  async function loadDetail() {
    const { view, selectedId } = session.getState();
    const serial = ++detailSerial;
    if (!view || selectedId === null) {
      context.setState({ detailStatus: "idle", detail: null, detailError: null });
      return;
    }
    context.setState({ detailStatus: "loading", detailError: null });
    await detailTurn.idle();
    if (serial !== detailSerial || kit.isDisposed()) return;
    try {
      const detail = await detailTurn.ask(client.request("session.entry", { entryId: selectedId }));
      if (serial !== detailSerial || kit.isDisposed()) return;
      context.setState({ detailStatus: "ready", detail });
    } catch (error) {
      if (serial !== detailSerial || kit.isDisposed()) return;
      context.setState({ detailStatus: "error", detailError: messageOf(error), detail: null });
    }
  }

  return { loadContext, loadDetail };
}
