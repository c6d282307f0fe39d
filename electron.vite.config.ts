/**
 * The Electron build: main process, preload and renderer, into out/.
 *
 *   main      app/electron/main.ts     -> out/main/index.js    (ES module; every dependency bundled)
 *   preload   app/electron/preload.ts  -> out/preload/index.cjs (one CommonJS file: a sandboxed
 *                                        preload can require only "electron", never a chunk or a package)
 *   renderer  renderer/index.html      -> out/renderer/         (React; the CSP meta tag written into the page)
 *
 * (electron-vite's default out/ folders; `--outDir` moves all three.)
 * Everything the app needs is in out/, so the package (electron-builder.yml)
 * holds out/ and package.json and no node_modules at all.
 */

import { resolve } from "node:path";
import react from "@vitejs/plugin-react";
import { defineConfig } from "electron-vite";
import type { Plugin } from "vite";
import { CONTENT_SECURITY_POLICY_META } from "./app/electron/csp.ts";

const root = import.meta.dirname;

/**
 * Writes the CSP into index.html at build time, beside the header the app's
 * scheme sends with the page (app/electron/bundle-server.ts); under the
 * dev server the main process sends the (development) policy as a header
 * instead, which is why the tag is not in the source file.
 */
function contentSecurityPolicyMeta(): Plugin {
  return {
    name: "arbor:content-security-policy-meta",
    apply: "build",
    transformIndexHtml: {
      order: "post",
      handler(html) {
        if (/http-equiv=["']Content-Security-Policy["']/i.test(html)) {
          throw new Error(
            "renderer/index.html has its own Content-Security-Policy meta tag: remove it, the build writes app/electron/csp.ts's policy.",
          );
        }
        return [
          {
            tag: "meta",
            attrs: { "http-equiv": "Content-Security-Policy", content: CONTENT_SECURITY_POLICY_META },
            injectTo: "head-prepend",
          },
        ];
      },
    },
  };
}

export default defineConfig({
  main: {
    build: {
      externalizeDeps: false,
      rolldownOptions: {
        input: { index: resolve(root, "app/electron/main.ts") },
      },
    },
  },
  preload: {
    build: {
      externalizeDeps: false,
      rolldownOptions: {
        input: { index: resolve(root, "app/electron/preload.ts") },
        output: { format: "cjs", entryFileNames: "[name].cjs", codeSplitting: false },
      },
    },
  },
  renderer: {
    root: resolve(root, "renderer"),
    plugins: [react(), contentSecurityPolicyMeta()],
    build: {
      rolldownOptions: {
        input: { index: resolve(root, "renderer/index.html") },
      },
    },
  },
});
