/**
 * The contract suite: every request and every session event, run the same
 * way against each binding of the handlers. `runContractSuite(makeClient)`
 * builds a library of real session files in a temp folder, asks `makeClient`
 * for an `ArborClient` over it, and checks the answers against the session
 * core itself (`buildSessionContext`, `convertToLlm`, a fresh read).
 *
 * It runs twice: in process (the dispatcher and the handlers, answers
 * through JSON as on any wire) and through a real `arbor serve` child
 * process over its WebSocket.
 */

import { appendFileSync, mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import {
  ArborError,
  type ArborClient,
  type ArborEvents,
  type EventName,
  type SessionView,
} from "../../shared/ipc/contract.ts";
import { applySessionDelta } from "../../shared/ipc/session-delta.ts";
import { plainView } from "../../shared/ipc/testing/session-view.ts";
import { WebSocketClient, type WebSocketConstructor } from "../../shared/ipc/websocket-client.ts";
import { decodeEvent, decodeResult, encodeEvent } from "../../shared/ipc/wire.ts";
import {
  buildSessionContext,
  contextGraphOf,
  inMemoryEntryReader,
  convertToLlm,
  readSession,
  type SessionIndex,
} from "../../shared/session/index.ts";
import { ensureNoLeaks } from "../../shared/lifecycle/testing.ts";
import { BranchModel } from "../../shared/branches/index.ts";
import { compareBranches } from "../../shared/compare/index.ts";
import { generateSession } from "../../shared/session/testing/generate-session.ts";
import {
  encodedCwd,
  SAMPLE_IDS,
  tempFolder,
  writeLinearSession,
  writeSampleSession,
} from "../runtime/testing.ts";
import { spawnServe } from "../serve/testing.ts";
import { dispatch } from "./bind.ts";
import { createArborHost } from "./host.ts";

interface ContractLibrary {
  root: string;
  dataDir: string;
}

interface MadeClient {
  client: ArborClient;
  close(): Promise<void>;
}

type MakeClient = (library: ContractLibrary) => Promise<MadeClient>;

const SAMPLE_CWD = "/work/project";
const SAMPLE_ORDER = ["u1", "a1", "u2", "a2", "u3", "a3", "t1", "c1", "u4", "l1"] as const;

/** JSON as it crosses a wire: `undefined` fields vanish. */
function wire<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

function nextEvent<E extends EventName>(
  client: ArborClient,
  name: E,
  accept: (payload: ArborEvents[E]) => boolean = () => true,
  timeoutMs = 10_000,
): Promise<ArborEvents[E]> {
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => {
      unsubscribe();
      reject(new Error(`no ${name} event within ${timeoutMs} ms`));
    }, timeoutMs);
    const unsubscribe = client.on(name, (payload) => {
      if (!accept(payload)) return;
      clearTimeout(timer);
      unsubscribe();
      resolvePromise(payload);
    });
  });
}

/**
 * Holds the open session's view as a window does: from a whole view, every
 * `session.appended` delta applied in turn. A delta for another view than
 * the one held is recorded as a gap (a window would fetch the view again).
 */
function followView(client: ArborClient, start: SessionView) {
  let view = start;
  const gaps: string[] = [];
  const waiters: { until: (view: SessionView) => boolean; resolve: () => void }[] = [];
  const unsubscribe = client.on("session.appended", ({ sessionId, delta }) => {
    if (sessionId !== view.sessionId) return;
    if (delta.baseBytes !== view.bytes) {
      gaps.push(`a delta from ${delta.baseBytes} bytes reached a view of ${view.bytes}`);
      return;
    }
    view = applySessionDelta(view, delta);
    for (const waiter of waiters.splice(0)) {
      if (waiter.until(view)) waiter.resolve();
      else waiters.push(waiter);
    }
  });
  return {
    get view() {
      return view;
    },
    gaps,
    /** Resolves once the view held reaches `bytes` (what is in the file now). */
    reach(bytes: number, timeoutMs = 10_000): Promise<void> {
      if (view.bytes >= bytes) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`the view stayed at ${view.bytes} bytes, not ${bytes}`)),
          timeoutMs,
        );
        waiters.push({
          until: (next) => next.bytes >= bytes,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    },
    stop: unsubscribe,
  };
}

async function expectError(promise: Promise<unknown>, code: string): Promise<ArborError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ArborError);
    expect((error as ArborError).code).toBe(code);
    return error as ArborError;
  }
  throw new Error(`expected an error with code ${code}`);
}

export function runContractSuite(
  title: string,
  makeClient: MakeClient,
  transport: "electron" | "serve",
): void {
  describe(title, () => {
    // One host serves every test of the suite: checked once, after it closed.
    ensureNoLeaks({ per: "suite" });
    let folder: ReturnType<typeof tempFolder>;
    let made: MadeClient;
    let client: ArborClient;
    let samplePath: string;
    let linearPath: string;
    const generatedPaths: string[] = [];
    let sampleId: string;
    let sampleProjectId: string;
    const idOfPath = new Map<string, string>();
    let strayPath: string;
    /** A folder that is no project's Pi folder: a session of some project, and a broken file beside it. */
    let mixedPath: string;
    let mixedBrokenPath: string;

    beforeAll(async () => {
      folder = tempFolder("arbor-contract-");
      const root = join(folder.path, "sessions");
      const project = join(root, encodedCwd(SAMPLE_CWD));
      samplePath = writeSampleSession(
        join(project, "2026-01-01T12-00-00-000Z_019b7a4e-0000-7000-8000-000000000001.jsonl"),
        {
          cwd: SAMPLE_CWD,
        },
      ).path;
      linearPath = writeLinearSession(
        join(project, "2026-01-01T11-00-00-000Z_019b7a4e-0000-7000-8000-000000000002.jsonl"),
        {
          cwd: SAMPLE_CWD,
          turns: 3,
        },
      ).path;
      for (const seed of [3, 7, 11]) {
        const generated = generateSession({ seed });
        const cwd = String(generated.header.cwd);
        const path = join(root, encodedCwd(cwd), `generated-${seed}.jsonl`);
        writeLines(path, generated.text);
        generatedPaths.push(path);
      }
      writeLines(join(project, "broken.jsonl"), "this is not a session\n");
      strayPath = join(root, "--nowhere--", "stray.jsonl");
      writeLines(strayPath, "{not json\n");
      mixedPath = writeLinearSession(join(root, "mixed", "kept.jsonl"), {
        cwd: "/work/elsewhere",
        headerId: "019b7a4e-0000-7000-8000-00000000000e",
        turns: 1,
      }).path;
      mixedBrokenPath = join(root, "mixed", "broken.jsonl");
      writeLines(mixedBrokenPath, "");
      // Written a minute ago: no Pi is writing them, so Arbor's writes need no confirmation.
      const old = new Date(Date.now() - 60_000);
      for (const path of [samplePath, linearPath]) utimesSync(path, old, old);
      made = await makeClient({ root, dataDir: join(folder.path, "data") });
      client = made.client;
    });

    afterAll(async () => {
      await made?.close();
      folder?.cleanup();
    });

    const freshIndex = (path: string): SessionIndex => readSession(readFileSync(path));

    it("app.info names the version and the transport", async () => {
      const info = await client.request("app.info", {});
      expect(info.transport).toBe(transport);
      expect(info.version).toMatch(/^\d+\.\d+\.\d+/);
    });

    it("session.current is null before anything is open", async () => {
      expect(await client.request("session.current", {})).toBeNull();
    });

    it("library.rescan and library.list list every session by project, with ids instead of paths to send back", async () => {
      const changed = nextEvent(client, "library.changed", (listing) => !listing.scanning);
      const listing = await client.request("library.rescan", {});
      await changed;
      expect(listing.demo).toBe(false);
      expect(listing.scanning).toBe(false);
      const items = listing.projects.flatMap((project) => project.sessions);
      for (const item of items) idOfPath.set(item.path, item.sessionId);
      expect(items.map((item) => item.path).sort()).toEqual(
        [
          samplePath,
          linearPath,
          ...generatedPaths,
          join(dirname(samplePath), "broken.jsonl"),
          strayPath,
          mixedPath,
          mixedBrokenPath,
        ].sort(),
      );
      const sample = items.find((item) => item.path === samplePath)!;
      sampleId = sample.sessionId;
      sampleProjectId = sample.projectId;
      expect(sample).toMatchObject({
        headerId: "019b7a4e-0000-7000-8000-000000000001",
        cwd: SAMPLE_CWD,
        name: null,
        firstMessage: "Hello tree",
        messageCount: 7,
        bytes: statSync(samplePath).size,
        parentSessionId: null,
        error: null,
        open: false,
      });
      expect(sample.sessionId).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
      expect(sample.projectId).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
      const project = listing.projects.find((group) => group.cwd === SAMPLE_CWD)!;
      expect(project.projectId).toBe(sampleProjectId);
      // Newest first. A file that is not a session names no cwd: it is listed with its error, in the
      // project whose Pi session folder it is in, or apart (not under whatever else shares its folder).
      expect(project.sessions.map((item) => item.path)).toEqual([
        samplePath,
        linearPath,
        join(dirname(samplePath), "broken.jsonl"),
      ]);
      expect(project.sessions[2]!.error).toBeTruthy();
      const unreadable = listing.projects.find((group) => group.cwd === "")!;
      expect(unreadable.sessions.map((item) => item.path).sort()).toEqual(
        [mixedBrokenPath, strayPath].sort(),
      );
      expect(unreadable.sessions.every((item) => item.error)).toBe(true);
      const elsewhere = listing.projects.find((group) => group.cwd === "/work/elsewhere")!;
      expect(elsewhere.sessions.map((item) => item.path)).toEqual([mixedPath]);
      expect(await client.request("library.list", {})).toEqual(listing);
    });

    it("session.open returns the tree depth-first, children in order, facts per node; session.switched follows", async () => {
      const switched = nextEvent(client, "session.switched");
      const view = await client.request("session.open", { sessionId: sampleId });
      // The view travels once, as the answer: the event only names the session.
      expect(await switched).toEqual({ sessionId: sampleId, path: samplePath, reason: "open" });
      expect(view.nodes.ids).toEqual(SAMPLE_ORDER.map((key) => SAMPLE_IDS[key]));
      expect(view).toMatchObject({
        sessionId: sampleId,
        path: samplePath,
        headerId: "019b7a4e-0000-7000-8000-000000000001",
        cwd: SAMPLE_CWD,
        name: null,
        version: 3,
        parentSessionId: null,
        leafId: SAMPLE_IDS.l1,
        roots: [SAMPLE_IDS.u1],
        problems: [],
        bytes: statSync(samplePath).size,
      });
      const index = freshIndex(samplePath);
      const byId = new Map(view.nodes.toArray().map((node) => [node.id, node]));
      const reader = inMemoryEntryReader(index);
      for (const node of view.nodes.toArray()) {
        const facts = reader.facts(node.id)!;
        const treeNode = index.nodes.get(node.id)!;
        expect(node).toMatchObject({
          parentId: treeNode.parentId,
          children: treeNode.children,
          depth: treeNode.depth,
          line: treeNode.line,
          kind: facts.kind,
          preview: facts.preview,
          tokenEstimate: facts.tokenEstimate,
          toolNames: facts.toolNames,
          isError: facts.isError,
          hasText: facts.hasText,
        });
      }
      expect(byId.get(SAMPLE_IDS.a1)).toMatchObject({
        type: "message",
        role: "assistant",
        kind: "assistant",
        stopReason: "stop",
      });
      expect(byId.get(SAMPLE_IDS.u2)!.label).toBe("checkpoint");
      expect(byId.get(SAMPLE_IDS.c1)).toMatchObject({ type: "compaction", role: null, tokensBefore: 900 });
      expect(byId.get(SAMPLE_IDS.a1)!.children).toEqual([SAMPLE_IDS.u2, SAMPLE_IDS.u3]);
      expect(plainView(await client.request("session.current", {}))).toEqual(plainView(view));
      // Opening the open session again answers without switching.
      expect(plainView(await client.request("session.open", { sessionId: sampleId }))).toEqual(
        plainView(view),
      );
      const listing = await client.request("library.list", {});
      expect(
        listing.projects.flatMap((p) => p.sessions).find((item) => item.sessionId === sampleId)!.open,
      ).toBe(true);
    });

    it("session.context equals buildSessionContext and convertToLlm for every kind of leaf", async () => {
      let compared = 0;
      for (const path of [samplePath, ...generatedPaths]) {
        const sessionId = idOfPath.get(path)!;
        const view = await client.request("session.open", { sessionId });
        const index = freshIndex(path);
        const graph = contextGraphOf(index, inMemoryEntryReader(index));
        const leaves: (string | null)[] = [
          null,
          ...view.nodes
            .toArray()
            .filter((_, i) => i % 5 === 0)
            .map((node) => node.id),
        ];
        if (view.leafId) leaves.push(view.leafId);
        for (const leafId of leaves) {
          const expected = wire(buildSessionContext(graph, leafId));
          const context = await client.request("session.context", { leafId, llm: true });
          expect(context.messages.map((item) => item.message)).toEqual(expected.messages);
          expect(context.llm).toEqual(wire(convertToLlm(buildSessionContext(graph, leafId).messages)));
          expect(context.thinkingLevel).toBe(expected.thinkingLevel);
          expect(context.model).toEqual(expected.model);
          expect(context.leafId).toBe(leafId);
          expect(context.tokenEstimate).toBe(
            context.messages.reduce((sum, item) => sum + item.tokenEstimate, 0),
          );
          compared++;
        }
        const withoutLlm = await client.request("session.context", { leafId: view.leafId });
        expect(withoutLlm.llm).toBeNull();
      }
      expect(compared).toBeGreaterThan(20);
    });

    it("session.context reports the compaction, token estimates and the last input tokens", async () => {
      await client.request("session.open", { sessionId: sampleId });
      const index = freshIndex(samplePath);
      const atLeaf = await client.request("session.context", { leafId: SAMPLE_IDS.l1 });
      expect(atLeaf.leafId).toBe(SAMPLE_IDS.l1);
      expect(atLeaf.compaction).toEqual({
        entryId: SAMPLE_IDS.c1,
        tokensBefore: 900,
        firstKeptEntryId: SAMPLE_IDS.u3,
        firstKeptOnPath: true,
      });
      expect(atLeaf.messages.map((item) => item.entryId)).toEqual([
        SAMPLE_IDS.c1,
        SAMPLE_IDS.u3,
        SAMPLE_IDS.a3,
        SAMPLE_IDS.u4,
      ]);
      const facts = (id: string) => inMemoryEntryReader(index).facts(id)!.tokenEstimate;
      expect(atLeaf.tokenEstimate).toBe(
        facts(SAMPLE_IDS.c1) + facts(SAMPLE_IDS.u3) + facts(SAMPLE_IDS.a3) + facts(SAMPLE_IDS.u4),
      );
      expect(atLeaf.thinkingLevel).toBe("high");
      expect(atLeaf.lastInputTokens).toBe(170);
      expect((await client.request("session.context", { leafId: SAMPLE_IDS.u2 })).lastInputTokens).toBe(120);
      const empty = await client.request("session.context", { leafId: null });
      expect(empty).toMatchObject({
        leafId: null,
        messages: [],
        tokenEstimate: 0,
        lastInputTokens: null,
      });
    });

    it("session.entry returns the whole entry, its line and its problems", async () => {
      const detail = await client.request("session.entry", { entryId: SAMPLE_IDS.a1 });
      const line = readFileSync(samplePath, "utf8").split("\n")[2]!;
      expect(detail).toEqual({
        entry: wire(JSON.parse(line)),
        line: 3,
        problems: [],
        label: null,
        archived: false,
      });
      expect(await client.request("session.entry", { entryId: SAMPLE_IDS.u2 })).toMatchObject({
        label: { label: "checkpoint", timestamp: "2026-01-01T12:10:00.000Z" },
      });
    });

    it("session.search finds entries by their whole text and their label, every word, in the index's order", async () => {
      const search = (query: string, limit?: number) =>
        client.request("session.search", limit === undefined ? { query } : { query, limit });
      expect(await search("right branch")).toEqual({
        query: "right branch",
        entryIds: [SAMPLE_IDS.u3, SAMPLE_IDS.c1],
        truncated: false,
      });
      // A word of the label and a word of the text.
      expect((await search("checkpoint LEFT")).entryIds).toEqual([SAMPLE_IDS.u2]);
      expect(await search("branch", 1)).toEqual({
        query: "branch",
        entryIds: [SAMPLE_IDS.a1],
        truncated: true,
      });
      expect((await search("   ")).entryIds).toEqual([]);
    });

    it("session.setLabel appends a label: session.appended brings it as a delta, and the view shows it", async () => {
      const before = (await client.request("session.current", {}))!;
      const appended = nextEvent(client, "session.appended");
      const result = await client.request("session.setLabel", {
        targetId: SAMPLE_IDS.u3,
        label: "right way",
      });
      expect(result.entryId).toMatch(/^[0-9a-f]{8}$/);
      expect(typeof result.wasLive).toBe("boolean");
      const event = await appended;
      expect(event.sessionId).toBe(sampleId);
      const { delta } = event;
      expect(delta.baseBytes).toBe(before.bytes);
      expect(delta.added.map((node) => node.id)).toEqual([result.entryId]);
      expect(delta.added[0]).toMatchObject({ type: "label", parentId: SAMPLE_IDS.l1 });
      // The label's target and the leaf it hangs under, no other node.
      expect(delta.changed.map((node) => node.id).sort()).toEqual([SAMPLE_IDS.u3, SAMPLE_IDS.l1].sort());
      expect(delta.changed.find((node) => node.id === SAMPLE_IDS.u3)!.label).toBe("right way");
      expect(delta.leafId).toBe(result.entryId);
      const current = (await client.request("session.current", {}))!;
      expect(plainView(applySessionDelta(before, delta))).toEqual(plainView(current));
      expect(current.nodes.toArray().find((node) => node.id === SAMPLE_IDS.u3)!.label).toBe("right way");
      const detail = await client.request("session.entry", { entryId: result.entryId });
      expect(detail.entry).toMatchObject({ type: "label", targetId: SAMPLE_IDS.u3, label: "right way" });
      // The file has exactly one more line, and a fresh read agrees.
      expect(freshIndex(samplePath).labels.get(SAMPLE_IDS.u3)?.label).toBe("right way");

      const cleared = nextEvent(client, "session.appended");
      await client.request("session.setLabel", { targetId: SAMPLE_IDS.u3, label: null });
      const afterClear = applySessionDelta(current, (await cleared).delta);
      expect(afterClear.nodes.toArray().find((node) => node.id === SAMPLE_IDS.u3)!.label).toBeNull();
      expect(plainView(afterClear)).toEqual(plainView(await client.request("session.current", {})));
    });

    it("session.rename appends a session_info entry and the view is renamed", async () => {
      const before = (await client.request("session.current", {}))!;
      const appended = nextEvent(client, "session.appended");
      const result = await client.request("session.rename", { name: "Contract run" });
      const { delta } = await appended;
      expect(delta.added.map((node) => node.id)).toEqual([result.entryId]);
      expect(delta.name).toBe("Contract run");
      const current = (await client.request("session.current", {}))!;
      expect(current.name).toBe("Contract run");
      expect(plainView(applySessionDelta(before, delta))).toEqual(plainView(current));
    });

    it("session.branches, session.branchFacts and session.compare answer what the branch model and the compare engine say", async () => {
      const index = freshIndex(samplePath);
      const reader = inMemoryEntryReader(index);
      expect(await client.request("session.branches", {})).toEqual(
        wire(BranchModel.build(index, reader).branchMap()),
      );
      const model = BranchModel.build(index, reader);
      expect(await client.request("session.branchFacts", { leafId: SAMPLE_IDS.a2 })).toEqual(
        wire(model.branchFacts(SAMPLE_IDS.a2)),
      );
      expect(await client.request("session.branchFacts", { segmentId: SAMPLE_IDS.u1 })).toEqual(
        wire(model.segmentFacts(SAMPLE_IDS.u1)),
      );
      await expectError(client.request("session.branchFacts", { leafId: SAMPLE_IDS.u1 }), "not-found");
      await expectError(
        client.request("session.branchFacts", { leafId: SAMPLE_IDS.a2, segmentId: SAMPLE_IDS.u1 } as never),
        "invalid-request",
      );
      const compared = await client.request("session.compare", {
        left: { leafId: SAMPLE_IDS.a2 },
        right: { leafId: SAMPLE_IDS.u4 },
      });
      const expected = compareBranches(
        { index, reader, tipId: SAMPLE_IDS.a2, file: samplePath },
        { index, reader, tipId: SAMPLE_IDS.u4, file: samplePath },
        { detail: { from: 0, count: 20 } },
      );
      expect(compared).toEqual(wire({ ...expected, leftSessionId: sampleId, rightSessionId: sampleId }));
      expect(compared.ancestorId).toBe(SAMPLE_IDS.a1);
      const other = await client.request("session.compare", {
        left: { leafId: SAMPLE_IDS.a2 },
        right: { leafId: freshIndex(linearPath).leafId!, sessionId: idOfPath.get(linearPath)! },
        detail: { fromTurn: 1, turns: 1 },
      });
      expect(other).toMatchObject({
        ancestorId: null,
        rightSessionId: idOfPath.get(linearPath),
        detail: { from: 1 },
      });
      expect(other.right.file).toBe(linearPath);
      expect(other.detail.turns.map((turn) => turn.turn)).toEqual([1]);
      await expectError(
        client.request("session.compare", { left: { leafId: "nope" }, right: { leafId: SAMPLE_IDS.a2 } }),
        "not-found",
      );
      await expectError(
        client.request("session.compare", {
          left: { leafId: SAMPLE_IDS.a2 },
          right: { leafId: SAMPLE_IDS.a2, sessionId: `s${"A".repeat(22)}` },
        }),
        "not-found",
      );
      await expectError(
        client.request("session.compare", {
          left: { leafId: SAMPLE_IDS.a2 },
          right: { leafId: SAMPLE_IDS.a2, path: samplePath } as never,
        }),
        "invalid-request",
      );
      await expectError(
        client.request("session.compare", {
          left: { leafId: SAMPLE_IDS.a2 },
          right: { leafId: SAMPLE_IDS.a2 },
          detail: { fromTurn: 0, turns: 100_000 },
        }),
        "invalid-request",
      );
    });

    it("entries another writer appends, on branches too, arrive as deltas that keep a view equal to session.current", async () => {
      const view = (await client.request("session.open", { sessionId: idOfPath.get(linearPath)! }))!;
      const follower = followView(client, view);
      const index = freshIndex(linearPath);
      const ids = [...index.nodes.keys()];
      let clock = Date.parse("2026-03-01T00:00:00.000Z");
      const line = (fields: Record<string, unknown>) => {
        clock += 1000;
        return `${JSON.stringify({ timestamp: new Date(clock).toISOString(), ...fields })}\n`;
      };
      const message = (id: string, parentId: string | null, text: string) =>
        line({ type: "message", id, parentId, message: { role: "user", content: text, timestamp: clock } });
      const steps: [string, string][] = [
        ["a turn at the leaf", message("ce000001", index.leafId, "next")],
        [
          "a branch from the first entry",
          message("ce000002", ids[0]!, "again") + message("ce000003", "ce000002", "on"),
        ],
        [
          "a label on an old entry",
          line({ type: "label", id: "ce000004", parentId: "ce000003", targetId: ids[1], label: "old" }),
        ],
        [
          "a relabel",
          line({ type: "label", id: "ce000005", parentId: "ce000004", targetId: ids[1], label: "new" }),
        ],
        ["a new root", message("ce000006", null, "fresh")],
        ["an orphan", message("ce000007", "not-in-the-file", "lost")],
        ["a duplicate id (the index is rebuilt)", message("ce000002", ids[1]!, "moved")],
      ];
      const half = message("ce000008", "ce000007", "half");
      steps.push(["half a line", half.slice(0, 40)], ["its other half", half.slice(40)]);
      for (const [what, text] of steps) {
        appendFileSync(linearPath, text);
        const size = statSync(linearPath).size;
        // Until the main process has read the new bytes (half a line brings no entry, so no event of its own:
        // the view asked for here brings them, and a delta goes out to every client with it).
        let current = (await client.request("session.current", {}))!;
        for (let tries = 0; current.bytes < size && tries < 200; tries++) {
          await new Promise((resolve) => setTimeout(resolve, 25));
          current = (await client.request("session.current", {}))!;
        }
        expect(current.bytes, what).toBe(size);
        await follower.reach(size);
        expect(plainView(follower.view), what).toEqual(plainView(current));
      }
      expect(follower.gaps).toEqual([]);
      const last = follower.view;
      expect(last.nodes.toArray().find((node) => node.id === ids[1])!.label).toBe("new");
      expect(last.roots).toContain("ce000006");
      expect(last.problems.map((problem) => problem.kind)).toEqual(
        expect.arrayContaining(["orphan", "duplicate-id"]),
      );
      expect(last.nodes.toArray().find((node) => node.id === "ce000002")!.parentId).toBe(ids[1]);
      expect(last.problems.map((problem) => problem.kind)).not.toContain("malformed-json");
      follower.stop();
      await client.request("session.open", { sessionId: sampleId });
    });

    it("session.fork at an entry and before a user message switch to a new file that names its parent", async () => {
      let switched = nextEvent(client, "session.switched");
      const forked = await client.request("session.fork", { entryId: SAMPLE_IDS.a2, position: "at" });
      let event = await switched;
      expect(event).toEqual({ sessionId: forked.sessionId, path: forked.path, reason: "fork" });
      expect(forked.path).not.toBe(samplePath);
      expect(dirname(forked.path)).toBe(dirname(samplePath));
      expect(forked.parentSessionId).toBe(sampleId);
      expect(
        forked.nodes
          .toArray()
          .slice(0, 4)
          .map((node) => node.id),
      ).toEqual([SAMPLE_IDS.u1, SAMPLE_IDS.a1, SAMPLE_IDS.u2, SAMPLE_IDS.a2]);
      expect(forked.nodes.toArray().find((node) => node.id === SAMPLE_IDS.u2)!.label).toBe("checkpoint");
      const { selectedText, ...forkedView } = forked;
      expect(selectedText).toBeNull();
      expect(plainView(await client.request("session.current", {}))).toEqual(plainView(forkedView));

      await client.request("session.open", { sessionId: sampleId });
      switched = nextEvent(client, "session.switched");
      const before = await client.request("session.fork", { entryId: SAMPLE_IDS.u3, position: "before" });
      event = await switched;
      expect(event.reason).toBe("fork");
      expect(before.selectedText).toBe("Take the right branch");
      expect(before.leafId).toBe(SAMPLE_IDS.a1);
      expect(before.parentSessionId).toBe(sampleId);
    });

    it("session.clone copies the open session to its leaf; session.new starts an empty one in the project", async () => {
      await client.request("session.open", { sessionId: sampleId });
      const source = (await client.request("session.current", {}))!;
      let switched = nextEvent(client, "session.switched");
      const clone = await client.request("session.clone", {});
      expect((await switched).reason).toBe("clone");
      expect(clone.parentSessionId).toBe(sampleId);
      const withoutLabels = (view: SessionView) =>
        view.nodes
          .toArray()
          .filter((node) => node.type !== "label")
          .map((node) => node.id);
      const sourcePath = freshIndex(samplePath);
      const pathIds = [];
      for (let node = sourcePath.nodes.get(source.leafId!); node; node = node.parent ?? undefined)
        pathIds.unshift(node.id);
      expect(withoutLabels(clone)).toEqual(
        pathIds.filter((id) => sourcePath.nodes.get(id)!.entry.type !== "label"),
      );

      switched = nextEvent(client, "session.switched");
      const fresh = await client.request("session.new", { projectId: sampleProjectId });
      expect((await switched).reason).toBe("new");
      expect(fresh.nodes.count).toBe(0);
      expect(fresh).toMatchObject({
        cwd: SAMPLE_CWD,
        leafId: null,
        parentSessionId: null,
        version: 3,
      });
      expect(dirname(fresh.path)).toBe(dirname(samplePath));

      const listing = await client.request("library.rescan", {});
      const items = listing.projects.flatMap((project) => project.sessions);
      expect(items.find((item) => item.path === clone.path)!.parentSessionId).toBe(sampleId);
      expect(items.find((item) => item.path === fresh.path)).toMatchObject({
        sessionId: fresh.sessionId,
        open: true,
      });
    });

    it("library.search finds entries by their words, names the session by id, and honours the limit", async () => {
      const hits = await client.request("library.search", { query: "right branch" });
      const inSample = hits.filter((hit) => hit.sessionId === sampleId);
      expect(inSample.map((hit) => hit.entryId)).toContain(SAMPLE_IDS.u3);
      expect(inSample[0]!.snippet.toLowerCase()).toContain("right");
      expect(hits.every((hit) => /^[A-Za-z0-9_-]{1,64}$/.test(hit.sessionId))).toBe(true);
      expect(await client.request("library.search", { query: "branch", limit: 1 })).toHaveLength(1);
      expect(await client.request("library.search", { query: "   " })).toEqual([]);
    });

    it("invalid parameters are refused with invalid-request before any handler runs", async () => {
      const request = client.request.bind(client) as (name: string, params: unknown) => Promise<unknown>;
      await expectError(request("session.open", { sessionId: "../../etc/passwd" }), "invalid-request");
      await expectError(request("session.open", { path: samplePath }), "invalid-request");
      await expectError(
        request("session.open", { sessionId: sampleId, path: samplePath }),
        "invalid-request",
      );
      await expectError(request("session.context", { leafId: 42 }), "invalid-request");
      await expectError(
        request("session.fork", { entryId: SAMPLE_IDS.a1, position: "after" }),
        "invalid-request",
      );
      await expectError(request("library.search", { query: "x", limit: 0 }), "invalid-request");
      await expectError(request("session.search", { query: "x", limit: 0 }), "invalid-request");
      await expectError(request("session.search", { query: "x", path: samplePath }), "invalid-request");
      await expectError(request("session.delete", {}), "invalid-request");
      await expectError(request("constructor", {}), "invalid-request");
      const error = await expectError(request("session.rename", { name: 7 }), "invalid-request");
      expect(error.message).toContain("session.rename");
      // Forking before anything but a user message is refused too.
      await client.request("session.open", { sessionId: sampleId });
      await expectError(
        client.request("session.fork", { entryId: SAMPLE_IDS.a1, position: "before" }),
        "invalid-request",
      );
    });

    it("session management: each write one entry sent as a delta; a live file waits for confirmLive", async () => {
      let view = await client.request("session.open", { sessionId: sampleId });
      const write = async <T extends { entryId: string }>(request: () => Promise<T>): Promise<T> => {
        const appended = nextEvent(client, "session.appended", (event) => event.sessionId === sampleId);
        const result = await request();
        view = applySessionDelta(view, (await appended).delta);
        expect(plainView(view)).toEqual(plainView((await client.request("session.current", {}))!));
        return result;
      };
      // Another writer wrote just now: refused with nothing written, then written once confirmed.
      appendFileSync(
        samplePath,
        `${JSON.stringify({ type: "custom", customType: "pi", id: "ff000001", parentId: view.leafId, timestamp: new Date().toISOString() })}\n`,
      );
      await nextEvent(client, "session.appended").catch(() => {});
      view = (await client.request("session.current", {}))!;
      const before = readFileSync(samplePath, "utf8");
      const refused = await expectError(
        client.request("session.archive", { entryId: SAMPLE_IDS.u2 }),
        "conflict",
      );
      expect(refused.message).toMatch(/Pi is writing this session.*Confirm to write anyway/);
      expect(readFileSync(samplePath, "utf8")).toBe(before);
      const confirmLive = true;
      const archived = await write(() =>
        client.request("session.archive", { entryId: SAMPLE_IDS.u2, confirmLive }),
      );
      expect(archived).toMatchObject({ wasLive: true, movedResumePoint: false, undid: null });
      const archivedIds = view.nodes
        .toArray()
        .filter((node) => node.archived)
        .map((node) => node.id);
      expect(archivedIds.sort()).toEqual([SAMPLE_IDS.u2, SAMPLE_IDS.a2].sort());
      expect((await client.request("session.entry", { entryId: SAMPLE_IDS.a2 })).archived).toBe(true);
      await write(() => client.request("session.unarchive", { entryId: SAMPLE_IDS.u2, confirmLive }));
      expect(view.nodes.toArray().some((node) => node.archived)).toBe(false);

      const note = await write(() =>
        client.request("session.addNote", { text: "Keep it short.", confirmLive }),
      );
      const withNote = await client.request("session.context", { leafId: note.entryId });
      expect(withNote.messages.at(-1)).toMatchObject({ entryId: note.entryId, message: { role: "custom" } });
      const edit = await write(() =>
        client.request("session.editContext", {
          targetId: SAMPLE_IDS.a3,
          replacement: { content: "Right." },
          confirmLive,
        }),
      );
      const edited = await client.request("session.context", { leafId: edit.entryId });
      expect(edited.messages.find((item) => item.entryId === SAMPLE_IDS.a3)!.message).toMatchObject({
        content: [{ type: "text", text: "Right." }],
      });

      const atA2 = await client.request("session.context", { leafId: SAMPLE_IDS.a2 });
      const resumed = await write(() =>
        client.request("session.continueFrom", { entryId: SAMPLE_IDS.a2, confirmLive }),
      );
      expect(resumed).toMatchObject({ movedResumePoint: true, previousLeafId: edit.entryId });
      expect(view.leafId).toBe(resumed.entryId);
      expect((await client.request("session.context", { leafId: resumed.entryId })).messages).toEqual(
        atA2.messages,
      );
      const undone = await write(() => client.request("session.undo", { confirmLive }));
      expect(undone.undid).toEqual({ entryId: resumed.entryId, kind: "continue" });
      expect((await client.request("session.context", { leafId: undone.entryId })).messages).toEqual(
        (await client.request("session.context", { leafId: edit.entryId })).messages,
      );

      const clone = await client.request("session.clone", { leafId: SAMPLE_IDS.a2 });
      expect(clone.parentSessionId).toBe(sampleId);
      expect(clone.nodes.ids.slice(0, 4)).toEqual([
        SAMPLE_IDS.u1,
        SAMPLE_IDS.a1,
        SAMPLE_IDS.u2,
        SAMPLE_IDS.a2,
      ]);
      const exported = await client.request("session.export", {
        sessionId: sampleId,
        leafId: SAMPLE_IDS.a2,
        format: "html",
      });
      expect(exported.mimeType).toBe("text/html");
      expect(exported.content).toContain("Went left.");
      await client.request("session.open", { sessionId: sampleId });
    });

    it("session.import takes a file's content from the window, more than a megabyte of it, into the project", async () => {
      const big = "word ".repeat(400_000);
      const headerId = "019b7a4e-0000-7000-8000-0000000000bb";
      const content = [
        { type: "session", version: 3, id: headerId, timestamp: "2026-01-03T00:00:00.000Z", cwd: SAMPLE_CWD },
        {
          type: "message",
          id: "bb000001",
          parentId: null,
          timestamp: "2026-01-03T00:00:01.000Z",
          message: { role: "user", content: big, timestamp: 1 },
        },
      ]
        .map((line) => `${JSON.stringify(line)}\n`)
        .join("");
      const imported = await client.request("session.import", { projectId: sampleProjectId, content });
      expect(dirname(imported!.path)).toBe(dirname(samplePath));
      expect(imported!.path.endsWith(`_${headerId}.jsonl`)).toBe(true);
      expect(readFileSync(imported!.path, "utf8")).toBe(content);
      expect(imported!.report).toMatchObject({ entries: 1, counts: { errors: 0 } });
    });

    it("ids that were never issued, and entries that do not exist, are not-found", async () => {
      await expectError(client.request("session.open", { sessionId: `s${"A".repeat(22)}` }), "not-found");
      await expectError(client.request("session.new", { projectId: `p${"B".repeat(22)}` }), "not-found");
      await expectError(client.request("session.entry", { entryId: "nope" }), "not-found");
      await expectError(client.request("session.context", { leafId: "nope" }), "not-found");
      await expectError(client.request("session.setLabel", { targetId: "nope", label: "x" }), "not-found");
      await expectError(client.request("session.fork", { entryId: "nope", position: "at" }), "not-found");
      // Nothing was written by the refused requests.
      const before = readFileSync(samplePath, "utf8");
      await expectError(client.request("session.setLabel", { targetId: "nope", label: "x" }), "not-found");
      expect(readFileSync(samplePath, "utf8")).toBe(before);
    });
  });
}

function writeLines(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

// ---------------------------------------------------------------------------
// The bindings

/** The dispatcher and handlers in this process, answers and events in their wire form through JSON. */
const inProcess: MakeClient = async ({ root, dataDir }) => {
  const host = createArborHost({ transport: "serve", version: "0.1.0", dataDir, roots: [root], demo: false });
  const client: ArborClient = {
    async request(name, params) {
      const outcome = wire(await dispatch(host.handlers, name, wire(params ?? {})));
      if ("error" in outcome) throw ArborError.from(outcome.error);
      return decodeResult(name, outcome.result as never);
    },
    on(name, listener) {
      const subscription = host.events.subscribe((event, payload) => {
        if (event === name) listener(decodeEvent(name, wire(encodeEvent(name, payload as never))) as never);
      });
      return () => subscription.dispose();
    },
  };
  return { client, close: () => host.close() };
};

/** A real `arbor serve` child process, over its WebSocket. */
const throughServe: MakeClient = async ({ root, dataDir }) => {
  const serve = await spawnServe(["--dir", root, "--data-dir", dataDir, "--no-demo"]);
  const origin = `http://127.0.0.1:${serve.port}`;
  class BrowserLikeWebSocket extends WebSocket {
    constructor(url: string) {
      super(url, { origin });
    }
  }
  const client = await WebSocketClient.connect(`ws://127.0.0.1:${serve.port}/ws?token=${serve.token}`, {
    WebSocket: BrowserLikeWebSocket as unknown as WebSocketConstructor,
  });
  return {
    client,
    async close() {
      client.close();
      await serve.stop();
    },
  };
};

runContractSuite("the contract, in process", inProcess, "serve");
runContractSuite("the contract, through arbor serve (WebSocket)", throughServe, "serve");
