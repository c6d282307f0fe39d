// A stand-in for a running Pi, for the follow tests: appends valid Pi
// entries to a session file through an O_APPEND descriptor, one whole line
// per write, like Pi's appendFileSync. Some lines are written in two parts
// with a pause between them (cut anywhere, even inside a UTF-8 sequence), so
// the file ends in a half-written line for a while.
//
//   node pi-writer.mjs '{"path": "...", "count": 10000, "leafId": "...", "seed": 1}'
//
// Talks to its parent over the IPC channel when it has one: before the first
// part of a split line it sends {type: "split-request"} and waits for
// {type: "split-go"}, then sends {type: "split-written"}; at the end it sends
// {type: "done", ids, splits}. (See follow.test.ts for why the parent holds
// its own appends for that instant.) Without a channel it just writes.

import { closeSync, openSync, writeSync } from "node:fs";

const options = JSON.parse(process.argv[2] ?? "{}");
const path = options.path;
const count = options.count ?? 1000;
const splitChance = options.splitChance ?? 0.03;
const paceEvery = options.paceEvery ?? 5;
let leafId = options.leafId ?? null;

/** mulberry32 */
let state = (options.seed ?? 1) >>> 0;
function random() {
  state = (state + 0x6d2b79f5) | 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const int = (low, high) => low + Math.floor(random() * (high - low + 1));
const pick = (items) => items[Math.floor(random() * items.length)];

const WORDS = ["session", "tree", "branch", "leaf", "append", "read", "file", "json", "line", "node"];
const WIDE = ["→", "ü", "日本語", "中文", "Ωμέγα", "Привет", "🌳", "🚀"];

/** Text of about `bytes` UTF-8 bytes, some of it multi-byte. */
function text(bytes) {
  const parts = [];
  let length = 0;
  while (length < bytes) {
    const word = random() < 0.15 ? pick(WIDE) : pick(WORDS);
    parts.push(word);
    length += Buffer.byteLength(word) + 1;
  }
  return parts.join(" ");
}

/** Sizes from tens of bytes to tens of kilobytes, now and then a few hundred. */
function size() {
  if (random() < 0.01) return int(100_000, 300_000);
  return Math.floor(Math.exp(Math.log(20) + random() * (Math.log(20_000) - Math.log(20))));
}

const usedIds = new Set(options.usedIds ?? []);
function freshId() {
  for (;;) {
    let id = "";
    for (let i = 0; i < 8; i++) id += "0123456789abcdef"[int(0, 15)];
    if (!usedIds.has(id)) {
      usedIds.add(id);
      return id;
    }
  }
}

function usage() {
  const input = int(100, 50_000);
  const output = int(10, 4000);
  return {
    input,
    output,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: input + output,
    cost: { input: input * 3e-6, output: output * 15e-6, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
}

let toolCallCount = 0;
function nextEntry() {
  const base = { id: freshId(), parentId: leafId, timestamp: new Date().toISOString() };
  const kind = random();
  if (kind < 0.3) {
    return {
      type: "message",
      ...base,
      message: { role: "user", content: text(size()), timestamp: Date.now() },
    };
  }
  if (kind < 0.6) {
    const content = [{ type: "text", text: text(size()) }];
    if (random() < 0.3)
      content.unshift({ type: "thinking", thinking: text(size()), thinkingSignature: "sig" });
    if (random() < 0.4) {
      content.push({
        type: "toolCall",
        id: `call_${++toolCallCount}`,
        name: "bash",
        arguments: { command: "ls" },
      });
    }
    return {
      type: "message",
      ...base,
      message: {
        role: "assistant",
        content,
        api: "anthropic-messages",
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        usage: usage(),
        stopReason: "stop",
        timestamp: Date.now(),
      },
    };
  }
  if (kind < 0.85) {
    return {
      type: "message",
      ...base,
      message: {
        role: "toolResult",
        toolCallId: `call_${toolCallCount}`,
        toolName: "bash",
        content: [{ type: "text", text: text(size()) }],
        isError: random() < 0.1,
        timestamp: Date.now(),
      },
    };
  }
  if (kind < 0.89) return { type: "model_change", ...base, provider: "anthropic", modelId: pick(["a", "b"]) };
  if (kind < 0.92)
    return { type: "thinking_level_change", ...base, thinkingLevel: pick(["off", "low", "high"]) };
  if (kind < 0.96) {
    // Pi writes customType before id for these two.
    const { id, parentId, timestamp } = base;
    return { type: "custom", customType: "ext", data: { n: int(0, 1000) }, id, parentId, timestamp };
  }
  if (kind < 0.99) {
    const { id, parentId, timestamp } = base;
    return {
      type: "custom_message",
      customType: "ext",
      content: text(size()),
      display: true,
      details: undefined,
      id,
      parentId,
      timestamp,
    };
  }
  return { type: "session_info", ...base, name: text(20) };
}

const hasChannel = typeof process.send === "function";
const waiting = [];
if (hasChannel) {
  process.on("message", (message) => {
    const next = waiting.shift();
    if (next) next(message);
  });
}
const receive = () => new Promise((resolve) => waiting.push(resolve));
const send = (message) => new Promise((resolve) => process.send(message, resolve));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const fd = openSync(path, "a");
const ids = [];
let splits = 0;
try {
  for (let i = 0; i < count; i++) {
    const entry = nextEntry();
    const bytes = Buffer.from(`${JSON.stringify(entry)}\n`, "utf8");
    if (random() < splitChance && bytes.length > 2) {
      const cut = int(1, bytes.length - 1);
      if (hasChannel) {
        await send({ type: "split-request" });
        await receive();
      }
      writeSync(fd, bytes, 0, cut);
      if (hasChannel) await send({ type: "split-written" });
      await sleep(int(1, 8));
      writeSync(fd, bytes, cut, bytes.length - cut);
      splits++;
    } else {
      writeSync(fd, bytes, 0, bytes.length);
    }
    ids.push(entry.id);
    leafId = entry.id;
    if (i % paceEvery === 0) await sleep(int(0, 1));
  }
} finally {
  closeSync(fd);
}
if (hasChannel) {
  await send({ type: "done", ids, splits });
  process.disconnect();
} else {
  process.stdout.write(`${JSON.stringify({ ids: ids.length, splits })}\n`);
}
