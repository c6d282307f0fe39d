/**
 * From bytes to `{header, records, problems}`: the first half of reading a
 * session. Lines are decoded one at a time (see `line-splitter.ts`), parsed
 * with `JSON.parse` exactly as Pi parses them, and kept with their line number
 * and byte range. Nothing here throws on content: whatever is wrong becomes a
 * `Problem` and reading goes on.
 *
 * The second half, `tree-index.ts`, validates entries (entry-validation.ts)
 * and builds the tree (tree-links.ts).
 */

import { LineSplitter } from "./line-splitter.ts";
import { boundEntryDepth, NESTING_TEXT } from "./nesting.ts";
import { HEADER_PROBLEM_TEXT, type Problem, problem } from "./problems.ts";
import { RecordTable } from "./record-table.ts";
import { skimLine, skimmedInvalidUtf8 } from "./skim.ts";
import { stubOf } from "./stub.ts";
import { entryFacts } from "./facts.ts";
import { CURRENT_SESSION_VERSION, type SessionEntry, type SessionHeader } from "./types.ts";

/** V8 cannot hold a longer string (2^29 - 24 UTF-16 units); such a line cannot be decoded. */
export const MAX_DECODABLE_LINE_BYTES = 2 ** 29 - 24;

export type { EntryRecord } from "./record-table.ts";

/**
 * `full` parses every line with `JSON.parse`. `structure` validates every
 * line just as strictly but keeps only the fields the tree needs, deferring
 * bodies; it applies to version-3 files (legacy files are migrated whole).
 * `structure-with-facts` keeps the same, but parses each line of up to
 * `EAGER_LINE_MAX_BYTES` whole, once, and keeps its facts (preview, tokens,
 * tool names) too: what a view of every node needs, without reading each
 * body a second time. Longer lines are skimmed as in `structure`.
 */
export type ParseMode = "full" | "structure" | "structure-with-facts";

/** In `structure-with-facts` mode, lines up to this size are parsed whole for their facts. */
export const EAGER_LINE_MAX_BYTES = 256 * 1024;

export interface ParsedSession {
  header: SessionHeader | null;
  headerLine: number | null;
  /** One row per entry line, in line order. */
  records: RecordTable;
  problems: Problem[];
  /** Bytes consumed, including an unterminated last line. */
  byteLength: number;
  /** Number of lines seen (the last line number). */
  lineCount: number;
  /**
   * Set when the file does not end in `\n`: the last line may still be being
   * written. It is parsed if it is valid JSON; a follower re-reads it from here.
   */
  unterminatedLastLine: { line: number; offset: number; parsed: boolean } | null;
  /**
   * The line of a truthy non-object value (`42`, `"x"`, `[1]`) after the last
   * entry, or null. Pi keeps such a value as its last entry, so it resumes
   * there with an empty context; Arbor's default leaf does the same.
   */
  trailingNonEntryLine: number | null;
}

/** Where a line parsed whole was (made only off the skim's path). */
interface LineAt {
  lineNumber: number;
  offset: number;
  /** Bytes of the whole line, without its `\n`. */
  byteLength: number;
  terminated: boolean;
}

const strictDecoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const lenientDecoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

/** Incremental reader: feed chunks of any size with `push`, then call `end`. */
export class SessionParser {
  private readonly splitter: LineSplitter;
  private readonly result: ParsedSession;
  private piIndex = 0;
  private readonly onLine = (bytes: Uint8Array, start: number, end: number, terminated: boolean) =>
    this.readLine(bytes, start, end, terminated);

  private readonly mode: ParseMode;
  private readonly eagerLineMaxBytes: number;
  /** Reading the file from its first byte (not a follower's tail): only then can it say the file has no header. */
  private readonly fromFileStart: boolean;
  /** The id of the last stub kept, whose string the next stub's equal `parentId` shares (`shareParentId`). */
  private previousId: unknown;

  constructor(
    options: {
      mode?: ParseMode;
      start?: {
        lineNumber: number;
        offset: number;
        piIndex: number;
        header: SessionHeader | null;
        /** The header's line, for a problem about a later one. */
        headerLine?: number | null;
      };
      /** `structure-with-facts`: the longest line parsed whole (default `EAGER_LINE_MAX_BYTES`; tests mix both paths). */
      eagerLineMaxBytes?: number;
    } = {},
  ) {
    const start = options.start;
    this.fromFileStart = start === undefined || start.offset === 0;
    this.mode = options.mode ?? "full";
    this.eagerLineMaxBytes = options.eagerLineMaxBytes ?? EAGER_LINE_MAX_BYTES;
    this.splitter = new LineSplitter(start ?? { lineNumber: 1, offset: 0 });
    this.piIndex = start?.piIndex ?? 0;
    this.result = {
      header: start?.header ?? null,
      headerLine: start?.headerLine ?? null,
      records: new RecordTable(),
      problems: [],
      byteLength: start?.offset ?? 0,
      lineCount: start ? start.lineNumber - 1 : 0,
      unterminatedLastLine: null,
      trailingNonEntryLine: null,
    };
  }

  push(chunk: Uint8Array): void {
    this.result.byteLength += chunk.length;
    this.splitter.push(chunk, this.onLine);
  }

  /** Index of the next parsed value in Pi's counting; lets a follower continue the numbering. */
  get nextPiIndex(): number {
    return this.piIndex;
  }

  end(): ParsedSession {
    this.splitter.end(this.onLine);
    if (this.fromFileStart && this.result.header === null && this.result.records.length === 0) {
      this.result.problems.push(
        problem(
          "missing-header",
          1,
          this.result.lineCount === 0 ? HEADER_PROBLEM_TEXT.emptyFile : HEADER_PROBLEM_TEXT.noHeaderLine,
        ),
      );
    }
    const last = this.result.unterminatedLastLine;
    if (last?.parsed) {
      this.result.problems.push(
        problem(
          "unterminated-last-line",
          last.line,
          "The last line has no newline: it may still be being written. It was read as it is.",
        ),
      );
    }
    return this.result;
  }

  /** One line: `bytes[start, end)`, valid during the call only (see `LineHandler`). */
  private readLine(bytes: Uint8Array, start: number, end: number, terminated: boolean): void {
    const lineNumber = this.splitter.lineNumber;
    const offset = this.splitter.lineOffset;
    // The record's byte range is the whole line's, a byte order mark included.
    const byteLength = end - start;
    this.result.lineCount = lineNumber;
    if (lineNumber === 1 && offset === 0 && hasBom(bytes, start, end)) {
      start += 3;
      this.result.problems.push(
        problem(
          "bom",
          1,
          "The file starts with a UTF-8 byte order mark; it was skipped (Pi 1.x cannot open such a file).",
        ),
      );
    }
    if (!terminated) {
      this.result.unterminatedLastLine = { line: lineNumber, offset, parsed: false };
    }
    if (end - start > MAX_DECODABLE_LINE_BYTES) {
      this.result.problems.push(
        problem(
          "line-too-long",
          lineNumber,
          `The line is ${end - start} bytes long, more than a JavaScript string can hold; it was skipped.`,
        ),
      );
      return;
    }
    if (
      this.defersBodies() &&
      (this.mode === "structure" || end - start > this.eagerLineMaxBytes) &&
      this.skim(bytes, start, end, byteLength, terminated)
    ) {
      return;
    }
    const lineBytes = bytes.subarray(start, end);
    let text: string;
    try {
      text = strictDecoder.decode(lineBytes);
    } catch {
      text = lenientDecoder.decode(lineBytes);
      this.result.problems.push(invalidUtf8Problem(lineNumber));
    }
    if (isBlank(text)) return;
    this.readText(text, { lineNumber, offset, byteLength, terminated });
  }

  /** Structure mode: keeps a stub of a valid entry line without building its value. */
  private skim(
    bytes: Uint8Array,
    start: number,
    end: number,
    byteLength: number,
    terminated: boolean,
  ): boolean {
    const stub = skimLine(bytes, this.previousId, start, end);
    if (stub === "blank") return true;
    if (stub === "other" || stub.type === "session") return false;
    const lineNumber = this.splitter.lineNumber;
    if (skimmedInvalidUtf8()) this.result.problems.push(invalidUtf8Problem(lineNumber));
    this.result.trailingNonEntryLine = null;
    if (!terminated && this.result.unterminatedLastLine) this.result.unterminatedLastLine.parsed = true;
    // The skim kept a parentId equal to this id as this very string already (`keepStringMember`).
    this.previousId = stub.id;
    this.result.records.push(
      stub,
      lineNumber,
      this.splitter.lineOffset,
      byteLength,
      this.piIndex++,
      true,
      undefined,
    );
    return true;
  }

  private readText(text: string, line: LineAt): void {
    const lineNumber = line.lineNumber;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const hint = line.terminated
        ? ""
        : " It is the last line and has no newline: it may still be being written.";
      this.result.problems.push(
        problem(
          "malformed-json",
          lineNumber,
          `The line is not valid JSON (${reason}); it was skipped.${hint}`,
        ),
      );
      return;
    }
    // Pi keeps every truthy parsed value in its list; v1 compactions count positions in it.
    const piIndex = value ? this.piIndex++ : -1;
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      if (value) this.result.trailingNonEntryLine = lineNumber;
      this.result.problems.push(
        problem(
          "not-an-object",
          lineNumber,
          `The line holds ${describeJsonValue(value)}, not an entry object; it was skipped.`,
        ),
      );
      return;
    }
    if (!line.terminated && this.result.unterminatedLastLine) this.result.unterminatedLastLine.parsed = true;
    const object = this.bounded(value as Record<string, unknown>, text.length, lineNumber);
    if (object.type === "session") {
      this.readHeader(object, lineNumber);
      return;
    }
    const deferred = this.defersBodies();
    if (this.result.header === null && this.result.records.length === 0) {
      this.result.problems.push(
        problem("missing-header", lineNumber, HEADER_PROBLEM_TEXT.entriesBeforeHeader),
      );
    }
    this.result.trailingNonEntryLine = null;
    // Facts read only the type and the content fields; an entry without a string type is patched by the index.
    const facts =
      deferred && this.mode === "structure-with-facts" && typeof object.type === "string"
        ? entryFacts(object as SessionEntry)
        : undefined;
    const kept = deferred ? this.shareParentId(stubOf(object)) : object;
    this.result.records.push(kept, lineNumber, line.offset, line.byteLength, piIndex, deferred, facts);
  }

  /**
   * Most parents are the entry just before: a stub's `parentId` equal to the
   * previous stub's id keeps that id's string, and the copy this line decoded
   * goes at once (young), instead of living until the index links the tree
   * (24 B an entry, at the peak of an open). A stub is ours to change.
   */
  private shareParentId(stub: Record<string, unknown>): Record<string, unknown> {
    const previousId = this.previousId;
    if (typeof previousId === "string" && stub.parentId === previousId) stub.parentId = previousId;
    this.previousId = stub.id;
    return stub;
  }

  /** The entry with fields nested too deep for any answer replaced (see `nesting.ts`), the problem noted. */
  private bounded(
    object: Record<string, unknown>,
    textLength: number,
    line: number,
  ): Record<string, unknown> {
    const { entry, replaced } = boundEntryDepth(object, textLength);
    if (replaced.length > 0) {
      const id = object.id;
      this.result.problems.push(
        problem(
          "too-deep",
          line,
          NESTING_TEXT.problem(replaced),
          typeof id === "string" ? { entryId: id } : {},
        ),
      );
    }
    return entry;
  }

  /** Structure mode keeps stubs only for version-3 files; legacy files are migrated whole. */
  private defersBodies(): boolean {
    if (this.mode === "full") return false;
    const version = this.result.header?.version;
    return typeof version === "number" && version >= CURRENT_SESSION_VERSION;
  }

  private readHeader(object: Record<string, unknown>, line: number): void {
    if (this.result.header !== null) {
      this.result.problems.push(
        problem(
          "extra-header",
          line,
          `A second session header (first at line ${this.result.headerLine ?? "?"}); it is ignored.`,
          this.result.headerLine !== null ? { relatedLine: this.result.headerLine } : {},
        ),
      );
      return;
    }
    if (this.result.records.length > 0) {
      this.result.problems.push(
        problem(
          "late-header",
          line,
          "The session header comes after entries; it is used, but Pi would not open this file.",
        ),
      );
    }
    if (typeof object.id !== "string") {
      this.result.problems.push(
        problem("invalid-header", line, "The session header has no string id; Pi would not open this file."),
      );
    }
    for (const field of ["cwd", "timestamp"] as const) {
      if (object[field] !== undefined && typeof object[field] !== "string") {
        this.result.problems.push(
          problem("invalid-header", line, `The session header's "${field}" is not a string.`),
        );
      }
    }
    this.result.header = object as SessionHeader;
    this.result.headerLine = line;
  }
}

/** Parses a whole file held in memory (a string is encoded first). Large files: use `SessionParser`. */
export function parseSessionBytes(
  input: Uint8Array | string,
  options: { mode?: ParseMode; chunkSize?: number; eagerLineMaxBytes?: number } | number = {},
): ParsedSession {
  if (typeof options === "number") options = { chunkSize: options };
  const bytes = typeof input === "string" ? new TextEncoder().encode(input) : input;
  const chunkSize = options.chunkSize ?? 1 << 20;
  const parser = new SessionParser({
    ...(options.mode ? { mode: options.mode } : {}),
    ...(options.eagerLineMaxBytes !== undefined ? { eagerLineMaxBytes: options.eagerLineMaxBytes } : {}),
  });
  for (let at = 0; at < bytes.length; at += chunkSize) {
    parser.push(bytes.subarray(at, Math.min(bytes.length, at + chunkSize)));
  }
  return parser.end();
}

function invalidUtf8Problem(line: number): Problem {
  return problem(
    "invalid-utf8",
    line,
    "The line is not valid UTF-8; invalid bytes are shown as \uFFFD (Pi reads them the same way).",
  );
}

function hasBom(bytes: Uint8Array, start: number, end: number): boolean {
  return end - start >= 3 && bytes[start] === 0xef && bytes[start + 1] === 0xbb && bytes[start + 2] === 0xbf;
}

function isBlank(text: string): boolean {
  // Same test as Pi's `!line.trim()`.
  return text.trim().length === 0;
}

function describeJsonValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value}`;
}
