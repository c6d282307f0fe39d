/**
 * Sessions moved to the desktop's trash, and moved back. Deleting goes
 * through the system's own trash (the npm `trash` library under `arbor
 * serve` and the CLI: the freedesktop trash on Linux; Electron's
 * `shell.trashItem` in the desktop app, passed in as `trash`), so a user can
 * always get a file back from there. While Arbor runs it also keeps a record
 * of each file it trashed (where it came from, and where it went when the
 * trash said so), and restores by moving the file back, never over a file
 * that has since taken its name. On Linux a file whose place in the trash
 * is unknown is looked for in the freedesktop trash by its `.trashinfo`.
 */

import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { manageErrors } from "../../shared/error-texts.ts";
import { ArborError } from "../../shared/ipc/contract.ts";
import { publish } from "../store/new-file.ts";

/** Why moving a live file to the trash waits for confirmation (the window's) or `--force` (the CLI's). */
export const TRASH_LIVE_REASON = manageErrors.liveTrash;

export const TRASH_LIVE_MESSAGE = manageErrors.confirmTrash(TRASH_LIVE_REASON);

/** Where a trashed file is now, when the trash says (the freedesktop trash does). */
export interface TrashedLocation {
  path: string;
  /** Its `.trashinfo`, removed when the file is restored. */
  info?: string | undefined;
}

/** Moves one file to the trash; resolves to where it went when that is known. */
export type TrashFunction = (path: string) => Promise<TrashedLocation | undefined>;

export interface TrashRecord {
  trashId: string;
  /** Where the file was (absolute). */
  originalPath: string;
  trashedAt: number;
  location: TrashedLocation | undefined;
}

export interface TrashBinOptions {
  /** Default: the npm `trash` library. */
  trash?: TrashFunction | undefined;
  /** Where to look for freedesktop trash entries (default `$XDG_DATA_HOME/Trash`, Linux only). */
  freedesktopTrash?: (() => string | undefined) | undefined;
}

/** The npm `trash` library, loaded when first used; globbing off, so a path is only ever itself. */
export const npmTrash: TrashFunction = async (path) => {
  const { default: trash } = await import("trash");
  const result: unknown = await trash([path], { glob: false });
  // Linux answers with where each file went; macOS and Windows with nothing.
  const first = Array.isArray(result) ? (result[0] as unknown) : undefined;
  if (typeof first !== "object" || first === null || typeof (first as TrashedLocation).path !== "string") {
    return undefined;
  }
  const { path: trashedPath, info } = first as { path: string; info?: unknown };
  return { path: trashedPath, info: typeof info === "string" ? info : undefined };
};

/** The home trash of the freedesktop specification, on Linux; undefined elsewhere. */
export function freedesktopTrashDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (process.platform !== "linux") return undefined;
  const dataHome = env.XDG_DATA_HOME || join(env.HOME || homedir(), ".local", "share");
  return join(dataHome, "Trash");
}

export class TrashBin {
  private readonly records = new Map<string, TrashRecord>();
  private readonly trashFile: TrashFunction;
  private readonly trashDir: () => string | undefined;

  constructor(options: TrashBinOptions = {}) {
    this.trashFile = options.trash ?? npmTrash;
    this.trashDir = options.freedesktopTrash ?? (() => freedesktopTrashDir());
  }

  /** Moves `path` to the trash and keeps a record to restore it by. */
  async trash(path: string): Promise<TrashRecord> {
    const originalPath = resolve(path);
    if (!existsSync(originalPath)) {
      throw new ArborError("not-found", manageErrors.nothingToTrash(originalPath));
    }
    let location: TrashedLocation | undefined;
    try {
      location = (await this.trashFile(originalPath)) ?? undefined;
    } catch (error) {
      throw new ArborError("io", manageErrors.trashFailed(messageOf(error)));
    }
    if (existsSync(originalPath)) {
      throw new ArborError("io", manageErrors.trashDidNotTake(originalPath));
    }
    const record: TrashRecord = {
      trashId: randomBytes(8).toString("hex"),
      originalPath,
      trashedAt: Date.now(),
      location,
    };
    this.records.set(record.trashId, record);
    return record;
  }

  record(trashId: string): TrashRecord | undefined {
    return this.records.get(trashId);
  }

  /** Moves a trashed file back where it was; refused if a file has taken its name since. */
  restore(trashId: string): TrashRecord {
    const record = this.records.get(trashId);
    if (!record) {
      throw new ArborError("not-found", manageErrors.noTrashRecord);
    }
    const location = present(record.location) ?? this.lookUp(record.originalPath);
    if (!location) {
      throw new ArborError("not-found", manageErrors.notInReachableTrash(record.originalPath));
    }
    mkdirSync(dirname(record.originalPath), { recursive: true });
    // Never over a file that has taken the name since: publish fails with "conflict" then.
    publish(location.path, record.originalPath);
    rmSync(location.path, { force: true });
    if (location.info) rmSync(location.info, { force: true });
    this.records.delete(trashId);
    return record;
  }

  /** The newest entry of the freedesktop trash that came from `originalPath`. */
  private lookUp(originalPath: string): TrashedLocation | undefined {
    const dir = this.trashDir();
    return dir === undefined ? undefined : findInFreedesktopTrash(dir, originalPath);
  }
}

function present(location: TrashedLocation | undefined): TrashedLocation | undefined {
  return location && existsSync(location.path) ? location : undefined;
}

/** Looks `originalPath` up in a freedesktop trash folder (`files/` and `info/*.trashinfo`): the newest match. */
export function findInFreedesktopTrash(trashDir: string, originalPath: string): TrashedLocation | undefined {
  const infoDir = join(trashDir, "info");
  let names: string[];
  try {
    names = readdirSync(infoDir).filter((name) => name.endsWith(".trashinfo"));
  } catch {
    return undefined;
  }
  let best: { location: TrashedLocation; deleted: string } | undefined;
  for (const name of names) {
    const info = join(infoDir, name);
    const fields = trashInfoFields(info);
    if (fields?.path !== originalPath) continue;
    const file = join(trashDir, "files", name.slice(0, -".trashinfo".length));
    if (!existsSync(file)) continue;
    if (!best || fields.deleted > best.deleted)
      best = { location: { path: file, info }, deleted: fields.deleted };
  }
  return best?.location;
}

function trashInfoFields(info: string): { path: string; deleted: string } | undefined {
  let text: string;
  try {
    text = readFileSync(info, "utf8");
  } catch {
    return undefined;
  }
  const path = /^Path=(.*)$/m.exec(text)?.[1];
  if (path === undefined) return undefined;
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return undefined;
  }
  return { path: decoded, deleted: /^DeletionDate=(.*)$/m.exec(text)?.[1] ?? "" };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
