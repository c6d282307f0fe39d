/**
 * The Entry tab's actions on the selected entry, in groups: its label (with
 * when it was set), where Pi continues and new sessions from it, archiving,
 * and "More…" for the rest (the entry's context menu, at the button).
 */

import type { EntryDetail, TreeNodeView } from "../../../shared/ipc/contract.ts";
import { useController } from "../state/hooks.tsx";
import { archiveRootOf } from "../state/controller/session-manage.ts";

function formatTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime())
    ? iso
    : date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

/** When the label was set, and the way to remove it. */
function LabelGroup({ entryId, timestamp }: { entryId: string; timestamp: string }) {
  const controller = useController();
  return (
    <span className="action-group">
      <span className="entry-label-time muted" data-testid="label-time">
        labelled {formatTime(timestamp)}
      </span>
      <button type="button" onClick={() => void controller.manage.removeLabel(entryId)}>
        Remove label
      </button>
    </span>
  );
}

export function EntryActions({ node, detail }: { node: TreeNodeView; detail: EntryDetail | null }) {
  const controller = useController();
  const { manage } = controller;
  const id = node.id;
  const label = detail?.label ?? null;
  const archiveRoot = node.archived ? archiveRootOf(controller.model()?.nodesById ?? new Map(), id) : null;
  const isUser = node.type === "message" && node.role === "user";
  return (
    <div className="entry-actions" data-testid="entry-actions">
      {label ? <LabelGroup entryId={id} timestamp={label.timestamp} /> : null}
      <span className="action-group">
        <button
          type="button"
          title="Pi resumes from this entry the next time it opens the session"
          onClick={() => manage.beginContinue(id)}
        >
          Continue here…
        </button>
        <button
          type="button"
          title="A new session whose branch ends at this entry"
          onClick={() => void manage.fork(id, "at")}
        >
          Fork
        </button>
        {isUser ? (
          <button
            type="button"
            title="As Pi's /fork: a new session up to this prompt, its text offered to edit"
            onClick={() => void manage.fork(id, "before")}
          >
            Fork before
          </button>
        ) : null}
        <button
          type="button"
          title="As Pi's /clone: the branch ending here, as a new session"
          onClick={() => void manage.clone(id)}
        >
          Clone
        </button>
      </span>
      <span className="action-group">
        {archiveRoot !== null ? (
          <button type="button" onClick={() => void manage.setArchived(archiveRoot, false)}>
            Unarchive
          </button>
        ) : (
          <button
            type="button"
            title="Hides this entry and everything below it; nothing is deleted, Pi sees no change"
            onClick={() => void manage.setArchived(id, true)}
          >
            Archive
          </button>
        )}
        <button type="button" onClick={() => manage.beginNote(id)}>
          Note…
        </button>
        <button
          type="button"
          aria-haspopup="menu"
          title="Edit or drop in the context, export the branch, copy the id (Shift+F10 in the graph)"
          onClick={(event) => {
            const box = event.currentTarget.getBoundingClientRect();
            manage.openEntryMenu(id, { x: box.left, y: box.bottom + 2 });
          }}
        >
          More…
        </button>
      </span>
    </div>
  );
}
