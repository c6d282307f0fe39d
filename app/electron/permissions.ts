/**
 * Which web permissions Arbor's page gets: writing plain text to the
 * clipboard (the Copy actions use `navigator.clipboard.writeText`), and only
 * from Arbor's own page. Everything else (camera, microphone, notifications,
 * geolocation, reading the clipboard, HID/USB/serial devices, opening
 * external protocols...) is denied, asked or checked.
 */

import { type AppLocation, isAppOrigin, isAppPageUrl } from "./app-location.ts";

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
