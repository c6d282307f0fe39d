/**
 * Following a session file that another process appends to, with real files
 * in temp dirs and a real child process: the followed index must always be
 * what a fresh read of the file gives, half-written lines are held until
 * complete, and a file that is truncated, replaced, deleted, re-created or
 * rewritten in place is reloaded whole with the matching notice.
 */

import { type ChildProcess, spawn } from "node:child_process";
import {
  appendFileSync,
  closeSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { type ParseMode, SessionParser } from "../../shared/session/parse.ts";
import { generateSession } from "../../shared/session/testing/generate-session.ts";
import { extendSessionIndex, resumePoint as treeResumePoint } from "../../shared/session/extend-index.ts";
import { buildSessionIndex } from "../../shared/session/tree-index.ts";
import { AppendError, type AppendFailure, appendLabel } from "./append.ts";
import { resumePoint } from "./follower.ts";
import { openIndexedFile } from "./open-indexed-file.ts";
import { type AppendEvent, type ReloadEvent, SessionStore } from "./session-store.ts";
import {
  assistantLine,
  fileText,
  headerLine,
  nextEvent,
  snapshot,
  tempDirs,
  userLine,
  waitFor,
} from "./testing/files.ts";
import { ensureNoLeaks } from "../../shared/lifecycle/testing.ts";

const leaks = ensureNoLeaks();

const dirs = tempDirs("follow");
afterAll(() => dirs.cleanup());

const WRITER = fileURLToPath(new URL("./testing/pi-writer.mjs", import.meta.url));

function freshSnapshot(path: string, mode: ParseMode) {
  const opened = openIndexedFile(path, { mode });
  try {
    return snapshot(opened.index);
  } finally {
    opened.close();
  }
}

function baseFile(): { dir: string; path: string } {
  const dir = dirs.make();
  const path = join(dir, "2026-01-01T00-00-00-000Z_session.jsonl");
  writeFileSync(
    path,
    fileText([headerLine(), userLine("u1", null, "hello"), assistantLine("a1", "u1", "hi")]),
  );
  return { dir, path };
}

describe("resumePoint", () => {
  it("agrees with the tree index's resumePoint, whatever the cut", () => {
    for (let seed = 1; seed <= 20; seed++) {
      const bytes = new TextEncoder().encode(generateSession({ seed, damage: seed % 2 === 0 }).text);
      for (const cut of [0, 1, Math.floor(bytes.length / 3), Math.floor(bytes.length / 2), bytes.length]) {
        const parser = new SessionParser({ mode: "structure" });
        parser.push(bytes.subarray(0, cut));
        let index = buildSessionIndex(parser.end());
        expect(resumePoint(index)).toEqual(treeResumePoint(index));
        const start = resumePoint(index);
        const tail = new SessionParser({ mode: "structure", start });
        tail.push(bytes.subarray(start.offset));
        index = extendSessionIndex(index, tail.end()).index;
        expect(resumePoint(index)).toEqual(treeResumePoint(index));
      }
    }
  });
});

describe("SessionStore.sync", () => {
  it("reads only appended bytes and holds a half-written line until it is complete", () => {
    const { path } = baseFile();
    const store = SessionStore.open(path);
    try {
      const appended: AppendEvent[] = [];
      leaks.add(store.onDidAppend((event) => appended.push(event)));
      expect(store.sync()).toEqual({ kind: "unchanged" });

      const line = `${userLine("u2", "a1", "a line written in two parts: Grüße → 日本語", 3)}\n`;
      const bytes = Buffer.from(line);
      // Cut inside a multi-byte character.
      const cut = bytes.indexOf(Buffer.from("日")) + 1;
      appendFileSync(path, bytes.subarray(0, cut));
      expect(store.sync()).toEqual({ kind: "pending" });
      expect(store.index.nodes.has("u2")).toBe(false);
      expect(store.index.unterminatedLastLine).not.toBeNull();
      expect(appended).toHaveLength(0);

      appendFileSync(path, bytes.subarray(cut));
      const result = store.sync();
      expect(result.kind).toBe("appended");
      expect(appended).toHaveLength(1);
      expect(appended[0]!.added.map((node) => node.id)).toEqual(["u2"]);
      expect(store.index.leafId).toBe("u2");
      expect(store.entry("u2")).toMatchObject({ message: { content: expect.stringContaining("日本語") } });
      expect(snapshot(store.index)).toEqual(freshSnapshot(path, store.mode));
    } finally {
      store.dispose();
    }
  });

  it("samples the lines it appended, so a later same-size rewrite of them is noticed", () => {
    const { path } = baseFile();
    const store = SessionStore.open(path);
    try {
      appendFileSync(path, `${userLine("u2", "a1", "x".repeat(600), 3)}\n`);
      expect(store.sync().kind).toBe("appended");
      appendFileSync(path, `${userLine("u3", "u2", "y".repeat(600), 4)}\n`);
      expect(store.sync().kind).toBe("appended");
      expect(store.sync()).toEqual({ kind: "unchanged" });
      const text = readFileSync(path, "utf8");
      const fd = openSync(path, "r+");
      writeSync(fd, text.replace('"id":"u3","parentId":"u2"', '"id":"u3","parentId":"a1"'), 0);
      closeSync(fd);
      const result = store.sync();
      expect(result).toMatchObject({ kind: "reloaded", event: { reason: "rewritten" } });
      expect(store.index.nodes.get("u3")?.parentId).toBe("a1");
      expect(snapshot(store.index)).toEqual(freshSnapshot(path, store.mode));
    } finally {
      store.dispose();
    }
  });

  it("an unsubscribed listener hears nothing; a disposed store refuses to be used", () => {
    const { path } = baseFile();
    const store = SessionStore.open(path);
    const heard: string[] = [];
    const first = store.onDidAppend(() => heard.push("first"));
    const second = store.onDidAppend(() => heard.push("second"));
    first.dispose();
    appendFileSync(path, `${userLine("u2", "a1", "x", 3)}\n`);
    store.sync();
    second.dispose();
    appendFileSync(path, `${userLine("u3", "u2", "y", 4)}\n`);
    store.sync();
    expect(heard).toEqual(["second"]);
    store.dispose();
    expect(() => store.sync()).toThrow(/disposed/);
    expect(() => store.entry("u1")).toThrow(/disposed/);
  });
});

describe("following", () => {
  it("delivers each append within ~150 ms", async () => {
    const { path } = baseFile();
    const store = SessionStore.open(path, { follow: true });
    try {
      const latencies: number[] = [];
      let parent = "a1";
      for (let i = 0; i < 20; i++) {
        const id = `f${i.toString().padStart(7, "0")}`;
        const event = nextEvent<AppendEvent>((listener) => store.onDidAppend(listener), `append of ${id}`);
        const start = performance.now();
        appendFileSync(path, `${userLine(id, parent, `message ${i}`, 10 + i)}\n`);
        const delivered = await event;
        latencies.push(performance.now() - start);
        expect(delivered.added.map((node) => node.id)).toEqual([id]);
        parent = id;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      latencies.sort((a, b) => a - b);
      const median = latencies[Math.floor(latencies.length / 2)]!;
      expect(median).toBeLessThan(150);
      expect(latencies.at(-1)!).toBeLessThan(1000);
      expect(snapshot(store.index)).toEqual(freshSnapshot(path, store.mode));
    } finally {
      store.dispose();
    }
  });

  it("still sees appends without any watch event (the poll)", async () => {
    const { path } = baseFile();
    const store = SessionStore.open(path, { follow: { watch: false, pollMs: 50 } });
    try {
      const event = nextEvent<AppendEvent>((listener) => store.onDidAppend(listener), "polled append");
      appendFileSync(path, `${userLine("u2", "a1", "polled", 3)}\n`);
      expect((await event).added.map((node) => node.id)).toEqual(["u2"]);
    } finally {
      store.dispose();
    }
  });

  type Change = {
    name: ReloadEvent["reason"];
    how: string;
    change(path: string, dir: string): void | Promise<void>;
  };
  const changes: Change[] = [
    {
      name: "truncated",
      how: "cut back to its header",
      change(path) {
        const text = readFileSync(path, "utf8");
        truncateSync(path, Buffer.byteLength(text.slice(0, text.indexOf("\n") + 1)));
      },
    },
    {
      name: "replaced",
      how: "renamed over by another file",
      change(path, dir) {
        const temp = join(dir, "replacement.tmp");
        writeFileSync(
          temp,
          fileText([headerLine(), userLine("r1", null, "replacement"), assistantLine("r2", "r1", "new")]),
        );
        renameSync(temp, path);
      },
    },
    {
      name: "rewritten",
      how: "rewritten from the start, longer (as Pi migrates a file)",
      change(path) {
        const fd = openSync(path, "r+");
        const next = fileText([
          headerLine({ id: "019a0000-0000-7000-8000-0000000000ff" }),
          userLine("w1", null, "rewritten in place, and longer than before"),
          assistantLine("w2", "w1", "so the size alone does not tell"),
        ]);
        writeSync(fd, next, 0);
        closeSync(fd);
      },
    },
    {
      name: "rewritten",
      how: "changed at the start of its last line (same size), then appended to",
      change(path) {
        const text = readFileSync(path, "utf8");
        const changed = text.replace('"id":"a1","parentId":"u1"', '"id":"a1","parentId":"x1"');
        expect(changed).not.toBe(text);
        expect(changed.length).toBe(text.length);
        const fd = openSync(path, "r+");
        writeSync(fd, changed, 0);
        closeSync(fd);
        appendFileSync(path, `${userLine("u9", "a1", "and then one more line")}\n`);
      },
    },
    {
      name: "rewritten",
      how: "changed at its very end (same size)",
      change(path) {
        const text = readFileSync(path, "utf8");
        // The message's own timestamp, the last field of the last line.
        const changed = text.replace(/0\}\}\n$/, "1}}\n");
        expect(changed.length).toBe(text.length);
        expect(changed).not.toBe(text);
        const fd = openSync(path, "r+");
        writeSync(fd, changed, 0);
        closeSync(fd);
      },
    },
  ];

  for (const { name, how, change } of changes) {
    it(`reloads the whole file with "${name}" when it is ${how}`, async () => {
      const { path, dir } = baseFile();
      const store = SessionStore.open(path, { follow: true });
      try {
        const appended: AppendEvent[] = [];
        leaks.add(store.onDidAppend((event) => appended.push(event)));
        const reload = nextEvent<ReloadEvent>((listener) => store.onDidReload(listener), `${name} notice`);
        const before = store.index;
        await change(path, dir);
        const event = await reload;
        expect(event.reason).toBe(name);
        expect(event.previous).toBe(before);
        expect(event.index).toBe(store.index);
        // Let any later event settle, then the index must be exactly the file's.
        await new Promise((resolve) => setTimeout(resolve, 300));
        store.sync();
        expect(snapshot(store.index)).toEqual(freshSnapshot(path, store.mode));
        expect(appended).toHaveLength(0);
      } finally {
        store.dispose();
      }
    });
  }

  it("says when the file is deleted, and reloads it when it is re-created", async () => {
    const { path } = baseFile();
    const store = SessionStore.open(path, { follow: true });
    try {
      const deleted = nextEvent<ReloadEvent>((listener) => store.onDidReload(listener), "deleted notice");
      const before = store.index;
      unlinkSync(path);
      const gone = await deleted;
      expect(gone).toMatchObject({ reason: "deleted", index: null });
      expect(gone.previous).toBe(before);
      expect(store.deleted).toBe(true);
      expect(store.fileState).toBeNull();
      // The last index stays readable (the old descriptor still holds the file's bytes).
      expect(store.entry("a1")?.type).toBe("message");
      expect(store.sync()).toEqual({ kind: "missing" });

      const recreated = nextEvent<ReloadEvent>((listener) => store.onDidReload(listener), "recreated notice");
      writeFileSync(path, fileText([headerLine(), userLine("n1", null, "a new file at the same path")]));
      const back = await recreated;
      expect(back.reason).toBe("recreated");
      expect(store.deleted).toBe(false);
      expect(back.index?.leafId).toBe("n1");
      await new Promise((resolve) => setTimeout(resolve, 100));
      store.sync();
      expect(snapshot(store.index)).toEqual(freshSnapshot(path, store.mode));
    } finally {
      store.dispose();
    }
  });
});

describe("a child process appending 10,000 entries while Arbor follows and labels", () => {
  it("loses nothing, merges no lines, and ends with the index of a fresh read", async () => {
    const { path } = baseFile();
    const mode: ParseMode = "structure";
    const store = SessionStore.open(path, { mode, follow: true });
    const reloads: ReloadEvent[] = [];
    leaks.add(store.onDidReload((event) => reloads.push(event)));
    const failures: unknown[] = [];
    leaks.add(store.onDidFail((error) => failures.push(error)));

    const child: ChildProcess = spawn(
      process.execPath,
      [WRITER, JSON.stringify({ path, count: 10_000, leafId: "a1", seed: 7, usedIds: ["u1", "a1"] })],
      { stdio: ["ignore", "inherit", "inherit", "ipc"] },
    );
    // The writer splits some lines into two writes. Arbor checks the last byte
    // and then writes, microseconds apart; a line begun by another writer in
    // between would be merged with Arbor's. A real Pi cannot begin a line
    // there (each of its lines is one write() on an O_APPEND descriptor, which
    // the kernel serialises with ours); this writer can, so it announces the
    // first part of each split line and Arbor holds its appends for that
    // instant only. Once the part is written, Arbor's appends go on and must
    // refuse until the line is complete.
    let holding = false;
    let done: { ids: string[]; splits: number } | null = null;
    child.on("message", (message: { type: string; ids?: string[]; splits?: number }) => {
      if (message.type === "split-request") {
        holding = true;
        child.send({ type: "split-go" });
      } else if (message.type === "split-written") {
        holding = false;
      } else if (message.type === "done") {
        done = { ids: message.ids!, splits: message.splits! };
      }
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));

    const written: Array<{ id: string; targetId: string; label: string | undefined }> = [];
    const refusals = new Map<AppendFailure, number>();
    let attempt = 0;
    let labelling = true;
    const labelLoop = (async () => {
      while (labelling) {
        await new Promise((resolve) => setTimeout(resolve, 1 + (attempt % 4)));
        if (holding) continue;
        attempt++;
        const target = store.appendTarget();
        const ids = target.index.entries;
        const targetId = ids[(attempt * 7919) % ids.length]!.id;
        const label = attempt % 5 === 0 ? undefined : `label ${attempt}`;
        try {
          const result = appendLabel(target, { leafId: target.index.leafId, targetId, label });
          written.push({ id: result.entryId, targetId, label });
        } catch (error) {
          if (!(error instanceof AppendError)) throw error;
          refusals.set(error.reason, (refusals.get(error.reason) ?? 0) + 1);
        }
      }
    })();

    let exitCode: number | null;
    try {
      exitCode = await exited;
    } finally {
      labelling = false;
      await labelLoop;
    }
    expect(exitCode).toBe(0);
    expect(done).not.toBeNull();
    const writer = done! as { ids: string[]; splits: number };

    // The follower (watch events, quiet timer) catches up by itself.
    await waitFor(
      () => store.index.byteLength === statSync(path).size,
      "the follower to read the whole file",
    );
    try {
      // Every line parses: no line was merged with another.
      const text = readFileSync(path, "utf8");
      expect(text.endsWith("\n")).toBe(true);
      const lines = text.slice(0, -1).split("\n");
      const parsed = lines.map((line) => JSON.parse(line) as { id?: string; type: string });
      expect(lines).toHaveLength(3 + writer.ids.length + written.length);

      // Nothing lost: every entry of the writer and every label that was written.
      const ids = new Set(parsed.map((entry) => entry.id));
      for (const id of writer.ids) expect(ids.has(id)).toBe(true);
      for (const label of written) expect(ids.has(label.id)).toBe(true);
      expect(writer.ids).toHaveLength(10_000);

      // The followed index is the index of a fresh read.
      expect(snapshot(store.index)).toEqual(freshSnapshot(path, mode));
      expect(store.index.problems).toEqual([]);
      expect(reloads).toEqual([]);
      expect(failures).toEqual([]);

      // Labels: what the written label entries say, in order.
      const expected = new Map<string, string>();
      for (const { targetId, label } of written) {
        if (label) expected.set(targetId, label);
        else expected.delete(targetId);
      }
      expect(new Map([...store.index.labels].map(([id, state]) => [id, state.label]))).toEqual(expected);

      // A sample of bodies, read from the file by offset, equal the parsed lines.
      const full = openIndexedFile(path, { mode: "full" });
      try {
        for (let i = 0; i < store.index.entries.length; i += 97) {
          const id = store.index.entries[i]!.id;
          expect(store.entry(id)).toEqual(full.reader.entry(id));
        }
      } finally {
        full.close();
      }

      if (process.env.ARBOR_TEST_VERBOSE) {
        console.log({ splits: writer.splits, labels: written.length, attempts: attempt, refusals });
      }
      // Both kinds of refusal happened, and appends still got through.
      expect(writer.splits).toBeGreaterThan(50);
      expect(written.length).toBeGreaterThan(20);
      expect(refusals.get("unterminated-last-line") ?? 0).toBeGreaterThan(0);
      expect(refusals.get("changed-on-disk") ?? 0).toBeGreaterThan(0);
      expect(
        [...refusals.keys()].every(
          (reason) => reason === "unterminated-last-line" || reason === "changed-on-disk",
        ),
      ).toBe(true);
    } finally {
      store.dispose();
    }
  }, 120_000);
});
