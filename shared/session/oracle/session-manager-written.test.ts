/**
 * Sessions written by Pi's own SessionManager (0.73 and 1.6), driven by a
 * seeded script of appends, branches, labels, compactions, forks..., then
 * read by Arbor: the tree, labels, name, leaf and every context must be what
 * the manager that wrote the file reports. Dates are faked and sometimes go
 * backwards, so sibling timestamps come out of order as after a clock change.
 */

import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { readWholeSessionFile } from "../../../app/store/read-whole-session-file.ts";
import {
  type Pi16SessionManager,
  type PiContext,
  type PiEntry,
  type PiSessionManager,
  type PiTreeNode,
  pi073,
  pi073Messages,
  pi16,
  pi16Messages,
} from "../../../app/store/testing/pi.ts";
import { buildSessionContext, contextGraphOf, convertToLlm, readSession } from "../index.ts";
import {
  Rng,
  randomAgentMessage,
  randomBlocks,
  randomText,
  randomUsage,
} from "../testing/generate-session.ts";

// --- Pi, the oracle (app/store/testing/pi.ts). ---

interface PiGeneration {
  name: string;
  is16: boolean;
  create(cwd: string, sessionDir: string): PiSessionManager;
  open(path: string): PiSessionManager;
  buildSessionContext(entries: PiEntry[], leafId?: string | null): PiContext;
  convertToLlm(messages: unknown[]): unknown[];
}

const GENERATIONS: PiGeneration[] = [
  {
    name: "Pi 0.73",
    is16: false,
    create: (cwd, dir) => pi073.SessionManager.create(cwd, dir),
    open: (path) => pi073.SessionManager.open(path),
    buildSessionContext: (entries, leaf) => pi073.buildSessionContext(entries, leaf),
    convertToLlm: (messages) => pi073Messages.convertToLlm(messages),
  },
  {
    name: "Pi 1.6",
    is16: true,
    create: (cwd, dir) => pi16.SessionManager.create(cwd, dir),
    open: (path) => pi16.SessionManager.open(path),
    buildSessionContext: (entries, leaf) => pi16.buildSessionContext(entries, leaf),
    convertToLlm: (messages) => pi16Messages.convertToLlm(messages),
  },
];

// --- Comparison. ---

function assertSame(actual: unknown, expected: unknown, what: string): void {
  if (isDeepStrictEqual(actual, expected)) return;
  expect(actual, what).toStrictEqual(expected);
  expect.fail(`${what}: differs under node:util isDeepStrictEqual`);
}

/** Ordered child ids of every node, and the root ids, from Pi's getTree(). */
function piTreeShape(roots: readonly PiTreeNode[]): { roots: string[]; children: Map<string, string[]> } {
  const children = new Map<string, string[]>();
  const stack = [...roots];
  while (stack.length > 0) {
    const node = stack.pop()!;
    expect(children.has(node.entry.id), `getTree lists ${node.entry.id} once`).toBe(false);
    children.set(
      node.entry.id,
      node.children.map((child) => child.entry.id),
    );
    stack.push(...node.children);
  }
  return { roots: roots.map((root) => root.entry.id), children };
}

/** Pi's in-memory entries as they are on disk: JSON drops `undefined` fields. */
function asWritten<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

interface Comparison {
  leaves: number;
  /** Entries whose children Pi had to sort out of file order. */
  reorderedParents: number;
}

/** Everything Arbor reads from `path` must be what `manager` (which wrote it) reports. */
function compareWithManager(
  generation: PiGeneration,
  manager: PiSessionManager,
  path: string,
  scratch: string,
  what: string,
  /** Label ids Pi 0.73's fork dropped from the path without re-chaining their children. */
  droppedLabels: ReadonlySet<string> = new Set(),
): Comparison {
  const { index, reader } = readWholeSessionFile(path);
  const fromBytes = readSession(new Uint8Array(readFileSync(path)));
  assertSame(fromBytes.entries, index.entries, `${what}: bytes vs file`);
  const piEntries = manager.getEntries();

  // Entries: exactly what the manager holds, as JSON writes it. The only damage Pi writes
  // itself: 0.73's fork leaves the children of the label entries it drops as orphans.
  for (const orphan of index.orphans) {
    expect(droppedLabels.has(String(index.byId.get(orphan)?.parentId)), `${what}: orphan ${orphan}`).toBe(
      true,
    );
  }
  const problems = index.problems.filter((p) => p.severity !== "info" && p.kind !== "orphan");
  expect(
    problems.map((p) => p.message),
    `${what}: problems`,
  ).toEqual([]);
  assertSame(index.entries, asWritten(piEntries), `${what}: entries`);
  assertSame(index.header?.id, manager.getHeader()?.id, `${what}: session id`);

  // The tree: roots, and the children of every node in order.
  const tree = piTreeShape(manager.getTree());
  assertSame(index.roots, tree.roots, `${what}: roots`);
  assertSame([...index.nodes.keys()].sort(), [...tree.children.keys()].sort(), `${what}: tree ids`);
  let reorderedParents = 0;
  for (const [id, children] of tree.children) {
    const node = index.nodes.get(id)!;
    assertSame(node.children, children, `${what}: children of ${id}`);
    const inFileOrder = [...children].sort((a, b) => index.nodes.get(a)!.line - index.nodes.get(b)!.line);
    if (!isDeepStrictEqual(inFileOrder, children)) reorderedParents++;
  }

  // Labels, name, leaf, parent session.
  for (const entry of piEntries) {
    assertSame(
      index.labels.get(entry.id)?.label,
      manager.getLabel(entry.id),
      `${what}: label of ${entry.id}`,
    );
  }
  assertSame(index.sessionName, manager.getSessionName(), `${what}: session name`);
  assertSame(index.leafId, manager.getLeafId(), `${what}: leaf, vs the manager that wrote it`);
  const reopenedPath = join(scratch, "reopened.jsonl");
  copyFileSync(path, reopenedPath);
  const reopened = generation.open(reopenedPath);
  assertSame(index.leafId, reopened.getLeafId(), `${what}: leaf, vs Pi reopening the file`);
  assertSame(index.parentSession, manager.getHeader()?.parentSession, `${what}: parentSession`);

  // Contexts: the manager's own, then every entry as leaf.
  const graph = contextGraphOf(index, reader);
  const managerContext = manager.buildSessionContext();
  assertSame(
    buildSessionContext(graph, manager.getLeafId()),
    managerContext,
    `${what}: the manager's context`,
  );
  assertSame(buildSessionContext(graph), managerContext, `${what}: the default leaf's context`);
  const leaves: (string | null)[] = [...piEntries.map((entry) => entry.id), null];
  const fileEntries = reopened.getEntries();
  for (const leaf of leaves) {
    const context = buildSessionContext(graph, leaf);
    const piContext = generation.buildSessionContext(fileEntries, leaf);
    assertSame(context, piContext, `${what}: context at leaf ${leaf}`);
    assertSame(
      context,
      generation.buildSessionContext(piEntries, leaf),
      `${what}: context at leaf ${leaf}, vs the manager's entries`,
    );
    assertSame(
      convertToLlm(context.messages),
      generation.convertToLlm(piContext.messages),
      `${what}: convertToLlm at leaf ${leaf}`,
    );
  }
  return { leaves: leaves.length, reorderedParents };
}

// --- Driving the manager. ---

const THINKING = ["off", "minimal", "low", "medium", "high"];
const MODELS: [string, string][] = [
  ["anthropic", "claude-opus-4-5"],
  ["openai", "gpt-5.1-codex"],
  ["google", "gemini-3-pro"],
];

type Operation =
  | "message"
  | "model"
  | "thinking"
  | "branch"
  | "resetLeaf"
  | "branchWithSummary"
  | "label"
  | "compaction"
  | "custom"
  | "customMessage"
  | "sessionInfo"
  | "contextEdit"
  | "usage";

class Script {
  readonly rng: Rng;
  private clock: number;
  readonly done = new Set<string>();

  constructor(
    seed: number,
    readonly generation: PiGeneration,
    public manager: PiSessionManager,
  ) {
    this.rng = new Rng(seed);
    this.clock = Date.UTC(2026, 5, 1) + this.rng.int(0, 1000) * 60_000;
    this.tick();
  }

  /** Moves the faked clock; now and then backwards, or not at all. */
  tick(): void {
    const step = this.rng.weighted({ forward: 8, same: 2, backward: 2 });
    if (step === "forward") this.clock += this.rng.int(1, 120_000);
    if (step === "backward") this.clock -= this.rng.int(1, 3_600_000);
    vi.setSystemTime(this.clock);
  }

  message(wellFormedOnly = true): string {
    const message = randomAgentMessage(this.rng, {
      pi073Compatible: !this.generation.is16,
      timestamp: this.clock,
      wellFormed: wellFormedOnly,
    });
    return this.manager.appendMessage(message);
  }

  user(): string {
    return this.manager.appendMessage({ role: "user", content: randomText(this.rng), timestamp: this.clock });
  }

  assistant(): string {
    const [provider, model] = this.rng.pick(MODELS);
    return this.manager.appendMessage({
      role: "assistant",
      content: [{ type: "text", text: randomText(this.rng) }],
      api: "test-api",
      provider,
      model,
      usage: randomUsage(this.rng),
      stopReason: "stop",
      timestamp: this.clock,
    });
  }

  ids(): string[] {
    return this.manager.getEntries().map((entry) => entry.id);
  }

  run(operations: number): void {
    const { rng } = this;
    const weights: Record<Operation, number> = {
      message: 40,
      model: 3,
      thinking: 3,
      branch: 6,
      resetLeaf: 1,
      branchWithSummary: 4,
      label: 6,
      compaction: 4,
      custom: 3,
      customMessage: 4,
      sessionInfo: 3,
      contextEdit: this.generation.is16 ? 5 : 0,
      usage: this.generation.is16 ? 2 : 0,
    };
    for (let i = 0; i < operations; i++) {
      this.tick();
      const operation = rng.weighted(weights);
      this.done.add(operation);
      this.apply(operation);
    }
    // End on an append: the leaf in memory is then the last entry of the file.
    this.tick();
    if (rng.chance(0.5)) this.user();
    else this.assistant();
  }

  private apply(operation: Operation): void {
    const { rng, manager } = this;
    const ids = this.ids();
    switch (operation) {
      case "message":
        this.message();
        return;
      case "model": {
        const [provider, model] = rng.pick(MODELS);
        manager.appendModelChange(provider, model);
        return;
      }
      case "thinking":
        manager.appendThinkingLevelChange(rng.pick(THINKING));
        return;
      case "branch":
        manager.branch(rng.pick(ids));
        return;
      case "resetLeaf":
        manager.resetLeaf();
        return;
      case "branchWithSummary": {
        const target = rng.chance(0.1) ? null : rng.pick(ids);
        const summary = rng.chance(0.3) ? "" : `Explored: ${randomText(rng)}`;
        manager.branchWithSummary(
          target,
          summary,
          rng.chance(0.3) ? { files: ["a.ts"] } : undefined,
          rng.chance(0.2),
        );
        return;
      }
      case "label": {
        const how = rng.weighted({ set: 6, undefined: 2, empty: 1 });
        const label =
          how === "set" ? rng.pick(["checkpoint", "good", "⭐ keep"]) : how === "empty" ? "" : undefined;
        manager.appendLabelChange(rng.pick(ids), label);
        this.done.add(`label:${how}`);
        return;
      }
      case "compaction": {
        const branch = manager.getBranch();
        const how = rng.weighted({
          onBranch: branch.length > 0 ? 6 : 0,
          offBranch: 1,
          none: this.generation.is16 ? 2 : 0,
        });
        const onBranch = new Set(branch.map((entry) => entry.id));
        const off = ids.filter((id) => !onBranch.has(id));
        const firstKept =
          how === "onBranch"
            ? rng.pick(branch).id
            : how === "offBranch" && off.length > 0
              ? rng.pick(off)
              : how === "none"
                ? undefined
                : rng.pick(ids);
        this.done.add(`compaction:${how}`);
        manager.appendCompaction(
          `## Summary\n${randomText(rng)}`,
          firstKept,
          rng.int(1000, 200_000),
          rng.chance(0.4) ? { readFiles: ["src/a.ts"] } : undefined,
          rng.chance(0.2) ? true : undefined,
        );
        return;
      }
      case "custom":
        manager.appendCustomEntry(
          "ext:state",
          rng.chance(0.7) ? { n: rng.int(0, 9), note: randomText(rng) } : undefined,
        );
        return;
      case "customMessage":
        manager.appendCustomMessageEntry(
          "ext:note",
          rng.chance(0.5) ? randomText(rng) : randomBlocks(rng, "custom"),
          rng.chance(0.5),
          rng.chance(0.5) ? { from: "test" } : undefined,
        );
        return;
      case "sessionInfo":
        manager.appendSessionInfo(rng.pick(["Refactor", "  padded  ", "", "two\nlines", "日本語"]));
        return;
      case "contextEdit": {
        const editable = manager.getBranch().filter((entry) => {
          if (entry.type === "custom_message") return true;
          if (entry.type !== "message") return false;
          const role = (entry.message as { role: string }).role;
          return role === "user" || role === "assistant" || role === "toolResult";
        });
        if (editable.length === 0) {
          this.message();
          return;
        }
        const target = rng.pick(editable);
        const role = target.type === "message" ? (target.message as { role: string }).role : "custom";
        const how = rng.weighted({ string: 1, blocks: 1, drop: 1 });
        this.done.add(`contextEdit:${how}`);
        (manager as Pi16SessionManager).appendContextEdit(
          target.id,
          how === "drop"
            ? null
            : { content: how === "string" ? `edited ${randomText(rng)}` : randomBlocks(rng, role) },
        );
        return;
      }
      case "usage": {
        const [provider, model] = rng.pick(MODELS);
        (manager as Pi16SessionManager).appendUsage(
          "cache_warm",
          provider,
          model,
          randomUsage(rng),
          rng.chance(0.5) ? "warm" : undefined,
        );
        return;
      }
    }
  }
}

const SEEDS_PER_GENERATION = 24;

describe("sessions written by Pi's SessionManager, read by Arbor", () => {
  let root = "";

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "arbor-pi-written-"));
  });
  afterAll(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  for (const generation of GENERATIONS) {
    describe(generation.name, () => {
      const total = { seedsRun: 0, leaves: 0, reordered: 0, forks: 0, operations: new Set<string>() };

      it("writes nothing before the conversation starts, then everything", () => {
        const dir = mkdtempSync(join(root, "deferred-"));
        const script = new Script(1, generation, generation.create("/home/dev/project", dir));
        const { manager } = script;
        manager.appendModelChange("anthropic", "claude-opus-4-5");
        manager.appendThinkingLevelChange("high");
        if (generation.is16)
          script.manager.appendMessage({ role: "system", content: "You are Pi.", timestamp: 1 });
        script.user();
        // 1.6 writes from the first user message, 0.73 from the first assistant message.
        expect(existsSync(manager.getSessionFile()!)).toBe(generation.is16);
        script.tick();
        script.assistant();
        const compared = compareWithManager(generation, manager, manager.getSessionFile()!, dir, "deferred");
        expect(compared.leaves).toBe(manager.getEntries().length + 1);
      });

      for (let seed = 1; seed <= SEEDS_PER_GENERATION; seed++) {
        it(`seed ${seed}: a scripted session, then a fork of it`, () => {
          total.seedsRun++;
          const dir = mkdtempSync(join(root, `seed-${seed}-`));
          const manager = generation.create(`/home/dev/project-${seed}`, dir);
          const script = new Script(seed * 7919, generation, manager);
          // Setup entries as Pi writes them when a session starts, then a first exchange.
          manager.appendModelChange(...script.rng.pick(MODELS));
          manager.appendThinkingLevelChange(script.rng.pick(THINKING));
          if (generation.is16) {
            manager.appendMessage({ role: "system", content: "You are Pi.", timestamp: 0 });
          }
          script.user();
          script.tick();
          script.assistant();
          script.run(script.rng.int(40, 110));
          const source = manager.getSessionFile()!;
          let compared = compareWithManager(generation, manager, source, dir, `seed ${seed}`);
          total.leaves += compared.leaves;
          total.reordered += compared.reorderedParents;

          // Fork at an entry whose path holds an assistant message, so both generations write it at once.
          const candidates = manager
            .getEntries()
            .filter((entry) =>
              manager
                .getBranch(entry.id)
                .some(
                  (onPath) =>
                    onPath.type === "message" && (onPath.message as { role: string }).role === "assistant",
                ),
            );
          const forkAt = script.rng.pick(candidates).id;
          const labelIds = new Set(
            manager
              .getEntries()
              .filter((entry) => entry.type === "label")
              .map((entry) => entry.id),
          );
          const sourceBytes = readFileSync(source);
          const forkPath = manager.createBranchedSession(forkAt);
          expect(forkPath, "the fork has its own file").toBeTruthy();
          expect(forkPath).not.toBe(source);
          expect(readFileSync(source), "forking leaves the source file as it was").toStrictEqual(sourceBytes);
          // Carry on in the fork for a while; the appends go to the new file.
          script.run(script.rng.int(3, 20));
          compared = compareWithManager(
            generation,
            manager,
            forkPath!,
            dir,
            `seed ${seed}, fork at ${forkAt}`,
            generation.is16 ? new Set() : labelIds,
          );
          expect(readWholeSessionFile(forkPath!).index.parentSession).toBe(source);
          total.leaves += compared.leaves;
          total.reordered += compared.reorderedParents;
          total.forks++;
          for (const operation of script.done) total.operations.add(operation);
        });
      }

      it("exercised every operation, out-of-order siblings and enough leaves", ({ skip }) => {
        skip(total.seedsRun < SEEDS_PER_GENERATION, "only some seeds ran (a filtered run)");
        const expected = [
          "message",
          "model",
          "thinking",
          "branch",
          "resetLeaf",
          "branchWithSummary",
          "label",
          "label:set",
          "label:undefined",
          "label:empty",
          "compaction",
          "compaction:onBranch",
          "compaction:offBranch",
          "custom",
          "customMessage",
          "sessionInfo",
          ...(generation.is16
            ? [
                "compaction:none",
                "contextEdit",
                "contextEdit:string",
                "contextEdit:blocks",
                "contextEdit:drop",
                "usage",
              ]
            : []),
        ];
        expect(expected.filter((operation) => !total.operations.has(operation))).toStrictEqual([]);
        expect(total.forks).toBe(SEEDS_PER_GENERATION);
        expect(total.reordered, "some children were sorted by time, not file order").toBeGreaterThan(0);
        expect(total.leaves).toBeGreaterThanOrEqual(1000);
        console.info(`${generation.name}: ${total.leaves} leaves, ${total.reordered} reordered child lists`);
      });
    });
  }
});
