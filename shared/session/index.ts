/** The session core: read a Pi session file exactly as Pi means it, index its tree, build contexts. */

export * from "./arbor-entries.ts";
export * from "./context.ts";
export * from "./convert-to-llm.ts";
export * from "./entry-contribution.ts";
export * from "./entry-reader.ts";
export { extendSessionIndex, resumePoint } from "./extend-index.ts";
export * from "./facts.ts";
export * from "./line-splitter.ts";
export * from "./migrate.ts";
export * from "./parse.ts";
export * from "./problems.ts";
export * from "./tree-index.ts";
export { declaredParentId } from "./tree-links.ts";
export * from "./types.ts";

import { parseSessionBytes } from "./parse.ts";
import { buildSessionIndex, type SessionIndex } from "./tree-index.ts";

/** Reads a whole session held in memory (read its entries with `inMemoryEntryReader`). Files on disk: `app/store` reads them in chunks. */
export function readSession(input: Uint8Array | string): SessionIndex {
  return buildSessionIndex(parseSessionBytes(input));
}
