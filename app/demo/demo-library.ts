/**
 * The bundled demo library: a few realistic sessions in Pi's real file
 * format (version 3), written on first start when no Pi sessions exist, so a
 * new user has something to explore. Deterministic: the same files every time.
 *
 * They show what Arbor is for: branches, a compaction, branch summaries,
 * labels, custom messages, a context edit, model and thinking changes, a
 * named session, a fork in another file, and one damaged file.
 */

import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { piSessionFolderName } from "../library/pi-folders.ts";

const BASE_TIME = Date.parse("2026-11-20T09:00:00.000Z");
const PROVIDER = "anthropic";
const MODEL = "claude-sonnet-4-5";

type Json = Record<string, unknown>;

/** Builds one session the way Pi's SessionManager appends: each entry a child of the current leaf. */
class DemoSession {
  readonly header: Json;
  readonly entries: Json[] = [];
  leafId: string | null = null;
  private clock: number;
  private counter = 0;

  constructor(
    readonly slug: string,
    readonly cwd: string,
    startMinutes: number,
    parentSession?: string,
  ) {
    this.clock = BASE_TIME + startMinutes * 60_000;
    this.header = {
      type: "session",
      version: 3,
      id: demoUuid(slug),
      timestamp: new Date(this.clock).toISOString(),
      cwd,
      ...(parentSession ? { parentSession } : {}),
    };
  }

  get fileName(): string {
    return `${String(this.header.timestamp).replace(/[:.]/g, "-")}_${String(this.header.id)}.jsonl`;
  }

  private nextId(): string {
    this.counter += 1;
    return hex8(`${this.slug}:${this.counter}`);
  }

  private tick(seconds = 20): string {
    this.clock += seconds * 1000;
    return new Date(this.clock).toISOString();
  }

  private append(fields: Json, parentId: string | null = this.leafId): string {
    const id = this.nextId();
    const timestamp = this.tick();
    this.entries.push({ type: fields.type, id, parentId, timestamp, ...fields });
    this.leafId = id;
    return id;
  }

  user(text: string): string {
    return this.append({
      type: "message",
      message: { role: "user", content: [{ type: "text", text }], timestamp: this.clock },
    });
  }

  assistant(parts: {
    text?: string;
    thinking?: string;
    tools?: { name: string; args: Json }[];
    stopReason?: string;
  }): {
    id: string;
    toolCallIds: string[];
  } {
    const content: Json[] = [];
    if (parts.thinking) content.push({ type: "thinking", thinking: parts.thinking });
    if (parts.text) content.push({ type: "text", text: parts.text });
    const toolCallIds: string[] = [];
    for (const [index, tool] of (parts.tools ?? []).entries()) {
      // The call's index is in the seed: a real provider never gives two calls in one message the same id.
      const seed = `${this.slug}:call:${this.counter}:${index}:${tool.name}`;
      const callId = `toolu_${hex8(seed)}${hex8(`${seed}:tail`)}`;
      toolCallIds.push(callId);
      content.push({ type: "toolCall", id: callId, name: tool.name, arguments: tool.args });
    }
    const input = 1200 + this.entries.length * 350;
    const id = this.append({
      type: "message",
      message: {
        role: "assistant",
        content,
        api: "anthropic-messages",
        provider: PROVIDER,
        model: MODEL,
        usage: {
          input,
          output: 180 + content.length * 90,
          cacheRead: Math.floor(input * 0.6),
          cacheWrite: 0,
          totalTokens: input + 180,
          cost: {
            input: input * 3e-6,
            output: 0.0027,
            cacheRead: 0,
            cacheWrite: 0,
            total: input * 3e-6 + 0.0027,
          },
        },
        stopReason: parts.stopReason ?? (toolCallIds.length > 0 ? "toolUse" : "stop"),
        timestamp: this.clock,
      },
    });
    return { id, toolCallIds };
  }

  toolResult(toolCallId: string, toolName: string, text: string, isError = false): string {
    return this.append({
      type: "message",
      message: {
        role: "toolResult",
        toolCallId,
        toolName,
        content: [{ type: "text", text }],
        isError,
        timestamp: this.clock,
      },
    });
  }

  bash(command: string, output: string, exitCode: number): string {
    return this.append({
      type: "message",
      message: {
        role: "bashExecution",
        command,
        output,
        exitCode,
        cancelled: false,
        truncated: false,
        timestamp: this.clock,
      },
    });
  }

  modelChange(provider: string, modelId: string): string {
    return this.append({ type: "model_change", provider, modelId });
  }

  thinkingLevel(level: string): string {
    return this.append({ type: "thinking_level_change", thinkingLevel: level });
  }

  label(targetId: string, label: string | undefined): string {
    return this.append({ type: "label", targetId, label });
  }

  name(name: string): string {
    return this.append({ type: "session_info", name });
  }

  compaction(summary: string, firstKeptEntryId: string, tokensBefore: number): string {
    return this.append({ type: "compaction", summary, firstKeptEntryId, tokensBefore });
  }

  /** Pi's branchWithSummary: a summary of the abandoned path, as a child of the entry branched from. */
  branchWithSummary(fromEntryId: string, summary: string): string {
    const abandoned = this.leafId ?? "root";
    return this.append({ type: "branch_summary", fromId: abandoned, summary }, fromEntryId);
  }

  branch(entryId: string): void {
    this.leafId = entryId;
  }

  customMessage(customType: string, content: string, display: boolean): string {
    // Pi writes customType before id.
    const id = this.nextId();
    const timestamp = this.tick();
    this.entries.push({
      type: "custom_message",
      customType,
      content,
      display,
      id,
      parentId: this.leafId,
      timestamp,
    });
    this.leafId = id;
    return id;
  }

  custom(customType: string, data: Json): string {
    const id = this.nextId();
    const timestamp = this.tick();
    this.entries.push({ type: "custom", customType, data, id, parentId: this.leafId, timestamp });
    this.leafId = id;
    return id;
  }

  contextEdit(targetId: string, replacement: { content: string } | null): string {
    return this.append({ type: "context_edit", targetId, replacement });
  }

  text(): string {
    return [this.header, ...this.entries].map((entry) => `${JSON.stringify(entry)}\n`).join("");
  }
}

export interface DemoFile {
  relativePath: string;
  text: string;
}

/** The demo sessions as files relative to a session root (`--<cwd>--/<file>.jsonl`, like Pi). */
export function demoFiles(rootForParentPaths: string): DemoFile[] {
  const webapp = "/home/demo/projects/webapp";
  const cli = "/home/demo/projects/release-cli";

  // 1. A bug hunt with an abandoned approach, a compaction, labels and a context edit.
  const login = new DemoSession("login-flake", webapp, 0);
  login.thinkingLevel("medium");
  login.user(
    "The login e2e test fails about one run in five on CI. Can you find out why? Start with `tests/e2e/login.spec.ts`.",
  );
  let turn = login.assistant({
    thinking:
      "A flaky e2e test usually means a race: the test acts before the page is ready, or shared state leaks.",
    text: "I'll read the test and the login page first.",
    tools: [
      { name: "read", args: { path: "tests/e2e/login.spec.ts" } },
      { name: "read", args: { path: "src/pages/login.tsx" } },
    ],
  });
  login.toolResult(
    turn.toolCallIds[0]!,
    "read",
    [
      'import { test, expect } from "@playwright/test";',
      "",
      'test("signs in", async ({ page }) => {',
      '  await page.goto("/login");',
      '  await page.fill("#email", "ada@example.com");',
      '  await page.fill("#password", "correct horse");',
      '  await page.click("text=Sign in");',
      '  await expect(page).toHaveURL("/dashboard");',
      "});",
    ].join("\n"),
  );
  login.toolResult(
    turn.toolCallIds[1]!,
    "read",
    "export function LoginPage() {\n  const [ready, setReady] = useState(false);\n  useEffect(() => { loadCsrfToken().then(() => setReady(true)); }, []);\n  return <form onSubmit={submit}>…<button disabled={!ready}>Sign in</button></form>;\n}",
  );
  turn = login.assistant({
    text: "The button is disabled until the CSRF token loads. Let me run the test a few times to confirm it is timing.",
    tools: [
      { name: "bash", args: { command: "npx playwright test tests/e2e/login.spec.ts --repeat-each 10" } },
    ],
  });
  const firstRun = login.toolResult(
    turn.toolCallIds[0]!,
    "bash",
    `${"Running 10 tests using 2 workers\n".repeat(1)}${"  ✓ signs in (1.2s)\n".repeat(7)}  ✘ signs in (5.0s)\n    Error: expect(page).toHaveURL("/dashboard") timed out\n${"  ✓ signs in (1.1s)\n".repeat(2)}\n  1 failed, 9 passed`,
    true,
  );
  const decision = login.assistant({
    text: "Confirmed: 1 in 10 fails. The click lands while the button is still disabled.",
  }).id;
  login.label(decision, "root cause");

  // The approach that was abandoned: a fixed sleep.
  login.user("Can we just add a wait before clicking?");
  turn = login.assistant({
    text: "I can add `waitForTimeout(500)`, but that only hides the race.",
    tools: [
      {
        name: "edit",
        args: {
          path: "tests/e2e/login.spec.ts",
          oldText: '  await page.click("text=Sign in");',
          newText: '  await page.waitForTimeout(500);\n  await page.click("text=Sign in");',
        },
      },
    ],
  });
  login.toolResult(turn.toolCallIds[0]!, "edit", "Applied 1 edit to tests/e2e/login.spec.ts");
  login.assistant({
    text: "Done, though I would not ship this: it slows every run and can still fail on a slow CI machine.",
  });

  // Back to the decision point, with a summary of what was tried.
  login.branchWithSummary(
    decision,
    "Tried adding `page.waitForTimeout(500)` before the click. It made the test pass locally but only hides the race with the CSRF token and slows every run; reverted.",
  );
  login.user("Right, let's fix it properly: wait for the button to be enabled.");
  turn = login.assistant({
    text: "Playwright's `click` waits for the element to be enabled when it is a real `<button>`; the selector `text=Sign in` matched the label span instead. I'll target the button by role.",
    tools: [
      {
        name: "edit",
        args: {
          path: "tests/e2e/login.spec.ts",
          oldText: '  await page.click("text=Sign in");',
          newText: '  await page.getByRole("button", { name: "Sign in" }).click();',
        },
      },
    ],
  });
  login.toolResult(turn.toolCallIds[0]!, "edit", "Applied 1 edit to tests/e2e/login.spec.ts");
  login.bash("npx playwright test tests/e2e/login.spec.ts --repeat-each 30", "  30 passed (41.8s)", 0);
  const fix = login.assistant({
    text: "30 of 30 pass now. The role-based locator waits until the button is enabled.",
  }).id;
  login.label(fix, "fix verified");
  // The long test log is no longer worth its tokens: drop it from the context.
  login.contextEdit(firstRun, null);
  login.customMessage("ci-status", "CI pipeline #4821 for branch fix/login-flake: all checks passed.", true);
  login.compaction(
    '## Goal\nFix the flaky login e2e test.\n\n## Findings\n- The Sign in button is disabled until the CSRF token loads.\n- `text=Sign in` matched a span, so the click did not wait.\n\n## Done\n- Switched to `getByRole("button", { name: "Sign in" })`; 30/30 runs pass.',
    fix,
    18_450,
  );
  login.modelChange(PROVIDER, "claude-opus-4-5");
  login.user("Great. Please write a short note for the PR description.");
  login.assistant({
    text: "**Fix flaky login e2e test**\n\nThe test clicked a `<span>` inside the Sign in button, so Playwright did not wait for the button to be enabled (it is disabled until the CSRF token loads). The test now uses a role-based locator. Verified with 30 repeated runs.",
  });
  login.name("Fix flaky login test");

  // 2. A fork of the first session (Pi's /fork), continued elsewhere.
  const loginPath = join(rootForParentPaths, piSessionFolderName(webapp), login.fileName);
  const fork = new DemoSession("login-fork", webapp, 90, loginPath);
  // The fork holds the path up to the fix (ids kept, as Pi's createBranchedSession does).
  const pathToFix = pathTo(login.entries, fix).filter((entry) => entry.type !== "label");
  let previous: string | null = null;
  for (const entry of pathToFix) {
    fork.entries.push({ ...entry, parentId: previous });
    previous = entry.id as string;
  }
  fork.leafId = previous;
  fork.label(fix, "fix verified");
  fork.user("Also add a unit test for the CSRF loading state of the login page.");
  turn = fork.assistant({
    text: "I'll add a test that renders the page with a pending token and checks the button is disabled.",
    tools: [
      {
        name: "write",
        args: {
          path: "src/pages/login.test.tsx",
          content: 'it("disables Sign in until the token loads", …)',
        },
      },
    ],
  });
  fork.toolResult(turn.toolCallIds[0]!, "write", "Wrote src/pages/login.test.tsx (24 lines)");
  fork.bash("npm test -- login", " ✓ src/pages/login.test.tsx (2 tests) 31ms", 0);
  fork.assistant({ text: "Added; both cases pass." });

  // 3. Another project: a named session with extension state.
  const release = new DemoSession("release", cli, 240);
  release.name("Release 2.4.0");
  release.custom("todo-list", {
    items: [
      { text: "bump version", done: true },
      { text: "changelog", done: false },
    ],
  });
  release.user("Prepare the 2.4.0 release: bump the version and draft the changelog from the merged PRs.");
  turn = release.assistant({
    tools: [{ name: "bash", args: { command: "git log v2.3.0..HEAD --merges --oneline" } }],
  });
  release.toolResult(
    turn.toolCallIds[0]!,
    "bash",
    "a1b2c3d Merge pull request #212 from feat/json-output\n9f8e7d6 Merge pull request #208 from fix/windows-paths\n5a4b3c2 Merge pull request #205 from docs/install",
  );
  turn = release.assistant({
    text: "Three merged PRs since 2.3.0. Drafting the changelog:\n\n### Added\n- `--json` output (#212)\n\n### Fixed\n- Paths with backslashes on Windows (#208)\n\n### Docs\n- Install guide (#205)",
    tools: [
      {
        name: "edit",
        args: { path: "package.json", oldText: '"version": "2.3.0"', newText: '"version": "2.4.0"' },
      },
    ],
  });
  release.toolResult(turn.toolCallIds[0]!, "edit", "Applied 1 edit to package.json");
  release.thinkingLevel("high");
  release.user("Publish it?");
  release.assistant({ text: "", stopReason: "aborted" });
  release.customMessage(
    "note",
    "Publishing is done by CI when the tag is pushed; do not run npm publish by hand.",
    false,
  );
  release.user("OK, just tell me the commands to tag it.");
  release.assistant({
    text: '```sh\ngit commit -am "Release 2.4.0"\ngit tag v2.4.0\ngit push --follow-tags\n```',
  });

  // 4. A damaged file: a malformed line, an orphan, and a half-written last line.
  const damaged = new DemoSession("damaged", cli, 400);
  damaged.user("Summarise the open issues labelled `bug`.");
  damaged.assistant({ text: "There are four open bugs; the oldest is #187 (crash on empty config)." });
  damaged.user("Which one should I fix first?");
  const orphan = {
    ...damaged.entries[damaged.entries.length - 1]!,
    id: hex8("damaged:orphan"),
    parentId: "deadbeef",
  };
  const damagedText = `${damaged.text()}{"type":"message","id":"${hex8("damaged:broken")}","parentId":${JSON.stringify(damaged.leafId)},"timestamp":"2026-11-20T16:45:00.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Fix #187 fi\n${JSON.stringify(orphan)}\n{"type":"message","id":"${hex8("damaged:partial")}","parentId":${JSON.stringify(damaged.leafId)},"timestamp":"2026-11-20T16:46:00.000Z","message":{"role":"assistant","content":[{"type":"te`;

  return [
    { relativePath: join(piSessionFolderName(webapp), login.fileName), text: login.text() },
    { relativePath: join(piSessionFolderName(webapp), fork.fileName), text: fork.text() },
    { relativePath: join(piSessionFolderName(cli), release.fileName), text: release.text() },
    { relativePath: join(piSessionFolderName(cli), damaged.fileName), text: damagedText },
  ];
}

/**
 * Writes the demo library under `root` (each file via a temp file and a
 * rename; existing files are left alone). Returns the paths written.
 */
export function writeDemoLibrary(root: string): string[] {
  const written: string[] = [];
  for (const file of demoFiles(root)) {
    const path = join(root, file.relativePath);
    if (existsSync(path)) continue;
    mkdirSync(join(path, ".."), { recursive: true });
    const temp = `${path}.${process.pid}.tmp`;
    writeFileSync(temp, file.text, { flag: "wx" });
    renameSync(temp, path);
    written.push(path);
  }
  return written;
}

function pathTo(entries: readonly Json[], leafId: string): Json[] {
  const byId = new Map(entries.map((entry) => [entry.id as string, entry]));
  const path: Json[] = [];
  for (
    let entry = byId.get(leafId);
    entry;
    entry = entry.parentId ? byId.get(entry.parentId as string) : undefined
  ) {
    path.push(entry);
  }
  return path.reverse();
}

/** 8 hex characters from FNV-1a with a murmur finaliser, so neighbouring seeds look unrelated (like Pi's random ids). */
function hex8(seed: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < seed.length; i++) hash = Math.imul(hash ^ seed.charCodeAt(i), 0x01000193) >>> 0;
  hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b) >>> 0;
  hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35) >>> 0;
  return ((hash ^ (hash >>> 16)) >>> 0).toString(16).padStart(8, "0");
}

/** A UUID v7-shaped id from the slug (time prefix from the demo clock), stable across runs. */
function demoUuid(slug: string): string {
  const time = BASE_TIME.toString(16).padStart(12, "0");
  const rest = `${hex8(`${slug}:a`)}${hex8(`${slug}:b`)}${hex8(`${slug}:c`)}`;
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${rest.slice(0, 3)}-8${rest.slice(3, 6)}-${rest.slice(6, 18)}`;
}
