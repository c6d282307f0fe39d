/**
 * One modal dialog, the shell every managing dialog uses (as the label
 * dialog does): a title naming it, focus on its first field (else its
 * primary button) and back where it was when it closes, Tab kept inside,
 * Escape for Cancel, and Enter in a one-line field for the primary button.
 */

import { type FormEvent, type ReactNode, useEffect, useId, useRef } from "react";
import { focusGraph } from "../graph/session-graph.tsx";

export interface DialogProps {
  title: string;
  children: ReactNode;
  /** The buttons, the primary one `type="submit"`. */
  buttons: ReactNode;
  onCancel(): void;
  onSubmit?(): void;
  className?: string;
}

const FOCUSABLE = "input, textarea, select, button, a[href], [tabindex='0']";

/** Tab past a modal dialog's last control comes back to its first (and Shift+Tab the other way). */
export function keepTabInside(dialog: HTMLElement, event: { shiftKey: boolean; preventDefault(): void }) {
  const controls = [...dialog.querySelectorAll<HTMLElement>(FOCUSABLE)].filter(
    (element) => !(element as HTMLButtonElement).disabled,
  );
  const first = controls[0];
  const last = controls[controls.length - 1];
  if (!first || !last) return;
  const at = document.activeElement;
  if (!event.shiftKey && at === last) {
    event.preventDefault();
    first.focus();
  } else if (event.shiftKey && at === first) {
    event.preventDefault();
    last.focus();
  }
}

export function Dialog({ title, children, buttons, onCancel, onSubmit, className }: DialogProps) {
  const titleId = useId();
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const before = document.activeElement;
    const field = box.current?.querySelector<HTMLInputElement | HTMLTextAreaElement>(
      "input:not([type=radio]):not([readonly]), textarea:not([readonly])",
    );
    const first = field ?? box.current?.querySelector<HTMLElement>("button.primary, button");
    first?.focus();
    if (field instanceof HTMLInputElement) field.select();
    return () => {
      if (before instanceof HTMLElement && before.isConnected && before !== document.body)
        before.focus({ preventScroll: true });
      else focusGraph();
    };
  }, []);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit?.();
  };
  return (
    <div className="dialog-backdrop">
      <div
        ref={box}
        className={`dialog manage-dialog${className ? ` ${className}` : ""}`}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        onKeyDown={(event) => {
          // The window's keys (Ctrl+Z, the graph's) stay out of a dialog.
          event.stopPropagation();
          if (event.key === "Escape") {
            event.preventDefault();
            onCancel();
          } else if (event.key === "Tab") keepTabInside(event.currentTarget, event);
          else if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && onSubmit) {
            // Ctrl+Enter sends from a text area too.
            event.preventDefault();
            onSubmit();
          }
        }}
      >
        <form onSubmit={submit}>
          <h2 id={titleId}>{title}</h2>
          {children}
          <div className="dialog-buttons">{buttons}</div>
        </form>
      </div>
    </div>
  );
}
