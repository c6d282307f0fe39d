import { describe, expect, it } from "vitest";
import { FileEntryReader } from "../../app/store/entry-reader.ts";
import type { EntryReader } from "./entry-reader.ts";
import { EntrySearch, entrySearchText, searchWords } from "./entry-search.ts";
import { type ParseMode, parseSessionBytes } from "./parse.ts";
import { generateSession, Rng } from "./testing/generate-session.ts";
import { type EntryReaderFactory, readInPieces } from "./testing/read-in-pieces.ts";
import { buildSessionIndex, type SessionIndex } from "./tree-index.ts";

const T = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();

/** One entry of each searchable kind, with words that appear nowhere else. */
const LINES: Record<string, unknown>[] = [
  { type: "session", version: 3, id: "s", timestamp: T(0), cwd: "/w" },
  message("u1", null, 1, { role: "user", content: "Plan the work\nthen mention zebra on line two" }),
  message("a1", "u1", 2, {
    role: "assistant",
    content: [
      { type: "thinking", thinking: "pondering quokka" },
      { type: "text", text: "Reading it." },
      { type: "toolCall", id: "c1", name: "read", arguments: { path: "src/deep/widget.ts", limit: 40 } },
    ],
    stopReason: "toolUse",
  }),
  message("r1", "a1", 3, {
    role: "toolResult",
    toolCallId: "c1",
    toolName: "read",
    content: [{ type: "text", text: "SECRETOUTPUT of the file" }],
    isError: false,
  }),
  message("b1", "r1", 4, {
    role: "bashExecution",
    command: "npm run lint -- --fix",
    output: "hiddenbashoutput",
    exitCode: 0,
  }),
  {
    type: "compaction",
    id: "c2",
    parentId: "b1",
    timestamp: T(5),
    summary: "## Goal\nsecond line mentions walrus",
    firstKeptEntryId: "u1",
    tokensBefore: 10,
  },
  {
    type: "custom_message",
    id: "m1",
    parentId: "c2",
    timestamp: T(6),
    customType: "note",
    content: "otter note",
    display: true,
  },
  {
    type: "model_change",
    id: "mc",
    parentId: "m1",
    timestamp: T(7),
    provider: "anthropic",
    modelId: "claude-opus-9",
  },
  message("u2", "mc", 8, { role: "user", content: "Take the left branch" }),
  { type: "label", id: "l1", parentId: "u2", timestamp: T(9), targetId: "u2", label: "Checkpoint" },
];

function message(id: string, parentId: string | null, n: number, body: Record<string, unknown>) {
  return { type: "message", id, parentId, timestamp: T(n), message: { ...body, timestamp: n } };
}

const TEXT = LINES.map((line) => `${JSON.stringify(line)}\n`).join("");
const BYTES = new TextEncoder().encode(TEXT);

/** An index of `bytes` and its entry reader. */
interface Indexed {
  index: SessionIndex;
  reader: EntryReader;
}

const fileReader: EntryReaderFactory = (index, readBody) => new FileEntryReader(index, readBody);

function indexOf(
  bytes: Uint8Array,
  mode: ParseMode,
  readBody = (offset: number, length: number) => bytes.subarray(offset, offset + length),
): Indexed {
  const index = buildSessionIndex(parseSessionBytes(bytes, { mode }));
  return { index, reader: new FileEntryReader(index, readBody) };
}

const searchOf = ({ index, reader }: Indexed) => new EntrySearch(index, reader);

const find = (indexed: Indexed, query: string, limit = 1000) => searchOf(indexed).search(query, limit);

describe("EntrySearch", () => {
  for (const mode of ["full", "structure", "structure-with-facts"] as const) {
    it(`finds every searchable field, whole, and nothing in tool output (${mode})`, async () => {
      const indexed = indexOf(BYTES, mode);
      const ids = async (query: string) => (await find(indexed, query)).entryIds;
      expect(await ids("zebra")).toEqual(["u1"]); // text past the first line
      expect(await ids("quokka")).toEqual(["a1"]); // thinking
      expect(await ids("deep/widget")).toEqual(["a1"]); // a tool call's arguments
      expect(await ids("limit 40")).toEqual(["a1"]);
      expect(await ids("secretoutput")).toEqual([]); // tool output is not searched...
      expect(await ids("read")).toEqual(["a1", "r1"]); // ...its tool name is, as is the call's
      expect(await ids("--fix")).toEqual(["b1"]); // a bash command
      expect(await ids("hiddenbashoutput")).toEqual([]);
      expect(await ids("walrus")).toEqual(["c2"]); // a summary, whole
      expect(await ids("otter note")).toEqual(["m1"]);
      expect(await ids("claude-opus-9")).toEqual(["mc"]);
      expect(await ids("compaction")).toEqual(["c2"]); // the entry type
      // Every word must match, each anywhere in the entry or its label, in any case.
      expect(await ids("CHECKPOINT left")).toEqual(["u2"]);
      expect(await ids("checkpoint right")).toEqual([]);
      expect(await ids("   ")).toEqual([]);
    });
  }

  it("stops at the limit and says so", async () => {
    const indexed = indexOf(BYTES, "full");
    expect(await find(indexed, "the", 1)).toEqual({ entryIds: ["u1"], truncated: true });
    const all = (await find(indexed, "the")).entryIds;
    expect(await find(indexed, "the", all.length)).toEqual({ entryIds: all, truncated: false });
  });

  it("reads a structure-first index's bodies once, in one run for a small file", async () => {
    let reads = 0;
    const indexed = indexOf(BYTES, "structure", (offset, length) => {
      reads++;
      return BYTES.subarray(offset, offset + length);
    });
    // Facts are read first, once (the search needs each entry's kind).
    indexed.reader.facts("u1");
    reads = 0;
    const search = searchOf(indexed);
    expect((await search.search("zebra", 10)).entryIds).toEqual(["u1"]);
    expect(reads).toBe(1);
    reads = 0;
    expect((await search.search("walrus", 10)).entryIds).toEqual(["c2"]);
    expect(reads).toBe(0);
  });

  it("matches a fresh search after every append, new labels included", async () => {
    for (let seed = 1; seed <= 25; seed++) {
      const generated = generateSession({ seed, damage: seed % 4 === 0 });
      const bytes = new TextEncoder().encode(generated.text);
      const rng = new Rng(seed * 31);
      const cuts = [...new Set(Array.from({ length: 4 }, () => rng.int(1, bytes.length - 1)))].sort(
        (a, b) => a - b,
      );
      const words = [...new Set(searchWords(generated.text.replace(/[^A-Za-z ]+/g, " ")))].filter(
        (word) => word.length > 3,
      );
      const queries = Array.from({ length: 6 }, () => `${rng.pick(words)} ${rng.pick(words).slice(1, 4)}`);
      const mode: ParseMode = seed % 2 === 0 ? "structure-with-facts" : "full";
      let search: EntrySearch | null = null;
      for (const step of readInPieces(bytes, cuts, mode, fileReader)) {
        if (step.rebuilt || search === null) search = searchOf(step);
        for (const query of queries) {
          expect(await search.search(query, 10_000), `seed ${seed}, "${query}"`).toEqual(
            await searchOf(step).search(query, 10_000),
          );
        }
      }
      // And the last one is the search of a whole read of the file.
      const whole = indexOf(bytes, "full");
      for (const query of queries) {
        expect((await search!.search(query, 10_000)).entryIds).toEqual(
          (await find(whole, query, 10_000)).entryIds,
        );
      }
    }
  });
});

/** `count` user entries e0, e1, ... of about 3.2 KB each, one chain. */
function bigSession(count: number): Uint8Array {
  const lines = [JSON.stringify(LINES[0])];
  let parentId: string | null = null;
  for (let i = 0; i < count; i++) {
    const id = `e${i}`;
    lines.push(
      JSON.stringify(message(id, parentId, i, { role: "user", content: `entry ${i} ${"pad ".repeat(800)}` })),
    );
    parentId = id;
  }
  return new TextEncoder().encode(`${lines.join("\n")}\n`);
}

describe("EntrySearch's pauses", () => {
  it("reads a large structure-first session in batches, pausing between them; appends meanwhile are found", async () => {
    const lines = [JSON.stringify(LINES[0])];
    let parentId: string | null = null;
    for (let i = 0; i < 3000; i++) {
      const id = `e${i}`;
      lines.push(
        JSON.stringify(
          message(id, parentId, i, { role: "user", content: `entry ${i} ${"pad ".repeat(800)}` }),
        ),
      );
      parentId = id;
    }
    const head = `${lines.join("\n")}\n`;
    const tail = `${JSON.stringify(message("late", parentId, 9999, { role: "user", content: "a late narwhal" }))}\n`;
    const bytes = new TextEncoder().encode(head + tail);
    const headBytes = new TextEncoder().encode(head).length;
    const pieces = readInPieces(bytes, [headBytes], "structure-with-facts", fileReader);
    const first = pieces.next().value!;
    expect(first.index.nodes.has("late")).toBe(false);
    const search = searchOf(first);
    let pauses = 0;
    const found = await search.search("narwhal", 10, async () => {
      pauses++;
      // Pi appends a line while the search pauses: the index grows in place.
      if (pauses === 1) expect(pieces.next().value!.rebuilt).toBe(false);
    });
    // About 10 MB of bodies, read 4 MB at a time, with a pause between.
    expect(pauses).toBeGreaterThanOrEqual(2);
    expect(found.entryIds).toEqual(["late"]);
    expect((await search.search("entry 2999", 10)).entryIds).toEqual(["e2999"]);
  });

  it("reads the file once for searches asked together, the second during the first's pause", async () => {
    const bytes = bigSession(3000);
    let reads = 0;
    const counted = () =>
      indexOf(bytes, "structure-with-facts", (offset, length) => {
        reads++;
        return bytes.subarray(offset, offset + length);
      });
    await searchOf(counted()).search("entry", 10);
    const readsOfOneSearch = reads;
    reads = 0;
    const search = searchOf(counted());
    let resume: () => void = () => {};
    let paused = 0;
    const first = search.search("entry 2999", 10, () => {
      paused++;
      return new Promise<void>((resolve) => {
        resume = resolve;
      });
    });
    await Promise.resolve();
    expect(paused).toBe(1);
    const readsAtPause = reads;
    // Asked during the first one's pause: it reads only what the first has not read yet.
    const second = search.search("entry 1", 10);
    for (let i = 0; i < 20 && paused > 0; i++) {
      const before = paused;
      resume();
      await new Promise((resolve) => setTimeout(resolve, 0));
      if (paused === before) break;
    }
    const [a, b] = await Promise.all([first, second]);
    expect(a.entryIds).toEqual(["e2999"]);
    expect(b.entryIds.length).toBeGreaterThan(0);
    expect(readsAtPause).toBeGreaterThan(0);
    // The file was read once: a second catch-up would have read it again.
    expect(reads).toBe(readsOfOneSearch);
  });
});

describe("entrySearchText", () => {
  it("is lowercase and leaves the label out (labels are matched apart)", () => {
    const { reader } = indexOf(BYTES, "full");
    const text = entrySearchText(reader.entry("u2")!, reader.facts("u2"));
    expect(text).toContain("take the left branch");
    expect(text).not.toContain("checkpoint");
  });
});
