/** The branch model: segments, branches and what each adds up to (see branch-model.ts). */

export * from "./branch-map.ts";
export { BranchModel } from "./branch-model.ts";
export * from "./entry-kinds.ts";
export type { EntryLabel, EntryPreview, RunFacts } from "./run-facts.ts";
export { Tally, type TallyFacts, type TokenTotals } from "./tally.ts";
