/**
 * The keys of managing sessions, beside the explorer's (explorer/keyboard.ts,
 * which are Pi's /tree keys): Shift+F10 or the ContextMenu key open the menu
 * of the focused library row, else of the graph's cursor entry; Ctrl/Cmd+Z
 * undoes this window's last change to the session on view; Shift+A shows or
 * hides archived branches. None of them acts in a text field.
 */

import type { Controller } from "../state/controller.ts";

function inTextField(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable || target.tagName === "TEXTAREA" || target.tagName === "SELECT") return true;
  if (target.tagName !== "INPUT") return false;
  const type = (target as HTMLInputElement).type;
  return type !== "checkbox" && type !== "radio" && type !== "button";
}

/** Handles one key press; returns whether it was one of these keys (and so prevented). */
export function handleManageKey(controller: Controller, event: KeyboardEvent): boolean {
  if (event.defaultPrevented || inTextField(event.target)) return false;
  const manageState = controller.stores.manage.getState();
  const session = controller.stores.session.getState();
  // A dialog is modal (its own keys); an open menu has its own keys too.
  if (manageState.dialog || manageState.menu || session.labelEditor) return false;
  const ctrl = event.ctrlKey || event.metaKey;
  const run = (action: () => void) => {
    event.preventDefault();
    action();
    return true;
  };
  if (event.key === "ContextMenu" || (event.key === "F10" && event.shiftKey && !ctrl && !event.altKey)) {
    const row =
      event.target instanceof Element ? event.target.closest<HTMLElement>("[data-session-id]") : null;
    const sessionId = row?.dataset.sessionId;
    if (sessionId) return run(() => controller.manage.openSessionMenu(sessionId, null));
    const entryId = session.cursorId ?? session.selectedId;
    if (!session.view || entryId === null) return false;
    return run(() => controller.manage.openEntryMenu(entryId, null));
  }
  if (!session.view) return false;
  if (ctrl && !event.altKey && !event.shiftKey && (event.key === "z" || event.key === "Z"))
    return run(() => void controller.manage.undoLast());
  if (event.key === "A" && event.shiftKey && !ctrl && !event.altKey)
    return run(() => controller.setShowArchived(!session.showArchived));
  return false;
}
