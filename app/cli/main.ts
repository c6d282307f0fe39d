#!/usr/bin/env node
/**
 * The `arbor` command line: read Pi session files the way Arbor reads them, and manage them.
 *
 *   arbor context FILE [--leaf ID]... [--leaf none] [--llm] [--json]
 *   arbor tree FILE [--json]
 *   arbor check FILE... [--json]
 *   arbor stats FILE [--json]
 *   arbor branches FILE [--json]
 *   arbor diff FILE LEFT RIGHT [--against OTHER_FILE] [--json]
 *   arbor serve [--dir DIR]... [--port N] [--data-dir DIR] [--static DIR] [--no-demo]   (app/serve/main.ts)
 *
 *   arbor rename|label|continue|archive|unarchive|note|edit-context ...
 *   arbor fork|clone|new|export|trash ...   (app/cli/actions: see USAGE)
 *
 * Exit codes: 0 success, 1 `check` found problems, 2 usage or I/O error, or a
 * refused change (with a one-line reason on stderr; nothing written). No
 * reading command writes to a session file; the others append to one
 * (app/store/write-entry.ts) or write new files, never over one.
 */

import { realpathSync } from "node:fs";
import { pathToFileURL } from "node:url";
import {
  buildSessionProjection,
  contextGraphOf,
  convertToLlm,
  type EntryReader,
  isRecord,
  type SessionIndex,
} from "../../shared/session/index.ts";
import { cliErrors } from "../../shared/error-texts.ts";
import { checkReport } from "../store/check-report.ts";
import { type IndexedFile, openIndexedFile } from "../store/open-indexed-file.ts";
import { ArborError } from "../../shared/ipc/contract.ts";
import { exportCommand } from "./actions/export-command.ts";
import { cloneCommand, forkCommand, importCommand, newCommand } from "./actions/file-commands.ts";
import { trashCommand } from "./actions/trash-command.ts";
import {
  archiveCommand,
  continueCommand,
  editContextCommand,
  labelCommand,
  noteCommand,
  renameCommand,
  unarchiveCommand,
  undoCommand,
} from "./actions/write-commands.ts";
import { CliError, type CliCommand, type CliIo, parse, UsageError } from "./cli-kit.ts";
import { branchesCommand } from "./branches-command.ts";
import { diffCommand } from "./diff-command.ts";
import { renderTreeText, treeJson } from "./tree-output.ts";

export { type CheckReport, checkReport } from "../store/check-report.ts";
export { CliError, type CliIo, UsageError } from "./cli-kit.ts";

const USAGE = `usage:
  arbor context FILE [--leaf ID]... [--leaf none] [--llm] [--json]
  arbor tree FILE [--json]
  arbor check FILE... [--json]
  arbor stats FILE [--json]
  arbor branches FILE [--json]
  arbor diff FILE LEFT RIGHT [--against OTHER_FILE] [--json]
  arbor serve [--dir DIR]... [--port N] [--data-dir DIR] [--static DIR] [--no-demo]
  arbor rename FILE NAME [--force] [--json]
  arbor label FILE ENTRY (TEXT | --clear) [--force] [--json]
  arbor continue FILE ENTRY [--summary TEXT] [--force] [--json]
  arbor archive FILE ENTRY [--force] [--json]
  arbor unarchive FILE ENTRY [--force] [--json]
  arbor note FILE TEXT [--at ENTRY] [--force] [--json]
  arbor edit-context FILE ENTRY (--text TEXT | --drop) [--at ENTRY] [--force] [--json]
  arbor undo FILE [ENTRY] [--force] [--json]
  arbor fork FILE ENTRY [--before] [--json]
  arbor clone FILE [--leaf ID] [--json]
  arbor new --cwd DIR [--dir SESSION_DIR] [--json]
  arbor import FILE [--dir SESSION_DIR] [--json]
  arbor export FILE [--leaf ID] --format md|html|jsonl [-o OUT] [--json]
  arbor trash FILE [--force] [--json]`;

/** Commands that change sessions or make new files (app/cli/actions), one line each. */
const ACTION_COMMANDS: Readonly<Record<string, CliCommand>> = {
  rename: renameCommand,
  label: labelCommand,
  continue: continueCommand,
  archive: archiveCommand,
  unarchive: unarchiveCommand,
  note: noteCommand,
  "edit-context": editContextCommand,
  undo: undoCommand,
  fork: forkCommand,
  clone: cloneCommand,
  new: newCommand,
  import: importCommand,
  export: exportCommand,
  trash: trashCommand,
};

/** Runs a command; the few that wait (moving a file to the trash) answer with a promise. */
export function runCli(argv: readonly string[], io: CliIo): number | Promise<number> {
  const closeFiles = () => {
    for (const opened of openFiles.splice(0)) opened.close();
  };
  const result = runCommand(argv, io);
  if (typeof result === "number") {
    closeFiles();
    return result;
  }
  return result.catch((error: unknown) => reportError(error, io)).finally(closeFiles);
}

function runCommand(argv: readonly string[], io: CliIo): number | Promise<number> {
  try {
    const [command, ...rest] = argv;
    if (command !== undefined && Object.hasOwn(ACTION_COMMANDS, command)) {
      return ACTION_COMMANDS[command]!(rest, io);
    }
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
        throw new UsageError(command ? cliErrors.unknownCommand(command) : cliErrors.noCommand);
    }
  } catch (error) {
    return reportError(error, io);
  }
}

function reportError(error: unknown, io: CliIo): number {
  if (error instanceof UsageError) {
    io.stderr(`arbor: ${error.message}\n${USAGE}\n`);
    return 2;
  }
  if (error instanceof CliError) {
    io.stderr(`arbor: ${error.message}\n`);
    return 2;
  }
  if (error instanceof ArborError) {
    // A refusal (a live file, a half-written line, an unknown entry): one sentence, nothing written.
    io.stderr(`arbor: ${error.message}\n`);
    return 2;
  }
  io.stderr(`arbor: ${describeIoError(error)}\n`);
  return 2;
}

function describeIoError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  const message = error instanceof Error ? error.message : String(error);
  return `${code ? cliErrors.cannotReadFile(code) : ""}${message.split("\n")[0]}`;
}

/** Files opened by the running command; closed when it returns. */
const openFiles: IndexedFile[] = [];

/** Opens a file structure-first (bodies read on demand) for its index and entries; the file stays untouched. */
export function openFile(file: string): { index: SessionIndex; reader: EntryReader } {
  const opened = openIndexedFile(file);
  openFiles.push(opened);
  return opened;
}

export function oneFile(positionals: string[]): string {
  if (positionals.length !== 1) throw new UsageError(cliErrors.expectedOneFile(positionals.length));
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
      throw new CliError(cliErrors.noEntry(leaf, file));
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

function checkCommand(args: readonly string[], io: CliIo): number {
  const { values, positionals } = parse(args, { json: { type: "boolean" } });
  if (positionals.length === 0) throw new UsageError(cliErrors.expectedFiles);
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
  // Counted in maps: an entry's type and role are strings read from the file, which as object keys would be looked up each time.
  const byType = new Map<string, number>();
  const byRole = new Map<string, number>();
  let maxDepth = 0;
  let branchPoints = 0;
  let leaves = 0;
  // Every entry line counts, an overridden duplicate id too, so the counts add up to `entries`.
  for (const entry of index.entries) {
    byType.set(entry.type, (byType.get(entry.type) ?? 0) + 1);
    const message: unknown = entry.type === "message" ? entry.message : undefined;
    const role = isRecord(message) && typeof message.role === "string" ? message.role : undefined;
    if (role) byRole.set(role, (byRole.get(role) ?? 0) + 1);
  }
  for (const node of index.nodes.values()) {
    if (node.depth > maxDepth) maxDepth = node.depth;
    if (node.childCount > 1) branchPoints++;
    if (node.childCount === 0) leaves++;
  }
  return {
    file,
    bytes: index.byteLength,
    lines: index.lineCount,
    entries: index.entries.length,
    version: index.version,
    byType: Object.fromEntries(byType),
    byRole: Object.fromEntries(byRole),
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
        process.stderr.write(`arbor: ${cliErrors.cannotStartServe(describeIoError(error))}\n`);
        process.exitCode = 2;
      },
    );
    return;
  }
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw error;
  });
  const code = runCli(argv, {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  });
  if (typeof code === "number") process.exitCode = code;
  else void code.then((exitCode) => (process.exitCode = exitCode));
}

if (isEntryPoint()) runAsProcess(process.argv.slice(2));
