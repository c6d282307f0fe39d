/**
 * The ways a comparison starts, as plain functions over the controller, so a
 * toolbar button, a key, a Shift-click, a context menu item or the library
 * call the same ones: two tips of the open session, the picker for one tip,
 * two sessions of one lineage (each at its tip), a fork and its source.
 */

import type { Controller } from "../state/controller.ts";

/** Compares two tips; the right one of another library session when `rightSessionId` is given. */
export function compareTips(
  controller: Controller,
  leftId: string,
  rightId: string,
  rightSessionId?: string,
): Promise<void> {
  return controller.branches.compare(
    leftId,
    rightSessionId === undefined ? { leafId: rightId } : { leafId: rightId, sessionId: rightSessionId },
  );
}

/** Opens the tip picker ("Compare with…") for an entry, by default the selected one. */
export function compareWithPicker(controller: Controller, entryId?: string | null): void {
  const id = entryId ?? controller.stores.session.getState().selectedId;
  if (id !== null && id !== undefined) controller.branches.openPicker(id);
}

/**
 * A click with Shift held on another entry or tip than the selected one compares the two (the selected on
 * the left); returns whether it did, so the click does nothing else.
 */
export function compareOnShiftClick(
  controller: Controller,
  event: { shiftKey: boolean },
  entryId: string,
): boolean {
  const selected = controller.stores.session.getState().selectedId;
  if (!event.shiftKey || selected === null || selected === entryId) return false;
  void compareTips(controller, selected, entryId);
  return true;
}

/**
 * Compares two sessions of the library, each at its tip (the file's leaf): the right one is opened first to
 * learn its leaf, then the left one (the compare reads its left side in the open session).
 */
export async function compareSessions(
  controller: Controller,
  leftSessionId: string,
  rightSessionId: string,
): Promise<void> {
  const { session } = controller.stores;
  await controller.openSession(rightSessionId);
  const right = session.getState().view;
  if (right?.sessionId !== rightSessionId || right.leafId === null) return;
  const rightLeaf = right.leafId;
  await controller.openSession(leftSessionId);
  const left = session.getState().view;
  if (left?.sessionId !== leftSessionId || left.leafId === null) return;
  await compareTips(controller, left.leafId, rightLeaf, rightSessionId);
}

/** A fork compared with the session it came from, each at its tip: the fork on the right. */
export function compareWithSource(controller: Controller, forkSessionId: string, sourceSessionId: string) {
  return compareSessions(controller, sourceSessionId, forkSessionId);
}
