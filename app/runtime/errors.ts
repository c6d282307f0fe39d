/** The runtime's own errors; their texts (shared/error-texts.ts) say what happened and what to do about it. */

import { extensionErrors, sessionErrors } from "../../shared/error-texts.ts";
import { ArborError } from "../../shared/ipc/contract.ts";

/** Why a session's contexts went stale. */
export type StaleReason = "resume" | "new" | "fork" | "clone" | "quit" | "removed";

/**
 * Thrown by anything captured from a session after that session was closed:
 * an extension context, its session accessors, its actions. Using one is a
 * bug in the caller; the message says what happened and how to fix it.
 */
export class StaleContextError extends ArborError {
  readonly sessionFile: string;
  readonly reason: StaleReason;

  constructor(owner: string, sessionFile: string, reason: StaleReason) {
    super("stale", extensionErrors.staleContext(owner, sessionFile, reason));
    this.name = "StaleContextError";
    this.sessionFile = sessionFile;
    this.reason = reason;
  }
}

/** A replacement that an extension's `session_before_switch` / `session_before_fork` handler cancelled. */
export class ReplacementCancelledError extends ArborError {
  constructor(what: string, by: string) {
    super("refused", sessionErrors.cancelled(what, by));
    this.name = "ReplacementCancelledError";
  }
}
