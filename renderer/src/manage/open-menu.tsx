/**
 * The context menu that is open (the manage store's `menu`): its items for
 * its entry or session, drawn at the pointer or, opened from the keyboard,
 * beside its target's element.
 */

import { compareWithPicker, compareWithSource } from "../compare/start-compare.ts";
import { ContextMenu } from "../menus/context-menu.tsx";
import { entryMenuItems, type MenuActions, type MenuItem, sessionRowMenuItems } from "../menus/menu-items.ts";
import type { Controller } from "../state/controller.ts";
import { archiveRootOf } from "../state/controller/session-manage.ts";
import { useController, useManage } from "../state/hooks.tsx";
import type { ManageMenu } from "../state/manage-state.ts";

export function menuActions(controller: Controller): MenuActions {
  return {
    manage: controller.manage,
    beginLabel: (entryId) => controller.beginLabel(entryId),
    openSession: (sessionId) => void controller.openSession(sessionId, null),
    compareWith: (entryId) => compareWithPicker(controller, entryId),
    compareWithSource: (forkSessionId, sourceSessionId) =>
      void compareWithSource(controller, forkSessionId, sourceSessionId),
  };
}

/** The items of a menu, or null when its target is gone (another session, a rescan). */
export function itemsOf(controller: Controller, menu: ManageMenu): MenuItem[] | null {
  const actions = menuActions(controller);
  if (menu.kind === "entry") {
    const byId = controller.model()?.nodesById;
    const node = byId?.get(menu.entryId);
    if (!byId || !node) return null;
    return entryMenuItems(
      { entryId: menu.entryId, node, archiveRoot: archiveRootOf(byId, menu.entryId) },
      actions,
    );
  }
  for (const project of controller.stores.library.getState().listing?.projects ?? [])
    for (const item of project.sessions)
      if (item.sessionId === menu.sessionId)
        return sessionRowMenuItems(
          {
            sessionId: item.sessionId,
            projectId: project.projectId,
            broken: item.error !== null,
            sourceSessionId: item.parentSessionId,
          },
          actions,
        );
  return null;
}

/** Where a menu opened from the keyboard goes: below its target's element, else the middle of the graph. */
function keyboardPlace(menu: ManageMenu): { x: number; y: number } {
  const selector =
    menu.kind === "entry"
      ? `.react-flow__node[data-id="${CSS.escape(menu.entryId)}"]`
      : `[data-session-id="${CSS.escape(menu.sessionId)}"]`;
  const element =
    document.querySelector(selector) ??
    document.querySelector(menu.kind === "entry" ? ".graph-canvas" : ".library");
  const box = element?.getBoundingClientRect();
  if (!box) return { x: window.innerWidth / 2, y: window.innerHeight / 3 };
  return menu.kind === "entry" && !element?.classList.contains("react-flow__node")
    ? { x: box.left + box.width / 2, y: box.top + box.height / 3 }
    : { x: box.left + Math.min(24, box.width / 2), y: box.bottom };
}

export function OpenMenu() {
  const controller = useController();
  const menu = useManage((s) => s.menu);
  if (!menu) return null;
  const items = itemsOf(controller, menu);
  if (!items) return null;
  const at = menu.at ?? keyboardPlace(menu);
  return (
    <ContextMenu
      // A new target is a new menu: its first item active, its own place.
      key={menu.kind === "entry" ? `e:${menu.entryId}` : `s:${menu.sessionId}`}
      items={items}
      at={at}
      label={menu.kind === "entry" ? `Entry ${menu.entryId}` : "Session"}
      onClose={() => controller.manage.closeMenu()}
    />
  );
}
