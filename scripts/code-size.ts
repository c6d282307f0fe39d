/**
 * How big Arbor's product modules and functions are: a module over 500
 * lines, or a function whose body runs over 80, usually hides a second job.
 * Tests, test helpers, generators, benchmarks and e2e scenarios are exempt;
 * a function that must stay one piece says so in a comment just above it
 * containing "one piece", with the reason.
 *
 *   npx tsx scripts/code-size.ts        (lists what is over; exit 1 if anything is)
 *
 * `scripts/code-size.test.ts` runs the same check in the gate.
 */

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

export const MAX_MODULE_LINES = 500;
export const MAX_FUNCTION_LINES = 80;

const ROOTS = ["shared", "app", "renderer/src", "scripts"];
const EXEMPT = /(\.test\.tsx?$|\/testing\/|\/oracle\/|\/generate[^/]*\.ts$|\.d\.ts$)/;

export interface Oversize {
  file: string;
  line: number;
  what: string;
  lines: number;
  limit: number;
}

function productFiles(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.tsx?$/.test(entry.name) && !EXEMPT.test(path.replaceAll("\\", "/"))) found.push(path);
    }
  };
  for (const folder of ROOTS) if (existsSync(join(root, folder))) walk(join(root, folder));
  return found.sort();
}

function nameOf(node: ts.Node, source: ts.SourceFile): string {
  const named = node as { name?: ts.Node };
  if (named.name) return named.name.getText(source);
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent)) return parent.name.getText(source);
  if (parent && ts.isPropertyAssignment(parent)) return parent.name.getText(source);
  return "(anonymous function)";
}

/** Whether the comments just above `node` (or its statement) say it must stay one piece. */
function saysOnePiece(node: ts.Node, source: ts.SourceFile): boolean {
  let holder: ts.Node = node;
  while (holder.parent && !ts.isSourceFile(holder.parent) && !ts.isBlock(holder.parent)) {
    if (ts.isClassDeclaration(holder.parent) || ts.isObjectLiteralExpression(holder.parent)) break;
    holder = holder.parent;
  }
  const text = source.getFullText();
  const comments = ts.getLeadingCommentRanges(text, holder.getFullStart()) ?? [];
  return comments.some((range) => /one piece/i.test(text.slice(range.pos, range.end)));
}

export function findOversize(root: string): Oversize[] {
  const over: Oversize[] = [];
  for (const path of productFiles(root)) {
    const text = readFileSync(path, "utf8");
    const file = relative(root, path).replaceAll("\\", "/");
    const lines = text.split("\n").length;
    if (lines > MAX_MODULE_LINES)
      over.push({ file, line: 1, what: "module", lines, limit: MAX_MODULE_LINES });
    const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node) => {
      const body = (node as { body?: ts.Node }).body;
      if (ts.isFunctionLike(node) && body && ts.isBlock(body)) {
        const start = source.getLineAndCharacterOfPosition(body.getStart(source)).line;
        const end = source.getLineAndCharacterOfPosition(body.getEnd()).line;
        const bodyLines = end - start - 1;
        if (bodyLines > MAX_FUNCTION_LINES && !saysOnePiece(node, source)) {
          over.push({
            file,
            line: start + 1,
            what: `function ${nameOf(node, source)}`,
            lines: bodyLines,
            limit: MAX_FUNCTION_LINES,
          });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return over;
}

if (process.argv[1] && relative(process.argv[1], import.meta.filename) === "") {
  const over = findOversize(join(import.meta.dirname, ".."));
  for (const item of over) {
    console.log(`${item.file}:${item.line}: ${item.what} has ${item.lines} lines (at most ${item.limit})`);
  }
  console.log(over.length === 0 ? "code size: all within bounds" : `code size: ${over.length} over`);
  process.exit(over.length === 0 ? 0 : 1);
}
