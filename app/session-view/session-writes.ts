/**
 * The user's writes into the open session (a name, a label, a continue, an
 * archive, a note, a context edit, an undo), each one appended entry (see
 * app/store/write-entry.ts). A session a Pi is probably writing is
 * refused unless the request confirms it (`confirmLive`); the appended entry
 * reaches every window as `session.appended`, like anyone's append.
 */

import type { WriteResult } from "../../shared/ipc/contract.ts";
import type { SessionRuntime } from "../runtime/session-runtime.ts";
import type { SessionWrite, WriteOutcome } from "../store/write-entry.ts";
import { requireOpenSession } from "./session-views.ts";

export class SessionWrites {
  constructor(private readonly runtime: SessionRuntime) {}

  async write(write: SessionWrite, confirmLive: boolean | undefined): Promise<WriteResult> {
    const outcome = await requireOpenSession(this.runtime).write(write, { confirmLive });
    return writeResult(outcome);
  }
}

function writeResult(outcome: WriteOutcome): WriteResult {
  const { entryId, wasLive, previousLeafId, movedResumePoint, undid } = outcome;
  return { entryId, wasLive, previousLeafId, movedResumePoint, undid };
}
