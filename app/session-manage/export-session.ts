/**
 * A branch of a session exported as a file's content, with a suggested file
 * name: Markdown or self-contained HTML (shared/export/branch-export.ts), or
 * JSONL: a valid Pi session holding that branch, exactly what Pi's
 * `createBranchedSession` would write (a fresh header naming the source,
 * the path without label entries, the path's labels made again), so Pi
 * opens it with the same context. The window saves the content where the
 * user chooses (a download, or the desktop app's save dialog); the CLI
 * writes it to a new file.
 */

import { basename, resolve } from "node:path";
import { manageErrors } from "../../shared/error-texts.ts";
import { type BranchExport, branchHtml, branchMarkdown } from "../../shared/export/branch-export.ts";
import { ArborError, type TreeNodeView } from "../../shared/ipc/contract.ts";
import { contextView, firstUserText, treeNodeView } from "../../shared/ipc/views.ts";
import { archivedTargets } from "../../shared/session/arbor-entries.ts";
import type { EntryReader } from "../../shared/session/entry-reader.ts";
import { pathToRoot, type SessionIndex } from "../../shared/session/tree-index.ts";
import { branchedEntries, sessionFileName, sessionHeader, uuidv7 } from "../store/new-file.ts";

export const EXPORT_FORMATS = ["markdown", "html", "jsonl"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface ExportedBranch {
  /** A name to save it under (no folder). */
  fileName: string;
  mimeType: string;
  content: string;
}

export interface ExportBranchOptions {
  /** The branch's last entry; default the file's leaf; null: the empty start. */
  leafId?: string | null | undefined;
  format: ExportFormat;
  now?: Date | undefined;
}

/** The export of the branch ending at `options.leafId` of the session at `sourcePath`. */
export function exportBranch(
  index: SessionIndex,
  reader: EntryReader,
  sourcePath: string,
  options: ExportBranchOptions,
): ExportedBranch {
  const leafId = options.leafId === undefined ? index.leafId : options.leafId;
  if (leafId !== null && !index.nodes.has(leafId)) {
    throw new ArborError("not-found", manageErrors.noEntryToExport(leafId));
  }
  const now = options.now ?? new Date();
  if (options.format === "jsonl") return jsonlExport(index, reader, resolve(sourcePath), leafId, now);
  const input = branchExportInput(index, reader, sourcePath, leafId, now);
  const stem = `${fileStem(input.title)}${leafId ? `-${leafId}` : ""}`;
  return options.format === "html"
    ? { fileName: `${stem}.html`, mimeType: "text/html", content: branchHtml(input) }
    : { fileName: `${stem}.md`, mimeType: "text/markdown", content: branchMarkdown(input) };
}

function jsonlExport(
  index: SessionIndex,
  reader: EntryReader,
  source: string,
  leafId: string | null,
  now: Date,
): ExportedBranch {
  const cwd = index.header?.cwd;
  const header = sessionHeader({
    id: uuidv7(now.getTime()),
    timestamp: now.toISOString(),
    cwd: typeof cwd === "string" ? resolve(cwd) : process.cwd(),
    parentSession: source,
  });
  const entries = leafId === null ? [] : branchedEntries(index, reader, leafId, source);
  const content = [header, ...entries].map((value) => `${JSON.stringify(value)}\n`).join("");
  return {
    fileName: sessionFileName(header.timestamp, header.id),
    mimeType: "application/x-ndjson",
    content,
  };
}

/** What the Markdown and HTML documents are made of: the path's node views, and the leaf's context. */
export function branchExportInput(
  index: SessionIndex,
  reader: EntryReader,
  sourcePath: string,
  leafId: string | null,
  now: Date,
): BranchExport {
  const ids = leafId === null ? [] : pathToRoot(index, leafId);
  const archived = archivedTargets(index, reader);
  let below = false;
  const path = ids.map((id, i) => {
    const node = index.nodes.get(id)!;
    below ||= archived.has(id);
    const view: TreeNodeView = treeNodeView(index, reader, node, below);
    const onPath = i + 1 < ids.length ? 1 : 0;
    return { node: view, otherBranches: node.children.length - onPath };
  });
  const header = index.header;
  const fileName = basename(sourcePath);
  return {
    title: index.sessionName ?? firstUserText(index, reader) ?? fileName,
    fileName,
    headerId: typeof header?.id === "string" ? header.id : null,
    cwd: typeof header?.cwd === "string" ? header.cwd : null,
    leafId,
    exportedAt: now.toISOString(),
    path,
    context: contextView(index, reader, leafId, false),
  };
}

/** A title as the start of a file name: letters, digits and dashes, at most 60 of them. */
function fileStem(title: string): string {
  const stem = title
    .normalize("NFKD")
    .replace(/[^\p{L}\p{N}]+/gu, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 60)
    .replace(/-+$/, "");
  return stem || "session";
}
