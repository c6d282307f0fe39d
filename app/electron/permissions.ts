/**
 * Which web permissions Arbor's page gets: writing plain text to the
 * clipboard (the Copy actions use `navigator.clipboard.writeText`), and only
 * from Arbor's own page. Everything else (camera, microphone, notifications,
 * geolocation, reading the clipboard, HID/USB/serial devices, opening
 * external protocols...) is denied, asked or checked.
 */

import { type AppLocation, isAppPageUrl } from "./app-location.ts";

const GRANTED: ReadonlySet<string> = new Set(["clipboard-sanitized-write"]);

/** `url`: the requesting frame's URL (or the requesting origin, for permission checks). */
export function isPermissionGranted(
  permission: string,
  url: string | undefined,
  location: AppLocation,
): boolean {
  if (!GRANTED.has(permission) || url === undefined) return false;
  return isAppPageUrl(url, location) || isAppOrigin(url, location);
}

/**
 * Some permission checks give only an origin. A file:// page's origin is
 * opaque ("file://"); the request filter lets no file but the app's own
 * load, so that origin is the app's page.
 */
function isAppOrigin(origin: string, location: AppLocation): boolean {
  return location.kind === "dev-server"
    ? origin === location.origin
    : origin === "file://" || origin === "file:///";
}
