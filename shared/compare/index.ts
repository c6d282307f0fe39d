/** The compare engine: two branches side by side (see compare.ts). */

export { comparisonMarkdown, markedText } from "./markdown.ts";
export { type CompareOptions, type ComparisonWithDetail, compareBranches } from "./compare.ts";
export type { CompareSide } from "./paths.ts";
export * from "./types.ts";
