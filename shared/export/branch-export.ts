/**
 * One branch of a session as a document to keep or share: Markdown, or a
 * single self-contained HTML file. Both hold the branch (its entries from
 * the root to the leaf, with the labels and the branches that leave it) and
 * the context Pi would send from the leaf. Pure: the main process and the
 * CLI build the input from a session's index (app/session-manage/export-session.ts).
 *
 * The HTML makes no request of any kind: its CSS is inline, it has no
 * script, font, image or link to anywhere, and its Content-Security-Policy
 * forbids loading anything should a text contain markup, which is escaped
 * anyway. It reads in light and dark (`prefers-color-scheme`).
 *
 * Text from the session shows its bidirectional controls instead of applying
 * them, as the window does (shared/text/bidi.ts): Markdown as `⟨RLO⟩`
 * markers, HTML as marked tags, each text isolated (`<bdi>`, `dir="auto"`)
 * so that right-to-left text cannot reorder what stands beside it.
 */

import type { ContextView, TreeNodeView } from "../ipc/contract.ts";
import { bidiSegments, hasBidiControls, showBidiControls } from "../text/bidi.ts";
import { contextAsMarkdown, messageMarkdown, PLAIN_TEXT } from "./context-markdown.ts";

export interface BranchStep {
  node: TreeNodeView;
  /** Branches that leave this entry other than the one exported (below the leaf: all of its children). */
  otherBranches: number;
}

export interface BranchExport {
  /** The session's name, else its first user message, else its file's name. */
  title: string;
  /** The session file's name (not its folder). */
  fileName: string;
  headerId: string | null;
  cwd: string | null;
  leafId: string | null;
  /** ISO time of the export. */
  exportedAt: string;
  /** The branch, from the root to the leaf. */
  path: BranchStep[];
  context: ContextView;
}

function summaryLine(input: BranchExport): string {
  const parts = [`Session ${input.headerId ?? "without id"} (${input.fileName})`];
  if (input.cwd) parts.push(`in ${input.cwd}`);
  parts.push(input.leafId ? `branch ending at ${input.leafId}` : "no entries");
  return `${parts.join(", ")}. Exported by Arbor on ${input.exportedAt}.`;
}

function stepText(step: BranchStep): string {
  const { node } = step;
  const preview = node.preview.replace(/\s+/g, " ").trim();
  return preview.length > 200 ? `${preview.slice(0, 199)}…` : preview;
}

function branchNote(step: BranchStep): string {
  const count = step.otherBranches;
  return count === 0 ? "" : `${count} other branch${count === 1 ? "" : "es"} here`;
}

export function branchMarkdown(input: BranchExport): string {
  const lines = [`# ${input.title}`, "", summaryLine(input), "", "## Branch", ""];
  if (input.path.length === 0) lines.push("(no entries)");
  input.path.forEach((step, i) => {
    const { node } = step;
    const extras = [node.label ? `label “${node.label}”` : "", branchNote(step)].filter(Boolean);
    const text = stepText(step);
    lines.push(
      `${i + 1}. \`${node.id}\` ${node.kind}${text ? `: ${text}` : ""}${extras.length ? ` (${extras.join("; ")})` : ""}`,
    );
  });
  lines.push("", contextAsMarkdown(input.context));
  // Every text in it is either Arbor's (no controls) or the session's: the controls are the session's.
  return showBidiControls(`${lines.join("\n").trimEnd()}\n`);
}

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character]!);
}

/** Text from the session as HTML: escaped, each bidirectional control a marked tag (not applied). */
export function sessionTextHtml(text: string): string {
  if (!hasBidiControls(text)) return escapeHtml(text);
  return bidiSegments(text)
    .map((segment) =>
      segment.kind === "text"
        ? escapeHtml(segment.text)
        : `<abbr class="bidi-control" title="${segment.codePoint} ${segment.name}: a direction control in the text, shown and not applied">${segment.short}</abbr>`,
    )
    .join("");
}

/** Inline text from the session, isolated from what stands beside it. */
function isolatedHtml(text: string): string {
  return `<bdi>${sessionTextHtml(text)}</bdi>`;
}

const STYLE = `
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0;
  --card: #f6f8fa; --accent: #0969da; --label: #8250df; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --line: #3d444d; --card: #151b23;
    --accent: #4493f8; --label: #ab7df8; }
}
body { background: var(--bg); color: var(--fg); margin: 0 auto; max-width: 60rem; padding: 1.5rem;
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; }
h1 { font-size: 1.6rem; margin: 0 0 .25rem; } h2 { border-bottom: 1px solid var(--line); padding-bottom: .25rem; }
.meta, .note { color: var(--muted); }
code, pre { font: 13px/1.45 ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; }
ol.branch { padding-left: 2.5rem; } ol.branch li { margin: .15rem 0; }
.kind { font-weight: 600; } .label { color: var(--label); } .fork { color: var(--accent); }
article { background: var(--card); border: 1px solid var(--line); border-radius: 6px; margin: .75rem 0;
  padding: .5rem .75rem; }
article h3 { font-size: .95rem; margin: 0 0 .25rem; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0; }
.bidi-control { border: 1px solid var(--muted); border-radius: 3px; color: var(--muted); font-size: .75em;
  padding: 0 .2em; text-decoration: none; unicode-bidi: isolate; }
`;

export function branchHtml(input: BranchExport): string {
  const { context } = input;
  const model = context.model ? `${context.model.provider}/${context.model.modelId}` : "no model";
  const steps = input.path.map((step) => {
    const { node } = step;
    const label = node.label ? ` <span class="label">“${isolatedHtml(node.label)}”</span>` : "";
    const note = branchNote(step);
    const fork = note ? ` <span class="fork">${escapeHtml(note)}</span>` : "";
    const text = stepText(step);
    return `<li><code>${sessionTextHtml(node.id)}</code> <span class="kind">${escapeHtml(node.kind)}</span>${text ? ` ${isolatedHtml(text)}` : ""}${label}${fork}</li>`;
  });
  const messages = context.messages.map(({ entryId, message }) => {
    const role = String(message.role);
    // Plain text in a <pre>: Markdown's marks would show as typed there.
    const text = messageMarkdown(message as unknown as Record<string, unknown>, PLAIN_TEXT);
    return `<article><h3>${isolatedHtml(role)} <code>${sessionTextHtml(entryId)}</code></h3><pre dir="auto">${sessionTextHtml(text)}</pre></article>`;
  });
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="Arbor">
<title>${escapeHtml(showBidiControls(input.title))}</title>
<style>${STYLE}</style>
</head>
<body>
<header>
<h1 dir="auto">${sessionTextHtml(input.title)}</h1>
<p class="meta">${sessionTextHtml(summaryLine(input))}</p>
</header>
<section>
<h2>Branch</h2>
${steps.length ? `<ol class="branch">\n${steps.join("\n")}\n</ol>` : '<p class="note">No entries.</p>'}
</section>
<section>
<h2>Context at ${context.leafId === null ? "the start" : isolatedHtml(context.leafId)}</h2>
<p class="note">${sessionTextHtml(`${model}, thinking ${context.thinkingLevel}, ${context.messages.length} messages, about ${context.tokenEstimate} tokens.`)}</p>
${messages.join("\n")}
</section>
</body>
</html>
`;
}
