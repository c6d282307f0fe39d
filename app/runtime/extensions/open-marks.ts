/**
 * Which session files some window has open, for the library's "open" marks.
 * One `OpenMarks` serves every window of the process; each window's runtime
 * gets its `extension`, which marks a file while its session is open there.
 */

import { type Disposable, DisposableObject, toDisposable } from "../../../shared/lifecycle/disposable.ts";
import { Emitter, type Event } from "../../../shared/lifecycle/event.ts";
import type { ArborExtension } from "../extension.ts";

export const OPEN_MARKS_EXTENSION_ID = "arbor.open-marks";

export interface OpenMarks extends Disposable {
  readonly extension: ArborExtension;
  isOpen(path: string): boolean;
  /** Open files, each once, in the order they were opened. */
  openPaths(): string[];
  /** Fires when a file becomes open or stops being open. */
  readonly onDidChange: Event<void>;
}

export function createOpenMarks(): OpenMarks {
  return new ProcessOpenMarks();
}

class ProcessOpenMarks extends DisposableObject implements OpenMarks {
  private readonly counts = new Map<string, number>();
  private readonly changed = this.register(new Emitter<void>());
  readonly onDidChange = this.changed.event;
  readonly extension: ArborExtension = {
    id: OPEN_MARKS_EXTENSION_ID,
    activate: (context) => {
      context.register(this.mark(context.session.path));
    },
  };

  isOpen(path: string): boolean {
    return this.counts.has(path);
  }

  openPaths(): string[] {
    return [...this.counts.keys()];
  }

  private mark(path: string): Disposable {
    const count = this.counts.get(path) ?? 0;
    this.counts.set(path, count + 1);
    if (count === 0) this.changed.fire();
    return toDisposable(() => {
      const left = (this.counts.get(path) ?? 1) - 1;
      if (left > 0) {
        this.counts.set(path, left);
        return;
      }
      this.counts.delete(path);
      this.changed.fire();
    });
  }

  override dispose(): void {
    this.counts.clear();
    super.dispose();
  }
}
