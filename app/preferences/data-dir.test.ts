import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultDataDir } from "./data-dir.ts";

describe("Arbor's data folder", () => {
  it("is $ARBOR_DATA_DIR when set, else the platform's place for app data", () => {
    expect(defaultDataDir({ ARBOR_DATA_DIR: "/srv/arbor-data", HOME: "/home/u" })).toBe("/srv/arbor-data");
    if (process.platform === "linux") {
      expect(defaultDataDir({ HOME: "/home/u" })).toBe(join("/home/u", ".config", "arbor"));
      expect(defaultDataDir({ HOME: "/home/u", XDG_CONFIG_HOME: "/home/u/.cfg" })).toBe("/home/u/.cfg/arbor");
    }
  });
});
