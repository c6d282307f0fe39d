/**
 * End-to-end tests (`npx playwright test`, run by the gate). One project per
 * way the app runs:
 *
 *   electron   the desktop app, through Playwright's Electron support
 *              (e2e/electron.spec.ts; skips when the Electron binary is absent)
 *
 * `arbor serve` in a browser is meant to be a second project here, e.g.
 *   { name: "chromium", testMatch: /serve\..*spec\.ts$/,
 *     use: { browserName: "chromium", launchOptions: { executablePath: "/usr/bin/chromium" } } }
 * (Debian's Chromium: Playwright's own browser builds cannot be downloaded here.)
 */

import { defineConfig } from "@playwright/test";

export default defineConfig({
  testDir: "e2e",
  timeout: 60_000,
  expect: { timeout: 10_000 },
  // The Electron app holds a single-instance lock; the serve tests share one server.
  workers: 1,
  forbidOnly: Boolean(process.env.CI),
  // The gate reads the JSON report from PLAYWRIGHT_JSON_OUTPUT_NAME.
  reporter: process.env.PLAYWRIGHT_JSON_OUTPUT_NAME ? [["list"], ["json"]] : [["list"]],
  projects: [
    {
      name: "electron",
      testMatch: /electron\.spec\.ts$/,
    },
  ],
});
