/**
 * The library as the sidebar lists it: filtered (named only, search words
 * in names and first messages, full-text hits), sorted, grouped by project,
 * forks nested under the session they were forked from. Pure.
 */

import type { LibraryListing, SearchHit, SessionListItem } from "../../../shared/ipc/contract.ts";
import type { LibrarySort } from "../state/stores.ts";

export interface LibraryRow {
  item: SessionListItem;
  /** Fork depth under its parent session. */
  depth: number;
  hit: SearchHit | null;
}

export interface LibraryGroup {
  projectId: string;
  cwd: string;
  rows: LibraryRow[];
}

export interface LibraryQuery {
  sort: LibrarySort;
  namedOnly: boolean;
  searchText: string;
  searchHits: readonly SearchHit[] | null;
}

/** A session by its name, else its first message; a file that is not a readable session by its file name. */
export function displayName(item: SessionListItem): string {
  if (item.error !== null) return fileName(item.path);
  return item.name ?? (item.firstMessage || "(no messages)");
}

function fileName(path: string): string {
  return path.slice(Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\")) + 1) || path;
}

function compare(sort: LibrarySort): (a: SessionListItem, b: SessionListItem) => number {
  switch (sort) {
    case "name":
      return (a, b) => displayName(a).localeCompare(displayName(b));
    case "size":
      return (a, b) => b.bytes - a.bytes;
    case "messages":
      return (a, b) => b.messageCount - a.messageCount;
    default:
      return (a, b) => b.modified.localeCompare(a.modified);
  }
}

export function libraryGroups(listing: LibraryListing, query: LibraryQuery): LibraryGroup[] {
  const words = query.searchText.toLowerCase().split(/\s+/).filter(Boolean);
  const hits = new Map<string, SearchHit>();
  for (const hit of query.searchHits ?? []) if (!hits.has(hit.sessionId)) hits.set(hit.sessionId, hit);
  const order = compare(query.sort);
  const groups: LibraryGroup[] = [];
  for (const project of listing.projects) {
    const kept = project.sessions.filter((item) => {
      if (query.namedOnly && item.name === null) return false;
      if (words.length === 0) return true;
      const text = `${item.name ?? ""} ${item.firstMessage}`.toLowerCase();
      return words.every((word) => text.includes(word)) || hits.has(item.sessionId);
    });
    if (kept.length === 0) continue;
    const ids = new Set(kept.map((item) => item.sessionId));
    const children = new Map<string, SessionListItem[]>();
    const roots: SessionListItem[] = [];
    for (const item of kept) {
      const parent = item.parentSessionId;
      if (parent !== null && parent !== item.sessionId && ids.has(parent)) {
        const list = children.get(parent) ?? [];
        list.push(item);
        children.set(parent, list);
      } else roots.push(item);
    }
    const rows: LibraryRow[] = [];
    const seen = new Set<string>();
    const stack: { item: SessionListItem; depth: number }[] = roots
      .sort(order)
      .reverse()
      .map((item) => ({ item, depth: 0 }));
    while (stack.length > 0) {
      const { item, depth } = stack.pop()!;
      if (seen.has(item.sessionId)) continue;
      seen.add(item.sessionId);
      rows.push({ item, depth, hit: hits.get(item.sessionId) ?? null });
      const forks = (children.get(item.sessionId) ?? []).slice().sort(order);
      for (let i = forks.length - 1; i >= 0; i--) stack.push({ item: forks[i]!, depth: depth + 1 });
    }
    groups.push({ projectId: project.projectId, cwd: project.cwd, rows });
  }
  if (query.sort === "name") groups.sort((a, b) => a.cwd.localeCompare(b.cwd));
  else groups.sort((a, b) => order(a.rows[0]!.item, b.rows[0]!.item));
  return groups;
}
