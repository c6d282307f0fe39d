#!/usr/bin/env node
// The `arbor` command: runs the built CLI (`npm run build`), or the TypeScript
// source directly through tsx when it is installed (a development checkout).
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const built = join(root, "out", "cli", "app", "cli", "main.js");
let runAsProcess;
if (existsSync(built)) {
  ({ runAsProcess } = await import(pathToFileURL(built).href));
} else {
  try {
    const { tsImport } = await import("tsx/esm/api");
    ({ runAsProcess } = await tsImport(
      pathToFileURL(join(root, "app", "cli", "main.ts")).href,
      import.meta.url,
    ));
  } catch {
    process.stderr.write("arbor: not built yet; run `npm run build` first\n");
    process.exit(2);
  }
}
runAsProcess(process.argv.slice(2));
