/**
 * The demo sessions, one function each: what is said and done in them.
 * `demo-session-builder.ts` has the builder they are written with, and
 * `demo-library.ts` lays them out as files.
 */

import { DemoSession, hex8, pathTo, PROVIDER } from "./demo-session-builder.ts";

/** 1. A bug hunt with an abandoned approach, a compaction, labels and a context edit. */
export function loginFlakeSession(cwd: string): { session: DemoSession; fix: string } {
  const login = new DemoSession("login-flake", cwd, 0);
  const { decision, firstRun } = findLoginRace(login);
  tryFixedSleep(login);
  const fix = fixLoginRace(login, decision, firstRun);
  return { session: login, fix };
}

/** The investigation: the files read, a repeated run that fails once, the cause labelled. */
function findLoginRace(login: DemoSession): { decision: string; firstRun: string } {
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
  return { decision, firstRun };
}

/** The approach that was abandoned: a fixed sleep. */
function tryFixedSleep(login: DemoSession): void {
  login.user("Can we just add a wait before clicking?");
  const turn = login.assistant({
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
}

/** Back to the decision point, with a summary of what was tried; the fix, compacted and named. Returns the fix's id. */
function fixLoginRace(login: DemoSession, decision: string, firstRun: string): string {
  login.branchWithSummary(
    decision,
    "Tried adding `page.waitForTimeout(500)` before the click. It made the test pass locally but only hides the race with the CSRF token and slows every run; reverted.",
  );
  login.user("Right, let's fix it properly: wait for the button to be enabled.");
  const turn = login.assistant({
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
  return fix;
}

/** 2. A fork of the first session (Pi's /fork) at its fix, continued elsewhere. `loginPath`: the first session's file. */
export function loginForkSession(
  cwd: string,
  login: DemoSession,
  fix: string,
  loginPath: string,
): DemoSession {
  const fork = new DemoSession("login-fork", cwd, 90, loginPath);
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
  const turn = fork.assistant({
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
  return fork;
}

/** 3. Another project: a named session with extension state. */
export function releaseSession(cwd: string): DemoSession {
  const release = new DemoSession("release", cwd, 240);
  release.name("Release 2.4.0");
  release.custom("todo-list", {
    items: [
      { text: "bump version", done: true },
      { text: "changelog", done: false },
    ],
  });
  release.user("Prepare the 2.4.0 release: bump the version and draft the changelog from the merged PRs.");
  let turn = release.assistant({
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
  return release;
}

/** 4. A damaged file: a malformed line, an orphan, and a half-written last line. */
export function damagedSession(cwd: string): { fileName: string; text: string } {
  const damaged = new DemoSession("damaged", cwd, 400);
  damaged.user("Summarise the open issues labelled `bug`.");
  damaged.assistant({ text: "There are four open bugs; the oldest is #187 (crash on empty config)." });
  damaged.user("Which one should I fix first?");
  const orphan = {
    ...damaged.entries[damaged.entries.length - 1]!,
    id: hex8("damaged:orphan"),
    parentId: "deadbeef",
  };
  const text = `${damaged.text()}{"type":"message","id":"${hex8("damaged:broken")}","parentId":${JSON.stringify(damaged.leafId)},"timestamp":"2026-11-20T16:45:00.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Fix #187 fi\n${JSON.stringify(orphan)}\n{"type":"message","id":"${hex8("damaged:partial")}","parentId":${JSON.stringify(damaged.leafId)},"timestamp":"2026-11-20T16:46:00.000Z","message":{"role":"assistant","content":[{"type":"te`;
  return { fileName: damaged.fileName, text };
}
