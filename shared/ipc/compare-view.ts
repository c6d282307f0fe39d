/** What `session.compare` is asked and answers (the contract re-exports these). */

import type { BranchComparison, CompareDetail } from "../compare/types.ts";

/** The most turns of message detail one `session.compare` answer carries. */
export const COMPARE_DETAIL_MAX_TURNS = 200;

/** What `session.compare` is asked: two tips, the right one in the open session or another of the library. */
export interface CompareRequest {
  left: { leafId: string };
  /** `sessionId`: a session of the library (an id Arbor issued); the open session when absent. */
  right: { leafId: string; sessionId?: string };
  /** The turns to send the aligned messages and text diffs of (default: the first 20). */
  detail?: { fromTurn: number; turns: number };
}

/**
 * Two branches compared (shared/compare): the `arbor diff --json` answer,
 * each side's `file` its path (for display only), plus the aligned messages
 * of some turns with their diff parts. Texts are cut at 8,000 characters
 * (`more`); `session.entry` has the whole entry of the open session.
 */
export interface CompareView extends BranchComparison {
  /** The sessions the two sides are in (the right one may be the open session too). */
  leftSessionId: string;
  rightSessionId: string;
  detail: CompareDetail;
}
