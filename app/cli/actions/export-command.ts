/**
 * `arbor export FILE [--leaf ID] --format md|html|jsonl [-o OUT]`: a branch
 * as Markdown, self-contained HTML or a Pi session (JSONL) of that branch
 * (app/session-manage/export-session.ts), to a new file (never over one)
 * or to standard output.
 */

import { resolve } from "node:path";
import { cliErrors } from "../../../shared/error-texts.ts";
import { type ExportFormat, exportBranch } from "../../session-manage/export-session.ts";
import { writeNewFile } from "../../store/new-file.ts";
import { openIndexedFile } from "../../store/open-indexed-file.ts";
import { type CliIo, parse, UsageError } from "../cli-kit.ts";

const FORMATS: Readonly<Record<string, ExportFormat>> = {
  md: "markdown",
  markdown: "markdown",
  html: "html",
  jsonl: "jsonl",
};

export function exportCommand(args: readonly string[], io: CliIo): number {
  const { values, positionals } = parse(args, {
    json: { type: "boolean" },
    leaf: { type: "string" },
    format: { type: "string" },
    output: { type: "string", short: "o" },
  });
  if (positionals.length !== 1) throw new UsageError(cliErrors.expectedOneFile(positionals.length));
  const format =
    values.format !== undefined && Object.hasOwn(FORMATS, values.format) ? FORMATS[values.format] : undefined;
  if (!format) throw new UsageError(cliErrors.exportFormat);
  const file = positionals[0]!;
  const opened = openIndexedFile(file);
  let exported: ReturnType<typeof exportBranch>;
  try {
    exported = exportBranch(opened.index, opened.reader, file, { format, leafId: values.leaf });
  } finally {
    opened.close();
  }
  if (values.output === undefined) {
    io.stdout(values.json ? `${JSON.stringify(exported)}\n` : exported.content);
    return 0;
  }
  const out = resolve(values.output);
  const { bytes } = writeNewFile(out, exported.content);
  if (values.json)
    io.stdout(`${JSON.stringify({ file: out, format, bytes, suggestedName: exported.fileName })}\n`);
  else io.stdout(`${out}\n`);
  return 0;
}
