/**
 * The preferences file of one data folder, shared by every window of the
 * process: read when opened, changed by `update` (which reads the file again
 * first, so a desktop app and an `arbor serve` on the same folder keep each
 * other's changes), written whole under a temporary name and renamed.
 * `onDidChange` tells the windows (the theme travels to each renderer).
 */

import { type Disposable, DisposableObject } from "../../shared/lifecycle/disposable.ts";
import { Emitter, type Event } from "../../shared/lifecycle/event.ts";
import { readFileOrNull, writeFileAtomically } from "./atomic-write.ts";
import { type AppPreferences, parsePreferences, serializePreferences } from "./preferences.ts";

export class PreferencesFile extends DisposableObject implements Disposable {
  private readonly changed = this.register(new Emitter<AppPreferences>());
  readonly onDidChange: Event<AppPreferences> = this.changed.event;
  private preferences: AppPreferences;

  constructor(
    readonly path: string,
    private readonly onWriteError: (error: unknown) => void = (error) =>
      console.error(`Arbor could not save its preferences to ${path}:`, error),
  ) {
    super();
    this.preferences = parsePreferences(readFileOrNull(path));
  }

  get current(): AppPreferences {
    return this.preferences;
  }

  /** Applies `change` to the preferences as the file holds them now, saves them, and tells the listeners. */
  update(change: (preferences: AppPreferences) => AppPreferences): AppPreferences {
    const next = change(parsePreferences(readFileOrNull(this.path)));
    this.preferences = next;
    try {
      writeFileAtomically(this.path, serializePreferences(next));
    } catch (error) {
      // Kept for this run: the choice still applies, it is only not remembered.
      this.onWriteError(error);
    }
    this.changed.fire(next);
    return next;
  }
}
