import { describe, expect, it } from "vitest";
import type { AppLocation } from "./app-location.ts";
import { isPermissionGranted } from "./permissions.ts";

const built: AppLocation = { kind: "bundle", root: "/opt/Arbor/resources/app.asar/out/renderer" };
const dev: AppLocation = { kind: "dev-server", origin: "http://localhost:5173" };
const page = "arbor://app/index.html";

describe("isPermissionGranted", () => {
  it("lets the app's own page write text to the clipboard", () => {
    expect(isPermissionGranted("clipboard-sanitized-write", page, built)).toBe(true);
    expect(isPermissionGranted("clipboard-sanitized-write", "arbor://app", built)).toBe(true);
    expect(isPermissionGranted("clipboard-sanitized-write", "file://", built)).toBe(false);
    expect(isPermissionGranted("clipboard-sanitized-write", "http://localhost:5173", dev)).toBe(true);
    expect(isPermissionGranted("clipboard-sanitized-write", "http://localhost:5173/", dev)).toBe(true);
  });

  it("denies it to any other page", () => {
    expect(isPermissionGranted("clipboard-sanitized-write", "https://example.com/", built)).toBe(false);
    expect(isPermissionGranted("clipboard-sanitized-write", "http://localhost:5174", dev)).toBe(false);
    expect(isPermissionGranted("clipboard-sanitized-write", "file://", dev)).toBe(false);
    expect(isPermissionGranted("clipboard-sanitized-write", undefined, built)).toBe(false);
  });

  it("denies every other permission, even to the app's page", () => {
    for (const permission of [
      "clipboard-read",
      "media",
      "notifications",
      "geolocation",
      "openExternal",
      "fullscreen",
      "hid",
      "usb",
      "serial",
      "fileSystem",
      "unknown",
    ]) {
      expect(isPermissionGranted(permission, page, built)).toBe(false);
    }
  });
});
