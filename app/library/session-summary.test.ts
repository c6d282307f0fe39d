import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { scanSessionFile } from "./scan-file.ts";
import { createSessionLibrary, type LibrarySession } from "./session-library.ts";
import { FIRST_MESSAGE_LIMIT, isPiToolResultLine, NO_MESSAGES } from "./session-summary.ts";
import { type PiSessionInfo, piListAllOnCopy, SessionBuilder, tempFolder, writeLines } from "./testing.ts";

let folder: ReturnType<typeof tempFolder>;
let dir: string;

beforeEach(() => {
  folder = tempFolder();
  dir = join(folder.path, "sessions");
  mkdirSync(dir);
});
afterEach(() => folder.cleanup());

async function arborSessions(): Promise<LibrarySession[]> {
  const library = createSessionLibrary({ roots: [dir], cacheDir: null });
  await library.scan();
  const { sessions } = library.list();
  await library.dispose();
  return sessions;
}

/** The fields Pi's SessionInfo and Arbor's summary share, in Pi's terms. */
function piView(session: PiSessionInfo) {
  const created = session.created.getTime();
  return {
    path: session.path,
    id: session.id,
    cwd: session.cwd,
    name: session.name,
    parentSession: session.parentSessionPath,
    created: Number.isNaN(created) ? null : created,
    modified: session.modified.getTime(),
    messageCount: session.messageCount,
    firstMessage: session.firstMessage.slice(0, FIRST_MESSAGE_LIMIT),
  };
}

function arborView(session: LibrarySession) {
  return {
    path: session.path,
    id: session.id,
    cwd: session.cwd,
    name: session.name,
    parentSession: session.parentSession,
    created: session.created,
    modified: session.modified,
    messageCount: session.messageCount,
    firstMessage: session.firstMessage,
  };
}

async function expectSameAsPi(): Promise<LibrarySession[]> {
  const pi = (await piListAllOnCopy(dir)).map(piView).sort((a, b) => a.path.localeCompare(b.path));
  const sessions = await arborSessions();
  const arbor = sessions.map(arborView).sort((a, b) => a.path.localeCompare(b.path));
  expect(arbor).toEqual(pi);
  return sessions;
}

describe("session summaries follow Pi 1.6's buildSessionInfo (Pi's listAll is the oracle)", () => {
  it("name: the latest session_info wins, trimmed, and an empty name clears it", async () => {
    const named = new SessionBuilder("019a0000-0000-7000-8000-000000000001", "/p/one");
    named.user("hello");
    named.name("  First name  ");
    named.assistant("hi");
    named.name("Second name");
    named.write(join(dir, "a.jsonl"));
    const cleared = new SessionBuilder("019a0000-0000-7000-8000-000000000002", "/p/one");
    cleared.name("Gone");
    cleared.user("x");
    cleared.name("   ");
    cleared.write(join(dir, "b.jsonl"));
    const unset = new SessionBuilder("019a0000-0000-7000-8000-000000000003", "/p/one");
    unset.name("Was set");
    unset.name(undefined);
    unset.write(join(dir, "c.jsonl"));
    const sessions = await expectSameAsPi();
    const byId = new Map(sessions.map((s) => [s.id.slice(-1), s.name]));
    expect(byId).toEqual(
      new Map([
        ["1", "Second name"],
        ["2", undefined],
        ["3", undefined],
      ]),
    );
  });

  it("first message: the first user message with text, text blocks joined by spaces", async () => {
    const s = new SessionBuilder("019a0000-0000-7000-8000-000000000011", "/p/two");
    s.assistant("an assistant speaks first");
    s.user([{ type: "image", data: "AAAA", mimeType: "image/png" }]);
    s.user([
      { type: "text", text: "first part" },
      { type: "image", data: "AAAA", mimeType: "image/png" },
      { type: "text", text: "second part" },
    ]);
    s.user("a later message");
    s.write(join(dir, "blocks.jsonl"));
    const plain = new SessionBuilder("019a0000-0000-7000-8000-000000000012", "/p/two");
    plain.user("just a string\nwith a second line");
    plain.write(join(dir, "plain.jsonl"));
    const none = new SessionBuilder("019a0000-0000-7000-8000-000000000013", "/p/two");
    none.entry({ type: "model_change", provider: "anthropic", modelId: "claude" });
    none.assistant("only the assistant");
    none.write(join(dir, "none.jsonl"));
    const long = new SessionBuilder("019a0000-0000-7000-8000-000000000014", "/p/two");
    long.user("word ".repeat(1000));
    long.write(join(dir, "long.jsonl"));
    const sessions = await expectSameAsPi();
    const first = new Map(sessions.map((s) => [s.id.slice(-2), s.firstMessage]));
    expect(first.get("11")).toBe("first part second part");
    expect(first.get("12")).toBe("just a string\nwith a second line");
    expect(first.get("13")).toBe(NO_MESSAGES);
    expect(first.get("14")).toHaveLength(FIRST_MESSAGE_LIMIT);
  });

  it("message count: every message entry, whatever its role", async () => {
    const s = new SessionBuilder("019a0000-0000-7000-8000-000000000021", "/p/three");
    s.user("run it");
    s.assistant("", [{ name: "bash", arguments: { command: "ls" } }]);
    s.toolResult("bash", "a\nb");
    s.assistant("done");
    s.message({
      role: "bashExecution",
      command: "pwd",
      output: "/",
      exitCode: 0,
      cancelled: false,
      truncated: false,
    });
    s.message({ role: "custom", customType: "note", content: "x", display: true });
    s.entry({
      type: "custom_message",
      customType: "reminder",
      content: "not a message entry",
      display: true,
    });
    s.entry({ type: "label", targetId: "019a0001", label: "here" });
    s.write(join(dir, "count.jsonl"));
    const [session] = await expectSameAsPi();
    expect(session?.messageCount).toBe(6);
  });

  it("modified: the latest user/assistant activity, else the header time, else the file's mtime", async () => {
    const start = Date.UTC(2026, 1, 1);
    const active = new SessionBuilder("019a0000-0000-7000-8000-000000000031", "/p/four", { start });
    active.user("q");
    active.assistant("a");
    // A tool result later than every user/assistant message does not count.
    active.toolResult("read", "late");
    active.write(join(dir, "active.jsonl"));
    const entryTime = new SessionBuilder("019a0000-0000-7000-8000-000000000032", "/p/four", { start });
    entryTime.user("no message timestamp", { withTimestamp: false });
    entryTime.write(join(dir, "entry-time.jsonl"));
    const idle = new SessionBuilder("019a0000-0000-7000-8000-000000000033", "/p/four", { start });
    idle.entry({ type: "model_change", provider: "openai", modelId: "gpt" });
    idle.write(join(dir, "idle.jsonl"));
    const noTime = writeLines(join(dir, "no-time.jsonl"), [
      { type: "session", version: 3, id: "019a0000-0000-7000-8000-000000000034", cwd: "/p/four" },
      { type: "thinking_level_change", id: "a1", parentId: null, timestamp: "x", thinkingLevel: "high" },
    ]);
    utimesSync(noTime, new Date(start + 5_000), new Date(start + 5_000));
    const sessions = await expectSameAsPi();
    const modified = new Map(sessions.map((s) => [s.id.slice(-2), s.modified - start]));
    expect(modified).toEqual(
      new Map([
        ["31", 2 * 60_000],
        ["32", 60_000],
        ["33", 0],
        ["34", 5_000],
      ]),
    );
    expect(sessions.find((s) => s.id.endsWith("34"))?.created).toBeNull();
  });

  it("reads damaged files as Pi does: bad and blank lines skipped, CRLF, an unterminated last line", async () => {
    const s = new SessionBuilder("019a0000-0000-7000-8000-000000000041", "/p/five");
    s.user("before the damage");
    s.lines.push('{"type":"message","id":"bad1","parentId"', "", "   ", "not json at all");
    s.assistant("after the damage");
    s.name("Damaged but named");
    s.user("the last line is cut");
    s.write(join(dir, "damaged.jsonl"), { unterminated: true });
    const crlf = new SessionBuilder("019a0000-0000-7000-8000-000000000042", "/p/five");
    crlf.user("windows line ends");
    crlf.assistant("ok");
    writeFileSync(
      join(dir, "crlf.jsonl"),
      `${crlf.lines.map((line) => JSON.stringify(line)).join("\r\n")}\r\n`,
    );
    const leading = new SessionBuilder("019a0000-0000-7000-8000-000000000043", "/p/five");
    leading.user("a header after junk");
    leading.lines.unshift("", "{not json", "null");
    leading.write(join(dir, "leading-junk.jsonl"));
    const sessions = await expectSameAsPi();
    const damaged = sessions.find((session) => session.id.endsWith("41"));
    expect(damaged).toMatchObject({
      messageCount: 3,
      name: "Damaged but named",
      badLines: 2,
      firstBadLine: 3,
    });
    expect(sessions.find((session) => session.id.endsWith("43"))?.badLines).toBe(1);
  });

  it("counts tool results from their first and last bytes, and a cut one not at all", async () => {
    const s = new SessionBuilder("019a0000-0000-7000-8000-000000000045", "/p/five");
    s.user("read it");
    s.assistant("", [{ name: "read", arguments: { path: "a.ts" } }]);
    s.toolResult("read", 'const x = { "timestamp": 1 }}\n'.repeat(50));
    const whole = JSON.stringify(s.lines.at(-1));
    // Cut right after a "}}" inside the content: looks closed, is not JSON.
    const cutAt = whole.indexOf("}}") + 2;
    s.lines.push(whole.slice(0, cutAt), whole.slice(0, -5));
    // Tool results written otherwise than Pi writes them: parsed as usual.
    s.message(
      { role: "toolResult", toolCallId: "c1", content: [], isError: false },
      { withTimestamp: false },
    );
    s.lines.push({
      message: { role: "toolResult", content: [], timestamp: 5 },
      type: "message",
      id: "m1",
      parentId: null,
    });
    s.assistant("done");
    s.write(join(dir, "tools.jsonl"));
    const [session] = await expectSameAsPi();
    expect(session).toMatchObject({ messageCount: 6, badLines: 2 });

    const bytes = (line: unknown) => Buffer.from(typeof line === "string" ? line : JSON.stringify(line));
    const piLine = bytes(whole);
    expect(isPiToolResultLine(piLine, 0, piLine.length)).toBe(true);
    const crlf = bytes(`${whole}\r`);
    expect(isPiToolResultLine(crlf, 0, crlf.length)).toBe(true);
    for (const line of [
      whole.slice(0, cutAt),
      whole.slice(0, -1),
      s.lines[1],
      s.lines.at(-2),
      s.lines.at(-3),
    ]) {
      const b = bytes(line);
      expect(isPiToolResultLine(b, 0, b.length), String(line).slice(0, 80)).toBe(false);
    }
  });

  it("non-ASCII text and a version 1 header", async () => {
    const s = new SessionBuilder("019a0000-0000-7000-8000-000000000051", "/p/ü/日本", { version: null });
    s.lines.push(
      {
        type: "message",
        timestamp: "2026-01-01T13:00:00.000Z",
        message: { role: "user", content: "Größe → 🎉 テスト" },
      },
      {
        type: "message",
        timestamp: "2026-01-01T13:01:00.000Z",
        message: { role: "assistant", content: [{ type: "text", text: "ok" }] },
      },
    );
    s.write(join(dir, "v1.jsonl"));
    const [session] = await expectSameAsPi();
    expect(session).toMatchObject({ version: 1, firstMessage: "Größe → 🎉 テスト", messageCount: 2 });
  });

  it("lists files Pi leaves out, with the reason", async () => {
    writeFileSync(join(dir, "empty.jsonl"), "");
    writeFileSync(join(dir, "blank.jsonl"), "\n\n  \n");
    writeLines(join(dir, "entry-first.jsonl"), [
      {
        type: "message",
        id: "a",
        parentId: null,
        timestamp: "2026-01-01T00:00:00Z",
        message: { role: "user" },
      },
    ]);
    writeFileSync(join(dir, "binary.jsonl"), Buffer.from([0xff, 0xfe, 0x00, 0x01, 0x0a, 0x80]));
    writeLines(join(dir, "array.jsonl"), ["[1,2,3]"]);
    new SessionBuilder("019a0000-0000-7000-8000-000000000061", "/p/six").write(join(dir, "good.jsonl"));
    expect((await piListAllOnCopy(dir)).map((s) => s.id)).toEqual(["019a0000-0000-7000-8000-000000000061"]);
    const library = createSessionLibrary({ roots: [dir], cacheDir: null });
    const report = await library.scan();
    const { sessions, failed } = library.list();
    expect(sessions.map((s) => s.id)).toEqual(["019a0000-0000-7000-8000-000000000061"]);
    expect(report.failed).toBe(5);
    expect(Object.fromEntries(failed.map((s) => [s.path.slice(dir.length + 1), s.error?.code]))).toEqual({
      "array.jsonl": "not-a-session",
      "binary.jsonl": "empty",
      "blank.jsonl": "empty",
      "empty.jsonl": "empty",
      "entry-first.jsonl": "not-a-session",
    });
    expect(failed.find((s) => s.path.endsWith("binary.jsonl"))).toMatchObject({
      badLines: 2,
      firstBadLine: 1,
    });
    await library.dispose();
  });

  it("lists a session whose odd field types make Pi drop it", async () => {
    const s = new SessionBuilder("019a0000-0000-7000-8000-000000000071", "/p/seven");
    s.user("fine");
    s.entry({ type: "message", message: { role: "user", content: null, timestamp: 1 } });
    s.entry({ type: "message" });
    s.entry({ type: "session_info", name: 42 });
    s.assistant("still read");
    s.write(join(dir, "odd.jsonl"));
    expect(await piListAllOnCopy(dir)).toEqual([]);
    const [session] = await arborSessions();
    expect(session).toMatchObject({ messageCount: 4, firstMessage: "fine", name: undefined });
  });

  it("an unreadable path is summarized with an error, not thrown", async () => {
    mkdirSync(join(dir, "folder.jsonl"));
    const { summary, terms } = await scanSessionFile(join(dir, "folder.jsonl"), { withTerms: true });
    expect(summary.error?.code).toBe("unreadable");
    expect(terms).toBeNull();
  });
});
