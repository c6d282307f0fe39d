/**
 * Saved views of large session files: what the explorer's window is sent
 * when it opens the session (every node's view, in the wire form of
 * shared/ipc/wire-nodes.ts, and the view's other fields), kept as the JSON text
 * that is sent, with what the window asks next: the context from the file's
 * leaf and the leaf's entry. Opening a 100k-entry session then sends that
 * text as it is: no node view to build, encode or stringify, and no index to
 * build before the window has its first context (the index is built after).
 * Like a saved parse, a saved view is used only for the exact bytes it was
 * made from: it records their SHA-256, checked against the file before it is
 * trusted.
 *
 * It holds the session's branch map too (shared/branches), which the window
 * asks for next when the entry graph would be unreadable at Fit: building it
 * needs the index, seconds at 100k entries, the saved text none.
 *
 * The file, a line each: the SHA-256 of the rest (hex), then as JSON the
 * view's fields, the nodes' wire form, the leaf's context (or null), the
 * leaf's entry (or null), the branch map (or null).
 */

import { BranchModel } from "../../shared/branches/index.ts";
import type { EntryReader } from "../../shared/session/entry-reader.ts";
import { isRecord } from "../../shared/session/facts.ts";
import { isProblemShaped } from "../../shared/session/problems.ts";
import type { SessionIndex } from "../../shared/session/tree-index.ts";
import type { EntryDetail } from "../../shared/ipc/contract.ts";
import {
  contextView,
  entryDetail,
  type SessionViewContent,
  sessionViewContent,
  treeNodeViews,
} from "../../shared/ipc/views.ts";
import { encodeNodes, WIRE_NODES_FORMAT } from "../../shared/ipc/wire-nodes.ts";
import { contentHash } from "./content-hash.ts";

/**
 * Bump whenever what a view holds changes (shared/ipc/views.ts, the parser's
 * facts, contexts): a saved view is only valid for the code that made it.
 * `saved-view.test.ts` holds a digest of a view of a fixed file and fails
 * until both are updated. The wire format is checked on its own.
 */
export const SAVED_VIEW_VERSION = 5;

const FORMAT = "arbor-saved-view";

export interface SavedView {
  /** The SHA-256 (hex) of the file's first `content.bytes` bytes: the bytes it is the view of. */
  digest: string;
  /** How many entries the index of those bytes has (`index.entries.length`). */
  entryCount: number;
  content: SessionViewContent;
  /** The JSON text of the nodes' wire form (`WireNodes`). */
  nodesJson: string;
  /** The JSON text of the context from the file's leaf (`contextView`, not `llm`); null when too large to keep. */
  leafContextJson: string | null;
  /** The file's leaf entry (`entryDetail`); null without a leaf, or when too large to keep. */
  leafEntry: EntryDetail | null;
  /** The JSON text of the branch map (`BranchModel.branchMap`); null when too large to keep. */
  branchMapJson: string | null;
}

/** A leaf context or entry larger than this (as JSON) is not saved: it is built from the index when asked for. */
const MAX_LEAF_JSON_CHARS = 4 * 1024 * 1024;
/** A branch map larger than this (as JSON: ~3 MB for 1,000 tips) is not saved either. */
const MAX_MAP_JSON_CHARS = 32 * 1024 * 1024;

/** Lets other work run between the steps of building a view (each step is a pass over every entry). */
export type Pause = () => Promise<void>;

/**
 * The steps of a view of `index`: every node's view built and encoded, the leaf's context, the leaf's
 * entry, the branch map.
 */
function viewSteps(
  index: SessionIndex,
  reader: EntryReader,
  digest: string,
): (() => void)[] & { view(): SavedView } {
  const leafId = index.leafId;
  const content = sessionViewContent(index, reader);
  let nodesJson = "";
  let leafContextJson: string | null = null;
  let leafEntry: EntryDetail | null = null;
  let branchMapJson: string | null = null;
  const steps = [
    () => {
      nodesJson = JSON.stringify(encodeNodes(treeNodeViews(index, reader)));
    },
    () => {
      const json = JSON.stringify(contextView(index, reader, leafId, false));
      leafContextJson = json.length <= MAX_LEAF_JSON_CHARS ? json : null;
    },
    () => {
      const entry = leafId === null ? null : entryDetail(index, reader, leafId);
      leafEntry = entry && JSON.stringify(entry).length <= MAX_LEAF_JSON_CHARS ? entry : null;
    },
    () => {
      const json = JSON.stringify(BranchModel.build(index, reader).branchMap());
      branchMapJson = json.length <= MAX_MAP_JSON_CHARS ? json : null;
    },
  ];
  return Object.assign(steps, {
    view: (): SavedView => ({
      digest,
      entryCount: index.entries.length,
      content,
      nodesJson,
      leafContextJson,
      leafEntry,
      branchMapJson,
    }),
  });
}

/** The view of `index` (its entries read by `reader`), whose bytes have the SHA-256 `digest`, built at once. */
export function savedViewOf(index: SessionIndex, reader: EntryReader, digest: string): SavedView {
  const steps = viewSteps(index, reader, digest);
  for (const step of steps) step();
  return steps.view();
}

/**
 * The same, with `pause` between the steps (~0.8 s in all at 100k entries):
 * undefined when `stillCurrent` says, after a pause, that the index moved on.
 */
export async function savedViewInSteps(
  index: SessionIndex,
  reader: EntryReader,
  digest: string,
  pause: Pause,
  stillCurrent: () => boolean = () => true,
): Promise<SavedView | undefined> {
  const steps = viewSteps(index, reader, digest);
  for (const step of steps) {
    await pause();
    if (!stillCurrent()) return undefined;
    step();
  }
  return steps.view();
}

interface SavedViewMeta {
  format: typeof FORMAT;
  version: number;
  /** The wire form its nodes are in (`WIRE_NODES_FORMAT`). */
  wireFormat: number;
  path: string;
  digest: string;
  entryCount: number;
  content: SessionViewContent;
}

/** The file's text for `view` of the session at `path`. */
export function encodeSavedView(path: string, view: SavedView): string {
  const meta: SavedViewMeta = {
    format: FORMAT,
    version: SAVED_VIEW_VERSION,
    wireFormat: WIRE_NODES_FORMAT,
    path,
    digest: view.digest,
    entryCount: view.entryCount,
    content: view.content,
  };
  const body = [
    JSON.stringify(meta),
    view.nodesJson,
    view.leafContextJson ?? "null",
    JSON.stringify(view.leafEntry),
    view.branchMapJson ?? "null",
  ].join("\n");
  return `${contentHash().update(body).digest("hex")}\n${body}`;
}

/**
 * The view a file's bytes hold, when they are a whole saved view of `path`
 * in this version; undefined for anything else (damaged, foreign, older).
 * The nodes' text is checked by its checksum, not parsed.
 */
export function decodeSavedView(bytes: Buffer, path: string): SavedView | undefined {
  const lines: Span[] = [];
  for (let start = 0; start <= bytes.length; ) {
    const newline = bytes.indexOf(NEWLINE, start);
    const end = newline === -1 ? bytes.length : newline;
    lines.push([start, end]);
    start = end + 1;
  }
  if (lines.length !== LINES) return undefined;
  const [checksumLine, metaLine, nodesLine, contextLine, entryLine, mapLine] = lines as [
    Span,
    Span,
    Span,
    Span,
    Span,
    Span,
  ];
  const checksum = bytes.toString("latin1", checksumLine[0], checksumLine[1]);
  if (checksum !== contentHash().update(bytes.subarray(metaLine[0])).digest("hex")) return undefined;
  const text = ([start, end]: Span) => bytes.toString("utf8", start, end);
  let meta: unknown;
  let leafEntry: unknown;
  try {
    meta = JSON.parse(text(metaLine));
    leafEntry = JSON.parse(text(entryLine));
  } catch {
    return undefined;
  }
  if (!isMeta(meta) || meta.path !== path || !(leafEntry === null || isEntryDetail(leafEntry)))
    return undefined;
  const leafContextJson = text(contextLine);
  const branchMapJson = text(mapLine);
  return {
    digest: meta.digest,
    entryCount: meta.entryCount,
    content: meta.content,
    nodesJson: text(nodesLine),
    leafContextJson: leafContextJson === "null" ? null : leafContextJson,
    leafEntry,
    branchMapJson: branchMapJson === "null" ? null : branchMapJson,
  };
}

/** Checksum, fields, nodes, leaf context, leaf entry, branch map. */
const LINES = 6;

/** A line's `[start, end)` in the file's bytes. */
type Span = [start: number, end: number];

function isEntryDetail(value: unknown): value is EntryDetail {
  return (
    isRecord(value) &&
    isRecord(value.entry) &&
    Number.isSafeInteger(value.line) &&
    Array.isArray(value.problems) &&
    value.problems.every(isProblemShaped)
  );
}

const NEWLINE = 0x0a;

function isMeta(value: unknown): value is SavedViewMeta {
  if (!isRecord(value)) return false;
  const { format, version, wireFormat, path, digest, entryCount, content } = value;
  return (
    format === FORMAT &&
    version === SAVED_VIEW_VERSION &&
    wireFormat === WIRE_NODES_FORMAT &&
    typeof path === "string" &&
    typeof digest === "string" &&
    isCount(entryCount) &&
    isContent(content)
  );
}

function isContent(value: unknown): value is SessionViewContent {
  if (!isRecord(value)) return false;
  const { headerId, cwd, name, version, leafId, roots, problems, bytes, parentSession, firstUserText } =
    value;
  return (
    isStringOrNull(headerId) &&
    isStringOrNull(cwd) &&
    isStringOrNull(name) &&
    typeof version === "number" &&
    isStringOrNull(leafId) &&
    Array.isArray(roots) &&
    roots.every((root) => typeof root === "string") &&
    Array.isArray(problems) &&
    problems.every(isProblemShaped) &&
    isCount(bytes) &&
    isStringOrNull(parentSession) &&
    isStringOrNull(firstUserText)
  );
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

function isStringOrNull(value: unknown): value is string | null {
  return value === null || typeof value === "string";
}
