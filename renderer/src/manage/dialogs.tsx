/**
 * The dialogs of managing sessions (the manage store's `dialog`): each asks
 * what an action needs (a name, a note, a summary, a format, a yes) or tells
 * what happened when a toast would not do (a refusal, an import's report,
 * the command to run Pi by hand). The actions are `controller.manage`'s.
 */

import { useState } from "react";
import { EXPORT_FORMATS, type ExportFormat } from "../../../shared/ipc/contract.ts";
import { useController, useManage } from "../state/hooks.tsx";
import type { ManageDialog } from "../state/manage-state.ts";
import { UserText } from "../text/user-text.tsx";
import { ContextEditDialog, movesResumePoint } from "./context-edit-dialog.tsx";
import { Dialog } from "./dialog.tsx";
import { localFigure } from "../text/figures.ts";

type Of<K extends ManageDialog["kind"]> = Extract<ManageDialog, { kind: K }>;

const FORMAT_NAMES: Record<ExportFormat, string> = {
  markdown: "Markdown (.md)",
  html: "HTML, one self-contained page (.html)",
  jsonl: "JSONL, a Pi session of this branch (.jsonl)",
};

/** Problems an import report lists before it counts the rest. */
const REPORT_PROBLEMS_SHOWN = 20;

function useClose() {
  const controller = useController();
  return () => controller.manage.closeDialog();
}

function Buttons({ submit, danger }: { submit: string; danger?: boolean }) {
  const close = useClose();
  return (
    <>
      <button type="button" onClick={close}>
        Cancel
      </button>
      <button type="submit" className={danger ? "primary danger" : "primary"}>
        {submit}
      </button>
    </>
  );
}

function RenameDialog({ dialog }: { dialog: Of<"rename"> }) {
  const controller = useController();
  const [name, setName] = useState(dialog.name);
  return (
    <Dialog
      title="Rename the session"
      onCancel={useClose()}
      onSubmit={() => void controller.manage.submitRename(name)}
      buttons={<Buttons submit="Rename" />}
    >
      <input
        aria-label="Session name"
        value={name}
        maxLength={200}
        placeholder="(empty clears the name)"
        onChange={(e) => setName(e.target.value)}
      />
      <p className="dialog-note muted">Pi shows this name in its session list; an empty name clears it.</p>
    </Dialog>
  );
}

function TextDialog(props: {
  title: string;
  field: string;
  note: string;
  submit: string;
  optional?: boolean;
  initial?: string;
  onSubmit(text: string): void;
}) {
  const [text, setText] = useState(props.initial ?? "");
  const empty = text.trim() === "";
  return (
    <Dialog
      title={props.title}
      className="wide"
      onCancel={useClose()}
      onSubmit={() => {
        if (props.optional || !empty) props.onSubmit(text);
      }}
      buttons={<Buttons submit={props.submit} />}
    >
      <label className="dialog-field">
        <span>{props.field}</span>
        <textarea aria-label={props.field} rows={5} value={text} onChange={(e) => setText(e.target.value)} />
      </label>
      <p className="dialog-note muted">
        {props.note} Ctrl+Enter {props.submit.toLowerCase()}s.
      </p>
    </Dialog>
  );
}

function ContinuedDialog({ dialog }: { dialog: Of<"continued"> }) {
  const controller = useController();
  const close = useClose();
  return (
    <Dialog
      title="Pi will continue from here"
      onCancel={close}
      onSubmit={() => {
        close();
        void controller.manage.openInPi();
      }}
      buttons={
        <>
          <button type="button" onClick={close}>
            Close
          </button>
          <button type="submit" className="primary">
            Open in Pi
          </button>
        </>
      }
    >
      <p>
        The next time Pi opens this session it resumes from <code>{dialog.entryId}</code>; nothing was lost
        (the other branch is still in the file).
      </p>
    </Dialog>
  );
}

function CopyDialog(props: { title: string; text: string; editable: boolean; note: string; what: string }) {
  const controller = useController();
  const [text, setText] = useState(props.text);
  const close = useClose();
  return (
    <Dialog
      title={props.title}
      className="wide"
      onCancel={close}
      onSubmit={() => void controller.manage.copyText(text, props.what)}
      buttons={
        <>
          <button type="button" onClick={close}>
            Close
          </button>
          <button type="submit" className="primary">
            Copy
          </button>
        </>
      }
    >
      <p className="dialog-note">{props.note}</p>
      <textarea
        aria-label={props.what}
        rows={props.editable ? 6 : 2}
        readOnly={!props.editable}
        value={text}
        onChange={(e) => setText(e.target.value)}
      />
    </Dialog>
  );
}

function ExportDialog({ dialog }: { dialog: Of<"export"> }) {
  const controller = useController();
  const [format, setFormat] = useState(dialog.format);
  const close = useClose();
  return (
    <Dialog
      title="Export the branch"
      onCancel={close}
      onSubmit={() => {
        close();
        const target =
          dialog.sessionId === null
            ? { leafId: dialog.leafId }
            : { sessionId: dialog.sessionId, leafId: dialog.leafId };
        void controller.manage.exportBranch(format, target);
      }}
      buttons={<Buttons submit="Export" />}
    >
      <fieldset className="dialog-choices">
        <legend>Format</legend>
        {EXPORT_FORMATS.map((name) => (
          <label key={name}>
            <input
              type="radio"
              name="export-format"
              checked={format === name}
              onChange={() => setFormat(name)}
            />
            {FORMAT_NAMES[name]}
          </label>
        ))}
      </fieldset>
    </Dialog>
  );
}

function TrashDialog({ dialog }: { dialog: Of<"trash"> }) {
  const controller = useController();
  return (
    <Dialog
      title="Move the session to the trash?"
      onCancel={useClose()}
      onSubmit={() => void controller.manage.submitTrash()}
      buttons={<Buttons submit="Move to trash" danger />}
    >
      <p>
        <UserText text={dialog.name} /> goes to the system's trash.
        {dialog.open ? " It is open in this window: it is closed first." : ""}
      </p>
      <p className="dialog-note muted">While Arbor runs, Undo in the message that follows puts it back.</p>
    </Dialog>
  );
}

function LiveDialog({ dialog }: { dialog: Of<"live"> }) {
  const controller = useController();
  return (
    <Dialog
      title="Write into a session Pi is writing?"
      onCancel={useClose()}
      onSubmit={() => controller.manage.answerLive(true)}
      buttons={<Buttons submit="Write anyway" danger />}
    >
      <p>{dialog.message}</p>
    </Dialog>
  );
}

function ErrorDialog({ dialog }: { dialog: Of<"error"> }) {
  const close = useClose();
  return (
    <Dialog
      title={dialog.title}
      onCancel={close}
      onSubmit={close}
      buttons={
        <button type="submit" className="primary">
          OK
        </button>
      }
    >
      <p className="error-text">{dialog.message}</p>
    </Dialog>
  );
}

function ImportReportDialog({ dialog }: { dialog: Of<"import-report"> }) {
  const controller = useController();
  const close = useClose();
  const { report, sessionId, path } = dialog.result;
  const { errors, warnings, notes } = report.counts;
  return (
    <Dialog
      title={`Imported ${dialog.fileName}`}
      className="wide"
      onCancel={close}
      onSubmit={() => {
        close();
        void controller.openSession(sessionId, null);
      }}
      buttons={
        <>
          <button type="button" onClick={close}>
            Close
          </button>
          <button type="submit" className="primary">
            Open it
          </button>
        </>
      }
    >
      <p>
        Copied as <bdi className="import-path">{path}</bdi> ({localFigure(report.entries)} entries); the
        original is unchanged.
      </p>
      <p data-testid="import-counts">
        {errors + warnings === 0 && notes === 0
          ? "The check found no problems."
          : `The check found ${errors} error${errors === 1 ? "" : "s"}, ${warnings} warning${warnings === 1 ? "" : "s"} and ${notes} note${notes === 1 ? "" : "s"}:`}
      </p>
      {report.problems.length > 0 ? (
        <ul className="problems" aria-label="Problems the import's check found">
          {report.problems.slice(0, REPORT_PROBLEMS_SHOWN).map((problem) => (
            <li key={`${problem.line}:${problem.code}`} className={`problem ${problem.severity}`}>
              line {problem.line}: {problem.severity}: {problem.message}
            </li>
          ))}
          {report.problems.length > REPORT_PROBLEMS_SHOWN ? (
            <li className="problem more">and {report.problems.length - REPORT_PROBLEMS_SHOWN} more</li>
          ) : null}
        </ul>
      ) : null}
    </Dialog>
  );
}

/** The dialog that is open, if any. */
export function ManageDialogs() {
  const controller = useController();
  const dialog = useManage((s) => s.dialog);
  if (!dialog) return null;
  const { manage } = controller;
  switch (dialog.kind) {
    case "rename":
      return <RenameDialog dialog={dialog} />;
    case "continue":
      return (
        <TextDialog
          title={`Continue in Pi from ${dialog.entryId}`}
          field="Summary of the branch left (optional)"
          note="Without a summary, Arbor writes a marker Pi leaves out of the context; with one, Pi reads it as the summary of the branch it leaves."
          submit="Continue"
          optional
          onSubmit={(text) => void manage.submitContinue(text)}
        />
      );
    case "continued":
      return <ContinuedDialog dialog={dialog} />;
    case "fork-text":
      return (
        <CopyDialog
          title="Forked before the prompt"
          text={dialog.text}
          editable
          what="Prompt text"
          note="The new session is open, ending before this prompt. Edit its text here and copy it into Pi, as Pi's /fork offers it."
        />
      );
    case "note":
      return (
        <TextDialog
          title="Add a note to the context"
          field="Note"
          note={`The model reads the note as a message from here on (Pi shows it in the session).${movesResumePoint(dialog.at)}`}
          submit="Add"
          onSubmit={(text) => void manage.submitNote(text)}
        />
      );
    case "context-edit":
      return <ContextEditDialog key={`${dialog.targetId}:${dialog.drop}`} dialog={dialog} />;
    case "export":
      return <ExportDialog dialog={dialog} />;
    case "trash":
      return <TrashDialog dialog={dialog} />;
    case "live":
      return <LiveDialog dialog={dialog} />;
    case "error":
      return <ErrorDialog dialog={dialog} />;
    case "open-in-pi":
      return (
        <CopyDialog
          title="Run Pi yourself"
          text={dialog.command}
          editable={false}
          what="Command"
          note={dialog.message || "No terminal could be started: run this command in one."}
        />
      );
    case "import-report":
      return <ImportReportDialog dialog={dialog} />;
  }
}
