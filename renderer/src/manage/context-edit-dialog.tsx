/**
 * Editing or dropping a message's part in the model's context (a
 * `context_edit` entry, which only Pi 1.x reads): the message's text to
 * change, and the context's effect before and after (its message count and
 * the message as it is and as it would be).
 */

import { useState } from "react";
import type { AgentMessage } from "../../../shared/session/types.ts";
import { textOf } from "../../../shared/session/index.ts";
import { useController } from "../state/hooks.tsx";
import type { ManageDialog } from "../state/manage-state.ts";
import { Dialog } from "./dialog.tsx";

type ContextEdit = Extract<ManageDialog, { kind: "context-edit" }>;

/** The most of the message's old text the "before" shows. */
const BEFORE_CHARS = 600;

function messageText(message: AgentMessage): string {
  return textOf((message as { content?: unknown }).content);
}

const clip = (text: string) => (text.length > BEFORE_CHARS ? `${text.slice(0, BEFORE_CHARS)}…` : text);
const messages = (count: number) => `${count} message${count === 1 ? "" : "s"}`;

/** The context's message count and the edited message, as they are and as they would be (null: dropped). */
function ContextEffect(props: {
  count: number;
  at: number;
  role: string;
  before: string;
  after: string | null;
}) {
  const { count, at, role, before, after } = props;
  return (
    <div className="context-effect" data-testid="context-effect">
      <div>
        <h3>Before</h3>
        <p>
          {messages(count)}; message {at + 1} ({role}):
        </p>
        <blockquote className="effect-text">{clip(before) || "(no text)"}</blockquote>
      </div>
      <div>
        <h3>After</h3>
        {after === null ? (
          <p>
            {messages(count - 1)}; message {at + 1} is left out.
          </p>
        ) : (
          <>
            <p>
              {messages(count)}; message {at + 1} reads:
            </p>
            <blockquote className="effect-text">{clip(after)}</blockquote>
          </>
        )}
      </div>
    </div>
  );
}

/** What a note or a context edit written after `at` (not the file's leaf: null) does to where Pi resumes. */
export function movesResumePoint(at: string | null): string {
  return at === null
    ? ""
    : ` It is written after ${at}, not after the file's last entry, so Pi resumes from there the next time it opens the session.`;
}

export function ContextEditDialog({ dialog }: { dialog: ContextEdit }) {
  const controller = useController();
  const { context, drop, targetId } = dialog;
  const ready = context.status === "ready" ? context.view : null;
  const at = ready ? ready.messages.findIndex((message) => message.entryId === targetId) : -1;
  const message = ready && at >= 0 ? ready.messages[at]!.message : null;
  const original = message ? messageText(message) : "";
  // The text field is filled once the context has come (the dialog opens before it has).
  const [text, setText] = useState<string | null>(null);
  const value = text ?? original;
  const count = ready?.messages.length ?? 0;
  const canSubmit = ready !== null && at >= 0 && (drop || value.trim() !== "");
  return (
    <Dialog
      title={drop ? `Drop ${targetId} from the context` : `Edit ${targetId} in the context`}
      className="wide"
      onCancel={() => controller.manage.closeDialog()}
      onSubmit={() => {
        if (canSubmit) void controller.manage.submitContextEdit(drop ? null : value);
      }}
      buttons={
        <>
          <button type="button" onClick={() => controller.manage.closeDialog()}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={!canSubmit}>
            {drop ? "Drop from context" : "Save edit"}
          </button>
        </>
      }
    >
      <p className="dialog-note warning-note" data-testid="pi-version-note">
        Only Pi 1.x reads context edits: Pi 0.73 ignores them and sends the message as it is. The file keeps
        the message; a new entry records the edit.{movesResumePoint(dialog.at)}
      </p>
      {context.status === "loading" ? <p className="muted">Reading the context…</p> : null}
      {context.status === "error" ? (
        <p className="error-text" role="alert">
          {context.message}
        </p>
      ) : null}
      {ready && at < 0 ? (
        <p className="error-text" role="alert">
          This message is not in the context at this point (a compaction or an earlier edit left it out).
        </p>
      ) : null}
      {ready && message ? (
        <>
          {drop ? null : (
            <label className="dialog-field">
              <span>Text the model reads instead</span>
              <textarea
                aria-label="Replacement text"
                rows={6}
                value={value}
                onChange={(e) => setText(e.target.value)}
              />
            </label>
          )}
          <ContextEffect
            count={count}
            at={at}
            role={message.role}
            before={original}
            after={drop ? null : value}
          />
        </>
      ) : null}
    </Dialog>
  );
}
