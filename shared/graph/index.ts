/** Graph maths for the explorer: Pi's `/tree` filters, chain folding, tree layout. Pure; positions as data. */

export * from "./chains.ts";
export * from "./filter.ts";
export * from "./layout.ts";
