/**
 * The built renderer's files, served from one folder and nothing outside
 * it: a request path is decoded, resolved against the folder, and refused
 * unless the result (and its real path, through any symlink) is inside. When
 * the renderer is not built, a placeholder page says so.
 */

import { realpathSync, statSync } from "node:fs";
import { extname, join, resolve, sep } from "node:path";

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".ico": "image/x-icon",
  ".woff": "font/woff",
  ".woff2": "font/woff2",
  ".ttf": "font/ttf",
  ".txt": "text/plain; charset=utf-8",
  ".wasm": "application/wasm",
};

export type StaticLookup =
  | { kind: "file"; path: string; size: number; contentType: string }
  | { kind: "placeholder"; html: string }
  | { kind: "bad-request" }
  | { kind: "not-found" };

/** No script, no style: it must show under the strict CSP. */
export const PLACEHOLDER_HTML = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Arbor</title></head>
<body>
<h1>Arbor</h1>
<p>The Arbor renderer is not built, so there is nothing to show yet.</p>
<p>Build it (<code>npm run build:app</code> writes <code>out/renderer</code>), then reload this page.</p>
</body>
</html>
`;

export class StaticFiles {
  private readonly folder: string;
  private root: string | null = null;

  /** `folder`: the built renderer (with an index.html); missing or empty means "not built" (yet). */
  constructor(folder: string) {
    this.folder = resolve(folder);
    this.findRoot();
  }

  get built(): boolean {
    return this.findRoot() !== null;
  }

  /** The folder's real path once it holds an index.html; checked again until then, so a build shows on reload. */
  private findRoot(): string | null {
    if (this.root !== null) return this.root;
    try {
      const real = realpathSync(this.folder);
      if (statSync(join(real, "index.html")).isFile()) this.root = real;
    } catch {
      // Not built yet.
    }
    return this.root;
  }

  lookup(pathname: string): StaticLookup {
    let decoded: string;
    try {
      decoded = decodeURIComponent(pathname);
    } catch {
      return { kind: "bad-request" };
    }
    if (decoded.includes("\0") || decoded.includes("\\")) return { kind: "not-found" };
    if (this.findRoot() === null) {
      return decoded === "/" || decoded === "/index.html"
        ? { kind: "placeholder", html: PLACEHOLDER_HTML }
        : { kind: "not-found" };
    }
    const relative = decoded.replace(/^\/+/, "") || "index.html";
    const full = this.inside(resolve(this.root!, relative));
    if (!full) return { kind: "not-found" };
    try {
      let path = this.inside(realpathSync(full));
      if (!path) return { kind: "not-found" };
      let stats = statSync(path);
      if (stats.isDirectory()) {
        path = this.inside(realpathSync(join(path, "index.html")));
        if (!path) return { kind: "not-found" };
        stats = statSync(path);
      }
      if (!stats.isFile()) return { kind: "not-found" };
      const contentType = CONTENT_TYPES[extname(path).toLowerCase()] ?? "application/octet-stream";
      return { kind: "file", path, size: stats.size, contentType };
    } catch {
      return { kind: "not-found" };
    }
  }

  /** `path` when it is the root or below it, else `null`. */
  private inside(path: string): string | null {
    const root = this.root!;
    return path === root || path.startsWith(root + sep) ? path : null;
  }
}
