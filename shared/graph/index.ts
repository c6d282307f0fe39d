/** Graph maths for the explorer: Pi's `/tree` filters, chain folding, layout, viewport index. Pure, as data. */

export * from "./chains.ts";
export * from "./filter.ts";
export * from "./indexed-nodes.ts";
export * from "./layout.ts";
export * from "./viewport-index.ts";
