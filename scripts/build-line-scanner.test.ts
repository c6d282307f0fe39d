/**
 * The WebAssembly line scanner is committed as bytes (`shared/session/line-scanner-binary.ts`):
 * they must be the build of its source, with the locked AssemblyScript.
 */

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { compileLineScanner, SCANNER_MODULE, scannerModuleText } from "./build-line-scanner.ts";

describe("the committed line scanner", () => {
  it("is the build of wasm/line-scanner/scanner.ts (run `npm run build:wasm` after changing it)", async () => {
    const binary = await compileLineScanner();
    expect(binary.length).toBeGreaterThan(1000);
    expect(readFileSync(new URL(`../${SCANNER_MODULE}`, import.meta.url), "utf8")).toBe(
      scannerModuleText(binary),
    );
  });
});
