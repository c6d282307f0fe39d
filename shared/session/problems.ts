/**
 * Everything the reader can find wrong with a session file, each tied to a
 * 1-based line number and worded for the person whose file it is. The reader
 * never throws on content: it records a problem and reads on.
 */

export type ProblemKind =
  | "bom"
  | "invalid-utf8"
  | "malformed-json"
  | "not-an-object"
  | "line-too-long"
  | "too-deep"
  | "missing-header"
  | "invalid-header"
  | "late-header"
  | "extra-header"
  | "legacy-version"
  | "future-version"
  | "missing-id"
  | "missing-type"
  | "missing-parent-id"
  | "invalid-field"
  | "duplicate-id"
  | "orphan"
  | "self-parent"
  | "cycle"
  | "unknown-type"
  | "unknown-role"
  | "unterminated-last-line";

/** What is said of a file without a session header, by the reader and the library alike. */
export const HEADER_PROBLEM_TEXT = {
  emptyFile: "The file is empty: it holds no session header, so it is not a Pi session (yet).",
  noHeaderLine: 'No line of the file is a session header ({"type":"session",...}): it is not a Pi session.',
  entriesBeforeHeader:
    'The file does not start with a session header ({"type":"session",...}); entries are read without one (Pi refuses such a file).',
} as const;

/** `error`: content was lost or reinterpreted; `warning`: kept but suspect; `info`: handled, worth knowing. */
export type ProblemSeverity = "error" | "warning" | "info";

export interface Problem {
  kind: ProblemKind;
  severity: ProblemSeverity;
  /** 1-based line in the file. */
  line: number;
  message: string;
  /** The other line involved (a duplicate's first occurrence, a cycle's next member). */
  relatedLine?: number;
  entryId?: string;
}

const SEVERITY: Record<ProblemKind, ProblemSeverity> = {
  bom: "info",
  "invalid-utf8": "warning",
  "malformed-json": "error",
  "not-an-object": "error",
  "line-too-long": "error",
  "too-deep": "error",
  "missing-header": "error",
  "invalid-header": "error",
  "late-header": "warning",
  "extra-header": "warning",
  "legacy-version": "info",
  "future-version": "warning",
  "missing-id": "error",
  "missing-type": "error",
  "missing-parent-id": "warning",
  "invalid-field": "warning",
  "duplicate-id": "warning",
  orphan: "warning",
  "self-parent": "error",
  cycle: "error",
  "unknown-type": "info",
  "unknown-role": "info",
  "unterminated-last-line": "warning",
};

export function problem(
  kind: ProblemKind,
  line: number,
  message: string,
  extra: { relatedLine?: number; entryId?: string } = {},
): Problem {
  const result: Problem = { kind, severity: SEVERITY[kind], line, message };
  if (extra.relatedLine !== undefined) result.relatedLine = extra.relatedLine;
  if (extra.entryId !== undefined) result.entryId = extra.entryId;
  return result;
}

/** Whether a value read back from disk (a saved parse or view) has a problem's shape. */
export function isProblemShaped(value: unknown): value is Problem {
  if (typeof value !== "object" || value === null) return false;
  const { kind, severity, line, message } = value as Record<string, unknown>;
  return (
    typeof kind === "string" &&
    Object.hasOwn(SEVERITY, kind) &&
    typeof severity === "string" &&
    Number.isSafeInteger(line) &&
    typeof message === "string"
  );
}

export function formatProblem(p: Problem): string {
  return `line ${p.line}: ${p.severity}: ${p.message} [${p.kind}]`;
}

/** How many problems of each severity: errors and warnings are "problems" (they fail `arbor check`), notes are not. */
export function problemCounts(problems: readonly Problem[]): {
  errors: number;
  warnings: number;
  notes: number;
} {
  let errors = 0;
  let warnings = 0;
  let notes = 0;
  for (const { severity } of problems) {
    if (severity === "error") errors++;
    else if (severity === "warning") warnings++;
    else notes++;
  }
  return { errors, warnings, notes };
}
