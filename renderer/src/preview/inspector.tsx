/** The selected entry as it is in the file: raw JSON, line, problems; and the actions on it. */

import { screenErrors } from "../../../shared/error-texts.ts";
import { showBidiControls } from "../../../shared/text/bidi.ts";
import { EntryCuts } from "./cut-texts.tsx";
import { EntryActions } from "../manage/entry-actions.tsx";
import { useContextPreview, useController, useGraphSelect, useSession } from "../state/hooks.tsx";

export function Inspector() {
  const controller = useController();
  const selectedId = useSession((s) => s.selectedId);
  const status = useContextPreview((s) => s.detailStatus);
  const error = useContextPreview((s) => s.detailError);
  const detail = useContextPreview((s) => s.detail);
  const node = useGraphSelect((model, state) =>
    state.selectedId === null ? undefined : model?.nodesById.get(state.selectedId),
  );
  const sessionProblems = useSession((s) => s.view?.problems.length ?? 0);

  if (selectedId === null) {
    return (
      <section className="inspector" aria-label="Entry inspector">
        <div className="empty">No entry selected.</div>
      </section>
    );
  }
  const current = detail && detail.entry.id === selectedId ? detail : null;
  return (
    <section className="inspector" aria-label="Entry inspector" data-entry-id={selectedId}>
      <header className="inspector-header">
        <strong>{node ? `${node.kind}` : "entry"}</strong> <code>{selectedId}</code>
        {current ? <span className="muted"> line {current.line}</span> : null}
        {node?.label ? <span className="badge label">{node.label}</span> : null}
        {node?.archived ? <span className="badge">archived</span> : null}
        <span className="spacer" />
        <button type="button" onClick={() => controller.beginLabel(selectedId)} title="Shift+L">
          Label…
        </button>
        <button type="button" onClick={() => void controller.copyLink(selectedId)}>
          Copy link
        </button>
        <button type="button" onClick={() => controller.reveal(selectedId)}>
          Show in graph
        </button>
      </header>
      {node ? <EntryActions node={node} detail={current} /> : null}
      {status === "error" ? (
        <div className="error-view" role="alert">
          {screenErrors.entryNotRead(error ?? "")}
        </div>
      ) : !current ? (
        <div className="loading">Reading the entry…</div>
      ) : (
        <>
          {current.problems.length > 0 ? (
            <ul className="problems" aria-label="Problems">
              {current.problems.map((problem) => (
                <li key={`${problem.line}:${problem.kind}`} className={`problem ${problem.severity}`}>
                  line {problem.line}: {problem.severity}: {problem.message}
                </li>
              ))}
            </ul>
          ) : (
            <p className="muted">
              No problems with this entry
              {sessionProblems > 0 ? ` (${sessionProblems} elsewhere in the file)` : ""}.
            </p>
          )}
          <pre className="json raw-entry">{showBidiControls(JSON.stringify(current.entry, null, 2))}</pre>
          <EntryCuts detail={current} />
        </>
      )}
    </section>
  );
}
