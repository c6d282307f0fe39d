/**
 * Where Arbor's own page lives, and which URLs count as it: the built
 * renderer (out/renderer, inside app.asar when packaged), served under the
 * app's own privileged scheme as `arbor://app/` (never from file://, which
 * Electron's checklist advises against and the packaged binary's fuses give
 * no extra privileges), or the electron-vite dev server on a loopback address
 * during development. The sender check, the CSP, the request filter and the
 * scheme's file server all ask these questions, so they are answered once,
 * here, as pure functions of URLs.
 */

import { extname, join, sep } from "node:path";

/** The app's own scheme: its page is `arbor://app/index.html`. */
export const APP_SCHEME = "arbor";
const APP_HOST = "app";
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;

export type AppLocation =
  /** The built renderer: the folder of index.html, served as `arbor://app/`. */
  | { kind: "bundle"; root: string }
  /** The electron-vite dev server (development only). */
  | { kind: "dev-server"; origin: string };

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

export interface AppLocationInput {
  isPackaged: boolean;
  /** `ELECTRON_RENDERER_URL`, which `electron-vite dev` sets. */
  rendererUrl: string | undefined;
  /** Absolute path of the built renderer's folder (out/renderer). */
  bundleRoot: string;
}

/**
 * The dev server is used only when the app is not packaged and the URL is
 * plain http on a loopback host: a packaged app never loads a page from
 * anywhere but its own files, whatever the environment says.
 */
export function resolveAppLocation(input: AppLocationInput): AppLocation {
  if (!input.isPackaged && input.rendererUrl) {
    const url = parseUrl(input.rendererUrl);
    if (url && url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname)) {
      return { kind: "dev-server", origin: url.origin };
    }
  }
  return { kind: "bundle", root: input.bundleRoot };
}

/** What to hand `BrowserWindow.loadURL`. */
export function appPageUrl(location: AppLocation): string {
  return location.kind === "bundle" ? `${APP_ORIGIN}/index.html` : `${location.origin}/`;
}

/**
 * True when `url` is Arbor's own page: index.html on the app's scheme (query
 * and fragment ignored), or any path on the dev server's origin.
 */
export function isAppPageUrl(url: string, location: AppLocation): boolean {
  const parsed = parseUrl(url);
  if (!parsed) return false;
  if (location.kind === "dev-server") return parsed.origin === location.origin;
  return isAppSchemeUrl(parsed) && parsed.pathname === "/index.html";
}

/** The origin a permission check may give for the app's page. */
export function isAppOrigin(origin: string, location: AppLocation): boolean {
  return origin === (location.kind === "dev-server" ? location.origin : APP_ORIGIN);
}

/**
 * True for what the app's page may load: its own files (on the app's scheme,
 * inside the bundle), the dev server and its hot-reload socket, data: images,
 * and the dev tools' own pages. Everything else (any file:// URL, any other
 * site) is cancelled before it is requested; the CSP says the same from
 * inside the page.
 */
export function isAllowedRequestUrl(url: string, location: AppLocation): boolean {
  const parsed = parseUrl(url);
  if (!parsed) return false;
  switch (parsed.protocol) {
    case "data:":
    case "devtools:":
      return true;
    case `${APP_SCHEME}:`:
      return bundleFile(url, location) !== null;
    case "http:":
      return location.kind === "dev-server" && parsed.origin === location.origin;
    case "ws:":
      return location.kind === "dev-server" && parsed.host === new URL(location.origin).host;
    default:
      return false;
  }
}

/**
 * The file in the bundle an `arbor://app/...` URL names, or null for any URL
 * that names nothing inside it: another host, `..` however it is spelled,
 * an encoded separator or NUL, an empty name.
 */
export function bundleFile(url: string, location: AppLocation): string | null {
  if (location.kind !== "bundle") return null;
  const parsed = parseUrl(url);
  if (!parsed || !isAppSchemeUrl(parsed)) return null;
  const segments: string[] = [];
  for (const raw of parsed.pathname.split("/").slice(1)) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return null;
    }
    if (segment === "" || segment === "." || segment === ".." || /[/\\\0:]/.test(segment)) return null;
    segments.push(segment);
  }
  if (segments.length === 0) return null;
  const file = join(location.root, ...segments);
  return isInside(file, location.root) ? file : null;
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".map": "application/json",
};

/** The Content-Type the app's scheme serves a bundle file with. */
export function contentTypeOf(file: string): string {
  return CONTENT_TYPES[extname(file).toLowerCase()] ?? "application/octet-stream";
}

function isAppSchemeUrl(url: URL): boolean {
  return (
    url.protocol === `${APP_SCHEME}:` && url.host === APP_HOST && url.username === "" && url.password === ""
  );
}

function parseUrl(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

const caseInsensitivePaths = process.platform === "win32" || process.platform === "darwin";

function normalize(path: string): string {
  return caseInsensitivePaths ? path.toLowerCase() : path;
}

function isInside(path: string, folder: string): boolean {
  const prefix = folder.endsWith(sep) ? folder : folder + sep;
  return normalize(path).startsWith(normalize(prefix));
}
