/**
 * Splits a byte stream into lines on `\n` without ever decoding the whole
 * stream into one string: files may be larger than V8's maximum string
 * length, and one non-ASCII character would make a whole-file string two
 * bytes per character. Each line keeps its 1-based number and byte offset, so
 * a store can re-read a body later and a follower can resume mid-file.
 */

export interface RawLine {
  /** The line's bytes without the `\n` (a trailing `\r` is kept: JSON treats it as white space). */
  bytes: Uint8Array;
  /** 1-based. */
  lineNumber: number;
  /** Byte offset of the line's first byte in the stream. */
  offset: number;
  /** False only for the last line of a stream that does not end in `\n`. */
  terminated: boolean;
}

export class LineSplitter {
  private pending: Uint8Array[] = [];
  private pendingLength = 0;
  private nextLineNumber: number;
  private lineStartOffset: number;

  constructor(start: { lineNumber: number; offset: number } = { lineNumber: 1, offset: 0 }) {
    this.nextLineNumber = start.lineNumber;
    this.lineStartOffset = start.offset;
  }

  /** Bytes of an incomplete line held until its `\n` arrives. */
  get pendingBytes(): number {
    return this.pendingLength;
  }

  /**
   * Feeds a chunk; calls `onLine` for every line it completes. The chunk may be
   * reused afterwards. Lines are always plain `Uint8Array`s, even of a Node
   * `Buffer` chunk, whose own `indexOf` (memchr, several times a plain array's)
   * finds the newlines: the readers of large files pass one.
   */
  push(chunk: Uint8Array, onLine: (line: RawLine) => void): void {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(10, start);
      if (newline === -1) break;
      let bytes: Uint8Array;
      if (this.pendingLength > 0) {
        this.pending.push(chunk.subarray(start, newline));
        bytes = concat(this.pending, this.pendingLength + (newline - start));
        this.pending = [];
        this.pendingLength = 0;
      } else {
        // A view made by the plain constructor (a Buffer's `subarray` is a Buffer): the scanner sees one kind of array.
        bytes = new Uint8Array(chunk.buffer, chunk.byteOffset + start, newline - start);
      }
      this.emit(bytes, true, onLine);
      start = newline + 1;
    }
    if (start < chunk.length) {
      // A plain copy: the caller may reuse its buffer for the next read.
      this.pending.push(new Uint8Array(chunk.subarray(start)));
      this.pendingLength += chunk.length - start;
    }
  }

  /** Ends the stream: an unterminated last line, if any, is emitted with `terminated: false`. */
  end(onLine: (line: RawLine) => void): void {
    if (this.pendingLength === 0) return;
    const bytes = concat(this.pending, this.pendingLength);
    this.pending = [];
    this.pendingLength = 0;
    this.emit(bytes, false, onLine);
  }

  private emit(bytes: Uint8Array, terminated: boolean, onLine: (line: RawLine) => void): void {
    const line: RawLine = {
      bytes,
      lineNumber: this.nextLineNumber,
      offset: this.lineStartOffset,
      terminated,
    };
    this.nextLineNumber += 1;
    this.lineStartOffset += bytes.length + (terminated ? 1 : 0);
    onLine(line);
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
