#!/usr/bin/env node
// The one gate: format check, lint, typecheck, unit tests, end-to-end tests.
// Every step runs even if an earlier one fails, so one run shows everything;
// the last line counts tests as `N passed, N failed` (CI reads it).
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const reports = mkdtempSync(join(tmpdir(), "arbor-gate-"));
const steps = [
  { name: "format", command: ["npx", "biome", "format", "."] },
  { name: "lint", command: ["npx", "biome", "lint", "--error-on-warnings", "."] },
  { name: "typecheck", command: ["npx", "tsc", "-b"] },
  { name: "security", command: ["node", "scripts/electronegativity.mjs"] },
  {
    name: "unit",
    command: [
      "npx",
      "vitest",
      "run",
      "--reporter=default",
      "--reporter=json",
      `--outputFile.json=${join(reports, "unit.json")}`,
    ],
    report: join(reports, "unit.json"),
  },
];
if (existsSync("playwright.config.ts")) {
  steps.push({
    name: "e2e",
    command: ["npx", "playwright", "test"],
    env: { PLAYWRIGHT_JSON_OUTPUT_NAME: join(reports, "e2e.json") },
    report: join(reports, "e2e.json"),
  });
}

let passed = 0;
let failed = 0;
let skipped = 0;
const failedSteps = [];
for (const step of steps) {
  console.log(`\n=== ${step.name}: ${step.command.join(" ")}`);
  const result = spawnSync(step.command[0], step.command.slice(1), {
    stdio: "inherit",
    env: { ...process.env, ...step.env },
  });
  const ok = result.status === 0;
  if (step.report && existsSync(step.report)) {
    const counts = countTests(JSON.parse(readFileSync(step.report, "utf8")));
    passed += counts.passed;
    failed += counts.failed;
    skipped += counts.skipped;
    if (!ok && counts.failed === 0) {
      failed += 1; // the runner failed outside any test (a crash, a broken config)
    }
  } else if (step.report) {
    failed += 1; // no report: the runner did not get as far as running tests
  } else {
    if (ok) passed += 1;
    else failed += 1; // a check step (format, lint, types) counts as one test
  }
  if (!ok) failedSteps.push(step.name);
}
rmSync(reports, { recursive: true, force: true });
if (failedSteps.length > 0) console.log(`\nFailed steps: ${failedSteps.join(", ")}`);
console.log(`\n${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failedSteps.length > 0 ? 1 : 0);

function countTests(report) {
  if ("numPassedTests" in report) {
    return {
      passed: report.numPassedTests,
      failed: report.numFailedTests,
      skipped: (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0),
    };
  }
  // Playwright's JSON reporter
  const stats = report.stats ?? {};
  return {
    passed: (stats.expected ?? 0) + (stats.flaky ?? 0),
    failed: stats.unexpected ?? 0,
    skipped: stats.skipped ?? 0,
  };
}
