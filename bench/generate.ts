/**
 * Deterministic generator of realistic Pi v3 session files for the benchmarks.
 *
 * Every file comes from a seeded PRNG, so the same generator source always
 * writes the same bytes. Sessions look like real ones: a header, a model and
 * thinking level, then turns of user -> assistant (thinking + text +
 * toolCalls) -> toolResults -> ... -> assistant (final text), with the
 * occasional branch (a re-asked prompt, sometimes with a branch summary),
 * compaction, label, session name, model change and extension entries
 * (`custom` / `custom_message`, written with `customType` before `id`, as Pi
 * writes them). About one text in six carries non-ASCII characters, so many
 * parsed strings are two-byte strings in V8.
 *
 * Files are written streaming, in 4 MiB chunks: nothing but the ids of the
 * current branch is held in memory, so the ~700 MB file costs no more memory
 * than the small ones.
 *
 * Two files serve the compare measurements only (issue 18): `fork20k`, two
 * 5k-entry branches from the leaf of a 10k-entry trunk, and `tips100k`, a
 * 100k-entry session that branches often enough to have about 1,000 tips.
 *
 *   npx tsx bench/generate.ts          # the standard set
 *   npx tsx bench/generate.ts --huge   # ... plus the ~700 MB file
 *   npx tsx bench/generate.ts --force  # regenerate even if up to date
 */

import { createHash } from "node:crypto";
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  statSync,
  writeSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
export const DATA_DIR = join(BENCH_DIR, "data");
const MANIFEST = join(DATA_DIR, "manifest.json");

export type Profile = "normal" | "heavy" | "chain" | "fork" | "short";

export interface FileSpec {
  /** File name (without directory) and the name used in reports. */
  name: string;
  profile: Profile;
  seed: number;
  /** Stop after this many entries (header not counted)... */
  entries?: number;
  /** ...or once the file has at least this many bytes. */
  bytes?: number;
  huge?: boolean;
  /** `fork` files: the trunk's entries; the rest is split between two branches from its leaf. */
  trunk?: number;
  /** Chance per turn of asking an earlier prompt again (default 0.05; never in `chain` and `fork` files). */
  branchChance?: number;
  /** For the compare measurements only, not the open table. */
  compare?: boolean;
  /** For the memory measurements only (peak RSS per entry, the library scan), not the open table. */
  memory?: boolean;
  /** For the many-small-entries measurement only (`arbor stats` against Pi's open), not the open table. */
  small?: boolean;
}

export const FILE_SPECS: readonly FileSpec[] = [
  { name: "s1k", profile: "normal", seed: 1001, entries: 1_000 },
  { name: "s10k", profile: "normal", seed: 1002, entries: 10_000 },
  { name: "s100k", profile: "normal", seed: 1003, entries: 100_000 },
  { name: "mb100", profile: "heavy", seed: 2001, bytes: 100 * 1e6 },
  { name: "chain100k", profile: "chain", seed: 3001, entries: 100_000 },
  { name: "mb700", profile: "heavy", seed: 4001, bytes: 700 * 1e6, huge: true },
  { name: "fork20k", profile: "fork", seed: 5001, entries: 20_000, trunk: 10_000, compare: true },
  { name: "tips100k", profile: "normal", seed: 5002, entries: 100_000, branchChance: 0.15, compare: true },
  { name: "s1m", profile: "normal", seed: 1005, entries: 1_000_000, memory: true },
  { name: "small160k", profile: "short", seed: 1006, entries: 160_000, small: true },
];

export interface GeneratedFile {
  name: string;
  path: string;
  profile: Profile;
  bytes: number;
  entries: number;
  /** Entries with more than one child. */
  branchPoints: number;
  /** The last entry in file order: Pi's leaf. */
  leafId: string;
  /** Depth of the leaf (root = 0). */
  leafDepth: number;
  sha256: string;
  /** `fork` files: the leaves of the two branches. */
  tips?: string[];
}

interface Manifest {
  generator: string;
  files: Record<string, GeneratedFile>;
}

export function dataPath(name: string): string {
  return join(DATA_DIR, `${name}.jsonl`);
}

// ---------------------------------------------------------------------------
// PRNG and text

/** xoshiro128**: small, fast, good enough, and fully determined by the seed. */
class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    // splitmix32 to spread the seed over the state
    let s = seed >>> 0;
    const next = () => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
  }

  u32(): number {
    const result = Math.imul(rotl(Math.imul(this.b, 5), 7), 9) >>> 0;
    const t = this.b << 9;
    this.c ^= this.a;
    this.d ^= this.b;
    this.b ^= this.c;
    this.a ^= this.d;
    this.c ^= t;
    this.d = rotl(this.d, 11);
    return result;
  }

  /** [0, 1) */
  float(): number {
    return this.u32() / 4294967296;
  }

  /** Integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.float() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.float() * items.length)] as T;
  }

  /** Log-normal-ish length: median `median`, long tail, clamped. */
  length(median: number, max: number, min = 1): number {
    // Box-Muller
    const u = Math.max(this.float(), 1e-12);
    const v = this.float();
    const normal = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    return Math.max(min, Math.min(max, Math.round(median * Math.exp(0.8 * normal))));
  }

  hex(length: number): string {
    let out = "";
    while (out.length < length) out += this.u32().toString(16).padStart(8, "0");
    return out.slice(0, length);
  }
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}

const WORDS = (
  "the a to of and in is it that for on with as this be are we can not you file function test " +
  "type error value return should now will use code change fix update add remove check build " +
  "run session entry tree branch parent child index parser line buffer string array map set " +
  "node module import export const let async await promise result option config path read " +
  "write append stream chunk offset byte length size memory time fast slow cache lookup state " +
  "render component props store event handler callback queue worker thread process signal " +
  "because then so but if when while after before first last next previous again also only " +
  "looks like seems the issue is here there which means works fails passes expected actual"
).split(" ");

const NON_ASCII = [
  "→",
  "✓",
  "✗",
  "—",
  "“quoted”",
  "über",
  "naïve",
  "façade",
  "Größe",
  "日本語のテキスト",
  "中文注释",
  "テストが失敗しました",
  "Ελληνικά",
  "кириллица",
  "🎉",
  "🚀",
  "⚠️",
  "…",
];

const IDENTS = [
  "sessionIndex",
  "parseLine",
  "buildTree",
  "entryById",
  "childrenOf",
  "leafId",
  "readChunk",
  "lineOffsets",
  "contextGraph",
  "applyLabel",
  "resolveLeaf",
  "handleMessage",
  "useSessionStore",
  "renderNode",
];

const PATHS = [
  "src/core/session-manager.ts",
  "src/core/messages.ts",
  "src/index.ts",
  "app/store/read-whole-session-file.ts",
  "shared/session/tree-index.ts",
  "shared/session/parse.ts",
  "renderer/graph/TreeView.tsx",
  "test/session-manager.test.ts",
  "package.json",
  "README.md",
  "docs/session-format.md",
  "scripts/build.mjs",
];

class Text {
  constructor(private readonly rng: Rng) {}

  /** Prose of about `length` characters; sometimes with non-ASCII words. */
  prose(length: number): string {
    const rng = this.rng;
    const unicode = rng.chance(1 / 6);
    const parts: string[] = [];
    let size = 0;
    let sentence = 0;
    while (size < length) {
      let word = unicode && rng.chance(0.06) ? rng.pick(NON_ASCII) : rng.pick(WORDS);
      if (rng.chance(0.03)) word = `\`${rng.pick(IDENTS)}\``;
      if (sentence === 0) word = word.charAt(0).toUpperCase() + word.slice(1);
      sentence++;
      if (sentence > 6 && rng.chance(0.15)) {
        word += rng.chance(0.85) ? "." : rng.chance(0.5) ? "?" : ":";
        sentence = 0;
        if (rng.chance(0.12)) word += "\n\n";
      } else if (rng.chance(0.05)) {
        word += ",";
      }
      parts.push(word);
      size += word.length + 1;
    }
    return parts.join(" ");
  }

  /** Source-code-like lines, about `length` characters. */
  code(length: number, numbered = false): string {
    const rng = this.rng;
    const unicode = rng.chance(1 / 8);
    const lines: string[] = [];
    let size = 0;
    let indent = 0;
    let n = rng.int(1, 400);
    while (size < length) {
      const id = rng.pick(IDENTS);
      const other = rng.pick(IDENTS);
      let line: string;
      switch (rng.int(0, 9)) {
        case 0:
          line = `import { ${id}, ${other} } from "./${rng.pick(IDENTS)}.ts";`;
          break;
        case 1:
          line = `export function ${id}(${other}: string, options: Options = {}): Result {`;
          indent++;
          break;
        case 2:
          line = `const ${id} = ${other}.get(entry.id) ?? null;`;
          break;
        case 3:
          line = `if (!${id}) return ${rng.chance(0.5) ? "undefined" : `{ ok: false, reason: "${id}" }`};`;
          break;
        case 4:
          line = `for (const ${id} of ${other}) {`;
          indent++;
          break;
        case 5:
          line = indent > 0 ? "}" : "";
          indent = Math.max(0, indent - 1);
          break;
        case 6:
          line = `// ${unicode ? `${rng.pick(NON_ASCII)} ` : ""}${this.prose(rng.int(20, 70))}`;
          break;
        case 7:
          line = `${id}.push({ id: ${other}.id, depth: ${rng.int(0, 99)}, label: "${rng.pick(WORDS)}" });`;
          break;
        case 8:
          line = `expect(${id}(${other})).toEqual(${rng.int(0, 1000)});`;
          break;
        default:
          line = `throw new Error(\`${id} failed at line \${${other}.line}\`);`;
      }
      line = "  ".repeat(Math.min(indent, 6)) + line;
      if (numbered) line = `${String(n++).padStart(5)}\t${line}`;
      lines.push(line);
      size += line.length + 1;
    }
    return lines.join("\n");
  }

  /** Shell-output-like lines. */
  output(length: number): string {
    const rng = this.rng;
    const lines: string[] = [];
    let size = 0;
    while (size < length) {
      let line: string;
      switch (rng.int(0, 5)) {
        case 0:
          line = ` ${rng.chance(0.9) ? "✓" : "✗"} ${rng.pick(PATHS)} (${rng.int(1, 60)} tests) ${rng.int(2, 900)}ms`;
          break;
        case 1:
          line = `${rng.pick(PATHS)}:${rng.int(1, 900)}:${rng.int(1, 80)}: ${this.prose(rng.int(20, 90))}`;
          break;
        case 2:
          line = `-rw-r--r-- 1 user user ${rng.int(100, 99999)} Nov ${rng.int(1, 30)} 12:${rng.int(10, 59)} ${rng.pick(PATHS)}`;
          break;
        case 3:
          line = `    at ${rng.pick(IDENTS)} (${rng.pick(PATHS)}:${rng.int(1, 900)}:${rng.int(1, 80)})`;
          break;
        default:
          line = this.prose(rng.int(30, 120));
      }
      lines.push(line);
      size += line.length + 1;
    }
    return lines.join("\n");
  }
}

// ---------------------------------------------------------------------------
// Sessions

interface Sizes {
  user: number;
  text: number;
  thinking: number;
  readResult: number;
  bashResult: number;
  editText: number;
  writeContent: number;
  summary: number;
  /** Chance of a thinking block in an assistant message. */
  thinkingChance: number;
}

const SIZES: Record<Profile, Sizes> = {
  // Many short steps: quick bash calls, small reads, short replies.
  normal: {
    user: 160,
    text: 220,
    thinking: 260,
    readResult: 900,
    bashResult: 320,
    editText: 160,
    writeContent: 700,
    summary: 1800,
    thinkingChance: 0.7,
  },
  // Big tool outputs: whole-file reads, long test logs, long answers.
  heavy: {
    user: 400,
    text: 900,
    thinking: 1200,
    readResult: 9000,
    bashResult: 2600,
    editText: 700,
    writeContent: 5000,
    summary: 4000,
    thinkingChance: 0.7,
  },
  fork: {
    user: 160,
    text: 220,
    thinking: 260,
    readResult: 900,
    bashResult: 320,
    editText: 160,
    writeContent: 700,
    summary: 1800,
    thinkingChance: 0.7,
  },
  // Short messages: a few words per text and tool output, little thinking (a model with thinking
  // off), so an entry is mostly its envelope (ids, timestamps, usage).
  short: {
    user: 30,
    text: 40,
    thinking: 50,
    readResult: 60,
    bashResult: 40,
    editText: 30,
    writeContent: 60,
    summary: 300,
    thinkingChance: 0.1,
  },
  chain: {
    user: 160,
    text: 220,
    thinking: 260,
    readResult: 900,
    bashResult: 320,
    editText: 160,
    writeContent: 700,
    summary: 1800,
    thinkingChance: 0.7,
  },
};

const MODELS = [
  { provider: "anthropic", model: "claude-sonnet-4-5", api: "anthropic-messages" },
  { provider: "anthropic", model: "claude-opus-4-5", api: "anthropic-messages" },
  { provider: "openai", model: "gpt-5.1-codex", api: "openai-responses" },
];

type Json = Record<string, unknown>;

class SessionWriter {
  private readonly fd: number;
  private chunk: string[] = [];
  private chunkChars = 0;
  bytes = 0;

  constructor(path: string) {
    this.fd = openSync(path, "w");
  }

  line(value: Json): void {
    const text = `${JSON.stringify(value)}\n`;
    this.chunk.push(text);
    this.chunkChars += text.length;
    if (this.chunkChars >= 4 << 20) this.flush();
  }

  flush(): void {
    if (this.chunk.length === 0) return;
    const buffer = Buffer.from(this.chunk.join(""), "utf8");
    let written = 0;
    while (written < buffer.length) written += writeSync(this.fd, buffer, written);
    this.bytes += buffer.length;
    this.chunk = [];
    this.chunkChars = 0;
  }

  /** Bytes written so far, counting the pending chunk approximately (chars). */
  approxBytes(): number {
    return this.bytes + this.chunkChars;
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}

class SessionGenerator {
  private readonly rng: Rng;
  private readonly text: Text;
  private readonly sizes: Sizes;
  private readonly ids = new Set<string>();
  /** Ids from the root to the current leaf. */
  private path: string[] = [];
  private readonly childCount = new Map<string, number>();
  /** Indexes into `path` of user messages (branch points for a re-asked prompt). */
  private userIndexes: number[] = [];
  private time: number;
  private model = MODELS[0]!;
  private sinceCompaction = 0;
  private nextCompaction: number;
  /** Where the running part of a `fork` file stops (its entry count); the whole file's otherwise. */
  private limit: number | undefined;
  private turns = 0;
  entries = 0;
  lastId = "";
  /** `fork` files: the leaves of the two branches. */
  readonly tips: string[] = [];

  constructor(
    private readonly spec: FileSpec,
    private readonly out: SessionWriter,
  ) {
    this.rng = new Rng(spec.seed);
    this.text = new Text(this.rng);
    this.sizes = SIZES[spec.profile];
    this.time = Date.UTC(2026, 2, 1, 9, 0, 0) + spec.seed * 3_600_000;
    this.nextCompaction = this.rng.int(350, 900);
  }

  private get branching(): boolean {
    return this.spec.profile !== "chain" && this.spec.profile !== "fork";
  }

  private done(): boolean {
    if (this.limit !== undefined) return this.entries >= this.limit;
    if (this.spec.entries !== undefined) return this.entries >= this.spec.entries;
    return this.out.approxBytes() >= (this.spec.bytes ?? 0);
  }

  private newId(): string {
    for (;;) {
      const id = this.rng.hex(8);
      if (!this.ids.has(id)) {
        this.ids.add(id);
        return id;
      }
    }
  }

  private tick(minMs: number, maxMs: number): string {
    this.time += this.rng.int(minMs, maxMs);
    return new Date(this.time).toISOString();
  }

  /** Writes an entry as a child of the current leaf (or of `parentId`) and makes it the leaf. */
  private emit(fields: Json, options: { parentId?: string | null; customFirst?: boolean } = {}): string {
    if (this.done()) throw new Done();
    const id = this.newId();
    const parentId =
      options.parentId !== undefined ? options.parentId : (this.path[this.path.length - 1] ?? null);
    const timestamp = this.tick(200, 4000);
    const { type, ...rest } = fields;
    // Pi's appendCustomEntry / appendCustomMessageEntry put customType (and
    // the payload) before id; every other entry starts type, id, parentId, timestamp.
    const entry = options.customFirst
      ? { type, ...rest, id, parentId, timestamp }
      : { type, id, parentId, timestamp, ...rest };
    this.out.line(entry);
    if (parentId !== null) this.childCount.set(parentId, (this.childCount.get(parentId) ?? 0) + 1);
    if (parentId !== (this.path[this.path.length - 1] ?? null)) {
      const at = parentId === null ? -1 : this.path.lastIndexOf(parentId);
      this.path.length = at + 1;
      this.userIndexes = this.userIndexes.filter((index) => index < this.path.length);
    }
    this.path.push(id);
    this.entries++;
    this.sinceCompaction++;
    this.lastId = id;
    return id;
  }

  run(): void {
    const rng = this.rng;
    this.out.line({
      type: "session",
      version: 3,
      id: `019a${rng.hex(4)}-${rng.hex(4)}-7${rng.hex(3)}-${rng.pick(["8", "9", "a", "b"])}${rng.hex(3)}-${rng.hex(12)}`,
      timestamp: new Date(this.time).toISOString(),
      cwd: "/home/user/projects/arbor",
    });
    this.emit({ type: "model_change", provider: this.model.provider, modelId: this.model.model });
    this.emit({ type: "thinking_level_change", thinkingLevel: "medium" });
    if (this.spec.profile === "fork") this.runFork();
    else this.runTurns(undefined);
  }

  /** Turns until the file (or, with `limit`, this part of it) has its entries. */
  private runTurns(limit: number | undefined): void {
    this.limit = limit;
    try {
      for (;;) this.turn(this.turns++);
    } catch (error) {
      if (!(error instanceof Done)) throw error;
    }
  }

  /** The trunk, then one branch from its leaf, then another from the same leaf. */
  private runFork(): void {
    const total = this.spec.entries ?? 20_000;
    const trunk = this.spec.trunk ?? total / 2;
    this.runTurns(trunk);
    const trunkPath = this.path.slice();
    const trunkUsers = this.userIndexes.slice();
    this.runTurns(trunk + Math.floor((total - trunk) / 2));
    this.tips.push(this.lastId);
    this.path = trunkPath;
    this.userIndexes = trunkUsers;
    this.runTurns(total);
    this.tips.push(this.lastId);
  }

  private turn(turn: number): void {
    const rng = this.rng;
    if (turn === 3) this.emit({ type: "session_info", name: this.text.prose(rng.int(20, 50)) });
    const branchChance = this.spec.branchChance ?? 0.05;
    if (this.branching && this.userIndexes.length > 1 && rng.chance(branchChance)) this.branch();
    if (this.branching && this.sinceCompaction >= this.nextCompaction && this.path.length > 80) {
      this.compaction();
    }
    if (rng.chance(0.015)) {
      this.model = rng.pick(MODELS);
      this.emit({ type: "model_change", provider: this.model.provider, modelId: this.model.model });
    }
    if (rng.chance(0.01)) {
      this.emit({ type: "thinking_level_change", thinkingLevel: rng.pick(["low", "medium", "high", "off"]) });
    }
    if (rng.chance(0.04)) {
      this.emit(
        {
          type: "custom",
          customType: rng.pick(["todo-state", "plan-mode", "git-checkpoint"]),
          data: {
            items: Array.from({ length: rng.int(1, 6) }, (_, i) => ({
              id: i + 1,
              text: this.text.prose(rng.int(20, 80)),
              done: rng.chance(0.5),
            })),
          },
        },
        { customFirst: true },
      );
    }
    if (rng.chance(0.02)) {
      this.emit(
        {
          type: "custom_message",
          customType: rng.pick(["reminder", "file-watch"]),
          content: this.text.prose(rng.length(200, 2000, 20)),
          display: rng.chance(0.7),
          details: { source: rng.pick(PATHS) },
        },
        { customFirst: true },
      );
    }

    this.userMessage();
    const steps = rng.chance(0.1) ? 0 : rng.length(4, 40, 1);
    for (let step = 0; step < steps; step++) this.toolStep();
    this.assistant([], "stop");
    if (rng.chance(0.02) && this.path.length > 10) {
      const target = this.path[rng.int(Math.max(0, this.path.length - 60), this.path.length - 2)]!;
      this.emit({
        type: "label",
        targetId: target,
        label: rng.pick(["checkpoint", "works", "before refactor", "✓ green"]),
      });
    }
  }

  /** Goes back to an earlier user message and asks again from its parent (Pi's /tree + edit). */
  private branch(): void {
    const rng = this.rng;
    const recent = this.userIndexes.slice(-8);
    const userIndex = rng.pick(recent);
    const parentId = userIndex > 0 ? this.path[userIndex - 1]! : null;
    if (rng.chance(0.5)) {
      const fromId = this.path[this.path.length - 1]!;
      this.emit(
        {
          type: "branch_summary",
          fromId,
          summary: this.text.prose(rng.length(this.sizes.summary / 2, 6000, 100)),
          details: { readFiles: [rng.pick(PATHS)], modifiedFiles: [rng.pick(PATHS)] },
        },
        { parentId },
      );
    } else {
      // the next user message becomes a sibling of the old one
      this.path.length = userIndex;
      this.userIndexes = this.userIndexes.filter((index) => index < this.path.length);
    }
  }

  private compaction(): void {
    const rng = this.rng;
    const keepFrom = Math.max(0, this.path.length - rng.int(20, 70));
    this.emit({
      type: "compaction",
      summary: this.text.prose(rng.length(this.sizes.summary, 12000, 200)),
      firstKeptEntryId: this.path[keepFrom]!,
      tokensBefore: rng.int(80_000, 190_000),
      details: {
        readFiles: Array.from({ length: rng.int(1, 5) }, () => rng.pick(PATHS)),
        modifiedFiles: Array.from({ length: rng.int(0, 3) }, () => rng.pick(PATHS)),
      },
    });
    this.sinceCompaction = 0;
    this.nextCompaction = rng.int(350, 900);
  }

  private userMessage(): void {
    const rng = this.rng;
    const text = this.text.prose(rng.length(this.sizes.user, 8000, 5));
    const content = rng.chance(0.3) ? text : [{ type: "text", text }];
    this.emit({ type: "message", message: { role: "user", content, timestamp: this.time } });
    this.userIndexes.push(this.path.length - 1);
  }

  private assistant(toolCalls: Json[], stopReason: string): void {
    const rng = this.rng;
    const content: Json[] = [];
    if (rng.chance(this.sizes.thinkingChance)) {
      content.push({
        type: "thinking",
        thinking: this.text.prose(rng.length(this.sizes.thinking, 12000, 10)),
        thinkingSignature: rng.hex(rng.int(40, 160)).repeat(4),
      });
    }
    if (toolCalls.length === 0 || rng.chance(0.6)) {
      content.push({ type: "text", text: this.text.prose(rng.length(this.sizes.text, 16000, 5)) });
    }
    content.push(...toolCalls);
    const input = rng.int(200, 4000);
    const output = rng.int(20, 3000);
    const cacheRead = rng.int(0, 150_000);
    const cacheWrite = rng.int(0, 8000);
    this.emit({
      type: "message",
      message: {
        role: "assistant",
        content,
        api: this.model.api,
        provider: this.model.provider,
        model: this.model.model,
        usage: {
          input,
          output,
          cacheRead,
          cacheWrite,
          totalTokens: input + output + cacheRead + cacheWrite,
          cost: {
            input: input * 3e-6,
            output: output * 15e-6,
            cacheRead: cacheRead * 3e-7,
            cacheWrite: cacheWrite * 3.75e-6,
            total: input * 3e-6 + output * 15e-6 + cacheRead * 3e-7 + cacheWrite * 3.75e-6,
          },
        },
        stopReason,
        timestamp: this.time,
      },
    });
  }

  private toolStep(): void {
    const rng = this.rng;
    const count = rng.chance(0.75) ? 1 : rng.int(2, 4);
    const calls: { call: Json; result: () => { text: string; details?: Json; isError: boolean } }[] = [];
    for (let i = 0; i < count; i++) {
      const callId = `toolu_01${rng.hex(22)}`;
      const path = rng.pick(PATHS);
      const kind = rng.int(0, 9);
      if (kind <= 3) {
        calls.push({
          call: { type: "toolCall", id: callId, name: "read", arguments: { path } },
          result: () => ({
            text: this.text.code(rng.length(this.sizes.readResult, 50_000, 20), true),
            isError: false,
          }),
        });
      } else if (kind <= 6) {
        const command = rng.pick([
          "npm test",
          "npx tsc -b",
          `grep -rn "${rng.pick(IDENTS)}" src`,
          "git status --short",
          `ls -la ${path.split("/")[0]}`,
          "npx vitest run shared/session",
        ]);
        calls.push({
          call: { type: "toolCall", id: callId, name: "bash", arguments: { command, timeout: 120 } },
          result: () => {
            const isError = rng.chance(0.1);
            return { text: this.text.output(rng.length(this.sizes.bashResult, 40_000, 5)), isError };
          },
        });
      } else if (kind <= 8) {
        const oldText = this.text.code(rng.length(this.sizes.editText, 6000, 10));
        const newText = this.text.code(rng.length(this.sizes.editText, 6000, 10));
        calls.push({
          call: { type: "toolCall", id: callId, name: "edit", arguments: { path, oldText, newText } },
          result: () => ({
            text: `Successfully replaced text in ${path}.`,
            details: {
              diff: `@@ -${rng.int(1, 400)},3 +${rng.int(1, 400)},4 @@\n-${oldText.slice(0, 200)}\n+${newText.slice(0, 200)}`,
              firstChangedLine: rng.int(1, 400),
            },
            isError: false,
          }),
        });
      } else {
        const content = this.text.code(rng.length(this.sizes.writeContent, 30_000, 20));
        calls.push({
          call: { type: "toolCall", id: callId, name: "write", arguments: { path, content } },
          result: () => ({ text: `Successfully wrote ${content.length} bytes to ${path}`, isError: false }),
        });
      }
    }
    this.assistant(
      calls.map((c) => c.call),
      "toolUse",
    );
    for (const { call, result } of calls) {
      const { text, details, isError } = result();
      const message: Json = {
        role: "toolResult",
        toolCallId: call.id,
        toolName: call.name,
        content: [{ type: "text", text }],
      };
      if (details) message.details = details;
      message.isError = isError;
      message.timestamp = this.time;
      this.emit({ type: "message", message });
    }
  }

  branchPoints(): number {
    let count = 0;
    for (const children of this.childCount.values()) if (children > 1) count++;
    return count;
  }

  leafDepth(): number {
    return this.path.length - 1;
  }
}

class Done extends Error {}

// ---------------------------------------------------------------------------
// Files

function generatorVersion(): string {
  return createHash("sha256")
    .update(readFileSync(fileURLToPath(import.meta.url)))
    .digest("hex")
    .slice(0, 16);
}

function readManifest(version: string): Manifest {
  try {
    const manifest = JSON.parse(readFileSync(MANIFEST, "utf8")) as Manifest;
    if (manifest.generator === version) return manifest;
  } catch {
    // missing or unreadable: start over
  }
  return { generator: version, files: {} };
}

function writeManifest(manifest: Manifest): void {
  const tmp = `${MANIFEST}.tmp`;
  const fd = openSync(tmp, "w");
  writeSync(fd, `${JSON.stringify(manifest, null, 2)}\n`);
  closeSync(fd);
  renameSync(tmp, MANIFEST);
}

function sha256File(path: string): string {
  const hash = createHash("sha256");
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.allocUnsafe(4 << 20);
    for (;;) {
      const n = readSync(fd, buffer, 0, buffer.length, null);
      if (n === 0) break;
      hash.update(buffer.subarray(0, n));
    }
  } finally {
    closeSync(fd);
  }
  return hash.digest("hex");
}

export function generateFile(spec: FileSpec): GeneratedFile {
  mkdirSync(DATA_DIR, { recursive: true });
  const path = dataPath(spec.name);
  const tmp = `${path}.tmp`;
  const out = new SessionWriter(tmp);
  const generator = new SessionGenerator(spec, out);
  generator.run();
  out.close();
  renameSync(tmp, path);
  return {
    name: spec.name,
    path,
    profile: spec.profile,
    bytes: statSync(path).size,
    entries: generator.entries,
    branchPoints: generator.branchPoints(),
    leafId: generator.lastId,
    leafDepth: generator.leafDepth(),
    sha256: sha256File(path),
    ...(generator.tips.length > 0 ? { tips: generator.tips } : {}),
  };
}

/**
 * Makes sure the files exist and match this generator's source; regenerates
 * what is missing or stale. Returns the files in `FILE_SPECS` order.
 */
export function ensureFiles(
  options: {
    huge?: boolean;
    force?: boolean;
    names?: readonly string[] | undefined;
    log?: (line: string) => void;
  } = {},
) {
  const log = options.log ?? (() => {});
  const version = generatorVersion();
  const manifest = readManifest(version);
  const files: GeneratedFile[] = [];
  for (const spec of FILE_SPECS) {
    if (spec.huge && !options.huge) continue;
    if (options.names && !options.names.includes(spec.name)) continue;
    const known = manifest.files[spec.name];
    const path = dataPath(spec.name);
    if (!options.force && known && existsSync(path) && statSync(path).size === known.bytes) {
      files.push({ ...known, path });
      continue;
    }
    const start = performance.now();
    log(`generating ${spec.name} (${spec.profile}, ${spec.entries ?? `${(spec.bytes ?? 0) / 1e6} MB`}) ...`);
    const file = generateFile(spec);
    log(
      `  ${file.entries} entries, ${(file.bytes / 1e6).toFixed(1)} MB, ${file.branchPoints} branch points, ` +
        `leaf depth ${file.leafDepth}, ${((performance.now() - start) / 1000).toFixed(1)} s`,
    );
    manifest.files[spec.name] = file;
    writeManifest(manifest);
    files.push(file);
  }
  return files;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const files = ensureFiles({
    huge: args.includes("--huge"),
    force: args.includes("--force"),
    log: (line) => console.log(line),
  });
  for (const file of files) {
    console.log(
      `${file.name.padEnd(10)} ${String(file.entries).padStart(7)} entries ${(file.bytes / 1e6).toFixed(1).padStart(7)} MB  ${file.path}`,
    );
  }
}
