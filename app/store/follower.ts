/**
 * Following a session file while another process (a running Pi) appends to
 * it. Two halves:
 *
 * - `inspectFile` / `readAppended`: what changed on disk since the index was
 *   built, and, when the file only grew, the index extended with the new
 *   bytes only (from `resumePoint(index).offset`: a half-written last line is
 *   held and read again when it is complete). When the file shrank, was
 *   replaced, deleted, re-created or rewritten in place, the caller reloads it
 *   whole instead of mixing old and new bytes.
 * - `SessionFollower`: when to look. A raw `fs.watch` on the DIRECTORY (a
 *   watch on the file itself goes silent once the file is atomically
 *   replaced), a check at once on the first event of a burst, again at most
 *   every `burstMs` while events keep coming, once more `quietMs` after the
 *   last one (events can be coalesced or lost), and a slow poll as a safety
 *   net. No chokidar: it throttles and drops trailing events.
 */

import { type FSWatcher, fstatSync, readSync, type Stats, statSync, watch } from "node:fs";
import { basename, dirname } from "node:path";
import { DisposableObject, toDisposable } from "../../shared/lifecycle/disposable.ts";
import { type ParseMode, SessionParser } from "../../shared/session/parse.ts";
import {
  extendSessionIndex,
  type resumePoint as treeResumePoint,
} from "../../shared/session/extend-index.ts";
import type { SessionIndex, TreeNode } from "../../shared/session/tree-index.ts";

export type ReloadReason = "truncated" | "replaced" | "deleted" | "recreated" | "rewritten";

/** What a store knows of the file its index was built from. */
export interface KnownFile {
  /** Bytes the index covers (its `byteLength`). */
  size: number;
  mtimeMs: number;
  ino: number;
  dev: number;
}

/** Bytes of the file as they were read; they must still be there for the file to have only grown. */
export interface ByteSample {
  offset: number;
  bytes: Uint8Array;
  /** `tail` samples end where the complete lines ended when they were taken. */
  role: "head" | "middle" | "line" | "tail";
}

export type FileChange =
  /** Same file, same size, sampled bytes unchanged (the mtime may have moved: `stats` has the new one). */
  | { kind: "unchanged"; stats: Stats }
  /** Same file, longer, sampled bytes unchanged: read from the resume point. */
  | { kind: "grown"; stats: Stats }
  /** Reload the whole file (or, for "deleted", drop it). */
  | { kind: "reload"; reason: ReloadReason }
  /** Still deleted. */
  | { kind: "missing" };

const HEAD_SAMPLE_BYTES = 256;
const TAIL_SAMPLE_BYTES = 256;
const MIDDLE_SAMPLE_BYTES = 64;
const LINE_SAMPLE_BYTES = 128;

/**
 * Where a reader of appended bytes starts. The same answer as
 * `resumePoint` in extend-index.ts, found from the end of the record list
 * (records are in line order and their `piIndex` grows with it) instead of
 * filtering all of them: following stays proportional to the new bytes on a
 * file of any size. The tests check both agree.
 */
export function resumePoint(index: SessionIndex): ReturnType<typeof treeResumePoint> {
  const partial = index.unterminatedLastLine;
  const offset = partial ? partial.offset : index.byteLength;
  const lineNumber = partial ? partial.line : index.lineCount + 1;
  const records = index.source.records;
  let piIndex = 1;
  for (let i = records.length - 1; i >= 0; i--) {
    if (records.line(i) < lineNumber) {
      piIndex = Math.max(1, records.piIndex(i) + 1);
      break;
    }
  }
  return { offset, lineNumber, piIndex, header: index.header, headerLine: index.source.headerLine };
}

/** The byte offset just past the last complete (`\n`-terminated) line the index holds. */
export function completeLinesEnd(index: SessionIndex): number {
  return index.unterminatedLastLine ? index.unterminatedLastLine.offset : index.byteLength;
}

/** Reads exactly `length` bytes at `offset` (fewer if the file ends first). */
export function readAt(fd: number, offset: number, length: number): Uint8Array {
  const out = new Uint8Array(length);
  let done = 0;
  while (done < length) {
    const n = readSync(fd, out, done, length - done, offset + done);
    if (n === 0) break;
    done += n;
  }
  return done === length ? out : out.subarray(0, done);
}

/** Offset and length of the first bytes of the last complete entry line (found from the end: O(1)). */
function lastLineSample(index: SessionIndex, end: number): { offset: number; length: number } | null {
  const records = index.source.records;
  for (let i = records.length - 1; i >= 0; i--) {
    const offset = records.offset(i);
    const byteLength = records.byteLength(i);
    if (offset + byteLength < end) return { offset, length: Math.min(LINE_SAMPLE_BYTES, byteLength) };
  }
  return null;
}

/**
 * Samples of the bytes an index was built from, read from `fd`: the start of
 * the file (the header), a piece in the middle, the first bytes of the last
 * complete entry line, and the end of the complete lines. A rewrite in place
 * (Pi migrating a file, an editor saving over it) changes at least one of
 * them in practice.
 */
export function sampleFile(fd: number, index: SessionIndex): ByteSample[] {
  const end = completeLinesEnd(index);
  if (end === 0) return [];
  const ranges: Array<[ByteSample["role"], number, number]> = [["head", 0, Math.min(HEAD_SAMPLE_BYTES, end)]];
  const middle = Math.floor(end / 2);
  if (middle > HEAD_SAMPLE_BYTES)
    ranges.push(["middle", middle, Math.min(MIDDLE_SAMPLE_BYTES, end - middle)]);
  const line = lastLineSample(index, end);
  if (line && line.offset > 0) ranges.push(["line", line.offset, line.length]);
  const tailStart = Math.max(0, end - TAIL_SAMPLE_BYTES);
  if (tailStart > 0) ranges.push(["tail", tailStart, end - tailStart]);
  return ranges.map(([role, offset, length]) => ({ role, offset, bytes: readAt(fd, offset, length) }));
}

/** True when every sample still reads the same from `fd`. */
export function samplesMatch(fd: number, samples: readonly ByteSample[]): boolean {
  for (const sample of samples) {
    const now = readAt(fd, sample.offset, sample.bytes.length);
    if (!sameBytes(now, sample.bytes)) return false;
  }
  return true;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * What happened to the file at `path` since `known` was read through `fd`
 * (a descriptor on the file as it was then). `deleted`: the file was already
 * seen missing, so a file at the path now is a re-creation.
 *
 * The order matters: a new inode means another file whatever its size; a
 * shorter file cannot be an append; and a longer one is trusted only when the
 * sampled old bytes are still there. While `fd` stays open the old inode
 * cannot be freed, so its number cannot be reused by a new file at `path`.
 */
export function inspectFile(
  path: string,
  fd: number | null,
  known: KnownFile | null,
  samples: readonly ByteSample[],
): FileChange {
  let stats: Stats;
  try {
    stats = statSync(path);
  } catch (error) {
    if (isMissing(error)) return known === null ? { kind: "missing" } : { kind: "reload", reason: "deleted" };
    throw error;
  }
  if (known === null || fd === null) return { kind: "reload", reason: "recreated" };
  if (stats.ino !== known.ino || stats.dev !== known.dev) return { kind: "reload", reason: "replaced" };
  // Belt and braces where inode numbers mean little (some network and Windows file systems).
  if (fstatSync(fd).nlink === 0) return { kind: "reload", reason: "replaced" };
  if (stats.size < known.size) return { kind: "reload", reason: "truncated" };
  if (!samplesMatch(fd, samples)) return { kind: "reload", reason: "rewritten" };
  return stats.size > known.size ? { kind: "grown", stats } : { kind: "unchanged", stats };
}

export function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === "ENOENT" || code === "ENOTDIR";
}

export interface AppendedRead {
  index: SessionIndex;
  /** Nodes of entries the old index did not have, in file order. */
  added: TreeNode[];
  /** True when `extendSessionIndex` rebuilt the index rather than extending it in place. */
  rebuilt: boolean;
  /** Samples for the new index: the old ones plus the new end of the last complete line. */
  samples: ByteSample[];
}

const READ_CHUNK_BYTES = 1 << 20;

/**
 * Reads the bytes from the index's resume point up to `size` from `fd` and
 * extends the index with them. Cost: the bytes read (plus one re-read
 * unterminated line), whatever the size of the file.
 */
export function readAppended(
  fd: number,
  index: SessionIndex,
  size: number,
  mode: ParseMode,
  samples: readonly ByteSample[],
): AppendedRead {
  const start = resumePoint(index);
  const parser = new SessionParser({ mode, start });
  // The last bytes read, to sample the new end of the complete lines without another read.
  let tail: Uint8Array = new Uint8Array(0);
  let tailEnd = start.offset;
  for (let at = start.offset; at < size; ) {
    const chunk = readAt(fd, at, Math.min(READ_CHUNK_BYTES, size - at));
    if (chunk.length === 0) break;
    parser.push(chunk);
    tail = chunk;
    at += chunk.length;
    tailEnd = at;
  }
  const parsed = parser.end();
  const fresh: string[] = [];
  for (let row = 0; row < parsed.records.length; row++) {
    const id = parsed.records.value(row).id;
    if (typeof id === "string" && !index.nodes.has(id)) fresh.push(id);
  }
  const oldEnd = completeLinesEnd(index);
  const result = extendSessionIndex(index, parsed);
  const next = result.index;
  const added: TreeNode[] = [];
  for (const id of fresh) {
    const node = next.nodes.get(id);
    if (node) added.push(node);
  }
  return {
    index: next,
    added,
    rebuilt: result.rebuilt,
    samples: nextSamples(samples, next, oldEnd, tail, tailEnd),
  };
}

/**
 * Keeps the head and middle samples, the latest line sample and the latest
 * tail sample, and samples the new last line and the new end of the complete
 * lines from the bytes just read (no second read that a rewrite could slip
 * between).
 */
function nextSamples(
  samples: readonly ByteSample[],
  next: SessionIndex,
  oldEnd: number,
  tail: Uint8Array,
  tailEnd: number,
): ByteSample[] {
  const newEnd = completeLinesEnd(next);
  const chunkStart = tailEnd - tail.length;
  if (newEnd <= oldEnd || newEnd <= chunkStart) return samples.slice();
  const fromChunk = (role: ByteSample["role"], offset: number, length: number): ByteSample => ({
    role,
    offset,
    bytes: tail.slice(offset - chunkStart, offset - chunkStart + length),
  });
  const fixed = samples.filter((sample) => sample.role === "head" || sample.role === "middle");
  if (fixed.length === 0 && chunkStart === 0)
    fixed.push(fromChunk("head", 0, Math.min(HEAD_SAMPLE_BYTES, newEnd)));
  const latest = (role: ByteSample["role"]) => samples.filter((sample) => sample.role === role).slice(-1);
  const line = lastLineSample(next, newEnd);
  const lines =
    line && line.offset >= chunkStart && line.offset > 0
      ? [fromChunk("line", line.offset, line.length)]
      : latest("line");
  const from = Math.max(newEnd - TAIL_SAMPLE_BYTES, chunkStart);
  return [...fixed, ...lines, ...latest("tail"), fromChunk("tail", from, newEnd - from)];
}

export interface FollowOptions {
  /** Check again this long after the last watch event. */
  quietMs?: number;
  /** During a burst of events, check at most this often. */
  burstMs?: number;
  /** Check this often even without any event. */
  pollMs?: number;
  /** Use `fs.watch` (default true); without it only the poll runs. */
  watch?: boolean;
}

export const DEFAULT_FOLLOW_OPTIONS: Required<FollowOptions> = {
  quietMs: 250,
  burstMs: 8,
  pollMs: 2000,
  watch: true,
};

/**
 * Decides when to look at a file; `check` does the looking (a store's
 * `sync`). Checks are synchronous, so two never overlap.
 */
export class SessionFollower extends DisposableObject {
  private readonly options: Required<FollowOptions>;
  private readonly name: string;
  private readonly dir: string;
  private watcher: FSWatcher | null = null;
  private burstTimer: NodeJS.Timeout | null = null;
  private quietTimer: NodeJS.Timeout | null = null;
  private pollTimer: NodeJS.Timeout | null = null;
  private eventSinceCheck = false;

  constructor(
    path: string,
    private readonly check: () => void,
    options: FollowOptions = {},
    private readonly onError: (error: unknown) => void = () => {},
  ) {
    super();
    this.register(toDisposable(() => this.stop()));
    this.options = { ...DEFAULT_FOLLOW_OPTIONS, ...options };
    this.name = basename(path);
    this.dir = dirname(path);
    this.startWatching();
    this.pollTimer = setInterval(() => {
      if (!this.watcher) this.startWatching();
      this.runCheck();
    }, this.options.pollMs);
    this.pollTimer.unref();
  }

  /** Something (a watch event, or an own append) says the file may have changed. */
  notify(): void {
    if (this.isDisposed) return;
    if (this.burstTimer === null) {
      this.runCheck();
      this.burstTimer = setTimeout(() => {
        this.burstTimer = null;
        if (this.eventSinceCheck) this.runCheck();
      }, this.options.burstMs);
      this.burstTimer.unref();
    } else {
      this.eventSinceCheck = true;
    }
    if (this.quietTimer !== null) clearTimeout(this.quietTimer);
    this.quietTimer = setTimeout(() => {
      this.quietTimer = null;
      this.runCheck();
    }, this.options.quietMs);
    this.quietTimer.unref();
  }

  private stop(): void {
    this.watcher?.close();
    this.watcher = null;
    for (const timer of [this.burstTimer, this.quietTimer]) if (timer !== null) clearTimeout(timer);
    if (this.pollTimer !== null) clearInterval(this.pollTimer);
    this.burstTimer = this.quietTimer = this.pollTimer = null;
  }

  private runCheck(): void {
    if (this.isDisposed) return;
    this.eventSinceCheck = false;
    try {
      this.check();
    } catch (error) {
      this.onError(error);
    }
  }

  private startWatching(): void {
    if (!this.options.watch || this.isDisposed) return;
    try {
      const watcher = watch(this.dir, { persistent: false }, (_event, filename) => {
        // Some platforms give no name; anything else in the directory is not ours.
        if (filename === null || filename === this.name) this.notify();
      });
      watcher.on("error", () => {
        // The directory went away (or the watch broke): the poll re-watches when it can.
        watcher.close();
        if (this.watcher === watcher) this.watcher = null;
      });
      this.watcher = watcher;
    } catch {
      this.watcher = null;
    }
  }
}
