/**
 * Everything managing sessions puts over the window: the open context menu,
 * the dialog, the toast with its Undo, the file chooser of an import, and
 * what the window does with a right-click, a dropped file and the keys of
 * manage/keys.ts. Mounted once, beside the explorer.
 */

import { type DragEvent as ReactDragEvent, useEffect, useRef, useState } from "react";
import type { Controller } from "../state/controller.ts";
import { useController, useManage } from "../state/hooks.tsx";
import { ManageDialogs } from "./dialogs.tsx";
import { handleManageKey } from "./keys.ts";
import { OpenMenu } from "./open-menu.tsx";

/**
 * A right-click on a graph node or a library row opens its menu; on the
 * graph's background, the open session's menu (its row's: rename, Open in
 * Pi, clone, export, new session, import, trash). Anything else keeps the
 * browser's.
 */
function onContextMenu(controller: Controller, event: MouseEvent) {
  if (event.defaultPrevented || !(event.target instanceof Element)) return;
  const at = { x: event.clientX, y: event.clientY };
  const row = event.target.closest<HTMLElement>("[data-session-id]");
  if (row?.dataset.sessionId) {
    event.preventDefault();
    controller.manage.openSessionMenu(row.dataset.sessionId, at);
    return;
  }
  const node = event.target.closest<HTMLElement>(".react-flow__node[data-id]");
  const openSessionId = controller.stores.session.getState().view?.sessionId;
  if (!node && openSessionId && event.target.closest(".react-flow__pane")) {
    event.preventDefault();
    controller.manage.openSessionMenu(openSessionId, at);
    return;
  }
  const id = node?.dataset.id;
  // A chain node stands for many entries: it has no menu of its own.
  if (!id || !controller.model()?.nodesById.get(id)) return;
  event.preventDefault();
  controller.manage.openEntryMenu(id, at);
}

function hasFiles(event: DragEvent | ReactDragEvent): boolean {
  return [...(event.dataTransfer?.types ?? [])].includes("Files");
}

/** The project a drop lands on: the library's group under the pointer, else (undefined) the open session's. */
function dropProject(target: EventTarget | null): string | undefined {
  if (!(target instanceof Element)) return undefined;
  return target.closest<HTMLElement>("[data-project-id]")?.dataset.projectId;
}

/**
 * A `.jsonl` dropped on the window is imported (its content read here):
 * into the library's project it is dropped on, else the open session's. In
 * the desktop app a file dropped outside the library keeps opening as it is
 * (main.tsx), not copied.
 */
function useDropImport(controller: Controller): string | null {
  const [over, setOver] = useState<string | null>(null);
  useEffect(() => {
    const electron = controller.transport === "electron";
    const wanted = (event: DragEvent) =>
      hasFiles(event) && (!electron || dropProject(event.target) !== undefined);
    const onOver = (event: DragEvent) => {
      if (!wanted(event)) return;
      event.preventDefault();
      const project = dropProject(event.target);
      setOver(project === undefined ? "the open session's project" : "this project");
    };
    const onLeave = (event: DragEvent) => {
      if (event.relatedTarget === null) setOver(null);
    };
    const onDrop = (event: DragEvent) => {
      setOver(null);
      if (!wanted(event)) return;
      event.preventDefault();
      const file = event.dataTransfer?.files[0];
      if (file) void controller.manage.importFile(file, dropProject(event.target));
    };
    document.addEventListener("dragover", onOver);
    document.addEventListener("dragleave", onLeave);
    document.addEventListener("drop", onDrop);
    return () => {
      document.removeEventListener("dragover", onOver);
      document.removeEventListener("dragleave", onLeave);
      document.removeEventListener("drop", onDrop);
    };
  }, [controller]);
  return over;
}

/** The toast of the last change, with its way back (Undo, or restoring a trashed session). */
function ActionToast() {
  const controller = useController();
  const toast = useManage((s) => s.toast);
  if (!toast) return null;
  return (
    <div className="action-toast" role="status" data-testid="action-toast">
      <span>{toast.text}</span>
      {toast.action ? (
        <button type="button" onClick={() => void controller.manage.runToastAction()}>
          Undo
        </button>
      ) : null}
      <button
        type="button"
        className="toast-close"
        aria-label="Dismiss"
        onClick={() => controller.manage.dismissToast()}
      >
        ×
      </button>
    </div>
  );
}

/** The browser's file chooser of an import (under `arbor serve`), opened when one is asked for. */
function ImportChooser() {
  const controller = useController();
  const request = useManage((s) => s.importRequest);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (request) input.current?.click();
  }, [request]);
  return (
    <input
      ref={input}
      type="file"
      accept=".jsonl,application/x-ndjson,application/jsonl"
      className="visually-hidden"
      tabIndex={-1}
      aria-hidden="true"
      data-testid="import-file"
      onChange={(event) => {
        const file = event.target.files?.[0];
        event.target.value = "";
        if (file && request) void controller.manage.importFile(file, request.projectId);
      }}
    />
  );
}

export function ManageLayer() {
  const controller = useController();
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      handleManageKey(controller, event);
    };
    const onMenu = (event: MouseEvent) => onContextMenu(controller, event);
    window.addEventListener("keydown", onKey);
    document.addEventListener("contextmenu", onMenu);
    return () => {
      window.removeEventListener("keydown", onKey);
      document.removeEventListener("contextmenu", onMenu);
    };
  }, [controller]);
  const dropInto = useDropImport(controller);
  return (
    <>
      <OpenMenu />
      <ManageDialogs />
      <ActionToast />
      <ImportChooser />
      {dropInto ? (
        <div className="drop-hint" aria-hidden="true">
          Drop a .jsonl session file to import a copy of it into {dropInto}
        </div>
      ) : null}
    </>
  );
}
