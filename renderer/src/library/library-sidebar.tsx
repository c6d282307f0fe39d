/** The library: every session on the machine, by project, with search, sort and fork lineage. */

import { type ReactNode, useMemo } from "react";
import { screenErrors } from "../../../shared/error-texts.ts";
import type { SearchHit } from "../../../shared/ipc/contract.ts";
import { focusGraph } from "../graph/session-graph.tsx";
import { useController, useLibrary, useSession } from "../state/hooks.tsx";
import type { LibrarySort } from "../state/stores.ts";
import { showBidiControls } from "../../../shared/text/bidi.ts";
import { UserText } from "../text/user-text.tsx";
import { useBranches } from "../branch-map/use-branches.ts";
import { CompareWithSourceButton, LibraryCompareBar } from "../compare/library-compare.tsx";
import { displayName, type LibraryGroup, type LibraryRow, libraryGroups } from "./library-view.ts";
import { localFigure } from "../text/figures.ts";

const SORTS: { value: LibrarySort; label: string }[] = [
  { value: "recent", label: "Recent" },
  { value: "name", label: "Name" },
  { value: "size", label: "Size" },
  { value: "messages", label: "Messages" },
];

function formatDate(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime())
    ? ""
    : date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function ScanProgress() {
  const scanning = useLibrary((s) => s.listing?.scanning ?? s.status === "loading");
  const progress = useLibrary((s) => s.progress);
  if (!scanning) return null;
  const value = progress && progress.total > 0 ? progress.loaded / progress.total : undefined;
  return (
    <div className="scan-progress">
      <progress aria-label="Scanning sessions" max={1} value={value} />
      <span className="muted">
        {progress ? `${localFigure(progress.loaded)} of ${localFigure(progress.total)} files` : "Scanning…"}
      </span>
    </div>
  );
}

/** The group of files that name no project (no readable header), beside no session of one. */
const NO_PROJECT = "No project (files without a session header)";

export function LibrarySidebar() {
  return (
    <nav className="library" aria-label="Library">
      <LibraryHeader />
      <LibraryBody />
      <LibraryCompareBar />
      <SkippedFiles />
    </nav>
  );
}

/** What the scan passed over (a FIFO named like a session, a link out of the session folders...), and why. */
function SkippedFiles() {
  const skipped = useLibrary((s) => s.listing?.skipped);
  if (!skipped || skipped.length === 0) return null;
  return (
    <details className="skipped-files">
      <summary>
        {skipped.length === 1 ? "1 file skipped" : `${localFigure(skipped.length)} files skipped`}
      </summary>
      <ul aria-label="Files the scan skipped">
        {skipped.map(({ path, reason }) => (
          <li key={path}>
            <bdi className="skipped-path">{path}</bdi>
            <span className="muted">{reason}</span>
          </li>
        ))}
      </ul>
    </details>
  );
}

/** The title with Rescan, the search box, the sort and filter options, and the scan's progress. */
function LibraryHeader() {
  const controller = useController();
  const demo = useLibrary((s) => s.listing?.demo ?? false);
  const sort = useLibrary((s) => s.sort);
  const namedOnly = useLibrary((s) => s.namedOnly);
  const searchText = useLibrary((s) => s.searchText);
  const searching = useLibrary((s) => s.searching);
  return (
    <header className="library-header">
      <div className="library-title">
        <strong>Sessions</strong>
        {demo ? <span className="badge">demo</span> : null}
        <span className="spacer" />
        <button type="button" onClick={() => void controller.rescan()} title="Scan again">
          Rescan
        </button>
      </div>
      <input
        type="search"
        aria-label="Search sessions"
        placeholder="Search sessions"
        value={searchText}
        onChange={(event) => controller.setLibrarySearch(event.target.value)}
      />
      <div className="library-options">
        <select
          aria-label="Sort sessions"
          value={sort}
          onChange={(event) => controller.setSort(event.target.value as LibrarySort)}
        >
          {SORTS.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
        <label className="checkbox">
          <input
            type="checkbox"
            checked={namedOnly}
            onChange={(event) => controller.setNamedOnly(event.target.checked)}
          />
          named only
        </label>
        {searching ? <span className="muted">searching…</span> : null}
      </div>
      <ScanProgress />
    </header>
  );
}

/** The sessions by project, or what stands in for them: the error, the loading note, the empty states. */
function LibraryBody() {
  const controller = useController();
  const status = useLibrary((s) => s.status);
  const error = useLibrary((s) => s.error);
  const listing = useLibrary((s) => s.listing);
  const sort = useLibrary((s) => s.sort);
  const namedOnly = useLibrary((s) => s.namedOnly);
  const searchText = useLibrary((s) => s.searchText);
  const searchHits = useLibrary((s) => s.searchHits);
  const groups = useMemo(
    () => (listing ? libraryGroups(listing, { sort, namedOnly, searchText, searchHits }) : []),
    [listing, sort, namedOnly, searchText, searchHits],
  );
  const total = listing?.projects.reduce((sum, project) => sum + project.sessions.length, 0) ?? 0;

  if (status === "error" && !listing)
    return (
      <div className="error-view" role="alert">
        <p>{screenErrors.libraryNotRead(error ?? "")}</p>
        <button type="button" onClick={() => void controller.loadLibrary()}>
          Try again
        </button>
      </div>
    );
  if (!listing) return <div className="loading">Looking for sessions…</div>;
  if (total === 0)
    return (
      <div className="empty">
        {listing.scanning ? "Reading session files…" : "No Pi sessions were found."}
      </div>
    );
  if (groups.length === 0) return <div className="empty">No session matches.</div>;
  return <ProjectList groups={groups} />;
}

function ProjectList({ groups }: { groups: LibraryGroup[] }) {
  const openId = useSession((s) => s.view?.sessionId ?? s.openingId);
  return (
    <ul className="project-list">
      {groups.map((group) => (
        <li key={group.projectId} className="project" data-project-id={group.projectId}>
          <div className="project-name" title={group.cwd || NO_PROJECT}>
            {/* Isolated: the right-to-left box (an ellipsis at the start) must not move a leading "/" to the end. */}
            <bdi>{group.cwd || NO_PROJECT}</bdi>
          </div>
          <ul className="session-list">
            {group.rows.map((row) => (
              <SessionRow key={row.item.sessionId} row={row} open={row.item.sessionId === openId} />
            ))}
          </ul>
        </li>
      ))}
    </ul>
  );
}

/** One session: a button that opens it, with its name, its figures, its damage and the search hit in it. */
function SessionRow({ row: { item, depth, hit }, open }: { row: LibraryRow; open: boolean }) {
  const controller = useController();
  const marked = useBranches((s) => s.marked.includes(item.sessionId));
  return (
    <li className="session-item">
      <button
        type="button"
        className={`session-row depth-${Math.min(depth, 6)}${open ? " open" : ""}${item.error ? " broken" : ""}${marked ? " marked" : ""}`}
        aria-current={open ? "true" : undefined}
        data-session-id={item.sessionId}
        title={showBidiControls(item.path)}
        // A full-text hit opens its session at the entry that matched (ids of unreadable lines are not entries).
        onClick={(event) => {
          // Ctrl/Cmd-click marks it to compare with another session of its lineage (library-compare.tsx).
          if (event.ctrlKey || event.metaKey) controller.branches.markForCompare(item.sessionId);
          else void controller.openSession(item.sessionId, hitEntry(hit)).then(focusGraph);
        }}
      >
        <span className="session-name">
          {depth > 0 ? <span className="fork-mark">↳ </span> : null}
          <UserText text={displayName(item)} />
        </span>
        <span className="session-meta muted">
          {formatDate(item.modified)} · {item.messageCount} msgs
          {item.archivedMessageCount > 0 ? ` (${item.archivedMessageCount} archived)` : ""} ·{" "}
          {formatSize(item.bytes)}
        </span>
        {item.error ? <span className="error-text">{item.error}</span> : null}
        {!item.error && item.damagedLines > 0 ? (
          <span className="damage-note">
            {item.damagedLines === 1 ? "1 unreadable line" : `${item.damagedLines} unreadable lines`}
          </span>
        ) : null}
        {hit ? <Snippet hit={hit} /> : null}
      </button>
      {depth > 0 ? <CompareWithSourceButton item={item} /> : null}
    </li>
  );
}

/** The entry a full-text hit names, when it names one (a line Arbor could not index has a `line-N` id). */
function hitEntry(hit: SearchHit | null): string | null {
  return hit?.entryId && !hit.entryId.startsWith("line-") ? hit.entryId : null;
}

/** A hit's snippet as text, its matched words marked. */
function Snippet({ hit }: { hit: SearchHit }) {
  const parts: ReactNode[] = [];
  let at = 0;
  const ranges = [...hit.highlights].sort((a, b) => a[0] - b[0]);
  for (const [start, end] of ranges) {
    if (start < at || end <= start || end > hit.snippet.length) continue;
    if (start > at) parts.push(hit.snippet.slice(at, start));
    parts.push(<mark key={start}>{hit.snippet.slice(start, end)}</mark>);
    at = end;
  }
  if (at < hit.snippet.length) parts.push(hit.snippet.slice(at));
  return <span className="search-snippet">{parts}</span>;
}
