/** The explorer window: library | graph | context preview and inspector. */

import { useEffect, useState } from "react";
import { PROBLEMS_LISTED, SEARCH_INPUT_ID, SessionGraph } from "../graph/session-graph.tsx";
import { LibrarySidebar } from "../library/library-sidebar.tsx";
import { ContextPreview } from "../preview/context-preview.tsx";
import { Inspector } from "../preview/inspector.tsx";
import { displayName } from "../library/library-view.ts";
import { THEME_PREFERENCES, type ThemePreference } from "../../../shared/ipc/contract.ts";
import { ManageLayer } from "../manage/manage-layer.tsx";
import { useAppearance, useController, useLibrary, useLive, useManage, useSession } from "../state/hooks.tsx";
import { type Problem, problemCounts } from "../../../shared/session/problems.ts";
import { showBidiControls } from "../../../shared/text/bidi.ts";
import { UserText } from "../text/user-text.tsx";
import { handleExplorerKey } from "./keyboard.ts";
import { LabelDialog } from "./label-dialog.tsx";
import { useBranches } from "../branch-map/use-branches.ts";
import { ComparePane } from "../compare/compare-pane.tsx";
import { TipPicker } from "../compare/compare-picker.tsx";
import { localFigure } from "../text/figures.ts";

function focusSearch() {
  const input = document.getElementById(SEARCH_INPUT_ID);
  if (input instanceof HTMLInputElement) {
    input.focus();
    input.select();
  }
}

/** "3 problems", as `arbor check` counts them (errors and warnings); a file with notes only says "1 note". */
function problemBadgeText(problems: readonly Problem[]): string {
  const { errors, warnings, notes } = problemCounts(problems);
  const serious = errors + warnings;
  if (serious > 0)
    return `${serious} problem${serious === 1 ? "" : "s"}${notes > 0 ? `, ${notes} note${notes === 1 ? "" : "s"}` : ""}`;
  return `${notes} note${notes === 1 ? "" : "s"}`;
}

function SessionHeader() {
  const controller = useController();
  const view = useSession((s) => s.view);
  const listed = useLibrary((s) => {
    const id = view?.sessionId;
    if (!id || !s.listing) return null;
    for (const project of s.listing.projects)
      for (const item of project.sessions) if (item.sessionId === id) return displayName(item);
    return null;
  });
  const reloadNotice = useLive((s) => s.reloadNotice);
  const title = view ? (view.name ?? listed ?? view.path.split(/[\\/]/).pop() ?? view.sessionId) : "Arbor";
  return (
    <header className="app-header">
      <span className="app-name">Arbor</span>
      {view ? (
        <>
          <span className="session-title" title={showBidiControls(view.path)}>
            <UserText text={title} />
          </span>
          {view.live ? (
            <span
              className="badge live"
              title="Another program changed the file in the last few seconds: a Pi is probably writing it"
            >
              live
            </span>
          ) : null}
          {view.problems.length > 0 ? (
            <details
              className="problems-menu"
              onKeyDown={(event) => {
                const menu = event.currentTarget;
                if (event.key !== "Escape" || !menu.open) return;
                event.preventDefault();
                menu.open = false;
                menu.querySelector("summary")?.focus();
              }}
            >
              <summary
                className="badge warning"
                title="What reading the file found, counted as `arbor check` counts it (notes are not problems): click for the list"
              >
                {problemBadgeText(view.problems)}
              </summary>
              <ul className="problems" aria-label="Problems in the file">
                {view.problems.slice(0, PROBLEMS_LISTED).map((problem) => (
                  <li
                    key={`${problem.line}:${problem.kind}:${problem.message}`}
                    className={`problem ${problem.severity}`}
                  >
                    line {problem.line}: {problem.severity}: {problem.message}
                  </li>
                ))}
                {view.problems.length > PROBLEMS_LISTED ? (
                  <li className="problem more">
                    {`and ${localFigure(view.problems.length - PROBLEMS_LISTED)} more: \`arbor check <file>\` lists them all`}
                  </li>
                ) : null}
              </ul>
            </details>
          ) : null}
          {view.cwd ? <UserText className="muted" text={view.cwd} /> : null}
        </>
      ) : null}
      <span className="spacer" />
      <ThemeSwitch />
      {reloadNotice ? (
        <div className="reload-notice" role="status">
          {reloadNotice}{" "}
          <button type="button" onClick={() => controller.dismissReloadNotice()}>
            Dismiss
          </button>
        </div>
      ) : null}
    </header>
  );
}

const THEME_NAMES: Record<ThemePreference, string> = { system: "System", light: "Light", dark: "Dark" };

/** Light, dark or the system's colours, for every window of Arbor (kept in its preferences). */
function ThemeSwitch() {
  const controller = useController();
  const theme = useAppearance((s) => s.theme);
  return (
    <label className="theme-switch" title="Colours: the system's, or always light, or always dark">
      <span className="muted">Theme</span>
      <select
        aria-label="Theme"
        value={theme}
        onChange={(event) => void controller.setTheme(event.target.value as ThemePreference)}
      >
        {THEME_PREFERENCES.map((name) => (
          <option key={name} value={name}>
            {THEME_NAMES[name]}
          </option>
        ))}
      </select>
    </label>
  );
}

/** Notices stay outside the part of the window a modal dialog makes inert, so they are still announced. */
function Toast() {
  const notice = useLive((s) => s.notice);
  if (!notice) return null;
  return (
    <div className={`toast ${notice.kind}`} role={notice.kind === "error" ? "alert" : "status"}>
      {notice.text}
    </div>
  );
}

function SidePanel() {
  const [tab, setTab] = useState<"context" | "entry">("context");
  return (
    <aside className="side-panel">
      <div className="tabs" role="tablist">
        <button type="button" role="tab" aria-selected={tab === "context"} onClick={() => setTab("context")}>
          Context
        </button>
        <button type="button" role="tab" aria-selected={tab === "entry"} onClick={() => setTab("entry")}>
          Entry
        </button>
      </div>
      {tab === "context" ? <ContextPreview /> : <Inspector />}
    </aside>
  );
}

export function App() {
  const controller = useController();
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      handleExplorerKey(controller, event, focusSearch);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [controller]);
  // While the label dialog is open, the window behind it takes no focus and no clicks: the dialog is modal.
  const labelling = useSession((s) => s.labelEditor !== null);
  const picking = useBranches((s) => s.picker !== null);
  const comparing = useBranches((s) => s.compare !== null);
  const modal = useManage((s) => s.dialog !== null) || labelling || picking;
  return (
    <div className="app">
      <div className="app-body" inert={modal}>
        <SessionHeader />
        <main className="workspace">
          <LibrarySidebar />
          {/* The comparison takes the graph's and the preview's place until it is closed. */}
          {comparing ? (
            <ComparePane />
          ) : (
            <>
              <SessionGraph />
              <SidePanel />
            </>
          )}
        </main>
      </div>
      <LabelDialog />
      <ManageLayer />
      <TipPicker />
      <Toast />
    </div>
  );
}
