/**
 * The window's branch requests through `dispatch` (answers through JSON, as
 * on any wire): the map of the open session kept up to date by appends
 * without being built again, comparisons with a fork Pi wrote into the
 * library (read from the file, again when the file grows), and the other
 * file closed with the window.
 */

import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { BranchModel } from "../../shared/branches/index.ts";
import { inMemoryEntryReader } from "../../shared/session/entry-reader.ts";
import { readSession } from "../../shared/session/index.ts";
import { generateSession } from "../../shared/session/testing/generate-session.ts";
import { ensureNoLeaks } from "../../shared/lifecycle/testing.ts";
import { readFileSync } from "node:fs";
import { items, hostsInTempFolder, request, waitForEvent } from "../ipc/testing.ts";
import { encodedCwd, openDescriptorCount } from "../runtime/testing.ts";
import { assistantMessage, pi16, userMessage } from "../store/testing/pi.ts";

ensureNoLeaks();
const fixture = hostsInTempFolder("arbor-branches-");

const CWD = "/work/project";

function freshMap(path: string) {
  const index = readSession(readFileSync(path));
  return JSON.parse(JSON.stringify(BranchModel.build(index, inMemoryEntryReader(index)).branchMap()));
}

describe("session.branches", () => {
  it("is refused without an open session, like session.compare", async () => {
    const { handlers } = fixture.host();
    await expect(request(handlers, "session.branches", {})).rejects.toMatchObject({ code: "refused" });
    await expect(
      request(handlers, "session.compare", { left: { leafId: "a" }, right: { leafId: "b" } }),
    ).rejects.toMatchObject({ code: "refused" });
  });

  it("keeps the map of the open session up to date as entries are appended, without building it again", async () => {
    const path = join(fixture.root, encodedCwd(CWD), "generated.jsonl");
    mkdirSync(join(fixture.root, encodedCwd(CWD)), { recursive: true });
    const generated = generateSession({ seed: 5, entryCount: 80 });
    writeFileSync(path, generated.text);
    const host = fixture.host();
    const { handlers } = host;
    const listing = items(await request(handlers, "library.rescan", {}));
    await request(handlers, "session.open", {
      sessionId: listing.find((item) => item.path === path)!.sessionId,
    });
    expect(await request(handlers, "session.branches", {})).toEqual(freshMap(path));
    const builds = vi.spyOn(BranchModel, "build");
    const index = readSession(readFileSync(path));
    const ids = [...index.nodes.keys()];
    const line = (id: string, parentId: string, text: string, second: number) =>
      `${JSON.stringify({
        type: "message",
        id,
        parentId,
        timestamp: new Date(Date.UTC(2027, 0, 1, 0, 0, second)).toISOString(),
        message: { role: "user", content: text, timestamp: second },
      })}\n`;
    // A turn at the leaf, then a branch from the middle of a segment.
    for (const text of [
      line("bb000001", index.leafId!, "at the leaf", 1),
      line("bb000002", ids[10]!, "a branch", 2) + line("bb000003", "bb000002", "goes on", 3),
    ]) {
      const appended = waitForEvent(host, "session.appended");
      appendFileSync(path, text);
      await appended;
      expect(await request(handlers, "session.branches", {})).toEqual(freshMap(path));
    }
    // Built only for the fresh reads the answers were checked against: the session's own model was updated.
    const sessionIndex = host.runtime.session!.index;
    expect(builds.mock.calls.filter(([built]) => built === sessionIndex)).toEqual([]);
    expect(builds).toHaveBeenCalledTimes(2);
    builds.mockRestore();
  });
});

describe("session.compare", () => {
  it("compares the open session with a fork Pi wrote, read again when it grows, closed with the window", async () => {
    const folder = join(fixture.root, encodedCwd(CWD));
    const manager = pi16.SessionManager.create(CWD, folder);
    manager.appendMessage(userMessage("Fix the parser"));
    const a1 = manager.appendMessage(assistantMessage("Which file?"));
    manager.appendMessage(userMessage("parse.ts"));
    const sourceTip = manager.appendMessage(assistantMessage("Fixed parse.ts."));
    const source = manager.getSessionFile()!;
    const fork = manager.createBranchedSession(a1)!;
    manager.appendMessage(userMessage("lexer.ts"));
    const forkTip = manager.appendMessage(assistantMessage("Fixed lexer.ts."));
    const descriptors = openDescriptorCount();
    const host = fixture.host();
    const { handlers } = host;
    const listing = items(await request(handlers, "library.rescan", {}));
    const idOf = (path: string) => listing.find((item) => item.path === path)!.sessionId;
    await request(handlers, "session.open", { sessionId: idOf(source) });
    const compared = await request(handlers, "session.compare", {
      left: { leafId: sourceTip },
      right: { leafId: forkTip, sessionId: idOf(fork) },
    });
    expect(compared).toMatchObject({
      ancestorId: a1,
      leftSessionId: idOf(source),
      rightSessionId: idOf(fork),
    });
    expect(compared.turns.map((turn) => turn.change)).toEqual(["changed"]);
    expect(compared.detail.turns[0]!.messages.map((message) => message.change)).toEqual([
      "changed",
      "changed",
    ]);

    // The fork grows: the next compare reads it again.
    manager.appendMessage(userMessage("and the docs"));
    const later = manager.appendMessage(assistantMessage("Docs too."));
    const again = await request(handlers, "session.compare", {
      left: { leafId: sourceTip },
      right: { leafId: later, sessionId: idOf(fork) },
    });
    expect(again.right.entryIds).toHaveLength(4);
    await expect(
      request(handlers, "session.compare", {
        left: { leafId: sourceTip },
        right: { leafId: "nope", sessionId: idOf(fork) },
      }),
    ).rejects.toMatchObject({ code: "not-found", message: 'No entry "nope" in that session.' });

    await host.close();
    if (descriptors !== null) expect(openDescriptorCount()).toBe(descriptors);
  });
});
