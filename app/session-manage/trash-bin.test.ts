/**
 * Trash and restore for real: the npm `trash` library moving files into a
 * freedesktop trash in a temp XDG data home, and the files moved back.
 */

import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ArborError } from "../../shared/ipc/contract.ts";
import { tempFolder } from "../runtime/testing.ts";
import { findInFreedesktopTrash, freedesktopTrashDir, npmTrash, TrashBin } from "./trash-bin.ts";

const linux = process.platform === "linux";
let folder: ReturnType<typeof tempFolder>;
const savedEnv = { HOME: process.env.HOME, XDG_DATA_HOME: process.env.XDG_DATA_HOME };

beforeAll(() => {
  folder = tempFolder("arbor-trash-");
  // Before `trash` is first loaded: it reads the data home once.
  process.env.HOME = join(folder.path, "home");
  process.env.XDG_DATA_HOME = join(folder.path, "home", ".local", "share");
  mkdirSync(process.env.XDG_DATA_HOME, { recursive: true });
});

afterAll(() => {
  for (const [key, value] of Object.entries(savedEnv)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  folder.cleanup();
});

function sessionFile(name: string, text = `{"type":"session","version":3,"id":"${name}"}\n`): string {
  const dir = join(folder.path, "sessions", "--work-project--");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${name}.jsonl`);
  writeFileSync(path, text);
  return path;
}

function trashDir(): string {
  return freedesktopTrashDir()!;
}

async function expectArborError(work: () => unknown, code: string): Promise<ArborError> {
  let caught: unknown;
  try {
    await work();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(ArborError);
  expect((caught as ArborError).code).toBe(code);
  return caught as ArborError;
}

describe.skipIf(!linux)("TrashBin over the freedesktop trash", () => {
  it("moves a session to the trash with its .trashinfo, and restores it where it was", async () => {
    const bin = new TrashBin();
    const path = sessionFile("a");
    const bytes = readFileSync(path);
    const record = await bin.trash(path);
    expect(existsSync(path)).toBe(false);
    expect(record.originalPath).toBe(path);
    expect(record.location?.path.startsWith(join(trashDir(), "files"))).toBe(true);
    expect(readFileSync(record.location!.path)).toEqual(bytes);
    expect(readFileSync(record.location!.info!, "utf8")).toContain(`Path=${encodeURI(path)}`);
    expect(findInFreedesktopTrash(trashDir(), path)).toEqual(record.location);

    expect(bin.restore(record.trashId)).toEqual(record);
    expect(readFileSync(path)).toEqual(bytes);
    expect(existsSync(record.location!.path)).toBe(false);
    expect(existsSync(record.location!.info!)).toBe(false);
    await expectArborError(() => bin.restore(record.trashId), "not-found");
  });

  it("finds the file by its .trashinfo when the trash said nothing (Electron's shell.trashItem)", async () => {
    const bin = new TrashBin({
      trash: async (path) => {
        await npmTrash(path);
        return undefined;
      },
    });
    const path = sessionFile("quiet", "quiet bytes\n");
    const record = await bin.trash(path);
    expect(record.location).toBeUndefined();
    bin.restore(record.trashId);
    expect(readFileSync(path, "utf8")).toBe("quiet bytes\n");
    expect(findInFreedesktopTrash(trashDir(), path)).toBeUndefined();
  });

  it("never restores over a file that took the name, and says when the trash was emptied", async () => {
    const bin = new TrashBin();
    const path = sessionFile("taken", "old\n");
    const record = await bin.trash(path);
    writeFileSync(path, "new\n");
    await expectArborError(() => bin.restore(record.trashId), "conflict");
    expect(readFileSync(path, "utf8")).toBe("new\n");
    expect(readFileSync(record.location!.path, "utf8")).toBe("old\n");

    rmSync(join(trashDir(), "files"), { recursive: true, force: true });
    rmSync(path);
    const error = await expectArborError(() => bin.restore(record.trashId), "not-found");
    expect(error.message).toMatch(/restore it from the system's trash/);
  });

  it("refuses a file that is not there, and a trash that fails, with nothing moved", async () => {
    const failing = new TrashBin({
      trash: async () => {
        throw new Error("no trash here");
      },
    });
    const path = sessionFile("kept", "kept\n");
    const error = await expectArborError(() => failing.trash(path), "io");
    expect(error.message).toMatch(/no trash here/);
    expect(readFileSync(path, "utf8")).toBe("kept\n");
    await expectArborError(() => new TrashBin().trash(join(folder.path, "missing.jsonl")), "not-found");
    expect(readdirSync(join(folder.path, "sessions", "--work-project--"))).toContain("kept.jsonl");
  });
});
