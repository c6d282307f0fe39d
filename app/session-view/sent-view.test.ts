/**
 * The sent view of a session opened from a saved view, on a real file and
 * store: the first appends after the open (the index built only then) cost
 * the views of what they add and change, and their delta is the one a
 * fresh read gives.
 */

import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { applySessionDelta } from "../../shared/ipc/session-delta.ts";
import type { SessionDelta, SessionView } from "../../shared/ipc/contract.ts";
import { ensureNoLeaks } from "../../shared/lifecycle/testing.ts";
import { plainView, sessionViewOf } from "../../shared/ipc/testing/session-view.ts";
import { FileSession } from "../runtime/file-session.ts";
import { openIndexedFile } from "../store/open-indexed-file.ts";
import { createParseCache } from "../store/parse-cache.ts";
import { SessionStore } from "../store/session-store.ts";
import { assistantLine, chainLines, fileText, tempDirs, userLine } from "../store/testing/files.ts";
import { SentView } from "./sent-view.ts";

ensureNoLeaks();

const dirs = tempDirs("sent-view");
afterAll(() => dirs.cleanup());

/** A session of `count` entries whose view is saved, opened again from that view. */
function openedFromSavedView(count: number): { session: FileSession; path: string } {
  const dir = dirs.make();
  const path = join(dir, "session.jsonl");
  writeFileSync(path, fileText(chainLines(count)));
  const cache = createParseCache(join(dir, "cache"), { minBytes: 0 });
  const first = openIndexedFile(path, { mode: "structure-with-facts", parseCache: cache });
  first.saveForNextOpen?.();
  first.close();
  const session = new FileSession(
    SessionStore.open(path, { mode: "structure-with-facts", parseCache: cache }),
  );
  expect(session.savedView).toBeDefined();
  return { session, path };
}

/** Counts the node views built from now on (each reads its node's facts once). */
function countViewsBuilt(session: FileSession): string[] {
  const built: string[] = [];
  const reader = session.reader;
  const factsOfNode = reader.factsOfNode.bind(reader);
  reader.factsOfNode = (node) => {
    built.push(node.id);
    return factsOfNode(node);
  };
  return built;
}

/** The view of the file as it is now, read with a store of its own. */
function viewReadApart(path: string): SessionView {
  const opened = openIndexedFile(path, { mode: "structure-with-facts" });
  try {
    return sessionViewOf("s", opened.index, { path, reader: opened.reader });
  } finally {
    opened.close();
  }
}

function freshView(session: FileSession): SessionView {
  return sessionViewOf("s", session.index, { path: session.path, reader: session.reader });
}

/** `view` with the delta of `advanced` applied: it equals the view read afresh from the session. */
function expectFreshAfter(
  view: SessionView,
  advanced: NonNullable<ReturnType<SentView["advance"]>>,
  session: FileSession,
): SessionView {
  const delta: SessionDelta = {
    ...advanced.content,
    ...advanced.changes,
    parentSessionId: null,
    live: false,
  };
  const next = applySessionDelta(view, delta);
  expect(plainView(next)).toEqual(plainView(freshView(session)));
  return next;
}

describe("a view sent from a saved view", () => {
  it("the first append after the open builds the views of what it added and changed, no other", () => {
    const { session, path } = openedFromSavedView(400);
    const sent = SentView.fromSavedView(session.savedView!);
    let view = sessionViewOf("s", session.index, { path, reader: session.reader });
    // (The view above built the index; a look at the file before the append finds nothing new.)
    session.refresh();
    appendFileSync(
      path,
      fileText([userLine("e401", "e400", "Pi goes on", 500), assistantLine("e402", "e401", "and on", 501)]),
    );
    session.refresh();
    const built = countViewsBuilt(session);
    const advanced = sent.advance(session)!;
    // e1: the first question, read again for the session's title.
    expect(new Set(built)).toEqual(new Set(["e1", "e400", "e401", "e402"]));
    view = expectFreshAfter(view, advanced, session);
    session.dispose();
  });

  it("so does the first append that builds the index itself, and the next ones", () => {
    const { session, path } = openedFromSavedView(400);
    const sent = SentView.fromSavedView(session.savedView!);
    // The view as sent at the open, read apart from the session (whose index is not built yet).
    let view = viewReadApart(path);
    for (let i = 401; i <= 406; i++) {
      appendFileSync(path, fileText([userLine(`e${i}`, `e${i - 1}`, `step ${i}`, 500 + i)]));
      // The first look at the file builds the index from the saved parse, then extends it in place.
      session.refresh();
      const built = countViewsBuilt(session);
      const advanced = sent.advance(session)!;
      expect(new Set(built)).toEqual(new Set(["e1", `e${i - 1}`, `e${i}`]));
      view = expectFreshAfter(view, advanced, session);
    }
    session.dispose();
  });

  it("an append that rebuilds the index has every view compared with the saved ones", () => {
    const { session, path } = openedFromSavedView(60);
    const sent = SentView.fromSavedView(session.savedView!);
    appendFileSync(path, fileText([userLine("e5", "e60", "an id used again", 500)]));
    session.refresh();
    const built = countViewsBuilt(session);
    const advanced = sent.advance(session)!;
    expect(built.length).toBeGreaterThanOrEqual(60);
    expect(advanced.changes.changed.length + advanced.changes.added.length).toBeGreaterThan(0);
    session.dispose();
  });
});
