/**
 * The services bound to an open session's working directory: Pi's project
 * settings for that cwd and the library's entry for the file. Created with
 * each session and disposed with it, like everything else a session owns.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { LibrarySession } from "../library/index.ts";
import { type Disposable, DisposableObject } from "../../shared/lifecycle/disposable.ts";
import type { OpenSession } from "./open-session.ts";
import { settingsErrors } from "../../shared/error-texts.ts";

export interface ProjectSettings {
  /** `<cwd>/.pi/settings.json`, or `null` when the session names no cwd. */
  readonly path: string | null;
  /** Its top-level values; empty when the file is missing or unreadable. */
  readonly values: Readonly<Record<string, unknown>>;
  /** Why the file could not be used, when it exists but is not a JSON object. */
  readonly problem: string | null;
}

export interface CwdServices extends Disposable {
  /** The session header's cwd ("" when it names none). */
  readonly cwd: string;
  /** Pi's per-project settings, read on first use and never written. */
  readonly settings: ProjectSettings;
  /** The library's entry for the session file, if the library has it. */
  libraryEntry(): LibrarySession | undefined;
}

export type CwdServicesFactory = (session: OpenSession) => CwdServices;

export interface CwdServicesOptions {
  /** Looks a file up in the library (the library of the moment: it may be the demo's). */
  lookupLibraryEntry?: (path: string) => LibrarySession | undefined;
}

export function createCwdServicesFactory(options: CwdServicesOptions = {}): CwdServicesFactory {
  return (session) => new SessionCwdServices(session, options);
}

class SessionCwdServices extends DisposableObject implements CwdServices {
  readonly cwd: string;
  private readonly path: string;
  private loadedSettings: ProjectSettings | undefined;

  constructor(
    session: OpenSession,
    private readonly options: CwdServicesOptions,
  ) {
    super();
    this.cwd = session.cwd;
    this.path = session.path;
  }

  get settings(): ProjectSettings {
    this.assertLive();
    this.loadedSettings ??= readProjectSettings(this.cwd);
    return this.loadedSettings;
  }

  libraryEntry(): LibrarySession | undefined {
    this.assertLive();
    return this.options.lookupLibraryEntry?.(this.path);
  }

  private assertLive(): void {
    if (this.isDisposed) throw new Error(`The services of ${this.path} were disposed with their session.`);
  }
}

export function readProjectSettings(cwd: string): ProjectSettings {
  if (!cwd) return { path: null, values: {}, problem: null };
  const path = join(cwd, ".pi", "settings.json");
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return { path, values: {}, problem: null };
  }
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      return { path, values: value as Record<string, unknown>, problem: null };
    }
    return { path, values: {}, problem: settingsErrors.notAnObject };
  } catch (error) {
    return { path, values: {}, problem: settingsErrors.notJson((error as Error).message) };
  }
}
