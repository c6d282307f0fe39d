/** Shift+L: edit the label of the entry under the cursor (an empty label clears it). */

import { useEffect, useRef } from "react";
import { focusGraph } from "../graph/session-graph.tsx";
import { keepTabInside } from "../manage/dialog.tsx";
import { useController, useSession } from "../state/hooks.tsx";

export function LabelDialog() {
  const controller = useController();
  const editor = useSession((s) => s.labelEditor);
  const input = useRef<HTMLInputElement>(null);
  const open = editor !== null;
  useEffect(() => {
    if (!open) return;
    // Focus goes back where it was (the graph, mostly) when the dialog closes, not to the page's body.
    const before = document.activeElement;
    input.current?.focus();
    // The old label is selected: typing replaces it, as in a rename field, rather than appending to it.
    input.current?.select();
    return () => {
      if (before instanceof HTMLElement && before.isConnected && before !== document.body) {
        before.focus({ preventScroll: true });
      } else focusGraph();
    };
  }, [open]);
  if (!editor) return null;
  return (
    <div className="dialog-backdrop">
      <div
        className="dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby="label-dialog-title"
        onKeyDown={(event) => {
          // From the buttons too, not only the text field.
          if (event.key === "Escape") {
            event.preventDefault();
            controller.cancelLabel();
          } else if (event.key === "Tab") keepTabInside(event.currentTarget, event);
        }}
      >
        <form
          onSubmit={(event) => {
            event.preventDefault();
            void controller.submitLabel();
          }}
        >
          <h2 id="label-dialog-title">Label for {editor.targetId}</h2>
          <input
            ref={input}
            aria-label="Label"
            value={editor.label}
            maxLength={200}
            placeholder="(empty clears the label)"
            onChange={(event) => controller.setLabelText(event.target.value)}
          />
          <div className="dialog-buttons">
            <button type="button" onClick={() => controller.cancelLabel()}>
              Cancel
            </button>
            <button type="submit" className="primary">
              Save label
            </button>
          </div>
        </form>
      </div>
    </div>
  );
}
