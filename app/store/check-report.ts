/** A session file's problems as `arbor check --json` reports them (and an import checks them first). */

import { problemCounts } from "../../shared/session/problems.ts";
import type { SessionIndex } from "../../shared/session/tree-index.ts";

/** One file's problems as `arbor check --json` prints them. */
export interface CheckReport {
  file: string;
  ok: boolean;
  entries: number;
  lines: number;
  counts: { errors: number; warnings: number; notes: number };
  problems: {
    line: number;
    severity: string;
    code: string;
    message: string;
    relatedLine?: number;
    entryId?: string;
  }[];
}

export function checkReport(file: string, index: SessionIndex): CheckReport {
  const counts = problemCounts(index.problems);
  return {
    file,
    ok: counts.errors + counts.warnings === 0,
    entries: index.entries.length,
    lines: index.lineCount,
    counts,
    problems: index.problems.map((p) => ({
      line: p.line,
      severity: p.severity,
      code: p.kind,
      message: p.message,
      ...(p.relatedLine === undefined ? {} : { relatedLine: p.relatedLine }),
      ...(p.entryId === undefined ? {} : { entryId: p.entryId }),
    })),
  };
}
