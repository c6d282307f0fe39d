/**
 * Where Arbor's own page lives, and which URLs count as it: the built
 * index.html on disk in a packaged app, or the electron-vite dev server on a
 * loopback address during development. The sender check, the CSP header and
 * the request filter all ask these questions, so they are answered once,
 * here, as pure functions of URLs.
 */

import { dirname, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export type AppLocation =
  /** The built page: `out/renderer/index.html` (inside app.asar when packaged). */
  | { kind: "file"; indexFile: string }
  /** The electron-vite dev server (development only). */
  | { kind: "dev-server"; origin: string };

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

export interface AppLocationInput {
  isPackaged: boolean;
  /** `ELECTRON_RENDERER_URL`, which `electron-vite dev` sets. */
  rendererUrl: string | undefined;
  /** Absolute path of the built index.html. */
  indexFile: string;
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
  return { kind: "file", indexFile: input.indexFile };
}

/** What to hand `BrowserWindow.loadURL`. */
export function appPageUrl(location: AppLocation): string {
  return location.kind === "file" ? pathToFileURL(location.indexFile).href : `${location.origin}/`;
}

/**
 * True when `url` is Arbor's own page: the same file (query and fragment
 * ignored), or any path on the dev server's origin.
 */
export function isAppPageUrl(url: string, location: AppLocation): boolean {
  const parsed = parseUrl(url);
  if (!parsed) return false;
  if (location.kind === "dev-server") return parsed.origin === location.origin;
  if (parsed.protocol !== "file:" || parsed.host !== "") return false;
  return samePath(filePath(parsed), location.indexFile);
}

/**
 * True for what the app's page may load: its own files (the folder of
 * index.html and below), the dev server and its hot-reload socket, data:
 * images, and the dev tools' own pages. Everything else (another file on
 * disk, any other site) is cancelled before it is requested; the CSP says
 * the same from inside the page.
 */
export function isAllowedRequestUrl(url: string, location: AppLocation): boolean {
  const parsed = parseUrl(url);
  if (!parsed) return false;
  switch (parsed.protocol) {
    case "data:":
    case "devtools:":
      return true;
    case "file:": {
      if (location.kind !== "file" || parsed.host !== "") return false;
      const root = dirname(location.indexFile);
      const path = filePath(parsed);
      return path !== null && (samePath(path, root) || isInside(path, root));
    }
    case "http:":
      return location.kind === "dev-server" && parsed.origin === location.origin;
    case "ws:":
      return location.kind === "dev-server" && parsed.host === new URL(location.origin).host;
    default:
      return false;
  }
}

function parseUrl(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

function filePath(url: URL): string | null {
  try {
    return fileURLToPath(url);
  } catch {
    return null;
  }
}

const caseInsensitivePaths = process.platform === "win32" || process.platform === "darwin";

function normalize(path: string): string {
  return caseInsensitivePaths ? path.toLowerCase() : path;
}

function samePath(a: string | null, b: string): boolean {
  return a !== null && normalize(a) === normalize(b);
}

function isInside(path: string, folder: string): boolean {
  const prefix = folder.endsWith(sep) ? folder : folder + sep;
  return normalize(path).startsWith(normalize(prefix));
}
