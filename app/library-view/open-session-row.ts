/**
 * The open session's library row follows its appends (Pi's, or Arbor's own
 * label or name) without a rescan: the library reads just what was
 * appended. Appends coming fast are read together; one read at a time.
 */

import type { EventSink } from "../ipc/event-sink.ts";
import type { SessionLibrary } from "../library/index.ts";
import { DisposableObject, toDisposable } from "../../shared/lifecycle/disposable.ts";
import { listItem, type RowSources } from "./list-items.ts";

export interface OpenSessionRowOptions {
  /** The library listed now (the row of a library no longer listed is not sent). */
  library: () => SessionLibrary;
  sources: RowSources;
  events: EventSink;
  onInternalError?: ((error: unknown, request: string) => void) | undefined;
  /** How long the row waits after an append before it is read again. */
  delayMs: number;
}

export class OpenSessionRow extends DisposableObject {
  private timer: ReturnType<typeof setTimeout> | null = null;
  private refreshing = false;
  private again: string | null = null;

  constructor(private readonly options: OpenSessionRowOptions) {
    super();
    this.register(toDisposable(() => this.timer !== null && clearTimeout(this.timer)));
  }

  /** The file at `path` grew: its row is read again once appends pause. */
  refreshSoon(path: string): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.refresh(path);
    }, this.options.delayMs);
  }

  private async refresh(path: string): Promise<void> {
    if (this.refreshing) {
      this.again = path;
      return;
    }
    this.refreshing = true;
    const { options } = this;
    try {
      const listed = options.library();
      const before = listed.session(path);
      if (!before) return;
      const after = await listed.refresh(path);
      if (this.isDisposed || !after || listed !== options.library()) return;
      const item = listItem(after, options.sources);
      if (JSON.stringify(item) !== JSON.stringify(listItem(before, options.sources)))
        options.events.emit("library.sessionChanged", item);
    } catch (error) {
      // Closing the window aborts the library's reads: not an error.
      if (!this.isDisposed) options.onInternalError?.(error, "library.refresh");
    } finally {
      this.refreshing = false;
      const again = this.again;
      this.again = null;
      if (again !== null && !this.isDisposed) void this.refresh(again);
    }
  }
}
