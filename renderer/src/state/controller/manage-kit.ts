/**
 * What every session-management action shares: asking with a dialog,
 * telling a refusal as one sentence, the toast with its way back, and the
 * one rule of writing into a session a Pi is probably writing: the main
 * process refuses ("conflict") with a sentence saying why, the window shows
 * it, and sends the request again with `confirmLive` only if the user agrees.
 */

import {
  ArborError,
  type RequestName,
  type RequestParams,
  type RequestResult,
  type SessionView,
} from "../../../../shared/ipc/contract.ts";
import type { ManageDialog, ToastAction } from "../manage-state.ts";
import { type ControllerKit, messageOf } from "./kit.ts";

/** The requests a live file refuses until the user confirms. */
export type ConfirmableName =
  | "session.setLabel"
  | "session.rename"
  | "session.continueFrom"
  | "session.archive"
  | "session.unarchive"
  | "session.addNote"
  | "session.editContext"
  | "session.undo"
  | "session.trash";

/** How long a toast with a way back stays; one without goes sooner. */
const ACTION_TOAST_MS = 10_000;
const PLAIN_TOAST_MS = 4_000;

export interface ManageKit {
  readonly kit: ControllerKit;
  /** Shows a dialog (closing any context menu). */
  ask(dialog: ManageDialog): void;
  /** Closes the dialog; a live-file question closed this way is answered no. */
  closeDialog(): void;
  /** Tells why something was not done: `title`, then the main process's own sentence. */
  fail(title: string, error: unknown): void;
  toast(text: string, action?: ToastAction | null): void;
  /**
   * Sends a request; when a live file refuses it, asks the user and sends it
   * again confirmed. Null when it was not done (refused, declined): the
   * user was told why.
   */
  confirmable<N extends ConfirmableName>(
    name: N,
    params: RequestParams<N>,
    title: string,
  ): Promise<RequestResult<N> | null>;
  /** Sends a request; null when it failed (the user was told why). */
  request<N extends RequestName>(
    name: N,
    params: RequestParams<N>,
    title: string,
  ): Promise<RequestResult<N> | null>;
  /** The user's answer to the live-file question. */
  answerLive(confirmed: boolean): void;
  /** The session on view. */
  view(): SessionView | null;
  /** The library's project of a session (the open one by default), if the library lists it. */
  projectOf(sessionId?: string): string | null;
}

export function createManageKit(kit: ControllerKit): ManageKit {
  const { client } = kit;
  const { manage, session } = kit.stores;
  let toastSerial = 0;
  /** The live-file question waiting for an answer. */
  let liveAnswer: ((confirmed: boolean) => void) | null = null;

  function ask(dialog: ManageDialog) {
    manage.setState({ dialog, menu: null });
  }

  function answerLive(confirmed: boolean) {
    const answer = liveAnswer;
    liveAnswer = null;
    if (manage.getState().dialog?.kind === "live") manage.setState({ dialog: null });
    answer?.(confirmed);
  }

  function askLive(message: string): Promise<boolean> {
    liveAnswer?.(false);
    ask({ kind: "live", message });
    return new Promise((resolve) => {
      liveAnswer = resolve;
    });
  }

  function fail(title: string, error: unknown) {
    if (kit.isDisposed()) return;
    ask({ kind: "error", title, message: messageOf(error) });
  }

  function toast(text: string, action: ToastAction | null = null) {
    const serial = ++toastSerial;
    manage.setState({ toast: { serial, text, action } });
    kit.later(action ? ACTION_TOAST_MS : PLAIN_TOAST_MS, () => {
      if (manage.getState().toast?.serial === serial) manage.setState({ toast: null });
    });
  }

  async function request<N extends RequestName>(name: N, params: RequestParams<N>, title: string) {
    try {
      return await client.request(name, params);
    } catch (error) {
      fail(title, error);
      return null;
    }
  }

  async function confirmable<N extends ConfirmableName>(name: N, params: RequestParams<N>, title: string) {
    try {
      return await client.request(name, params);
    } catch (error) {
      if (kit.isDisposed()) return null;
      if (!(error instanceof ArborError) || error.code !== "conflict") {
        fail(title, error);
        return null;
      }
      // The main process's own sentence says what writing now would do.
      if (!(await askLive(error.message))) return null;
      return request(name, { ...params, confirmLive: true }, title);
    }
  }

  return {
    kit,
    ask,
    closeDialog() {
      if (manage.getState().dialog?.kind === "live") answerLive(false);
      else manage.setState({ dialog: null });
    },
    fail,
    toast,
    confirmable,
    request,
    answerLive,
    view: () => session.getState().view,
    projectOf: (sessionId) => projectOf(kit, sessionId ?? session.getState().view?.sessionId),
  };
}

/** The library's project of a session, if the library lists it. */
function projectOf(kit: ControllerKit, sessionId: string | undefined): string | null {
  if (sessionId === undefined) return null;
  for (const project of kit.stores.library.getState().listing?.projects ?? [])
    for (const item of project.sessions) if (item.sessionId === sessionId) return project.projectId;
  return null;
}
