/**
 * Debian's Chromium as the end-to-end tests run it (`apt-get install
 * chromium`: Playwright's own browser builds cannot be downloaded here), with
 * the switches a closed network and a sandbox-less root user need.
 */

export const CHROMIUM_PATH = "/usr/bin/chromium";

export const CHROMIUM_ARGS: readonly string[] = [
  "--no-sandbox",
  "--disable-gpu",
  // Without these, Chromium's own connections are refused by the closed network, many at a time.
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

/** The window the tests draw in. */
export const VIEWPORT = { width: 1600, height: 1600 };
