/**
 * The compare part of the branches controller: a comparison asked for
 * (`session.compare`), more turns of it, swapping sides, the form shown,
 * closing, the library's marks, and what the pane reads besides (an entry's
 * whole text, the model's view of a tip). Its state is the branches store's
 * `compare` and `marked`.
 */

import type { StoreApi } from "zustand/vanilla";
import { screenErrors } from "../../../shared/error-texts.ts";
import type { CompareRequest } from "../../../shared/ipc/contract.ts";
import { readWholeContext } from "../../../shared/ipc/context-reading.ts";
import type { Branches, BranchesNeeds, BranchesState } from "../branch-map/branches-part.ts";
import { type ControllerKit, messageOf } from "../state/controller/kit.ts";

export type CompareActions = Pick<
  Branches,
  | "compare"
  | "loadTurns"
  | "swapSides"
  | "setCompareMode"
  | "showShared"
  | "closeCompare"
  | "markForCompare"
  | "revealFromCompare"
  | "entryText"
  | "modelContext"
  | "copyComparison"
>;

export function createCompareActions(
  kit: ControllerKit,
  store: StoreApi<BranchesState>,
  needs: Pick<BranchesNeeds, "select" | "navigator">,
): CompareActions {
  const { session } = kit.stores;
  let compareSerial = 0;

  async function compare(leftId: string, right: { leafId: string; sessionId?: string }) {
    const request: CompareRequest = { left: { leafId: leftId }, right };
    const serial = ++compareSerial;
    const mode = store.getState().compare?.mode ?? "entries";
    store.setState({
      picker: null,
      compare: { status: "loading", error: null, request, view: null, mode, sharedShown: false },
    });
    try {
      const view = await kit.client.request("session.compare", request);
      if (serial !== compareSerial || kit.isDisposed()) return;
      store.setState({ compare: { status: "ready", error: null, request, view, mode, sharedShown: false } });
    } catch (error) {
      if (serial !== compareSerial || kit.isDisposed()) return;
      store.setState({
        compare: {
          status: "error",
          error: screenErrors.comparisonNotMade(messageOf(error)),
          request,
          view: null,
          mode,
          sharedShown: false,
        },
      });
    }
  }

  async function loadTurns(fromTurn: number, turns: number) {
    const current = store.getState().compare;
    if (!current?.view) return;
    const serial = compareSerial;
    try {
      const view = await kit.client.request("session.compare", {
        ...current.request,
        detail: { fromTurn, turns },
      });
      const now = store.getState().compare;
      if (serial !== compareSerial || kit.isDisposed() || !now?.view) return;
      const known = new Set(now.view.detail.turns.map((turn) => turn.turn));
      const added = view.detail.turns.filter((turn) => !known.has(turn.turn));
      const merged = [...now.view.detail.turns, ...added].sort((a, b) => a.turn - b.turn);
      store.setState({ compare: { ...now, view: { ...now.view, detail: { from: 0, turns: merged } } } });
    } catch (error) {
      kit.notify("error", messageOf(error));
    }
  }

  return {
    compare,
    loadTurns,
    ...createCompareViewActions(kit, store, needs, () => ++compareSerial),
    swapSides() {
      const current = store.getState().compare;
      if (!current) return;
      const { left, right } = current.request;
      // Only a tip of the open session can be the left side (session.compare reads the left side there).
      if (right.sessionId !== undefined && right.sessionId !== session.getState().view?.sessionId) {
        kit.notify("error", screenErrors.swapNeedsOpenSession);
        return;
      }
      void compare(right.leafId, { leafId: left.leafId });
    },
  };
}

/** An entry's text as the compare view shows it whole: a message's text parts, a summary, else its JSON. */
/** What the pane asks besides the comparison; `drop` makes an answer still on its way stale. */
function createCompareViewActions(
  kit: ControllerKit,
  store: StoreApi<BranchesState>,
  needs: Pick<BranchesNeeds, "select" | "navigator">,
  drop: () => void,
): Omit<CompareActions, "compare" | "loadTurns" | "swapSides"> {
  return {
    setCompareMode(mode) {
      const current = store.getState().compare;
      if (current) store.setState({ compare: { ...current, mode } });
    },
    showShared(shown) {
      const current = store.getState().compare;
      if (current) store.setState({ compare: { ...current, sharedShown: shown } });
    },
    closeCompare() {
      drop();
      store.setState({ compare: null });
    },
    markForCompare(sessionId) {
      const marked = store.getState().marked;
      if (sessionId === null) store.setState({ marked: [] });
      else if (marked.includes(sessionId))
        store.setState({ marked: marked.filter((id) => id !== sessionId) });
      else store.setState({ marked: [...marked, sessionId].slice(-2) });
    },
    revealFromCompare(entryId) {
      drop();
      store.setState({ compare: null, view: "entries", chosen: true });
      needs.select(entryId);
      needs.navigator.reveal(entryId, false);
    },
    async entryText(entryId) {
      try {
        const { entry } = await kit.client.request("session.entry", { entryId });
        return textOfEntry(entry);
      } catch (error) {
        kit.notify("error", screenErrors.entryNotRead(messageOf(error)));
        return null;
      }
    },
    async modelContext(leafId) {
      try {
        // Whole: the compare pane lines up every message the model sees.
        return await readWholeContext(kit.client, leafId, true);
      } catch {
        return null;
      }
    },
    async copyComparison(markdown) {
      try {
        await kit.writeClipboard(markdown);
        kit.notify("info", "Comparison copied as Markdown.");
      } catch (error) {
        kit.notify("error", screenErrors.comparisonNotCopied(messageOf(error)));
      }
    },
  };
}

export function textOfEntry(entry: unknown): string {
  const record = entry as { message?: { content?: unknown }; summary?: unknown };
  const content = record.message?.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part: { type?: string; text?: string; thinking?: string }) =>
        part.type === "text" ? (part.text ?? "") : part.type === "thinking" ? (part.thinking ?? "") : "",
      )
      .filter((text) => text !== "")
      .join("\n\n");
  }
  if (typeof record.summary === "string") return record.summary;
  return JSON.stringify(entry, null, 2);
}
