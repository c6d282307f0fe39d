/** The renderer's entry: connect to the main process, build the stores, render the explorer. */

import "@xyflow/react/dist/style.css";
import "./styles.css";
import "./manage/manage.css";
import "./branch-map/branches.css";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { screenErrors } from "../../shared/error-texts.ts";
import { connectClient, MissingTokenError } from "./api/client.ts";
import { App } from "./explorer/app.tsx";
import { TextPagesContext } from "./preview/cut-texts.tsx";
import { createController, messageOf } from "./state/controller.ts";
import { ControllerProvider } from "./state/hooks.tsx";
import { createStores } from "./state/stores.ts";
import { applySystemThemeEarly, followTheme } from "./theme.ts";

function showFatal(root: HTMLElement, error: unknown) {
  root.replaceChildren();
  const box = document.createElement("div");
  box.className = "fatal";
  box.setAttribute("role", "alert");
  const title = document.createElement("h1");
  title.textContent =
    error instanceof MissingTokenError ? screenErrors.tokenMissingTitle : screenErrors.unreachableTitle;
  const text = messageOf(error);
  const detail = document.createElement("p");
  detail.textContent = text;
  const hint = document.createElement("p");
  hint.textContent = screenErrors.unreachableHint;
  box.append(title, detail, hint);
  root.append(box);
}

async function main() {
  const root = document.getElementById("root");
  if (!root) return;
  applySystemThemeEarly(document.documentElement);
  let connected: Awaited<ReturnType<typeof connectClient>>;
  try {
    connected = await connectClient();
  } catch (error) {
    showFatal(root, error);
    return;
  }
  const stores = createStores();
  followTheme(document.documentElement, stores.appearance);
  // In a browser (arbor serve) the address names the open session and the entry selected in it (unless it is
  // the file's leaf), so a reload (or a bookmark) opens them again.
  const inBrowser = window.location.protocol === "http:" || window.location.protocol === "https:";
  let addressWanted: { sessionId: string; leafId: string | null } | null = null;
  const showInAddress = (sessionId: string, leafId: string | null) => {
    const pending = addressWanted !== null;
    addressWanted = { sessionId, leafId };
    if (pending) return;
    // When the page is idle, once for a run of selections: measured here, replaceState held the main thread
    // for ~100 ms while a 100k-entry session was being drawn.
    whenIdle(() => {
      const wanted = addressWanted!;
      addressWanted = null;
      const params = new URLSearchParams(window.location.search);
      if (params.get("session") === wanted.sessionId && params.get("leaf") === wanted.leafId) return;
      params.set("session", wanted.sessionId);
      if (wanted.leafId === null) params.delete("leaf");
      else params.set("leaf", wanted.leafId);
      window.history.replaceState(window.history.state, "", `?${params.toString()}`);
    });
  };
  const controller = createController(connected.client, stores, {
    showInAddress: inBrowser ? showInAddress : undefined,
    afterNextFrame,
    appendPauseMs: APPEND_PAUSE_MS,
    whenIdle,
    transport: connected.transport,
  });
  connected.onClose((reason) => controller.notify("error", screenErrors.connectionLost(reason)));
  const openDropped = connected.openDroppedFile;
  if (openDropped) {
    window.addEventListener("dragover", (event) => event.preventDefault());
    window.addEventListener("drop", (event) => {
      // Dropped on a project in the library: imported there (manage/manage-layer.tsx).
      if (event.defaultPrevented) return;
      event.preventDefault();
      const file = event.dataTransfer?.files[0];
      if (file) openDropped(file).catch((error: unknown) => controller.notify("error", messageOf(error)));
    });
  }
  createRoot(root).render(
    <StrictMode>
      <ControllerProvider controller={controller}>
        <TextPagesContext.Provider value={(params) => connected.client.request("session.text", params)}>
          <App />
        </TextPagesContext.Provider>
      </ControllerProvider>
    </StrictMode>,
  );
  await controller.start();
}

void main();

/**
 * How often a burst of appends is applied at most (ControllerOptions.appendPauseMs): on a 2-core
 * machine following 20 lines a second on a 50k-entry session, once a line kept the page's main
 * thread busy ~40% of the time, most of it work each application does whatever it adds.
 */
const APPEND_PAUSE_MS = 100;

/**
 * Just after the page's next animation frame, in a task of its own (or within 100 ms when frames
 * pause, as a hidden window's do): work done in the frame's own task adds to its style, layout and
 * paint, and to the canvases drawn there, making one long task of them all.
 */
function afterNextFrame(task: () => void): void {
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    task();
  };
  window.requestAnimationFrame(() => window.setTimeout(once, 0));
  window.setTimeout(once, 100);
}

/** Runs `task` when the page is idle, within a second (Safari has no requestIdleCallback). */
function whenIdle(task: () => void): void {
  if (typeof window.requestIdleCallback === "function") window.requestIdleCallback(task, { timeout: 1000 });
  else window.setTimeout(task, 200);
}
