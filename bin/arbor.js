#!/usr/bin/env node
// The `arbor` command. In a development checkout (sources and tsx present) it
// runs the TypeScript sources, so a stale build can never answer; otherwise
// the built CLI from `npm run build`.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const source = join(root, "app", "cli", "main.ts");
const built = join(root, "out", "cli", "app", "cli", "main.js");
let runAsProcess;
if (existsSync(source)) {
  try {
    const { tsImport } = await import("tsx/esm/api");
    ({ runAsProcess } = await tsImport(pathToFileURL(source).href, import.meta.url));
  } catch {
    // No tsx (an installed package): use the build.
  }
}
if (!runAsProcess) {
  if (!existsSync(built)) {
    process.stderr.write("arbor: not built yet; run `npm run build` first\n");
    process.exit(2);
  }
  ({ runAsProcess } = await import(pathToFileURL(built).href));
}
runAsProcess(process.argv.slice(2));
