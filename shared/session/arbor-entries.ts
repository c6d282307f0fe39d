/**
 * Arbor's own entries in a Pi session, and what the index makes of them.
 * They are Pi entry types Pi already writes for its extensions, so both Pi
 * generations read them without a word:
 * - `custom` "arbor.continue": a marker appended as a child of the entry the
 *   user chose to continue from, so that Pi, which resumes from a file's
 *   last entry, resumes there. `custom` entries contribute nothing to the
 *   model's context. `data.fromId`: the file's leaf it moved away from.
 * - `custom` "arbor.archive": `data: {targetId, archived}` hides (or shows
 *   again) the branch below `targetId` in Arbor; appended as a child of the
 *   file's leaf, like a label, so Pi's context and resume point stay.
 * - `custom_message` "arbor.note": a note the user adds to the model's context.
 * A continue written with a summary is Pi's own `branch_summary`, marked
 * with `details` so that it can be undone.
 */

import type { EntryReader } from "./entry-reader.ts";
import { isRecord } from "./facts.ts";
import type { SessionIndex } from "./tree-index.ts";
import type { SessionEntry } from "./types.ts";

export const ARBOR_CONTINUE = "arbor.continue";
export const ARBOR_ARCHIVE = "arbor.archive";
export const ARBOR_NOTE = "arbor.note";

/** The `details` of a branch summary Arbor wrote to continue from an entry. */
export const CONTINUE_SUMMARY_DETAILS = { arbor: ARBOR_CONTINUE } as const;

export interface ArchiveMarker {
  targetId: string;
  archived: boolean;
}

/** Whether an entry (a stub will do: `customType` is always kept) is an archive marker. */
export function isArchiveMarkerEntry(entry: SessionEntry): boolean {
  return entry.type === "custom" && entry.customType === ARBOR_ARCHIVE;
}

/** What a whole archive marker says; null when it is not one, or its data is not Arbor's shape. */
export function archiveMarkerOf(entry: SessionEntry): ArchiveMarker | null {
  if (!isArchiveMarkerEntry(entry)) return null;
  const data: unknown = (entry as { data?: unknown }).data;
  if (!isRecord(data) || typeof data.targetId !== "string" || typeof data.archived !== "boolean") return null;
  return { targetId: data.targetId, archived: data.archived };
}

/** Whether an entry is a continue marker, or a branch summary Arbor wrote to continue; its `fromId` if so. */
export function continueFromIdOf(entry: SessionEntry): { fromId: string | null } | null {
  if (entry.type === "custom" && entry.customType === ARBOR_CONTINUE) {
    const data: unknown = (entry as { data?: unknown }).data;
    const fromId = isRecord(data) && typeof data.fromId === "string" ? data.fromId : null;
    return { fromId };
  }
  if (entry.type === "branch_summary") {
    const details: unknown = entry.details;
    if (!isRecord(details) || details.arbor !== ARBOR_CONTINUE) return null;
    const fromId: unknown = entry.fromId;
    return { fromId: typeof fromId === "string" && fromId !== "root" ? fromId : null };
  }
  return null;
}

/** Per index, the targets archived now, made again when markers were appended since. */
const archivedCache = new WeakMap<SessionIndex, { markers: number; targets: ReadonlySet<string> }>();

/**
 * The entries whose branches are archived now: the latest marker of each
 * target wins. Reads only the markers' bodies (`index.archiveMarkers`), so
 * it costs nothing for the sessions (nearly all) that have none.
 */
export function archivedTargets(index: SessionIndex, reader: EntryReader): ReadonlySet<string> {
  const markers = index.archiveMarkers;
  if (markers.length === 0) return EMPTY;
  const cached = archivedCache.get(index);
  if (cached && cached.markers === markers.length) return cached.targets;
  const state = new Map<string, boolean>();
  for (const id of markers) {
    const node = index.nodes.get(id);
    const marker = node ? archiveMarkerOf(reader.entryOfNode(node)) : null;
    if (marker) state.set(marker.targetId, marker.archived);
  }
  const targets = new Set<string>();
  for (const [targetId, archived] of state) if (archived && index.nodes.has(targetId)) targets.add(targetId);
  archivedCache.set(index, { markers: markers.length, targets });
  return targets;
}

const EMPTY: ReadonlySet<string> = new Set();

/**
 * How many `message` entries the archived branches hold (what the library
 * leaves out of a session's message count). Walks only the archived
 * subtrees; 0 at once for a session without archive markers.
 */
export function archivedMessageCount(index: SessionIndex, reader: EntryReader): number {
  const targets = archivedTargets(index, reader);
  let count = 0;
  const seen = new Set<string>();
  const stack = [...targets];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    const node = index.nodes.get(id);
    if (!node) continue;
    if (node.entry.type === "message") count++;
    for (const child of node.children) stack.push(child);
  }
  return count;
}

/** Whether an entry is hidden as archived: it, or an entry above it, is an archived target. */
export function isArchived(index: SessionIndex, reader: EntryReader, entryId: string): boolean {
  const targets = archivedTargets(index, reader);
  if (targets.size === 0) return false;
  for (let node = index.nodes.get(entryId); node; node = node.parent ?? undefined) {
    if (targets.has(node.id)) return true;
  }
  return false;
}
