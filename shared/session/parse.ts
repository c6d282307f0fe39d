/**
 * From bytes to `{header, records, problems}`: the first half of reading a
 * session. Lines are decoded one at a time (see `line-splitter.ts`), parsed
 * with `JSON.parse` exactly as Pi parses them, and kept with their line number
 * and byte range. Nothing here throws on content: whatever is wrong becomes a
 * `Problem` and reading goes on.
 *
 * The second half, `tree-index.ts`, validates entries and builds the tree.
 */

import { LineSplitter, type RawLine } from "./line-splitter.ts";
import { type Problem, problem } from "./problems.ts";
import type { SessionHeader } from "./types.ts";

/** V8 cannot hold a longer string (2^29 - 24 UTF-16 units); such a line cannot be decoded. */
export const MAX_DECODABLE_LINE_BYTES = 2 ** 29 - 24;

/** One JSON object line of the file, other than the header. */
export interface EntryRecord {
  /** The parsed object, exactly as `JSON.parse` returned it (migrations may add fields in memory). */
  value: Record<string, unknown>;
  line: number;
  offset: number;
  /** Bytes of the line, without its `\n`. */
  byteLength: number;
  /**
   * Position in Pi's own list of parsed values (header included), which
   * version-1 compactions address by `firstKeptEntryIndex`.
   */
  piIndex: number;
}

export interface ParsedSession {
  header: SessionHeader | null;
  headerLine: number | null;
  records: EntryRecord[];
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
}

const strictDecoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const lenientDecoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

/** Incremental reader: feed chunks of any size with `push`, then call `end`. */
export class SessionParser {
  private readonly splitter: LineSplitter;
  private readonly result: ParsedSession;
  private piIndex = 0;
  private readonly onLine = (line: RawLine) => this.readLine(line);

  constructor(start?: { lineNumber: number; offset: number; piIndex: number; header: SessionHeader | null }) {
    this.splitter = new LineSplitter(start ?? { lineNumber: 1, offset: 0 });
    this.piIndex = start?.piIndex ?? 0;
    this.result = {
      header: start?.header ?? null,
      headerLine: null,
      records: [],
      problems: [],
      byteLength: start?.offset ?? 0,
      lineCount: start ? start.lineNumber - 1 : 0,
      unterminatedLastLine: null,
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
    return this.result;
  }

  private readLine(raw: RawLine): void {
    const { lineNumber } = raw;
    this.result.lineCount = lineNumber;
    let bytes = raw.bytes;
    if (lineNumber === 1 && raw.offset === 0 && hasBom(bytes)) {
      bytes = bytes.subarray(3);
      this.result.problems.push(
        problem(
          "bom",
          1,
          "The file starts with a UTF-8 byte order mark; it was skipped (Pi cannot open such a file).",
        ),
      );
    }
    if (!raw.terminated) {
      this.result.unterminatedLastLine = { line: lineNumber, offset: raw.offset, parsed: false };
    }
    if (bytes.length > MAX_DECODABLE_LINE_BYTES) {
      this.result.problems.push(
        problem(
          "line-too-long",
          lineNumber,
          `The line is ${bytes.length} bytes long, more than a JavaScript string can hold; it was skipped.`,
        ),
      );
      return;
    }
    let text: string;
    try {
      text = strictDecoder.decode(bytes);
    } catch {
      text = lenientDecoder.decode(bytes);
      this.result.problems.push(
        problem(
          "invalid-utf8",
          lineNumber,
          "The line is not valid UTF-8; invalid bytes are shown as \uFFFD (Pi reads them the same way).",
        ),
      );
    }
    if (isBlank(text)) return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const hint = raw.terminated
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
      this.result.problems.push(
        problem(
          "not-an-object",
          lineNumber,
          `The line holds ${describeJsonValue(value)}, not an entry object; it was skipped.`,
        ),
      );
      return;
    }
    if (!raw.terminated && this.result.unterminatedLastLine) this.result.unterminatedLastLine.parsed = true;
    const object = value as Record<string, unknown>;
    if (object.type === "session") {
      this.readHeader(object, lineNumber);
      return;
    }
    if (this.result.header === null && this.result.records.length === 0) {
      this.result.problems.push(
        problem(
          "missing-header",
          lineNumber,
          'The file does not start with a session header ({"type":"session",...}); entries are read without one (Pi refuses such a file).',
        ),
      );
    }
    this.result.records.push({
      value: object,
      line: lineNumber,
      offset: raw.offset,
      byteLength: raw.bytes.length,
      piIndex,
    });
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
export function parseSessionBytes(input: Uint8Array | string, chunkSize = 1 << 20): ParsedSession {
  const bytes = typeof input === "string" ? new TextEncoder().encode(input) : input;
  const parser = new SessionParser();
  for (let at = 0; at < bytes.length; at += chunkSize) {
    parser.push(bytes.subarray(at, Math.min(bytes.length, at + chunkSize)));
  }
  return parser.end();
}

function hasBom(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
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
