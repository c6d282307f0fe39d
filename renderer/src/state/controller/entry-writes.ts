/**
 * The writes into the open session, each one appended entry (the main
 * process's `session.*` writes): a label, a name, a continue, an archive, a
 * note, a context edit, and the undo of what this window did. Each write the
 * main process can reverse ends in a toast offering it; Ctrl/Cmd+Z undoes the
 * last of them.
 */

import type { WriteResult } from "../../../../shared/ipc/contract.ts";
import type { ManageKit } from "./manage-kit.ts";

/** What each kind of reversible write says it did; the undo toast names it too. */
const UNDONE: Record<NonNullable<WriteResult["undid"]>["kind"], string> = {
  label: "Label change undone.",
  name: "Rename undone.",
  archive: "Archive change undone.",
  continue: "Continue undone: Pi resumes where it did before.",
};

export interface EntryWrites {
  setLabel(targetId: string, label: string): Promise<void>;
  removeLabel(entryId: string): Promise<void>;
  rename(name: string): Promise<void>;
  continueFrom(entryId: string, summary: string): Promise<boolean>;
  setArchived(entryId: string, archived: boolean): Promise<void>;
  addNote(text: string, at: string | null): Promise<boolean>;
  editContext(targetId: string, text: string | null, at: string | null): Promise<boolean>;
  undo(entryId: string): Promise<void>;
  /** Undoes the last reversible write this window made in the session on view. */
  undoLast(): Promise<void>;
}

export function createEntryWrites(manage: ManageKit): EntryWrites {
  const { kit } = manage;
  /** This window's reversible writes, by session, newest last. */
  const undoable: { sessionId: string; entryId: string }[] = [];

  /** A reversible write was made: remembered for Ctrl+Z, and offered in the toast. */
  function done(result: WriteResult, text: string) {
    const sessionId = manage.view()?.sessionId;
    if (sessionId !== undefined) undoable.push({ sessionId, entryId: result.entryId });
    manage.toast(text, { kind: "undo", entryId: result.entryId });
  }

  async function setLabel(targetId: string, label: string) {
    const text = label.trim();
    const result = await manage.confirmable(
      "session.setLabel",
      { targetId, label: text === "" ? null : text },
      "The label was not saved",
    );
    if (result) done(result, text === "" ? "Label removed." : `Labelled “${text}”.`);
  }

  async function undo(entryId: string) {
    const result = await manage.confirmable("session.undo", { entryId }, "Nothing was undone");
    const at = undoable.findIndex((item) => item.entryId === entryId);
    if (at >= 0) undoable.splice(at, 1);
    if (result) manage.toast(result.undid ? UNDONE[result.undid.kind] : "Undone.");
  }

  return {
    setLabel,
    removeLabel: (entryId) => setLabel(entryId, ""),
    async rename(name) {
      const text = name.trim();
      const result = await manage.confirmable(
        "session.rename",
        { name: text },
        "The session was not renamed",
      );
      if (result) done(result, text === "" ? "Name cleared." : `Renamed “${text}”.`);
    },
    async continueFrom(entryId, summary) {
      const params = summary.trim() === "" ? { entryId } : { entryId, summary: summary.trim() };
      const result = await manage.confirmable("session.continueFrom", params, "Nothing was written");
      if (result) done(result, `Pi will resume from ${entryId} next time it opens the session.`);
      return result !== null;
    },
    async setArchived(entryId, archived) {
      const result = await manage.confirmable(
        archived ? "session.archive" : "session.unarchive",
        { entryId },
        archived ? "The branch was not archived" : "The branch was not unarchived",
      );
      if (!result) return;
      const hidden = archived && !kit.stores.session.getState().showArchived;
      done(
        result,
        archived
          ? `Branch archived${hidden ? " (hidden: Show archived shows it)" : ""}.`
          : "Branch unarchived.",
      );
    },
    ...contextWrites(manage),
    undo,
    async undoLast() {
      const sessionId = manage.view()?.sessionId;
      const last = [...undoable].reverse().find((item) => item.sessionId === sessionId);
      if (!last) {
        kit.notify("info", "Nothing to undo: this window has not changed this session.");
        return;
      }
      await undo(last.entryId);
    },
  };
}

/** Writes into the model's context (a note, a message edited or dropped): Pi reads them, nothing undoes them. */
function contextWrites(manage: ManageKit): Pick<EntryWrites, "addNote" | "editContext"> {
  return {
    async addNote(text, at) {
      const params = at === null ? { text } : { text, at };
      const result = await manage.confirmable("session.addNote", params, "The note was not added");
      if (result)
        manage.toast(
          result.movedResumePoint ? "Note added: Pi will resume from it." : "Note added to the context.",
        );
      return result !== null;
    },
    async editContext(targetId, text, at) {
      const replacement = text === null ? null : { content: text };
      const params = at === null ? { targetId, replacement } : { targetId, replacement, at };
      const result = await manage.confirmable("session.editContext", params, "The context was not edited");
      if (result)
        manage.toast(text === null ? "Dropped from the context (Pi 1.x)." : "Context edited (Pi 1.x).");
      return result !== null;
    },
  };
}
