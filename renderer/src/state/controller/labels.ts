/** The labels and links part of the controller: the label editor and its submission, and copying an entry's link. */

import { screenErrors } from "../../../../shared/error-texts.ts";
import { buildDeepLink } from "../../api/deep-link.ts";
import type { Controller } from "./api.ts";
import { type ControllerKit, messageOf } from "./kit.ts";

export interface LabelsPart {
  readonly actions: Pick<
    Controller,
    "beginLabel" | "setLabelText" | "submitLabel" | "cancelLabel" | "copyLink"
  >;
}

/**
 * `setLabel`: the write itself (entry-writes.ts), which asks before writing
 * into a live file, tells a refusal and offers to undo.
 */
export function createLabels(
  kit: ControllerKit,
  setLabel: (targetId: string, label: string) => Promise<void>,
): LabelsPart {
  const { notify } = kit;
  const { session } = kit.stores;

  async function submitLabel() {
    const editor = session.getState().labelEditor;
    if (!editor) return;
    session.setState({ labelEditor: null });
    await setLabel(editor.targetId, editor.label);
  }

  async function copyLink(entryId: string | null) {
    const view = session.getState().view;
    if (!view) return;
    const href = kit.options.location?.href ?? window.location.href;
    try {
      await kit.writeClipboard(buildDeepLink(href, view.sessionId, entryId));
      notify("info", "Link copied.");
    } catch (error) {
      notify("error", screenErrors.linkNotCopied(messageOf(error)));
    }
  }

  return {
    actions: {
      beginLabel(entryId) {
        if (entryId === null) return;
        const node = kit.model()?.nodesById.get(entryId);
        if (!node) return;
        session.setState({ labelEditor: { targetId: entryId, label: node.label ?? "" } });
      },
      setLabelText(label) {
        const editor = session.getState().labelEditor;
        if (editor) session.setState({ labelEditor: { ...editor, label } });
      },
      submitLabel,
      cancelLabel: () => session.setState({ labelEditor: null }),
      copyLink,
    },
  };
}
