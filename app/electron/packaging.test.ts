/**
 * Packaging smoke test: build the app with electron-vite, pack it with
 * electron-builder (`--dir --linux`, the unpacked folder only), and read the
 * resulting app.asar.
 *
 * The Electron binary cannot be downloaded here, so electron-builder gets a
 * stand-in distribution (`-c.electronDist`): a folder whose `electron` is a
 * small script that only exits with an error. It is copied and renamed, never
 * launched; what this test checks is what goes INTO the package. All network
 * access is pointed at a closed local port, so a download attempt fails the
 * test instead of happening.
 */

import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { listPackage, extractFile } from "@electron/asar";
import { FuseV1Options, getCurrentFuseWire } from "@electron/fuses";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONTENT_SECURITY_POLICY_META } from "./csp.ts";

const projectDir = resolve(import.meta.dirname, "../..");
const manifest = JSON.parse(readFileSync(join(projectDir, "package.json"), "utf8")) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const ELECTRON_VERSION = "45.5.0";
/** What marks the fuse wire in Electron's binary (@electron/fuses reads and writes after it). */
const SENTINEL = "dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX";
/** Electron's own fuse states, in wire order: RunAsNode on, cookie encryption off, NODE_OPTIONS on, ... */
const ELECTRON_DEFAULT_FUSES = "10110001";
/** A fuse's state in the wire: the characters "1" and "0" (@electron/fuses does not export its enum). */
const FuseState = { ENABLE: 0x31, DISABLE: 0x30 } as const;

/** Any HTTP(S) request goes to port 9 on this machine, where nothing listens. */
const OFFLINE_ENV = {
  HTTP_PROXY: "http://127.0.0.1:9",
  HTTPS_PROXY: "http://127.0.0.1:9",
  http_proxy: "http://127.0.0.1:9",
  https_proxy: "http://127.0.0.1:9",
  NO_PROXY: "",
  no_proxy: "",
  ELECTRON_GET_USE_PROXY: "1",
  npm_config_offline: "true",
};

function run(command: string, args: string[], env: Record<string, string> = {}): void {
  const result = spawnSync(command, args, {
    cwd: projectDir,
    env: { ...process.env, ...env },
    encoding: "utf8",
    timeout: 240_000,
  });
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(" ")} failed (${result.status ?? result.signal}):\n${result.stdout}\n${result.stderr}`,
    );
  }
}

let workDir: string;
let packedExecutable: string;
let archive: string;
let entries: string[];

beforeAll(() => {
  workDir = mkdtempSync(join(tmpdir(), "arbor-packaging-"));
  const standIn = join(workDir, "electron-stand-in");
  mkdirSync(join(standIn, "resources"), { recursive: true });
  const executable = join(standIn, "electron");
  // Ends with a fuse wire as Electron's binary carries one (sentinel, version 1, 8 fuses, Electron's
  // defaults), so the packaging step flips the fuses in it as it would in the real binary.
  writeFileSync(
    executable,
    `#!/bin/sh\necho "Arbor packaging test: a stand-in for Electron, never launched" >&2\nexit 1\n${SENTINEL}\u0001\u0008${ELECTRON_DEFAULT_FUSES}\n`,
  );
  chmodSync(executable, 0o755);

  const output = join(workDir, "dist");
  run("npx", ["electron-vite", "build"]);
  run(
    "npx",
    [
      "electron-builder",
      "--dir",
      "--linux",
      "--x64",
      `-c.electronDist=${standIn}`,
      `-c.electronVersion=${ELECTRON_VERSION}`,
      `-c.directories.output=${output}`,
    ],
    OFFLINE_ENV,
  );
  packedExecutable = join(output, "linux-unpacked", "arbor");
  archive = join(output, "linux-unpacked", "resources", "app.asar");
  entries = listPackage(archive, { isPack: false }).map((entry) => entry.replaceAll("\\", "/"));
}, 300_000);

afterAll(() => {
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

function text(path: string): string {
  return extractFile(archive, path.replace(/^\//, "")).toString("utf8");
}

describe("the packed app (electron-builder --dir with a stand-in Electron, never launched)", () => {
  it("holds the built main process, preload, renderer and package.json", () => {
    for (const path of [
      "/out/main/index.js",
      "/out/preload/index.cjs",
      "/out/renderer/index.html",
      "/package.json",
    ]) {
      expect(entries).toContain(path);
    }
    expect(entries.some((entry) => /^\/out\/renderer\/assets\/.+\.js$/.test(entry))).toBe(true);
  });

  it("holds nothing else: no sources, tests, configs, other build output or node_modules", () => {
    const allowed = /^\/(package\.json|out(\/(main|preload|renderer)(\/.*)?)?)$/;
    expect(entries.filter((entry) => !allowed.test(entry))).toEqual([]);
    expect(entries.filter((entry) => /\.tsx?$|\.test\.|\.map$/.test(entry))).toEqual([]);
  });

  it("contains no development dependency, not even bundled", () => {
    const devDependencies = Object.keys(manifest.devDependencies);
    expect(devDependencies).toEqual(
      expect.arrayContaining([
        "vitest",
        "typescript",
        "@biomejs/biome",
        "@playwright/test",
        "electron-builder",
        "@earendil-works/pi-coding-agent",
        "@mariozechner/pi-coding-agent",
      ]),
    );
    for (const name of devDependencies) {
      expect(entries.some((entry) => entry.includes(`/node_modules/${name}/`))).toBe(false);
    }
    // The bundles name each module they inline (`// node_modules/zod/...`): none may be a dev dependency.
    for (const bundle of ["/out/main/index.js", "/out/preload/index.cjs"]) {
      const inlined = [...text(bundle).matchAll(/^\/\/ node_modules\/((?:@[^/]+\/)?[^/]+)\//gm)].map(
        (m) => m[1],
      );
      expect(inlined.filter((name) => name !== undefined && name in manifest.devDependencies)).toEqual([]);
    }
  });

  it("needs nothing from node_modules at run time: main loads only Electron and Node built-ins", () => {
    const main = text("/out/main/index.js");
    const loaded = [
      ...[...main.matchAll(/^import\s[^;]*?from\s*"([^"]+)"/gm)].map((match) => match[1]),
      ...[...main.matchAll(/\b(?:__)?require\(\s*"([^"]+)"\s*\)/g)].map((match) => match[1]),
    ];
    expect(loaded).toContain("electron");
    const builtins = new Set(builtinModules);
    const isBuiltin = (specifier: string) =>
      specifier.startsWith("node:") || builtins.has(specifier.split("/")[0] ?? specifier);
    expect(loaded.filter((specifier) => specifier !== "electron" && !isBuiltin(specifier ?? ""))).toEqual([]);
  });

  it("has a sandbox-ready preload: one CommonJS file that requires only electron", () => {
    expect(entries.filter((entry) => entry.startsWith("/out/preload/"))).toEqual(["/out/preload/index.cjs"]);
    const preload = text("/out/preload/index.cjs");
    expect([...preload.matchAll(/require\(\s*"([^"]+)"\s*\)/g)].map((match) => match[1])).toEqual([
      "electron",
    ]);
    expect(preload).not.toMatch(/^\s*(import|export)\s/m);
  });

  it("writes the CSP into the page", () => {
    const page = text("/out/renderer/index.html").replaceAll("&#39;", "'");
    expect(page).toContain(
      `<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY_META}">`,
    );
    expect(page).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
  });

  it("flips Electron's fuses as electron-builder.yml sets them, in the packed binary", async () => {
    const wire = await getCurrentFuseWire(packedExecutable);
    const state = (fuse: FuseV1Options) => (wire[fuse] === FuseState.ENABLE ? "on" : `off:${wire[fuse]}`);
    expect({
      runAsNode: state(FuseV1Options.RunAsNode),
      cookieEncryption: state(FuseV1Options.EnableCookieEncryption),
      nodeOptions: state(FuseV1Options.EnableNodeOptionsEnvironmentVariable),
      inspectArguments: state(FuseV1Options.EnableNodeCliInspectArguments),
      asarIntegrity: state(FuseV1Options.EnableEmbeddedAsarIntegrityValidation),
      onlyAsar: state(FuseV1Options.OnlyLoadAppFromAsar),
      fileProtocolPrivileges: state(FuseV1Options.GrantFileProtocolExtraPrivileges),
    }).toEqual({
      runAsNode: `off:${FuseState.DISABLE}`,
      cookieEncryption: "on",
      nodeOptions: `off:${FuseState.DISABLE}`,
      inspectArguments: `off:${FuseState.DISABLE}`,
      asarIntegrity: "on",
      onlyAsar: "on",
      fileProtocolPrivileges: `off:${FuseState.DISABLE}`,
    });
  });

  it("starts at the built main process, and ships no scripts or dev dependencies in package.json", () => {
    const packed = JSON.parse(text("/package.json")) as Record<string, unknown>;
    expect(packed.main).toBe("out/main/index.js");
    expect(packed).not.toHaveProperty("devDependencies");
    expect(packed).not.toHaveProperty("scripts");
  });
});
