#!/usr/bin/env node
// Security lint of the Electron app with Doyensec's electronegativity, as a gate step.
//
// What is scanned: every TypeScript source under app/ (tests and test helpers left out:
// they do not ship) and the renderer page as built (the CSP meta tag is written in at
// build time, so the source index.html does not show it). Files keep their repository
// paths, so findings and allow-list entries name real files.
//
// Fails when a HIGH or MEDIUM finding is not in security/electronegativity-allowlist.json,
// when an allow-list entry matches nothing any more (so the list cannot rot), or when a
// file could not be parsed (an unparsed file is an unscanned file).
//
// Offline: the check that looks up Electron releases online (AVAILABLE_SECURITY_FIXES) is
// left out; electronegativity's attempt to fetch translations fails and it carries on.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const allowListPath = join(root, "security", "electronegativity-allowlist.json");
const FAILING = new Set(["HIGH", "MEDIUM"]);

const require = createRequire(import.meta.url);
const runElectronegativity = require("@doyensec/electronegativity");

function sourcesToScan(folder) {
  const found = [];
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "testing" && entry.name !== "node_modules") found.push(...sourcesToScan(path));
    } else if (
      /\.tsx?$/.test(entry.name) &&
      !/\.test\.tsx?$/.test(entry.name) &&
      entry.name !== "testing.ts"
    ) {
      found.push(path);
    }
  }
  return found;
}

function readAllowList() {
  const entries = JSON.parse(readFileSync(allowListPath, "utf8"));
  if (!Array.isArray(entries)) throw new Error(`${allowListPath} must hold an array.`);
  for (const entry of entries) {
    for (const field of ["check", "file", "reason"]) {
      if (typeof entry[field] !== "string" || entry[field].trim() === "") {
        throw new Error(
          `${allowListPath}: every entry needs a non-empty "${field}": ${JSON.stringify(entry)}`,
        );
      }
    }
  }
  return entries;
}

const toPosix = (path) => path.split(sep).join("/");

async function main() {
  const allowList = readAllowList();
  const electronVersion = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).devDependencies
    .electron;
  const work = mkdtempSync(join(tmpdir(), "arbor-electronegativity-"));
  try {
    const built = join(work, "built");
    const build = spawnSync("npx", ["electron-vite", "build", "--outDir", built, "--logLevel", "error"], {
      cwd: root,
      encoding: "utf8",
    });
    if (build.status !== 0) {
      console.error(`electron-vite build failed:\n${build.stdout}\n${build.stderr}`);
      return 1;
    }

    const scan = join(work, "scan");
    const copies = [
      ...sourcesToScan(join(root, "app")).map((path) => [path, toPosix(relative(root, path))]),
      [join(built, "renderer", "index.html"), "out/renderer/index.html"],
    ];
    for (const [from, to] of copies) {
      mkdirSync(dirname(join(scan, to)), { recursive: true });
      copyFileSync(from, join(scan, to));
    }

    const result = await runElectronegativity({
      input: scan,
      isRelative: true,
      electronVersionOverride: electronVersion,
      electronVersion,
      excludeFromScan: ["availablesecurityfixesglobalcheck"],
    });

    const findings = result.issues.map((issue) => ({
      check: issue.id,
      severity: issue.severity.name,
      confidence: issue.confidence.name,
      file: issue.file === "N/A" ? "N/A" : toPosix(issue.file),
      line: issue.location?.line ?? 0,
      sample: String(issue.sample ?? "").trim(),
      description: issue.description,
    }));
    const allowed = (finding) =>
      allowList.find((entry) => entry.check === finding.check && entry.file === finding.file);

    let failures = 0;
    console.log(
      `electronegativity ${require("@doyensec/electronegativity/package.json").version}: ` +
        `${copies.length} files, Electron ${electronVersion}, ${result.globalChecks} global and ${result.atomicChecks} atomic checks`,
    );
    for (const error of result.errors) {
      console.log(`  PARSE ERROR  ${toPosix(relative(scan, error.file))}: ${error.message}`);
      if (!error.tolerable) failures += 1;
    }
    for (const finding of findings) {
      const where = `${finding.file}:${finding.line}`;
      const entry = allowed(finding);
      const label = `${finding.severity}/${finding.confidence}`;
      if (!FAILING.has(finding.severity)) {
        console.log(`  note     ${finding.check} ${label} ${where}: ${finding.description}`);
      } else if (entry) {
        console.log(`  allowed  ${finding.check} ${label} ${where}: ${entry.reason}`);
      } else {
        failures += 1;
        console.log(`  FAIL     ${finding.check} ${label} ${where}: ${finding.description}`);
        if (finding.sample) console.log(`           ${finding.sample}`);
      }
    }
    for (const entry of allowList) {
      if (!findings.some((finding) => finding.check === entry.check && finding.file === entry.file)) {
        failures += 1;
        console.log(
          `  STALE    allow-list entry ${entry.check} in ${entry.file} matches no finding: remove it`,
        );
      }
    }
    console.log(
      failures === 0
        ? "electronegativity: no HIGH or MEDIUM finding outside the allow-list"
        : `electronegativity: ${failures} problem(s); fix them, or allow-list a finding with its reason in ${toPosix(relative(root, allowListPath))}`,
    );
    return failures === 0 ? 0 : 1;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
