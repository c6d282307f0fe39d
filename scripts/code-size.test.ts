/** The gate's check of issue 16's bound: product modules within 500 lines, functions within 80 (scripts/code-size.ts). */

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { findOversize } from "./code-size.ts";

describe("code size", () => {
  it("no product module is over 500 lines and no function over 80, unless it says why it must be one piece", () => {
    const over = findOversize(join(import.meta.dirname, ".."));
    expect(over.map((item) => `${item.file}:${item.line}: ${item.what} has ${item.lines} lines`)).toEqual([]);
  });

  it("finds a long module and a long function, spares tests and a function that says why it is one piece", () => {
    const root = mkdtempSync(join(tmpdir(), "arbor-code-size-"));
    try {
      mkdirSync(join(root, "shared"), { recursive: true });
      const body = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join("\n");
      writeFileSync(join(root, "shared", "long.ts"), `export function long() {\n${body(81)}\n}\n`);
      writeFileSync(
        join(root, "shared", "kept.ts"),
        `// One piece: a state machine reads best whole.\nexport function kept() {\n${body(90)}\n}\n`,
      );
      writeFileSync(join(root, "shared", "big.ts"), `${"// filler\n".repeat(501)}`);
      writeFileSync(join(root, "shared", "big.test.ts"), `${"// filler\n".repeat(900)}`);
      expect(findOversize(root).map((item) => [item.file, item.what])).toEqual([
        ["shared/big.ts", "module"],
        ["shared/long.ts", "function long"],
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
