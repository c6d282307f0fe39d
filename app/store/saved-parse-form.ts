/**
 * What a saved parse is: the saved form's version and shape, shared by its
 * encoder (`saved-parse-encode.ts`) and its decoder (`saved-parse-decode.ts`).
 *
 * A saved parse file: the SHA-256 of the saved form (hex), a newline, the
 * saved form as JSON. The records are stored by column: a table of stub
 * shapes (keys, and the entry type and message role, which repeat), then one
 * array per field.
 */

import type { ParsedSession } from "../../shared/session/parse.ts";
import type { Problem } from "../../shared/session/problems.ts";
import type { SessionHeader } from "../../shared/session/types.ts";

/**
 * The saved form's version. Bump it whenever what the parser keeps changes
 * (parse.ts, skim.ts, stub.ts, facts.ts): a saved parse is only valid for the
 * parser that made it. `parse-cache.test.ts` holds a digest of the parser's
 * output on the fixtures and fails until both are updated.
 */
export const PARSE_CACHE_VERSION = 4;

export interface SavedParse {
  /** The parse of the file's first `parsed.byteLength` bytes. */
  parsed: ParsedSession;
  /** SHA-256 (hex) of those bytes. */
  digest: string;
}

export const FORMAT = "arbor-saved-parse";

/** How a stub key's value is stored (a shape entry's second item; the third, when there is one, is a constant). */
export const STORED_VALUE = 0; // the next item of `values`
export const STORED_CONSTANT = 1; // the shape's constant (entry types)
export const STORED_DEFERRED = 2; // `DEFERRED_VALUE`: a container whose body is read later
export const STORED_MESSAGE_ROLE = 3; // a message stub whose role is the shape's constant
export const STORED_MESSAGE_NO_ROLE = 4; // a message stub without a role
export const STORED_MESSAGE_DEFERRED_ROLE = 5; // a message stub whose role is a container
export const STORED_MESSAGE_VALUE_ROLE = 6; // a message stub whose role (not a string) is the next item of `values`
export type Stored = 0 | 1 | 2 | 3 | 4 | 5 | 6;

export type ShapeItem = [key: string, stored: Stored] | [key: string, stored: Stored, constant: string];

/** A fact shape: kind, role (null: none), stop reason, flags. */
export type FactShape = [kind: string, role: string | null, stopReason: string | null, flags: number];
export const IS_ERROR = 1;
export const TOOL_CALLS_ONLY = 2;
export const HAS_TEXT = 4;

export interface SavedForm {
  format: typeof FORMAT;
  version: number;
  path: string;
  digest: string;
  byteLength: number;
  lineCount: number;
  header: SessionHeader;
  headerLine: number | null;
  problems: Problem[];
  trailingNonEntryLine: number | null;
  shapes: ShapeItem[][];
  factShapes: FactShape[];
  toolSets: (readonly string[])[];
  /** The distinct model names of assistant messages. */
  models: string[];
  /** The distinct lists of files read or changed (the empty list among them). */
  fileSets: (readonly string[])[];
  records: {
    count: number;
    shape: number[];
    /** The stubs' stored values, record after record, in shape order. */
    values: unknown[];
    /** `line` minus the previous record's. */
    lineStep: number[];
    /** `offset` minus the end of the previous record's line (its `\n` included). */
    offsetGap: number[];
    byteLength: number[];
    /** `piIndex` minus the previous record's. */
    piStep: number[];
    /** Index in `factShapes`, -1 for a record without facts. */
    facts: number[];
    preview: string[];
    toolSet: number[];
    tokenEstimate: number[];
    /** An assistant message's usage as `[input, output, cacheRead, cacheWrite, cost]`, or null. */
    usage: (number[] | null)[];
    /** Index in `models`, -1 for none. */
    model: number[];
    /** Indices in `fileSets` (-1 for a record without facts). */
    filesRead: number[];
    filesModified: number[];
  };
}
