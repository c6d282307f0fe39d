/**
 * Who may talk to `arbor serve`. It listens on 127.0.0.1 only, and every
 * request, page or WebSocket, must carry the per-launch token: as `?token=`
 * (the URL the command prints) or as the `arbor_token` cookie the server sets
 * on the first page load (HttpOnly, SameSite=Strict). The Host header must
 * name the server itself (so a page on another name that resolves to
 * 127.0.0.1 gets nowhere), a request with an Origin must come from the
 * server's own origin, and a WebSocket upgrade must have one.
 */

import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { contentSecurityPolicyConnectingTo } from "../electron/csp.ts";

export const LOOPBACK_HOST = "127.0.0.1";
export const TOKEN_COOKIE = "arbor_token";
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

export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const at = part.indexOf("=");
    if (at < 0) continue;
    if (part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

/** `Set-Cookie` for the token: this server's pages and socket only, never readable by scripts. */
export function tokenCookie(token: string): string {
  return `${TOKEN_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Strict`;
}

export type AccessDecision =
  | { allowed: true; via: "query" | "cookie" }
  | { allowed: false; status: 401 | 403; reason: string };

const refuse = (status: 401 | 403, reason: string): AccessDecision => ({ allowed: false, status, reason });

/**
 * Decides one request. `requireOrigin`: WebSocket upgrades must say where
 * they come from (browsers always do; a missing Origin is some other client).
 */
export function decideAccess(
  request: Pick<IncomingMessage, "headers" | "url">,
  options: { token: string; port: number; requireOrigin: boolean },
): AccessDecision {
  const host = request.headers.host;
  if (!host || !allowedHosts(options.port).has(host.toLowerCase())) {
    return refuse(403, "The request is not addressed to this server (Host header).");
  }
  const origin = request.headers.origin;
  if (origin === undefined) {
    if (options.requireOrigin)
      return refuse(403, "A WebSocket must say where it comes from (Origin header).");
  } else if (!allowedOrigins(options.port).has(origin.toLowerCase())) {
    return refuse(403, "Requests from other sites are refused (Origin header).");
  }
  const query = new URL(request.url ?? "/", "http://localhost").searchParams.get("token");
  if (query !== null) {
    return tokenMatches(query, options.token)
      ? { allowed: true, via: "query" }
      : refuse(403, "The access token is wrong: use the URL `arbor serve` printed at this launch.");
  }
  const cookie = cookieValue(request.headers.cookie, TOKEN_COOKIE);
  if (cookie !== undefined) {
    return tokenMatches(cookie, options.token)
      ? { allowed: true, via: "cookie" }
      : refuse(403, "The access token is from another launch: use the URL `arbor serve` printed this time.");
  }
  return refuse(401, "Arbor needs its access token: open the URL `arbor serve` printed.");
}
