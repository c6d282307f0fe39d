/**
 * What the app's scheme answers (see app-protocol.ts): the built renderer's
 * files, each with its content type, the page with the CSP as a header too;
 * a 404 for anything that is not a file inside the bundle. Electron-free,
 * so it is tested in plain Node.
 */

import { readFile } from "node:fs/promises";
import { type AppLocation, bundleFile, contentTypeOf } from "./app-location.ts";
import { CONTENT_SECURITY_POLICY_HEADER } from "./csp.ts";

export type BundleHandler = (request: { url: string; method: string }) => Promise<Response>;

export function createBundleHandler(location: AppLocation, policy: string): BundleHandler {
  return async (request) => {
    const file = bundleFile(request.url, location);
    if (file === null || request.method !== "GET") return new Response(null, { status: 404 });
    let body: Buffer;
    try {
      body = await readFile(file);
    } catch {
      return new Response(null, { status: 404 });
    }
    const type = contentTypeOf(file);
    const headers: Record<string, string> = { "content-type": type, "x-content-type-options": "nosniff" };
    if (type.startsWith("text/html")) headers[CONTENT_SECURITY_POLICY_HEADER] = policy;
    return new Response(new Uint8Array(body), { headers });
  };
}
