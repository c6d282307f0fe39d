/**
 * Exports of a branch: JSONL that Pi 0.73 and 1.6 open with the context of
 * the branch (and that matches Pi 1.6's own createBranchedSession), HTML
 * that makes no request and escapes what the session says, and Markdown.
 */

import { copyFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ensureNoLeaks } from "../../shared/lifecycle/testing.ts";
import { openIndexedFile } from "../store/open-indexed-file.ts";
import { tempDirs } from "../store/testing/files.ts";
import { assistantMessage, PI_GENERATIONS, type PiEntry, pi16, userMessage } from "../store/testing/pi.ts";
import { type ExportFormat, exportBranch } from "./export-session.ts";

ensureNoLeaks();

const dirs = tempDirs("export");
afterAll(() => dirs.cleanup());

const HOSTILE = `<script>alert("x")</script> and "><img src=https://example.com/x.png onerror=alert(1)> & <a href="http://evil">`;

/** u1 ─ a1 ┬ u2 ─ a2 (label "left")   ;   └ u3 (hostile text) ─ a3, then a name. */
function session(): { path: string; ids: Record<string, string> } {
  const manager = pi16.SessionManager.create("/home/user/project", dirs.make());
  const ids: Record<string, string> = {};
  ids.u1 = manager.appendMessage(userMessage("first question"));
  ids.a1 = manager.appendMessage(assistantMessage("first answer"));
  ids.u2 = manager.appendMessage(userMessage("left question"));
  ids.a2 = manager.appendMessage(assistantMessage("left answer"));
  ids.l1 = manager.appendLabelChange(ids.a2, "left");
  manager.branch(ids.a1);
  ids.u3 = manager.appendMessage(userMessage(HOSTILE));
  ids.a3 = manager.appendMessage(assistantMessage("right answer </pre></article><script>"));
  manager.appendSessionInfo(`Name ${HOSTILE}`);
  return { path: manager.getSessionFile()!, ids };
}

function exported(path: string, format: ExportFormat, leafId?: string) {
  const opened = openIndexedFile(path, { mode: "structure" });
  try {
    return exportBranch(opened.index, opened.reader, path, { format, leafId });
  } finally {
    opened.close();
  }
}

function copyOf(path: string): string {
  const copy = join(dirs.make(), basename(path));
  copyFileSync(path, copy);
  return copy;
}

describe("export as JSONL", () => {
  it("is a Pi session of the branch: Pi opens it with the branch's context, as Pi's own fork", () => {
    const { path, ids } = session();
    for (const leaf of ["a2", "l1", "a3", "u1"]) {
      const result = exported(path, "jsonl", ids[leaf]);
      expect(result.mimeType).toBe("application/x-ndjson");
      expect(result.fileName).toMatch(/^\d{4}-\d\d-\d\dT[\d-]+Z_[0-9a-f-]{36}\.jsonl$/);
      const file = join(dirs.make(), result.fileName);
      writeFileSync(file, result.content);
      const header = JSON.parse(result.content.split("\n")[0]!);
      expect(header).toMatchObject({
        type: "session",
        version: 3,
        cwd: "/home/user/project",
        parentSession: path,
      });
      for (const { name, module } of PI_GENERATIONS) {
        const source = module.SessionManager.open(copyOf(path));
        const expected = module.buildSessionContext(source.getEntries(), ids[leaf]!);
        const opened = module.SessionManager.open(copyOf(file));
        expect(opened.buildSessionContext(), `${name} at ${leaf}`).toEqual(expected);
        if (leaf === "a2" || leaf === "l1") expect(opened.getLabel(ids.a2!), name).toBe("left");
      }
      // Entry for entry what Pi 1.6's /clone at that leaf writes (label ids aside: both make them up).
      const piFork = pi16.SessionManager.open(copyOf(path)).createBranchedSession(ids[leaf]!);
      if (piFork === undefined) continue; // Pi writes nothing before the first assistant message.
      const piEntries = pi16.SessionManager.open(piFork).getEntries();
      const ours = result.content
        .trimEnd()
        .split("\n")
        .slice(1)
        .map((line) => JSON.parse(line) as PiEntry);
      const shape = (entries: PiEntry[]) =>
        entries.map((entry) => (entry.type === "label" ? { ...entry, id: "", parentId: "" } : entry));
      expect(shape(ours)).toEqual(shape(piEntries));
    }
  });
});

describe("export as HTML", () => {
  it("is one file that loads nothing: no script, no URL, every src and href gone, text escaped", () => {
    const { path, ids } = session();
    const { content, fileName, mimeType } = exported(path, "html", ids.a3);
    expect(mimeType).toBe("text/html");
    expect(fileName).toMatch(/^Name-script-alert-x-script.*\.html$/);
    expect(content).not.toMatch(/<script/i);
    expect(content).not.toMatch(/<(img|link|iframe|object|embed|a)\b/i);
    // Every tag (text is escaped: each "<" starts one): none has an attribute that could load something.
    const tags = [...content.matchAll(/<[a-z!/][^>]*>/gi)].map((match) => match[0]);
    expect(tags.length).toBeGreaterThan(20);
    expect(tags.filter((tag) => /\s(src|href|srcset|action|poster|data|on\w+)\s*=/i.test(tag))).toEqual([]);
    expect(content).not.toMatch(/url\(|@import/i);
    expect(content).toContain("default-src 'none'");
    expect(content).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
    expect(content).toContain("right answer &lt;/pre&gt;&lt;/article&gt;&lt;script&gt;");
    expect(content).toContain("prefers-color-scheme: dark");
    // The branch, then each context message.
    const branch = content.slice(content.indexOf('<ol class="branch">'), content.indexOf("</ol>"));
    const positions = [ids.u1, ids.a1, ids.u3, ids.a3].map((id) => branch.indexOf(`<code>${id}</code>`));
    expect(positions.every((position) => position > 0)).toBe(true);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    expect(branch).not.toContain(ids.u2!);
    expect(content.match(/<article>/g)).toHaveLength(4);
    expect(content).toContain("1 other branch here");
  });
  it("shows tool calls and results as plain text in the page, not as Markdown typed out", () => {
    const manager = pi16.SessionManager.create("/home/user/project", dirs.make());
    manager.appendMessage(userMessage("run the tests"));
    manager.appendMessage({
      ...assistantMessage(""),
      content: [{ type: "toolCall", id: "c1", name: "bash", arguments: { command: "npm test" } }],
      stopReason: "toolUse",
    });
    const result = manager.appendMessage({
      role: "toolResult",
      toolCallId: "c1",
      toolName: "bash",
      content: [{ type: "text", text: "1 passed" }],
      isError: false,
      timestamp: Date.now(),
    });
    const { content } = exported(manager.getSessionFile()!, "html", result);
    const articles = content.slice(content.indexOf("<article>"));
    expect(articles).toContain("bash");
    expect(articles).toContain("&quot;command&quot;: &quot;npm test&quot;");
    expect(articles).toContain("1 passed");
    expect(articles).not.toContain("**");
    expect(articles).not.toContain("```");
  });
});

describe("export as Markdown", () => {
  it("names the session, lists the branch with labels and branch points, then the context", () => {
    const { path, ids } = session();
    const { content, fileName } = exported(path, "markdown", ids.l1);
    expect(fileName.endsWith(`-${ids.l1}.md`)).toBe(true);
    expect(content.startsWith(`# Name ${HOSTILE}\n`)).toBe(true);
    expect(content).toContain(`4. \`${ids.a2}\` assistant: left answer (label “left”)`);
    expect(content).toContain(`2. \`${ids.a1}\` assistant: first answer (1 other branch here)`);
    expect(content).toContain(`# Context at ${ids.l1}`);
    expect(content).toContain("## assistant");
  });

  it("refuses an entry that is not there", () => {
    const { path } = session();
    expect(() => exported(path, "markdown", "nope")).toThrow(/no entry "nope"/);
  });
});

describe("bidirectional controls in exports", () => {
  const RLO = "\u202E";
  const CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/;

  /** A name that would read "invoice_exe.txt", a label and texts with controls, and Arabic text. */
  function bidiSession(): { path: string; ids: Record<string, string> } {
    const manager = pi16.SessionManager.create("/home/user/project", dirs.make());
    const ids: Record<string, string> = {};
    ids.u1 = manager.appendMessage(userMessage(`open ${RLO}txt.exe please`));
    ids.a1 = manager.appendMessage(assistantMessage("مرحبا \u2067isolated\u2069 done"));
    ids.l1 = manager.appendLabelChange(ids.a1, `${RLO}lebal`);
    manager.appendSessionInfo(`invoice_${RLO}txt.exe`);
    return { path: manager.getSessionFile()!, ids };
  }

  it("HTML shows each control as a marked tag and isolates the session's text", () => {
    const { path, ids } = bidiSession();
    const { content, fileName } = exported(path, "html", ids.l1);
    expect(content).not.toMatch(CONTROLS);
    expect(fileName).not.toMatch(CONTROLS);
    expect(content).toContain(
      '<h1 dir="auto">invoice_<abbr class="bidi-control" title="U+202E right-to-left override: a direction control in the text, shown and not applied">RLO</abbr>txt.exe</h1>',
    );
    expect(content).toContain("<title>invoice_⟨RLO⟩txt.exe</title>");
    expect(content).toMatch(/<bdi>open <abbr class="bidi-control"[^>]*>RLO<\/abbr>txt\.exe please<\/bdi>/);
    expect(content).toMatch(/“<bdi><abbr class="bidi-control"[^>]*>RLO<\/abbr>lebal<\/bdi>”/);
    expect(content).toMatch(
      /<pre dir="auto">مرحبا <abbr[^>]*>RLI<\/abbr>isolated<abbr[^>]*>PDI<\/abbr> done<\/pre>/,
    );
  });

  it("Markdown shows each control as a marker; the JSONL copy keeps the bytes as they are", () => {
    const { path, ids } = bidiSession();
    const markdown = exported(path, "markdown", ids.l1).content;
    expect(markdown).not.toMatch(CONTROLS);
    expect(markdown).toContain("# invoice_⟨RLO⟩txt.exe\n");
    expect(markdown).toContain("open ⟨RLO⟩txt.exe please");
    expect(markdown).toContain("label “⟨RLO⟩lebal”");
    expect(markdown).toContain("مرحبا ⟨RLI⟩isolated⟨PDI⟩ done");
    const jsonl = exported(path, "jsonl", ids.l1).content;
    expect(jsonl).toContain(`open ${RLO}txt.exe please`);
  });
});
