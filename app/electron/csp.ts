/**
 * The Content Security Policy of Arbor's own pages, in one place: the main
 * process sends it as a response header (the app scheme's bundle server, and
 * `session.webRequest` for the dev server), and the renderer build writes it
 * into index.html as a meta tag (see electron.vite.config.ts), so the page is
 * covered even where it is served without headers (a browser under `arbor
 * serve` gets the header too).
 *
 * Pure: no Electron import, so tests and the build config can use it.
 */

import { createHash } from "node:crypto";

export const CONTENT_SECURITY_POLICY_HEADER = "Content-Security-Policy";

const PRODUCTION_DIRECTIVES: ReadonlyArray<readonly [string, readonly string[]]> = [
  ["default-src", ["'self'"]],
  ["script-src", ["'self'"]],
  ["style-src", ["'self'"]],
  ["img-src", ["'self'", "data:"]],
  ["connect-src", ["'self'"]],
  ["object-src", ["'none'"]],
  ["base-uri", ["'none'"]],
  ["frame-ancestors", ["'none'"]],
  ["form-action", ["'none'"]],
];

function serialize(directives: ReadonlyArray<readonly [string, readonly string[]]>): string {
  return directives.map(([name, sources]) => `${name} ${sources.join(" ")}`).join("; ");
}

/** The policy of every page Arbor ships. */
export const CONTENT_SECURITY_POLICY = serialize(PRODUCTION_DIRECTIVES);

/** Directives a browser honours only in a response header, and reports as an error in a meta tag. */
const HEADER_ONLY_DIRECTIVES = new Set(["frame-ancestors", "report-uri", "sandbox"]);

/**
 * The same policy for index.html's meta tag: without the header-only
 * directives (framing is refused by the header, and Electron's windows
 * cannot be framed by another site anyway).
 */
export const CONTENT_SECURITY_POLICY_META = serialize(
  PRODUCTION_DIRECTIVES.filter(([name]) => !HEADER_ONLY_DIRECTIVES.has(name)),
);

/** The production policy that may also connect to `connectSources` (`arbor serve`'s WebSocket). */
export function contentSecurityPolicyConnectingTo(connectSources: readonly string[]): string {
  return serialize(
    PRODUCTION_DIRECTIVES.map(([name, sources]) =>
      name === "connect-src" ? [name, [...sources, ...connectSources]] : [name, sources],
    ),
  );
}

/**
 * The inline module script @vitejs/plugin-react puts into index.html under
 * the dev server (React Fast Refresh). A unit test compares it with the
 * plugin's own `preambleCode`, so a plugin upgrade that changes it fails a
 * test instead of breaking `npm run dev` quietly.
 */
export const REACT_REFRESH_PREAMBLE = `import { injectIntoGlobalHook } from "/@react-refresh";
injectIntoGlobalHook(window);
window.$RefreshReg$ = () => {};
window.$RefreshSig$ = () => (type) => type;`;

/** A CSP source expression that allows exactly this inline script. */
export function scriptHashSource(script: string): string {
  return `'sha256-${createHash("sha256").update(script, "utf8").digest("base64")}'`;
}

/**
 * The policy under `electron-vite dev` only (never in a packaged app): the
 * dev server injects one known inline script (allowed by its hash, not by
 * 'unsafe-inline') and adds styles as <style> elements, and its hot-reload
 * socket lives on the dev server's origin.
 */
export function developmentContentSecurityPolicy(devServerOrigin: string): string {
  const socketOrigin = devServerOrigin.replace(/^http/, "ws");
  return serialize(
    PRODUCTION_DIRECTIVES.map(([name, sources]) => {
      if (name === "script-src") return [name, [...sources, scriptHashSource(REACT_REFRESH_PREAMBLE)]];
      if (name === "style-src") return [name, [...sources, "'unsafe-inline'"]];
      if (name === "connect-src") return [name, [...sources, socketOrigin]];
      return [name, sources];
    }),
  );
}

export type ResponseHeaders = Record<string, string | string[]>;

/**
 * The response headers with our policy in place of any the response brought
 * (header names compare case-insensitively, so a server cannot slip a
 * second, weaker `content-security-policy` past us).
 */
export function withContentSecurityPolicy(
  headers: ResponseHeaders | undefined,
  policy: string,
): Record<string, string[]> {
  const result: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    const lower = name.toLowerCase();
    if (lower === "content-security-policy" || lower === "content-security-policy-report-only") continue;
    result[name] = Array.isArray(value) ? value : [value];
  }
  result[CONTENT_SECURITY_POLICY_HEADER] = [policy];
  return result;
}

/**
 * Which responses carry the policy: documents (a policy on a script or an
 * image response does nothing). Every document gets it, not only ours, so a
 * page that got into a window by accident is as locked down as our own.
 */
export function isDocumentResource(resourceType: string): boolean {
  return resourceType === "mainFrame" || resourceType === "subFrame";
}
