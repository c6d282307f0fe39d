/** The session core: read a Pi session file exactly as Pi means it, index its tree, build contexts. */

export * from "./context.ts";
export * from "./convert-to-llm.ts";
export * from "./facts.ts";
export * from "./line-splitter.ts";
export * from "./migrate.ts";
export * from "./parse.ts";
export * from "./problems.ts";
export * from "./tree-index.ts";
export * from "./types.ts";

import { parseSessionBytes } from "./parse.ts";
import { buildSessionIndex, type SessionIndex } from "./tree-index.ts";

/** Reads a whole session held in memory. Files on disk: `app/store` reads them in chunks. */
export function readSession(input: Uint8Array | string): SessionIndex {
  return buildSessionIndex(parseSessionBytes(input));
}
