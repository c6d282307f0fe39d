/**
 * Who may talk to `arbor serve`. It listens on 127.0.0.1 only. The Host header
 * must name the server itself (so a page on another name that resolves to
 * 127.0.0.1 gets nowhere), and a request with an Origin must come from the
 * server's own origin.
 *
 * Every session request and event goes over the WebSocket, and the upgrade
 * must carry the per-launch token (`?token=`). The page and its scripts hold
 * no data: they are served without the token, to navigations typed or pasted
 * into the address bar and to the page's own loads, never to a link followed
 * from another site (Sec-Fetch-Site). The page keeps the token it was opened
 * with in its own origin's storage, which is private to this server's port;
 * no cookie carries it, since cookies ignore ports and every other service on
 * 127.0.0.1 would receive it, and a second server's cookie would replace it.
 */

import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { serveErrors } from "../../shared/error-texts.ts";
import { contentSecurityPolicyConnectingTo } from "../electron/csp.ts";

export const LOOPBACK_HOST = "127.0.0.1";
export const WEBSOCKET_PATH = "/ws";

/** A fresh access token: 32 random bytes, base64url. */
export function createAccessToken(): string {
  return randomBytes(32).toString("base64url");
}

/** The same policy as Arbor's Electron window, plus the socket this server offers. */
export function contentSecurityPolicy(port: number): string {
  return contentSecurityPolicyConnectingTo([`ws://${LOOPBACK_HOST}:${port}`]);
}

/** Headers on every response, refusals included. */
export function securityHeaders(port: number): Record<string, string> {
  return {
    "Content-Security-Policy": contentSecurityPolicy(port),
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Cache-Control": "no-store",
  };
}

export function allowedOrigins(port: number): ReadonlySet<string> {
  return new Set([`http://${LOOPBACK_HOST}:${port}`, `http://localhost:${port}`]);
}

function allowedHosts(port: number): ReadonlySet<string> {
  return new Set([`${LOOPBACK_HOST}:${port}`, `localhost:${port}`]);
}

/** Constant-time comparison (of digests, so lengths do not leak either). */
export function tokenMatches(candidate: string, token: string): boolean {
  const a = createHash("sha256").update(candidate).digest();
  const b = createHash("sha256").update(token).digest();
  return timingSafeEqual(a, b);
}

export type AccessDecision = { allowed: true } | { allowed: false; status: 401 | 403; reason: string };

const ALLOWED: AccessDecision = { allowed: true };
const refuse = (status: 401 | 403, reason: string): AccessDecision => ({ allowed: false, status, reason });

type Request = Pick<IncomingMessage, "headers" | "url">;

/** The checks every request passes: addressed to this server, and from its own origin when it names one. */
function checkAddress(request: Request, port: number, requireOrigin: boolean): AccessDecision {
  const host = request.headers.host;
  if (!host || !allowedHosts(port).has(host.toLowerCase())) {
    return refuse(403, serveErrors.wrongHost);
  }
  const origin = request.headers.origin;
  if (origin === undefined) {
    if (requireOrigin) return refuse(403, serveErrors.originMissing);
  } else if (!allowedOrigins(port).has(origin.toLowerCase())) {
    return refuse(403, serveErrors.otherSite);
  }
  return ALLOWED;
}

function tokenOf(request: Request): string | null {
  return new URL(request.url ?? "/", "http://localhost").searchParams.get("token");
}

/**
 * A page or one of its files. A token in the query must be this launch's; a
 * navigation from another site (or another port of this machine) is refused.
 */
export function decidePageAccess(request: Request, options: { token: string; port: number }): AccessDecision {
  const address = checkAddress(request, options.port, false);
  if (!address.allowed) return address;
  const site = request.headers["sec-fetch-site"];
  if (site === "cross-site" || site === "same-site") {
    return refuse(403, serveErrors.navigatedFromElsewhere);
  }
  const token = tokenOf(request);
  return token === null || tokenMatches(token, options.token) ? ALLOWED : refuse(403, serveErrors.wrongToken);
}

/** The WebSocket, which carries every request: from this server's own page, with this launch's token. */
export function decideSocketAccess(
  request: Request,
  options: { token: string; port: number },
): AccessDecision {
  const address = checkAddress(request, options.port, true);
  if (!address.allowed) return address;
  const token = tokenOf(request);
  if (token === null) return refuse(401, serveErrors.tokenMissing);
  return tokenMatches(token, options.token) ? ALLOWED : refuse(403, serveErrors.wrongToken);
}
