/**
 * The fake client's answers to the session-management requests (issue 19),
 * in the contract's shapes: each write appends the entry the main process
 * would (a label, a name, a marker, a note, a context edit, an undo's
 * inverse), refused with "conflict" in a live session unless confirmed; a
 * fork, a clone or a new session is a new in-memory session switched to;
 * trash, export, Open in Pi and import answer as the main process does,
 * without files.
 */

import {
  ArborError,
  type ArborEvents,
  type EventName,
  type SessionView,
  type WriteResult,
} from "../../../shared/ipc/contract.ts";
import { inMemoryEntryReader, readSession } from "../../../shared/session/index.ts";
import type { FakeSession } from "./fake-client.ts";

/** The main process's sentence (app/store/live-file.ts): the renderer shows what it is sent. */
export const FAKE_LIVE_MESSAGE =
  "Pi is writing this session: it will not see Arbor's entries until it reopens the file, and its next entries will be siblings of Arbor's. Confirm to write anyway.";

interface WriteNeeds {
  current(): FakeSession & { id?: string };
  append(sessionId: string, entries: Record<string, unknown>[]): string[];
  live: Set<string>;
}

type Params = Record<string, unknown>;

export function createFakeWrites(needs: {
  current(): FakeSession;
  append: WriteNeeds["append"];
  live: Set<string>;
}) {
  /** The session id of the open session (the fake's sessions know their input's id). */
  const openId = () => needs.current().input.sessionId;

  function entryFor(
    name: string,
    p: Params,
  ): { fields: Record<string, unknown>; undid: WriteResult["undid"] } {
    switch (name) {
      case "session.setLabel":
        return {
          fields: { type: "label", targetId: p.targetId, ...(p.label ? { label: p.label } : {}) },
          undid: null,
        };
      case "session.rename":
        return { fields: { type: "session_info", name: p.name }, undid: null };
      case "session.continueFrom":
        return {
          fields:
            typeof p.summary === "string"
              ? { type: "branch_summary", fromId: p.entryId, summary: p.summary, parentId: p.entryId }
              : { type: "custom", customType: "arbor.continue", data: {}, parentId: p.entryId },
          undid: null,
        };
      case "session.archive":
      case "session.unarchive":
        return {
          fields: {
            type: "custom",
            customType: "arbor.archive",
            data: { targetId: p.entryId, archived: name === "session.archive" },
          },
          undid: null,
        };
      case "session.addNote":
        return {
          fields: { type: "custom_message", customType: "arbor.note", content: p.text, display: true },
          undid: null,
        };
      case "session.editContext":
        return {
          fields: { type: "context_edit", targetId: p.targetId, replacement: p.replacement },
          undid: null,
        };
      default:
        return undoOf(p);
    }
  }

  /** Undo of a label or an archive only (what the window's tests use). */
  function undoOf(p: Params): { fields: Record<string, unknown>; undid: WriteResult["undid"] } {
    const s = needs.current();
    const entryId = String(p.entryId);
    const entry = inMemoryEntryReader(s.index).entry(entryId) as Record<string, unknown> | undefined;
    if (!entry) throw new ArborError("not-found", `No entry "${entryId}" in this session.`);
    if (entry.type === "label")
      return { fields: { type: "label", targetId: entry.targetId }, undid: { entryId, kind: "label" } };
    const data = entry.data as { targetId?: string; archived?: boolean } | undefined;
    if (entry.customType === "arbor.archive" && data)
      return {
        fields: {
          type: "custom",
          customType: "arbor.archive",
          data: { targetId: data.targetId, archived: !data.archived },
        },
        undid: { entryId, kind: "archive" },
      };
    throw new ArborError("refused", `Entry ${entryId} is not a name, label, archive or continue.`);
  }

  return {
    write(name: string, p: Params): WriteResult {
      const sessionId = openId();
      if (needs.live.has(sessionId) && p.confirmLive !== true)
        throw new ArborError("conflict", FAKE_LIVE_MESSAGE);
      const previousLeafId = needs.current().index.leafId;
      const { fields, undid } = entryFor(name, p);
      const [entryId] = needs.append(sessionId, [fields]);
      return {
        entryId: entryId!,
        wasLive: needs.live.has(sessionId),
        previousLeafId,
        movedResumePoint: name === "session.continueFrom",
        undid,
      };
    },
  };
}

interface FileNeeds {
  sessions: Map<string, FakeSession>;
  current(): FakeSession;
  session(sessionId: string): FakeSession;
  switchTo(sessionId: string, reason?: "open" | "new" | "fork" | "clone"): void;
  viewOf(sessionId: string): SessionView;
  send<E extends EventName>(name: E, payload: ArborEvents[E]): void;
  projectIdOf(cwd: string): string;
  openId: string | null;
}

let created = 0;

export function createFakeFiles(needs: FileNeeds) {
  const trashed = new Map<string, { sessionId: string; session: FakeSession }>();

  function add(text: string, reason: "new" | "fork" | "clone"): string {
    const sessionId = `fake-${reason}-${++created}`;
    needs.sessions.set(sessionId, {
      input: { sessionId, text },
      text,
      index: readSession(text),
      live: false,
    });
    needs.switchTo(sessionId, reason);
    return sessionId;
  }

  /** The open session's lines up to `leafId` (its path), as a fork copies them. */
  function pathText(leafId: string | null): string {
    const s = needs.current();
    const lines = s.text.split("\n").filter(Boolean);
    const header = lines[0]!;
    if (leafId === null) return `${header}\n`;
    const byId = new Map<string, string>();
    for (const line of lines.slice(1)) byId.set((JSON.parse(line) as { id: string }).id, line);
    const path: string[] = [];
    for (let id: string | null = leafId; id !== null; ) {
      const line = byId.get(id);
      if (!line) break;
      path.unshift(line);
      id = (JSON.parse(line) as { parentId: string | null }).parentId;
    }
    return `${[header, ...path].join("\n")}\n`;
  }

  return {
    create(name: string, p: Params): SessionView & { selectedText?: string | null } {
      if (name === "session.new") {
        const cwd = [...needs.sessions.values()].find(
          (s) => needs.projectIdOf(s.input.cwd ?? s.index.header?.cwd ?? "/") === p.projectId,
        );
        if (!cwd) throw new ArborError("not-found", `No project "${String(p.projectId)}".`);
        const header = cwd.text.split("\n")[0]!;
        return needs.viewOf(add(`${header}\n`, "new"));
      }
      const s = needs.current();
      if (name === "session.clone") {
        const leaf = typeof p.leafId === "string" ? p.leafId : s.index.leafId;
        return needs.viewOf(add(pathText(leaf), "clone"));
      }
      const entryId = String(p.entryId);
      const node = s.index.nodes.get(entryId);
      if (!node) throw new ArborError("not-found", `No entry "${entryId}" in this session.`);
      const before = p.position === "before";
      const entry = inMemoryEntryReader(s.index).entry(entryId) as { message?: { content?: unknown } };
      const text = before ? pathText(node.parentId) : pathText(entryId);
      const view = needs.viewOf(add(text, "fork"));
      const content = entry.message?.content;
      return { ...view, selectedText: before ? (typeof content === "string" ? content : "") : null };
    },
    other(name: string, p: Params): unknown {
      switch (name) {
        case "session.trash": {
          const sessionId = String(p.sessionId);
          const session = needs.session(sessionId);
          const closed = needs.openId === sessionId;
          if (closed) {
            needs.openId = null;
            needs.send("session.closed", { sessionId, reason: "trashed" });
          }
          needs.sessions.delete(sessionId);
          const trashId = `trash-${sessionId}`;
          trashed.set(trashId, { sessionId, session });
          return { trashId, sessionId, path: `/trash/${sessionId}.jsonl`, closed, restorable: true };
        }
        case "session.restore": {
          const found = trashed.get(String(p.trashId));
          if (!found) throw new ArborError("not-found", "Nothing to restore.");
          needs.sessions.set(found.sessionId, found.session);
          trashed.delete(String(p.trashId));
          return { sessionId: found.sessionId, path: `/restored/${found.sessionId}.jsonl` };
        }
        case "session.export": {
          const format = String(p.format);
          const extension = format === "markdown" ? "md" : format;
          return {
            fileName: `session.${extension}`,
            mimeType: format === "html" ? "text/html" : "text/plain",
            content: `export of ${String(p.leafId ?? "the leaf")} as ${format}`,
          };
        }
        case "session.openInPi":
          return {
            launched: false,
            command: "pi --session /fake/session.jsonl",
            message: "Arbor could not start a terminal.",
          };
        default: {
          if (typeof p.content !== "string") return null;
          const sessionId = `fake-import-${++created}`;
          needs.sessions.set(sessionId, {
            input: { sessionId, text: p.content },
            text: p.content,
            index: readSession(p.content),
            live: false,
          });
          return {
            sessionId,
            path: `/fake/${sessionId}.jsonl`,
            report: {
              entries: 1,
              lines: p.content.split("\n").filter(Boolean).length,
              counts: { errors: 0, warnings: 0, notes: 0 },
              problems: [],
            },
          };
        }
      }
    },
  };
}
