/**
 * End-to-end tests (`npx playwright test`, run by the gate). One project per
 * way the app runs:
 *
 *   electron   the desktop app, through Playwright's Electron support
 *              (e2e/electron.spec.ts; skips when the Electron binary is absent)
 *   chromium   `arbor serve` in a browser (e2e/serve.*.spec.ts): each spec file
 *              starts its own server on a temp library. Debian's Chromium
 *              (`apt-get install chromium`): Playwright's own browser builds
 *              cannot be downloaded here.
 *
 * The global setup builds the renderer once (`npx electron-vite build`).
 */

import { defineConfig } from "@playwright/test";
import { CHROMIUM_ARGS, CHROMIUM_PATH, VIEWPORT } from "./e2e/support/chromium.ts";

export default defineConfig({
  testDir: "e2e",
  timeout: 60_000,
  expect: { timeout: 10_000 },
  // The Electron app holds a single-instance lock; each serve spec file starts its own server.
  workers: 1,
  forbidOnly: Boolean(process.env.CI),
  // The gate reads the JSON report from PLAYWRIGHT_JSON_OUTPUT_NAME.
  reporter: process.env.PLAYWRIGHT_JSON_OUTPUT_NAME ? [["list"], ["json"]] : [["list"]],
  globalSetup: "./e2e/support/global-setup.ts",
  projects: [
    {
      name: "electron",
      testMatch: /electron\.spec\.ts$/,
    },
    {
      name: "chromium",
      testMatch: /serve\..*spec\.ts$/,
      use: {
        browserName: "chromium",
        viewport: VIEWPORT,
        launchOptions: { executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS] },
      },
    },
  ],
});
