/** A parse cache for tests that counts the saved parses it loads (an index built from the cache loads one). */

import type { ParseCache } from "../parse-cache.ts";

export function countingLoads(cache: ParseCache): ParseCache & { loads: number } {
  const counted = {
    ...cache,
    loads: 0,
    load(path: string) {
      counted.loads++;
      return cache.load(path);
    },
  };
  return counted;
}
