/**
 * An in-memory `ArborClient` for component tests: sessions are real JSONL
 * text (usually from shared/session/testing/generate-session.ts), read with
 * shared/session exactly as the main process reads them. Appends (a label,
 * or `append()` standing in for a running Pi) re-read the text and emit
 * `session.appended` with the delta between the views before and after, as
 * the file follower does. Opening another session emits `session.switched`
 * before the answer, and `switchTo()` stands in for a switch the main process
 * makes by itself (the menu, the command line). Answers and the events it
 * makes itself travel in their wire form and back (shared/ipc/wire.ts), as
 * over either transport.
 */

import {
  type ArborClient,
  ArborError,
  type ArborEvents,
  type EventName,
  type LibraryListing,
  type ProjectGroup,
  type RequestName,
  type RequestParams,
  type RequestResult,
  type ThemePreference,
  type SearchHit,
  type SessionListItem,
  type SkippedLibraryFile,
} from "../../../shared/ipc/contract.ts";
import { BranchModel } from "../../../shared/branches/index.ts";
import { compareBranches } from "../../../shared/compare/index.ts";
import {
  contextPageOf,
  lastWindow,
  type PageBudget,
  type PagedContext,
  pagedContext,
  pageLength,
} from "../../../shared/ipc/context-pages.ts";
import { diffSessionViews } from "../../../shared/ipc/session-delta.ts";
import { decodeEvent, decodeResult, encodeEvent, encodeResult } from "../../../shared/ipc/wire.ts";
import { isArchived } from "../../../shared/session/arbor-entries.ts";
import { EntrySearch } from "../../../shared/session/entry-search.ts";
import {
  firstLine,
  inMemoryEntryReader,
  readSession,
  type SessionIndex,
  textOf,
} from "../../../shared/session/index.ts";
import { createFakeFiles, createFakeWrites } from "./fake-manage.ts";
import { contextViewOf, sessionViewOf } from "./session-view.ts";

export interface FakeSessionInput {
  sessionId: string;
  text: string;
  /** Defaults to the header's cwd. */
  cwd?: string;
  modified?: string;
  parentSessionId?: string | null;
  error?: string | null;
  /** Opened, its view comes with its branch map, as a large session's saved view does (app/store/saved-view.ts). */
  mapWithView?: boolean;
}

export interface FakeSession {
  input: FakeSessionInput;
  text: string;
  index: SessionIndex;
  live: boolean;
}

export interface FakeClient extends ArborClient {
  readonly calls: { name: RequestName; params: unknown }[];
  emit<E extends EventName>(name: E, payload: ArborEvents[E]): void;
  /** Appends entry lines to a session (as a running Pi would) and emits `session.appended` if it is open. */
  append(sessionId: string, entries: Record<string, unknown>[]): string[];
  /** Opens a session as the main process does by itself (menu, command line): `session.switched` only. */
  switchTo(sessionId: string, reason?: "open" | "new" | "fork" | "clone"): void;
  /** The session open now, as the main process holds it. */
  readonly openId: string | null;
  index(sessionId: string): SessionIndex;
  listenerCount(name: EventName): number;
  /** Requests by name that fail with this error instead of answering. */
  failing: Map<RequestName, ArborError>;
  /**
   * Sessions a Pi is writing (as the main process's live check finds them):
   * their writes are refused with "conflict" unless `confirmLive` is set.
   */
  live: Set<string>;
  /** Requests held until `release()` is called (to see loading states). */
  held: Set<RequestName>;
  /** Requests answered at once (their switch happens) but whose answers arrive only at `release()`. */
  late: Set<RequestName>;
  release(): void;
}

export interface FakeClientOptions {
  /** How much one context answer carries (default: the main process's budget), to see contexts in pages. */
  contextBudget?: PageBudget;
  scanning?: boolean;
  /** What the library says its scan passed over. */
  skipped?: SkippedLibraryFile[];
  demo?: boolean;
}

let idCounter = 0;
function newEntryId(): string {
  idCounter = (idCounter + 1) % 0xffffff;
  return `f${idCounter.toString(16).padStart(7, "0")}`;
}

export function createFakeClient(inputs: FakeSessionInput[], options: FakeClientOptions = {}): FakeClient {
  const sessions = new Map<string, FakeSession>();
  for (const input of inputs) {
    sessions.set(input.sessionId, { input, text: input.text, index: readSession(input.text), live: false });
  }
  const listeners = new Map<EventName, Set<(payload: never) => void>>();
  const calls: { name: RequestName; params: unknown }[] = [];
  const failing = new Map<RequestName, ArborError>();
  const held = new Set<RequestName>();
  const late = new Set<RequestName>();
  const live = new Set<string>();
  let waiting: (() => void)[] = [];
  let openId: string | null = null;

  const session = (sessionId: string): FakeSession => {
    const found = sessions.get(sessionId);
    if (!found) throw new ArborError("not-found", `No session "${sessionId}" in the library.`);
    return found;
  };
  const current = (): FakeSession => {
    if (openId === null) throw new ArborError("refused", "No session is open.");
    return session(openId);
  };

  function emit<E extends EventName>(name: E, payload: ArborEvents[E]): void {
    for (const listener of [...(listeners.get(name) ?? [])])
      (listener as (p: ArborEvents[E]) => void)(payload);
  }

  /** An event the fake makes itself: through the wire form and JSON, as a transport sends it. */
  function send<E extends EventName>(name: E, payload: ArborEvents[E]): void {
    emit(name, decodeEvent(name, JSON.parse(JSON.stringify(encodeEvent(name, payload)))));
  }

  /** The whole context, ready to page as the main process pages it (by token estimates: no line lengths here). */
  const pagedContextOf = (s: FakeSession, leafId: string | null, llm: boolean): PagedContext => {
    if (leafId !== null && !s.index.nodes.has(leafId)) {
      throw new ArborError("not-found", `No entry "${leafId}" in this session.`);
    }
    return pagedContext(contextViewOf(s.index, leafId, llm), undefined, options.contextBudget);
  };

  const viewOf = (sessionId: string) => {
    const s = session(sessionId);
    return sessionViewOf(sessionId, s.index, { live: s.live });
  };

  function switchTo(sessionId: string, reason: "open" | "new" | "fork" | "clone" = "open"): void {
    session(sessionId);
    openId = sessionId;
    send("session.switched", { sessionId, path: viewOf(sessionId).path, reason });
  }

  function listItem(id: string, s: FakeSession): SessionListItem {
    const index = s.index;
    let firstMessage = "";
    let messageCount = 0;
    for (const entry of index.entries) {
      if (entry.type !== "message") continue;
      messageCount++;
      const message = entry.message as { role?: string; content?: unknown };
      if (!firstMessage && message.role === "user") firstMessage = firstLine(textOf(message.content));
    }
    const cwd = s.input.cwd ?? index.header?.cwd ?? "/";
    return {
      sessionId: id,
      headerId: index.header?.id ?? id,
      path: `${cwd}/.pi/${id}.jsonl`,
      projectId: projectIdOf(cwd),
      cwd,
      name: index.sessionName ?? null,
      firstMessage,
      messageCount,
      archivedMessageCount: 0,
      created: index.header?.timestamp ?? "",
      modified: s.input.modified ?? index.entries[index.entries.length - 1]?.timestamp ?? "",
      bytes: s.text.length,
      parentSessionId: s.input.parentSessionId ?? null,
      error: s.input.error ?? null,
      damagedLines: index.problems.filter((problem) => problem.kind === "malformed-json").length,
      open: id === openId,
    };
  }

  function listing(): LibraryListing {
    const projects = new Map<string, ProjectGroup>();
    for (const [id, s] of sessions) {
      const item = listItem(id, s);
      const group = projects.get(item.projectId) ?? {
        projectId: item.projectId,
        cwd: item.cwd,
        sessions: [],
      };
      group.sessions.push(item);
      projects.set(item.projectId, group);
    }
    return {
      projects: [...projects.values()],
      skipped: options.skipped ?? [],
      scanning: options.scanning ?? false,
      demo: options.demo ?? false,
    };
  }

  function search(query: string, limit: number): SearchHit[] {
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    if (words.length === 0) return [];
    const hits: SearchHit[] = [];
    for (const [id, s] of sessions) {
      for (const line of s.text.split("\n")) {
        const lower = line.toLowerCase();
        if (!words.every((word) => lower.includes(word))) continue;
        let entryId: string | null = null;
        try {
          const value = JSON.parse(line) as { id?: unknown; type?: unknown };
          if (value.type === "session") continue;
          entryId = typeof value.id === "string" ? value.id : null;
        } catch {
          continue;
        }
        const at = lower.indexOf(words[0]!);
        const from = Math.max(0, at - 30);
        hits.push({
          sessionId: id,
          entryId,
          field: "text",
          snippet: line.slice(from, at + 60),
          highlights: [[at - from, at - from + words[0]!.length]],
        });
        break;
      }
      if (hits.length >= limit) break;
    }
    return hits;
  }

  function append(sessionId: string, entries: Record<string, unknown>[]): string[] {
    const s = session(sessionId);
    const before = openId === sessionId ? viewOf(sessionId) : null;
    let parentId = s.index.leafId;
    const ids: string[] = [];
    let text = s.text.endsWith("\n") || s.text === "" ? s.text : `${s.text}\n`;
    for (const fields of entries) {
      const id = typeof fields.id === "string" ? fields.id : newEntryId();
      const entry = { id, parentId, timestamp: new Date().toISOString(), ...fields };
      text += `${JSON.stringify(entry)}\n`;
      parentId = id;
      ids.push(id);
    }
    s.text = text;
    s.index = readSession(text);
    s.live = true;
    if (before !== null)
      send("session.appended", { sessionId, delta: diffSessionViews(before, viewOf(sessionId)) });
    return ids;
  }

  const writes = createFakeWrites({ current, append, live });
  const files = createFakeFiles({
    sessions,
    current,
    session,
    switchTo,
    viewOf,
    send,
    projectIdOf,
    get openId() {
      return openId;
    },
    set openId(id: string | null) {
      openId = id;
    },
  });

  /** The theme chosen, as the main process keeps it in Arbor's preferences. */
  let theme: ThemePreference = "system";

  async function answer<N extends RequestName>(name: N, params: RequestParams<N>): Promise<RequestResult<N>> {
    const p = params as Record<string, unknown>;
    switch (name) {
      case "app.info":
        return { version: "0.0.0-test", transport: "serve", theme } as RequestResult<N>;
      case "app.setTheme": {
        // As the main process does: kept, and told to every window (this one included).
        theme = p.theme as ThemePreference;
        send("app.themeChanged", { theme });
        return { theme } as RequestResult<N>;
      }
      case "library.list":
      case "library.rescan":
        return listing() as RequestResult<N>;
      case "library.search":
        return search(String(p.query), typeof p.limit === "number" ? p.limit : 50) as RequestResult<N>;
      case "session.open": {
        const id = String(p.sessionId);
        if (openId !== id) switchTo(id);
        const view = viewOf(id);
        const { index, input } = session(id);
        if (input.mapWithView)
          view.branchMap = BranchModel.build(index, inMemoryEntryReader(index)).branchMap();
        return view as RequestResult<N>;
      }
      case "session.current":
        return (openId === null ? null : viewOf(openId)) as RequestResult<N>;
      case "session.context": {
        const s = current();
        const leafId = p.leafId as string | null;
        if (leafId !== null && !s.index.nodes.has(leafId)) {
          throw new ArborError("not-found", `No entry "${leafId}" in this session.`);
        }
        return lastWindow(pagedContextOf(s, leafId, p.llm === true)) as RequestResult<N>;
      }
      case "session.contextPage": {
        const { from, count } = p as { from: number; count: number };
        const paged = pagedContextOf(current(), p.leafId as string | null, p.llm === true);
        const total = paged.whole.messages.length;
        if (from > total || (from === total && total > 0)) {
          throw new ArborError("not-found", `No messages from ${from + 1} in this context.`);
        }
        return contextPageOf(paged, from, pageLength(paged, from, count)) as RequestResult<N>;
      }
      case "session.search": {
        const query = String(p.query);
        const { index } = current();
        const found = await new EntrySearch(index, inMemoryEntryReader(index)).search(
          query,
          typeof p.limit === "number" ? p.limit : 1000,
        );
        return { query, ...found } as RequestResult<N>;
      }
      case "session.entry": {
        const s = current();
        const id = String(p.entryId);
        const node = s.index.nodes.get(id);
        const entry = inMemoryEntryReader(s.index).entry(id);
        if (!node || !entry) throw new ArborError("not-found", `No entry "${id}" in this session.`);
        const label = s.index.labels.get(id);
        return {
          entry,
          line: node.line,
          problems: s.index.problems.filter(
            (problem) => problem.entryId === id || problem.line === node.line,
          ),
          label: label ? { label: label.label, timestamp: label.timestamp } : null,
          archived: isArchived(s.index, inMemoryEntryReader(s.index), id),
        } as RequestResult<N>;
      }
      case "session.setLabel":
      case "session.rename":
      case "session.continueFrom":
      case "session.archive":
      case "session.unarchive":
      case "session.addNote":
      case "session.editContext":
      case "session.undo":
        return writes.write(name, p) as RequestResult<N>;
      case "session.fork":
      case "session.clone":
      case "session.new":
        return files.create(name, p) as RequestResult<N>;
      case "session.trash":
      case "session.restore":
      case "session.export":
      case "session.openInPi":
      case "session.import":
        return files.other(name, p) as RequestResult<N>;
      case "session.branches": {
        const { index } = current();
        return BranchModel.build(index, inMemoryEntryReader(index)).branchMap() as RequestResult<N>;
      }
      case "session.compare": {
        // As the main process answers it (app/branches/session-branches.ts), over in-memory sessions.
        const left = current();
        const request = p as unknown as RequestParams<"session.compare">;
        const rightId = request.right.sessionId ?? openId!;
        const right = session(rightId);
        for (const [side, id] of [
          [left, request.left.leafId],
          [right, request.right.leafId],
        ] as const) {
          if (!side.index.nodes.has(id))
            throw new ArborError("not-found", `No entry "${id}" in that session.`);
        }
        const detail = request.detail ?? { fromTurn: 0, turns: 20 };
        const sideOf = (s: FakeSession, tipId: string, id: string) => ({
          index: s.index,
          reader: inMemoryEntryReader(s.index),
          tipId,
          file: viewOf(id).path,
        });
        const comparison = compareBranches(
          sideOf(left, request.left.leafId, openId!),
          sideOf(right, request.right.leafId, rightId),
          { detail: { from: detail.fromTurn, count: detail.turns } },
        );
        return {
          ...comparison,
          leftSessionId: openId!,
          rightSessionId: rightId,
          detail: comparison.detail!,
        } as RequestResult<N>;
      }
      default:
        throw new ArborError("refused", `The fake client does not answer "${name}".`);
    }
  }

  return {
    calls,
    failing,
    held,
    late,
    live,
    async request(name, params) {
      calls.push({ name, params });
      if (held.has(name)) await new Promise<void>((resolve) => waiting.push(resolve));
      const failure = failing.get(name);
      if (failure) throw failure;
      const wire = JSON.stringify(encodeResult(name, await answer(name, params)));
      if (late.has(name)) await new Promise<void>((resolve) => waiting.push(resolve));
      return decodeResult(name, JSON.parse(wire));
    },
    on(name, listener) {
      const set = listeners.get(name) ?? new Set();
      listeners.set(name, set);
      const entry = listener as (payload: never) => void;
      set.add(entry);
      return () => {
        set.delete(entry);
      };
    },
    emit,
    append,
    switchTo,
    get openId() {
      return openId;
    },
    index: (sessionId) => session(sessionId).index,
    listenerCount: (name) => listeners.get(name)?.size ?? 0,
    release() {
      held.clear();
      late.clear();
      const resolve = waiting;
      waiting = [];
      for (const done of resolve) done();
    },
  };
}

function projectIdOf(cwd: string): string {
  let hash = 0;
  for (let i = 0; i < cwd.length; i++) hash = (Math.imul(hash, 31) + cwd.charCodeAt(i)) | 0;
  return `p${(hash >>> 0).toString(36)}`;
}
