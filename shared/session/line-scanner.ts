/**
 * The skim's fast path: the WebAssembly line scanner (`wasm/line-scanner/`)
 * checks a line and finds the members of its entry object, and this builds
 * the stub from them, as `skim.ts` would. The scanner takes only the common
 * case (a valid object of plain keys, valid UTF-8, nesting under 256 levels,
 * at most 64 members); for any other line, or where WebAssembly cannot run,
 * `scanLine` answers `undefined` and the JavaScript skim reads the line.
 */

import { LINE_SCANNER_WASM_HEX } from "./line-scanner-binary.ts";
import { decodeKey, keepStringMember, scalarValue } from "./skim-decode.ts";
import { DEFERRED_VALUE, messageStub, SkimStub } from "./stub.ts";

/** The scanner's answers (see `scanLine` in wasm/line-scanner/scanner.ts). */
const USE_SKIM = -2;
const BLANK = -1;

/** Where the scanner's member table and the line lie in its memory. */
const MEMBERS_BYTE = 1024;
const LINE_START = 4096;
/** Bytes the scanner may read past a line's end (its string loop reads 16 at a time). */
const SLACK = 16;
const ROW_SLOTS = 8;
const PAGE = 65536;
/** Longer lines are left to the JavaScript skim: the memory for them would stay with the process. */
const MAX_LINE_BYTES = 1 << 20;

// Value kinds in a member row.
const STRING = 1;
const OBJECT = 2;
const ARRAY = 3;

interface ScannerMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}

interface Scanner {
  scanLine(length: number): number;
  memory: ScannerMemory;
  /** Views of `memory`, made again when it grows. */
  bytes: Uint8Array;
  members: Int32Array;
}

/** The subset of the WebAssembly API used here: `shared/` is typed without the DOM's or Node's globals. */
interface WebAssemblyApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}

let scanner: Scanner | null | undefined;

/** The scanner, made on first use; null where WebAssembly is missing or refuses the module. */
function loadScanner(): Scanner | null {
  const api = (globalThis as { WebAssembly?: WebAssemblyApi }).WebAssembly;
  if (api === undefined) return null;
  try {
    const binary = new Uint8Array(LINE_SCANNER_WASM_HEX.length / 2);
    for (let k = 0; k < binary.length; k++)
      binary[k] = Number.parseInt(LINE_SCANNER_WASM_HEX.slice(2 * k, 2 * k + 2), 16);
    const { exports } = new api.Instance(new api.Module(binary), {});
    // The layout below is the scanner's: a module built with another one is not used.
    if ((exports.LINE_START as { value?: unknown } | undefined)?.value !== LINE_START) return null;
    const memory = exports.memory as ScannerMemory;
    return {
      scanLine: exports.scanLine as (length: number) => number,
      memory,
      bytes: new Uint8Array(memory.buffer),
      members: new Int32Array(memory.buffer),
    };
  } catch {
    return null;
  }
}

/** Room for a line of `length` bytes, growing the memory if it must. */
function hasRoom(active: Scanner, length: number): boolean {
  const needed = LINE_START + length + SLACK;
  if (needed <= active.bytes.length) return true;
  try {
    active.memory.grow(Math.ceil((needed - active.bytes.length) / PAGE));
  } catch {
    return false; // no memory for it: the JavaScript skim reads the line where it is
  }
  active.bytes = new Uint8Array(active.memory.buffer);
  active.members = new Int32Array(active.memory.buffer);
  return true;
}

/** Turns the fast path off or on again (tests of the JavaScript skim alone). */
export function setLineScannerEnabled(enabled: boolean): void {
  scanner = enabled ? undefined : null;
}

/**
 * The stub of `input[start, stop)`, `"blank"`, or `undefined` when the
 * scanner leaves the line to the JavaScript skim. `previous`: the id of the
 * entry before (see `decodeParentId`).
 */
export function scanLine(
  input: Uint8Array,
  previous: unknown,
  start: number,
  stop: number,
): Record<string, unknown> | "blank" | undefined {
  if (scanner === undefined) scanner = loadScanner();
  const active = scanner;
  const length = stop - start;
  if (active === null || length > MAX_LINE_BYTES || !hasRoom(active, length)) return undefined;
  active.bytes.set(new Uint8Array(input.buffer, input.byteOffset + start, length), LINE_START);
  let count: number;
  try {
    count = active.scanLine(length);
  } catch {
    // A trap would be the scanner's own fault: the skim reads this line and every later one.
    scanner = null;
    return undefined;
  }
  if (count === USE_SKIM) return undefined;
  if (count === BLANK) return "blank";
  return stubOfMembers(active.members, count, input, start, previous);
}

/** The stub from the scanner's member rows: each member as `skim.ts`'s `scanObject` keeps it, in line order. */
function stubOfMembers(
  members: Int32Array,
  count: number,
  input: Uint8Array,
  start: number,
  previous: unknown,
): Record<string, unknown> {
  const stub = new SkimStub() as Record<string, unknown>;
  for (let row = MEMBERS_BYTE >> 2, end = row + count * ROW_SLOTS; row < end; row += ROW_SLOTS) {
    const key = decodeKey(input, start + members[row]!, start + members[row + 1]!, false, false);
    if (key === "__proto__") continue; // as JSON.parse's own key; assigning it would set the prototype
    const kind = members[row + 2]!;
    const valueStart = start + members[row + 3]!;
    const valueEnd = start + members[row + 4]!;
    const kindOnly = kind & 0xff;
    if (kindOnly === STRING) {
      const flags = members[row + 5]!;
      keepStringMember(
        stub,
        key,
        input,
        valueStart,
        valueEnd,
        (flags & 1) !== 0,
        (flags & 2) !== 0,
        previous,
      );
    } else if (kindOnly === OBJECT && key === "message") {
      stub[key] = messageStub(roleOf(members, row, kind, input, start));
    } else if (kindOnly === OBJECT || kindOnly === ARRAY) {
      stub[key] = DEFERRED_VALUE;
    } else {
      stub[key] = scalarValue(input, valueStart, valueEnd);
    }
  }
  return stub;
}

/** The message's role the scanner found (a string), or undefined. */
function roleOf(members: Int32Array, row: number, kind: number, input: Uint8Array, start: number): unknown {
  const roleStart = members[row + 6]!;
  if (roleStart < 0) return undefined;
  const flags = kind >> 8;
  return decodeKey(input, start + roleStart, start + members[row + 7]!, (flags & 1) !== 0, (flags & 2) !== 0);
}
