/**
 * Splits a byte stream into lines on `\n` without ever decoding the whole
 * stream into one string: files may be larger than V8's maximum string
 * length, and one non-ASCII character would make a whole-file string two
 * bytes per character. Each line comes with its 1-based number and byte
 * offset, so a store can re-read a body later and a follower can resume
 * mid-file.
 *
 * Nothing is made per line: a line is a range of the chunk it ends in (or,
 * for a line cut across chunks, of a copy of its parts). A file of a million
 * short entries would otherwise make a million views and line objects only to
 * drop them.
 */

/**
 * Receives one line: `bytes[start, end)`, without the `\n` (a trailing `\r`
 * is kept: JSON treats it as white space). `bytes` is always a plain
 * `Uint8Array` and is valid only during the call (the caller may reuse its
 * chunk); `terminated` is false only for the last line of a stream that does
 * not end in `\n`. The splitter's `lineNumber` and `lineOffset` are this line's.
 */
export type LineHandler = (bytes: Uint8Array, start: number, end: number, terminated: boolean) => void;

export class LineSplitter {
  private pending: Uint8Array[] = [];
  private pendingLength = 0;
  /** 1-based number of the line being handed over (inside a `LineHandler`), else of the next line. */
  lineNumber: number;
  /** Byte offset in the stream of that line's first byte. */
  lineOffset: number;

  constructor(start: { lineNumber: number; offset: number } = { lineNumber: 1, offset: 0 }) {
    this.lineNumber = start.lineNumber;
    this.lineOffset = start.offset;
  }

  /** Bytes of an incomplete line held until its `\n` arrives. */
  get pendingBytes(): number {
    return this.pendingLength;
  }

  /**
   * Feeds a chunk; calls `onLine` for every line it completes. The chunk may be
   * reused afterwards. A Node `Buffer` chunk's own `indexOf` (memchr, several
   * times a plain array's) finds the newlines, and the lines are handed over
   * as ranges of one plain view of it: the scanner sees one kind of array.
   */
  push(chunk: Uint8Array, onLine: LineHandler): void {
    const plain =
      chunk.constructor === Uint8Array ? chunk : new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length);
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(10, start);
      if (newline === -1) break;
      if (this.pendingLength > 0) {
        this.pending.push(plain.subarray(start, newline));
        const bytes = concat(this.pending, this.pendingLength + (newline - start));
        this.pending = [];
        this.pendingLength = 0;
        this.emit(bytes, 0, bytes.length, true, onLine);
      } else {
        this.emit(plain, start, newline, true, onLine);
      }
      start = newline + 1;
    }
    if (start < chunk.length) {
      // A copy: the caller may reuse its buffer for the next read.
      this.pending.push(plain.slice(start));
      this.pendingLength += chunk.length - start;
    }
  }

  /** Ends the stream: an unterminated last line, if any, is handed over with `terminated: false`. */
  end(onLine: LineHandler): void {
    if (this.pendingLength === 0) return;
    const bytes = concat(this.pending, this.pendingLength);
    this.pending = [];
    this.pendingLength = 0;
    this.emit(bytes, 0, bytes.length, false, onLine);
  }

  private emit(
    bytes: Uint8Array,
    start: number,
    end: number,
    terminated: boolean,
    onLine: LineHandler,
  ): void {
    onLine(bytes, start, end, terminated);
    this.lineNumber += 1;
    this.lineOffset += end - start + (terminated ? 1 : 0);
  }
}

function concat(parts: Uint8Array[], length: number): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
