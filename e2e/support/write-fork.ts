/**
 * Writes a session and a fork of it with Pi's own SessionManager (Pi 1.6's
 * `createBranchedSession`), in Pi's layout under the folder given, and
 * prints what the test needs as JSON. Run as a child process
 * (`node --import tsx`): Pi's package is ESM with top-level await, which the
 * test runner's own transform does not load.
 *
 *   node --import tsx e2e/support/write-fork.ts DIR
 */

import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { assistantMessage, pi16, userMessage } from "../../app/store/testing/pi.ts";

const root = process.argv[2];
if (!root) throw new Error("usage: write-fork.ts DIR");
const dir = join(root, "--home-e2e-projects-fork--");
mkdirSync(dir, { recursive: true });
const manager = pi16.SessionManager.create("/home/e2e/projects/fork", dir);
manager.appendSessionInfo("Fork source: parser");
manager.appendMessage(userMessage("Fix the parser so that empty lines are skipped"));
const ancestor = manager.appendMessage(assistantMessage("I will look at the tokenizer first."));
manager.appendMessage(userMessage("Run the unit tests now"));
manager.appendMessage(assistantMessage("All 42 tests passed."));
const sourceTip = manager.getLeafId()!;
const source = manager.getSessionFile()!;
const fork = manager.createBranchedSession(ancestor)!;
manager.appendSessionInfo("Fork: docs instead");
manager.appendMessage(userMessage("Write the documentation instead"));
manager.appendMessage(assistantMessage("The documentation is written in docs/parser.md."));
const forkTip = manager.getLeafId()!;
console.log(JSON.stringify({ source, fork, sourceTip, forkTip, ancestor }));
