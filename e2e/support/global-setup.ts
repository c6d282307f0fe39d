/**
 * Builds the renderer once before any test (`npx electron-vite build` into
 * out/renderer), so `arbor serve` serves this checkout's app, not a stale one.
 */

import { spawnSync } from "node:child_process";
import { REPO } from "./serve.ts";

export default function globalSetup(): void {
  const build = spawnSync("npx", ["electron-vite", "build"], { cwd: REPO, encoding: "utf8" });
  if (build.status !== 0) {
    throw new Error(`npx electron-vite build failed (${build.status}):\n${build.stdout}\n${build.stderr}`);
  }
}
