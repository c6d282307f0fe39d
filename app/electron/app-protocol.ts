/**
 * The app's own scheme (`arbor://app/`, see app-location.ts): registered as a
 * privileged standard scheme before the app is ready, then answered by the
 * bundle server (bundle-server.ts) from the built renderer folder.
 */

import { protocol, type Session } from "electron";
import { APP_SCHEME, type AppLocation } from "./app-location.ts";
import { createBundleHandler } from "./bundle-server.ts";

/** Must run before the app is ready: a standard, secure scheme with fetch, as https is for a web page. */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([
    {
      scheme: APP_SCHEME,
      privileges: { standard: true, secure: true, supportFetchAPI: true, codeCache: true },
    },
  ]);
}

/** Serves the bundle on `session` (a dev-server location needs no scheme). */
export function serveAppBundle(session: Session, location: AppLocation, policy: string): void {
  if (location.kind !== "bundle") return;
  session.protocol.handle(APP_SCHEME, createBundleHandler(location, policy));
}
