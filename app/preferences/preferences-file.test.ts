import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { collect, hostsInTempFolder, request } from "../ipc/testing.ts";
import { createSharedHostParts } from "../ipc/host.ts";
import { ensureNoLeaks } from "../../shared/lifecycle/testing.ts";
import { PreferencesFile } from "./preferences-file.ts";

const fixture = hostsInTempFolder("arbor-preferences-");
ensureNoLeaks();

describe("the preferences file", () => {
  it("keeps a change on disk, and takes the other process's changes made meanwhile", () => {
    const path = join(fixture.folder, "preferences.json");
    const file = new PreferencesFile(path);
    expect(file.current).toEqual({ recentFiles: [], theme: "system" });
    const heard: string[] = [];
    const listening = file.onDidChange((next) => heard.push(next.theme));
    file.update((current) => ({ ...current, theme: "dark" }));
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({ recentFiles: [], theme: "dark" });
    // Another process (the desktop app, say) added a recent file since: it stays.
    writeFileSync(path, JSON.stringify({ recentFiles: ["/s/a.jsonl"], theme: "dark" }));
    file.update((current) => ({ ...current, theme: "light" }));
    expect(file.current).toEqual({ recentFiles: ["/s/a.jsonl"], theme: "light" });
    const reopened = new PreferencesFile(path);
    expect(reopened.current.theme).toBe("light");
    reopened.dispose();
    expect(heard).toEqual(["dark", "light"]);
    listening.dispose();
    file.dispose();
  });

  it("a choice it cannot write still applies for this run, and the error is reported", () => {
    const errors: unknown[] = [];
    const file = new PreferencesFile(join(fixture.folder, "missing", "\u0000", "preferences.json"), (error) =>
      errors.push(error),
    );
    expect(file.update((current) => ({ ...current, theme: "dark" })).theme).toBe("dark");
    expect(file.current.theme).toBe("dark");
    expect(errors).toHaveLength(1);
    file.dispose();
  });
});

describe("the theme through the contract", () => {
  it("app.setTheme keeps the choice, every window hears app.themeChanged, app.info and the next launch read it", async () => {
    const shared = createSharedHostParts({ dataDir: join(fixture.folder, "data"), roots: [fixture.root] });
    try {
      const first = fixture.host({ shared });
      const second = fixture.host({ shared });
      const heard = collect(second);
      expect(await request(first.handlers, "app.info", {})).toMatchObject({ theme: "system" });
      expect(await request(first.handlers, "app.setTheme", { theme: "dark" })).toEqual({ theme: "dark" });
      expect(heard).toEqual([{ name: "app.themeChanged", payload: { theme: "dark" } }]);
      expect(await request(second.handlers, "app.info", {})).toMatchObject({ theme: "dark" });
      // The same again tells nobody anything new.
      await request(second.handlers, "app.setTheme", { theme: "dark" });
      expect(heard).toHaveLength(1);
    } finally {
      await shared.dispose();
    }
    const nextLaunch = fixture.host();
    expect(await request(nextLaunch.handlers, "app.info", {})).toMatchObject({ theme: "dark" });
    await expect(
      request(nextLaunch.handlers, "app.setTheme", { theme: "purple" } as never),
    ).rejects.toMatchObject({
      code: "invalid-request",
    });
  });
});
