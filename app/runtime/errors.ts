/** The runtime's own errors, each saying what happened and what to do about it. */

import { ArborError } from "../../shared/ipc/contract.ts";

/** Why a session's contexts went stale. */
export type StaleReason = "resume" | "new" | "fork" | "clone" | "quit" | "removed";

const HAPPENED: Record<StaleReason, string> = {
  resume: "the window switched to another session, which closed this one",
  new: "the window started a new session, which closed this one",
  fork: "the window switched to a fork of this session, which closed this one",
  clone: "the window switched to a clone of this session, which closed this one",
  quit: "the session was closed",
  removed: "its extension was removed from the window",
};

/**
 * Thrown by anything captured from a session after that session was closed:
 * an extension context, its session accessors, its actions. Using one is a
 * bug in the caller; the message says what happened and how to fix it.
 */
export class StaleContextError extends ArborError {
  readonly sessionFile: string;
  readonly reason: StaleReason;

  constructor(owner: string, sessionFile: string, reason: StaleReason) {
    super(
      "stale",
      `${owner} is stale: ${HAPPENED[reason]} (session ${sessionFile}). Nothing captured from a closed ` +
        "session can be used. Register work with context.on() or context.register() so that it ends with " +
        "its session; to act on the session that replaces it, pass withSession to switchSession, " +
        "newSession, fork or clone and use the context it is given.",
    );
    this.name = "StaleContextError";
    this.sessionFile = sessionFile;
    this.reason = reason;
  }
}

/** A replacement that an extension's `session_before_switch` / `session_before_fork` handler cancelled. */
export class ReplacementCancelledError extends ArborError {
  constructor(what: string, by: string) {
    super("refused", `${what} was cancelled by the extension "${by}"; the current session is unchanged.`);
    this.name = "ReplacementCancelledError";
  }
}
