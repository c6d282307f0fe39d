// A writer that dies mid-write, for the stale-temporaries test: writes a new
// session file through `writeNewFile`, stops after the first part (saying
// "half-written" on stdout) and blocks until it is killed.
//
//   node --import tsx crashing-writer.ts <final path>

import { writeSync } from "node:fs";
import { writeNewFile } from "../new-file.ts";

const finalPath = process.argv[2];
if (!finalPath) throw new Error("usage: crashing-writer.ts <final path>");

function* parts(): Generator<string> {
  yield `${JSON.stringify({ type: "session", version: 3, id: "crash", timestamp: new Date().toISOString(), cwd: "/" })}\n`;
  yield "x".repeat(1 << 20);
  writeSync(1, "half-written\n");
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 120_000);
  yield "\n";
}

writeNewFile(finalPath, parts());
