#!/usr/bin/env node
/**
 * The `arbor` command line: read Pi session files the way Arbor reads them.
 *
 *   arbor context FILE [--leaf ID]... [--leaf none] [--llm] [--json]
 *   arbor tree FILE [--json]
 *   arbor check FILE... [--json]
 *   arbor stats FILE [--json]
 *   arbor branches FILE [--json]
 *   arbor diff FILE LEFT RIGHT [--against OTHER_FILE] [--json]
 *   arbor serve [--dir DIR]... [--port N]   (app/serve/main.ts: Arbor in a browser)
 *
 * Exit codes: 0 success, 1 `check` found problems, 2 usage or I/O error (with
 * a one-line reason on stderr). No reading command writes to a session file.
 */

import { realpathSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { type ParseArgsConfig, parseArgs } from "node:util";
import {
  buildSessionProjection,
  contextGraphOf,
  convertToLlm,
  type EntryReader,
  isRecord,
  problemCounts,
  type SessionIndex,
} from "../../shared/session/index.ts";
import { type IndexedFile, openIndexedFile } from "../store/open-indexed-file.ts";
import { branchesCommand } from "./branches-command.ts";
import { diffCommand } from "./diff-command.ts";
import { renderTreeText, treeJson } from "./tree-output.ts";

/** Wrong arguments: exit 2 with the usage text. */
export class UsageError extends Error {}

/** A request that cannot be met (an unknown id): exit 2 with one line. */
export class CliError extends Error {}

const USAGE = `usage:
  arbor context FILE [--leaf ID]... [--leaf none] [--llm] [--json]
  arbor tree FILE [--json]
  arbor check FILE... [--json]
  arbor stats FILE [--json]
  arbor branches FILE [--json]
  arbor diff FILE LEFT RIGHT [--against OTHER_FILE] [--json]
  arbor serve [--dir DIR]... [--port N]`;

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

export function runCli(argv: readonly string[], io: CliIo): number {
  try {
    return runCommand(argv, io);
  } finally {
    for (const opened of openFiles.splice(0)) opened.close();
  }
}

function runCommand(argv: readonly string[], io: CliIo): number {
  try {
    const [command, ...rest] = argv;
    switch (command) {
      case "context":
        return contextCommand(rest, io);
      case "tree":
        return treeCommand(rest, io);
      case "check":
        return checkCommand(rest, io);
      case "stats":
        return statsCommand(rest, io);
      case "branches":
        return branchesCommand(rest, io);
      case "diff":
        return diffCommand(rest, io);
      case "help":
      case "--help":
      case "-h":
        io.stdout(`${USAGE}\n`);
        return 0;
      default:
        throw new UsageError(command ? `unknown command "${command}"` : "no command given");
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`arbor: ${error.message}\n${USAGE}\n`);
      return 2;
    }
    if (error instanceof CliError) {
      io.stderr(`arbor: ${error.message}\n`);
      return 2;
    }
    io.stderr(`arbor: ${describeIoError(error)}\n`);
    return 2;
  }
}

function describeIoError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  const message = error instanceof Error ? error.message : String(error);
  return `${code ? `cannot read file (${code}): ` : ""}${message.split("\n")[0]}`;
}

/** Files opened by the running command; closed when it returns. */
const openFiles: IndexedFile[] = [];

/** Opens a file structure-first (bodies read on demand) for its index and entries; the file stays untouched. */
export function openFile(file: string): { index: SessionIndex; reader: EntryReader } {
  const opened = openIndexedFile(file);
  openFiles.push(opened);
  return opened;
}

export function parse(args: readonly string[], options: NonNullable<ParseArgsConfig["options"]>) {
  try {
    return parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

export function oneFile(positionals: string[]): string {
  if (positionals.length !== 1) throw new UsageError(`expected one FILE, got ${positionals.length}`);
  return positionals[0]!;
}

function contextCommand(args: readonly string[], io: CliIo): number {
  const { values, positionals } = parse(args, {
    leaf: { type: "string", multiple: true },
    llm: { type: "boolean" },
    json: { type: "boolean" },
  });
  const file = oneFile(positionals);
  const { index, reader } = openFile(file);
  const requested = (values.leaf as string[] | undefined) ?? [undefined];
  for (const leaf of requested) {
    if (leaf !== undefined && leaf !== "none" && !index.byId.has(leaf)) {
      throw new CliError(`no entry with id "${leaf}" in ${file}`);
    }
  }
  const graph = contextGraphOf(index, reader);
  for (const leaf of requested) {
    const projection = buildSessionProjection(graph, leaf === "none" ? null : leaf);
    const messages = values.llm ? convertToLlm(projection.messages) : projection.messages;
    const result = {
      leafId: projection.leafId,
      messages,
      thinkingLevel: projection.thinkingLevel,
      model: projection.model,
    };
    if (values.json) {
      io.stdout(`${JSON.stringify(result)}\n`);
    } else {
      const model = result.model ? `${result.model.provider}/${result.model.modelId}` : "none";
      io.stdout(
        `leaf ${result.leafId ?? "none"}: ${messages.length} messages, model ${model}, thinking ${result.thinkingLevel}\n`,
      );
      for (const message of messages) io.stdout(`  ${describeMessage(message)}\n`);
    }
  }
  return 0;
}

function describeMessage(message: { role: string; [key: string]: unknown }): string {
  const content = message.content;
  let text = "";
  if (typeof content === "string") text = content;
  else if (Array.isArray(content)) {
    text = content
      .map((block: { type?: string; text?: string; name?: string }) =>
        block.type === "text"
          ? block.text
          : block.type === "toolCall"
            ? `[tool ${block.name}]`
            : `[${block.type}]`,
      )
      .join(" ");
  } else if (typeof message.summary === "string") text = message.summary;
  else if (typeof message.command === "string") text = `$ ${message.command}`;
  const line = text.replace(/\s+/g, " ").trim();
  return `${message.role}: ${line.length > 100 ? `${line.slice(0, 99)}…` : line}`;
}

function treeCommand(args: readonly string[], io: CliIo): number {
  const { values, positionals } = parse(args, { json: { type: "boolean" } });
  const { index, reader } = openFile(oneFile(positionals));
  if (values.json) io.stdout(`${JSON.stringify(treeJson(index, reader))}\n`);
  else renderTreeText(index, reader, (line) => io.stdout(`${line}\n`));
  return 0;
}

/** One file's problems as `arbor check --json` prints them. */
export interface CheckReport {
  file: string;
  ok: boolean;
  entries: number;
  lines: number;
  counts: { errors: number; warnings: number; notes: number };
  problems: {
    line: number;
    severity: string;
    code: string;
    message: string;
    relatedLine?: number;
    entryId?: string;
  }[];
}

export function checkReport(file: string, index: SessionIndex): CheckReport {
  const counts = problemCounts(index.problems);
  return {
    file,
    ok: counts.errors + counts.warnings === 0,
    entries: index.entries.length,
    lines: index.lineCount,
    counts,
    problems: index.problems.map((p) => ({
      line: p.line,
      severity: p.severity,
      code: p.kind,
      message: p.message,
      ...(p.relatedLine === undefined ? {} : { relatedLine: p.relatedLine }),
      ...(p.entryId === undefined ? {} : { entryId: p.entryId }),
    })),
  };
}

function checkCommand(args: readonly string[], io: CliIo): number {
  const { values, positionals } = parse(args, { json: { type: "boolean" } });
  if (positionals.length === 0) throw new UsageError("expected at least one FILE");
  let found = 0;
  let unreadable = 0;
  for (const file of positionals) {
    let index: SessionIndex;
    try {
      index = openFile(file).index;
    } catch (error) {
      // Check the other files anyway; the exit code still says one could not be read.
      unreadable += 1;
      io.stderr(`arbor: ${describeIoError(error)}\n`);
      if (values.json) io.stdout(`${JSON.stringify({ file, error: describeIoError(error) })}\n`);
      continue;
    }
    const report = checkReport(file, index);
    const serious = report.counts.errors + report.counts.warnings;
    found += serious;
    if (values.json) {
      io.stdout(`${JSON.stringify(report)}\n`);
      continue;
    }
    for (const p of index.problems) io.stdout(`${file}:${p.line}: ${p.severity}: ${p.message} [${p.kind}]\n`);
    io.stdout(
      `${file}: ${serious === 0 ? "ok" : `${serious} problem${serious === 1 ? "" : "s"}`} (${index.entries.length} entries, ${index.lineCount} lines)\n`,
    );
  }
  if (unreadable > 0) return 2;
  return found > 0 ? 1 : 0;
}

export interface SessionStats {
  file: string;
  bytes: number;
  lines: number;
  entries: number;
  version: number;
  byType: Record<string, number>;
  byRole: Record<string, number>;
  maxDepth: number;
  roots: number;
  branchPoints: number;
  leaves: number;
  problems: number;
  parseMs: number;
}

export function sessionStats(file: string, index: SessionIndex, parseMs: number): SessionStats {
  const byType: Record<string, number> = {};
  const byRole: Record<string, number> = {};
  let maxDepth = 0;
  let branchPoints = 0;
  let leaves = 0;
  // Every entry line counts, an overridden duplicate id too, so the counts add up to `entries`.
  for (const entry of index.entries) {
    byType[entry.type] = (byType[entry.type] ?? 0) + 1;
    const message: unknown = entry.type === "message" ? entry.message : undefined;
    const role = isRecord(message) && typeof message.role === "string" ? message.role : undefined;
    if (role) byRole[role] = (byRole[role] ?? 0) + 1;
  }
  for (const node of index.nodes.values()) {
    if (node.depth > maxDepth) maxDepth = node.depth;
    if (node.children.length > 1) branchPoints++;
    if (node.children.length === 0) leaves++;
  }
  return {
    file,
    bytes: index.byteLength,
    lines: index.lineCount,
    entries: index.entries.length,
    version: index.version,
    byType,
    byRole,
    maxDepth,
    roots: index.roots.length,
    branchPoints,
    leaves,
    problems: index.problems.length,
    parseMs: Math.round(parseMs * 10) / 10,
  };
}

function statsCommand(args: readonly string[], io: CliIo): number {
  const { values, positionals } = parse(args, { json: { type: "boolean" } });
  const file = oneFile(positionals);
  const started = performance.now();
  const { index } = openFile(file);
  const stats = sessionStats(file, index, performance.now() - started);
  if (values.json) {
    io.stdout(`${JSON.stringify(stats)}\n`);
    return 0;
  }
  const counts = (record: Record<string, number>) =>
    Object.entries(record)
      .sort((a, b) => b[1] - a[1])
      .map(([key, count]) => `${key} ${count}`)
      .join(", ") || "none";
  io.stdout(
    [
      `${file}`,
      `  size        ${stats.bytes} bytes, ${stats.lines} lines, version ${stats.version}`,
      `  entries     ${stats.entries} (${counts(stats.byType)})`,
      `  messages    ${counts(stats.byRole)}`,
      `  tree        depth ${stats.maxDepth}, ${stats.roots} root(s), ${stats.branchPoints} branch point(s), ${stats.leaves} leaves`,
      `  problems    ${stats.problems}`,
      `  parse time  ${stats.parseMs} ms`,
      "",
    ].join("\n"),
  );
  return 0;
}

function isEntryPoint(): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return import.meta.url === pathToFileURL(realpathSync(script)).href;
  } catch {
    return false;
  }
}

/** Runs the CLI as this process: `arbor ... | head` ends quietly instead of crashing on EPIPE. */
export function runAsProcess(argv: readonly string[]): void {
  if (argv[0] === "serve") {
    // Loaded only for `serve`: the reading commands stay free of the server and the runtime.
    void import("../serve/main.ts").then(
      ({ runServeAsProcess }) => runServeAsProcess(argv.slice(1)),
      (error: unknown) => {
        process.stderr.write(`arbor: cannot start serve: ${describeIoError(error)}\n`);
        process.exitCode = 2;
      },
    );
    return;
  }
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw error;
  });
  process.exitCode = runCli(argv, {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  });
}

if (isEntryPoint()) runAsProcess(process.argv.slice(2));
