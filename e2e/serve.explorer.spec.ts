/**
 * The explorer end to end in Chromium, against a real `arbor serve` on a
 * temp copy of the bundled demo library: the library, the graph, the
 * context preview (checked against `arbor context --json`), Pi's filter
 * modes (checked against shared/graph's `visibleTree` over the file as
 * shared/session reads it), search and keys, chains, the damaged file and
 * deep links. Screenshots of the main views go to test-results/screenshots.
 */

import { expect, type Page, test } from "@playwright/test";
import { DEFAULT_LAYOUT, FILTER_MODES, type FilterMode } from "../shared/graph/index.ts";
import { inMemoryEntryReader, type SessionIndex } from "../shared/session/index.ts";
import {
  canvasPixels,
  chainNodes,
  distanceFromCentre,
  drawnIds,
  expandAllChains,
  expectPreviewOf,
  filterSelect,
  fitAll,
  graphPanel,
  graphStatus,
  library,
  node,
  openApp,
  openSession,
  preview,
  previewItems,
  screenshot,
  searchBox,
  sessionRow,
  viewportTransform,
} from "./support/app.ts";
import {
  type CliContext,
  cliContexts,
  comparable,
  expectedVisible,
  messageTexts,
  visibleTreeOf,
  pathTo,
  sourceEntryIds,
} from "./support/oracle.ts";
import { DAMAGED, type DemoSession, LOGIN, leafOf, RELEASE, writeDemo } from "./support/demo.ts";
import type { PageGlobals } from "./support/page-globals.ts";
import { type RunningServe, startServe } from "./support/serve.ts";

let serve: RunningServe;
let login: DemoSession;
let release: DemoSession;
let damaged: DemoSession;

test.beforeAll(async () => {
  const demo = writeDemo();
  ({ login, release, damaged } = demo);
  serve = await startServe({ dirs: [demo.root], removeDirsOnStop: true });
});

test.afterAll(async () => {
  const code = await serve?.stop();
  expect(code, serve?.output()).toBe(0);
});

function entriesOfType(index: SessionIndex, type: string, role?: string): string[] {
  const reader = inMemoryEntryReader(index);
  return [...index.nodes.values()]
    .filter((treeNode) => {
      const entry = reader.entryOfNode(treeNode) as unknown as Record<string, unknown>;
      const message = entry.message as Record<string, unknown> | undefined;
      return entry.type === type && (role === undefined || message?.role === role);
    })
    .map((treeNode) => treeNode.id);
}

/** The drawn entries marked as search matches. */
function matchedIds(page: Page): Promise<string[]> {
  return page
    .locator(".entry-node.match")
    .evaluateAll((nodes) =>
      nodes.map((element) => element.closest(".react-flow__node")!.getAttribute("data-id")!),
    );
}

/**
 * What the search must find for one word, read from the file itself: the visible entries (`order`)
 * whose entry holds the word anywhere, or whose label does; of a tool result, only what the renderer
 * holds (its output is not searched). In the visible order.
 */
function expectedMatches(index: SessionIndex, word: string, order: readonly string[]): string[] {
  const reader = inMemoryEntryReader(index);
  const found = [...index.nodes.values()].filter((treeNode) => {
    const entry = reader.entryOfNode(treeNode) as unknown as Record<string, unknown>;
    const message = entry.message as Record<string, unknown> | undefined;
    const label = index.labels.get(treeNode.id)?.label ?? "";
    if (label.toLowerCase().includes(word)) return true;
    if (message?.role === "toolResult") {
      // What the renderer holds of it: its kind, tool name and a one-line preview.
      const facts = reader.facts(treeNode.id)!;
      return [treeNode.id, "message", "toolresult", ...facts.toolNames, facts.preview]
        .join(" ")
        .toLowerCase()
        .includes(word);
    }
    // The fields the search reads (shared/session/entry-search.ts): content (text, thinking, tool calls
    // with their arguments), a bash command, a summary; not usage, model names or tool output.
    const read = [message?.content, message?.command, entry.summary, entry.content];
    return JSON.stringify(read).toLowerCase().includes(word);
  });
  const ids = new Set(found.map((treeNode) => treeNode.id));
  return order.filter((id) => ids.has(id));
}

async function openLogin(page: Page) {
  await openApp(page, serve.url);
  await openSession(page, LOGIN, leafOf(login));
}

/** The preview against the CLI's context for the same leaf: roles, order, source entries, texts, count. */
async function expectPreviewMatches(page: Page, session: DemoSession, leafId: string, cli: CliContext) {
  await expectPreviewOf(page, leafId, "agent");
  const items = await previewItems(page);
  await expect(preview(page)).toHaveAttribute("data-message-count", String(cli.messages.length));
  expect(items.map((item) => item.role)).toEqual(cli.messages.map((message) => message.role));
  expect(items.map((item) => item.entryId)).toEqual(sourceEntryIds(session.index, leafId, cli.messages));
  cli.messages.forEach((message, i) => {
    for (const text of messageTexts(message)) {
      expect(comparable(items[i]!.text), `message ${i} (${message.role}) of ${leafId}`).toContain(
        comparable(text),
      );
    }
  });
}

test("the library lists the demo sessions by project; a session opens with its graph and context", async ({
  page,
}) => {
  await openApp(page, serve.url);
  const projects = library(page).locator(".project");
  await expect(projects).toHaveCount(2);
  const byProject = await projects.evaluateAll((groups) =>
    groups.map((group) => ({
      cwd: group.querySelector(".project-name")?.getAttribute("title"),
      sessions: [...group.querySelectorAll(".session-name")].map((name) => name.textContent?.trim()),
    })),
  );
  expect(byProject).toEqual([
    { cwd: "/home/demo/projects/release-cli", sessions: [`${DAMAGED} labelled \`bug\`.`, RELEASE] },
    {
      cwd: "/home/demo/projects/webapp",
      sessions: [LOGIN, expect.stringMatching(/^↳ The login e2e test fails/)],
    },
  ]);
  await expect(sessionRow(page, LOGIN)).not.toHaveAttribute("aria-current", "true");

  await openSession(page, LOGIN, leafOf(login));
  await expect(page.locator(".app-header .session-title")).toHaveText(LOGIN);
  await expect(page.locator(".app-header .badge.live")).toHaveCount(0);
  const status = await graphStatus(page);
  expect(status.entries).toBe(login.index.nodes.size);
  expect(status.visible).toBe(expectedVisible(login.index, "default").length);
  // React Flow is told each node's size as measured (flow-elements.ts), so it measures none: that size must
  // be the one drawn.
  const sizes = await page
    .locator(".react-flow__node")
    .evaluateAll((nodes) => [
      ...new Set(
        (nodes as unknown as { offsetWidth: number; offsetHeight: number }[]).map(
          (node) => `${node.offsetWidth}x${node.offsetHeight}`,
        ),
      ),
    ]);
  expect(sizes).toEqual([`${DEFAULT_LAYOUT.nodeWidth}x${DEFAULT_LAYOUT.nodeHeight}`]);
  await screenshot(page, "library-graph-preview");
});

test("clicked entries show the context `arbor context --json` prints for them, agent and LLM forms", async ({
  page,
}) => {
  const index = login.index;
  const onLeafPath = new Set(pathTo(index, leafOf(login)));
  const [branchSummary] = entriesOfType(index, "branch_summary");
  const [compaction] = entriesOfType(index, "compaction");
  const abandoned = entriesOfType(index, "message").filter((id) => !onLeafPath.has(id));
  const afterCompaction = pathTo(index, leafOf(login)).slice(pathTo(index, compaction!).length);
  const userAfterCompaction = afterCompaction.find((id) =>
    entriesOfType(index, "message", "user").includes(id),
  );
  const lastAssistant = afterCompaction.filter((id) =>
    entriesOfType(index, "message", "assistant").includes(id),
  );
  const leaves = [
    abandoned[0]!, // the user's question that started the abandoned approach
    abandoned[abandoned.length - 1]!, // the abandoned branch's last answer
    branchSummary!,
    compaction!,
    userAfterCompaction!,
    lastAssistant[lastAssistant.length - 1]!,
    entriesOfType(index, "message", "toolResult")[0]!,
    entriesOfType(index, "message", "bashExecution")[0]!,
    entriesOfType(index, "custom_message")[0]!,
  ];
  expect(new Set(leaves).size).toBe(leaves.length);
  const agent = cliContexts(login.file, leaves);
  const llm = cliContexts(login.file, leaves, { llm: true });

  await openLogin(page);
  // The file's leaf first: what the window shows on opening.
  const [fileLeaf] = cliContexts(login.file, [leafOf(login)]).values();
  await expectPreviewMatches(page, login, leafOf(login), fileLeaf!);

  for (const leaf of leaves) {
    // A chain is named after its first entry: a new selection can start a new run, folded again.
    await expandAllChains(page);
    await node(page, leaf).click();
    await expect(node(page, leaf).locator(".entry-node")).toHaveAttribute("data-selected", "true");
    await expectPreviewMatches(page, login, leaf, agent.get(leaf)!);
  }
  await page.getByRole("button", { name: "Centre" }).click();
  await expect.poll(() => distanceFromCentre(page, leaves[leaves.length - 1]!)).toBeLessThan(20);
  await screenshot(page, "preview-custom-message");
  // Copy JSON gives what `arbor context --json` prints for the leaf.
  await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
  const copied = async (button: string) => {
    await page.evaluate(() => (globalThis as unknown as PageGlobals).navigator.clipboard.writeText(""));
    await page.getByRole("button", { name: button }).click();
    await expect
      .poll(() => page.evaluate(() => (globalThis as unknown as PageGlobals).navigator.clipboard.readText()))
      .not.toBe("");
    return page.evaluate(() => (globalThis as unknown as PageGlobals).navigator.clipboard.readText());
  };
  const last = leaves[leaves.length - 1]!;
  expect(JSON.parse(await copied("Copy JSON"))).toEqual(agent.get(last));

  // "What the model sees": convertToLlm's messages, as `--llm` prints them.
  await page.getByRole("button", { name: "What the model sees" }).click();
  for (const leaf of leaves) {
    await expandAllChains(page);
    await node(page, leaf).click();
    await expectPreviewOf(page, leaf, "llm");
    const expected = llm.get(leaf)!.messages;
    await expect(preview(page)).toHaveAttribute("data-message-count", String(expected.length));
    const items = await previewItems(page);
    expect(items.map((item) => item.role)).toEqual(expected.map((message) => message.role));
    const agentMessages = agent.get(leaf)!.messages;
    if (agentMessages.length === expected.length) {
      // One LLM message per agent message: each is paired with the entry it came from.
      expect(items.map((item) => item.entryId)).toEqual(sourceEntryIds(index, leaf, agentMessages));
    }
    expected.forEach((message, i) => {
      for (const text of messageTexts(message))
        expect(comparable(items[i]!.text)).toContain(comparable(text));
    });
  }
  await screenshot(page, "preview-llm");
  // Copied, the model's view is `arbor context --json --llm`'s, and its Markdown is of those messages.
  expect(JSON.parse(await copied("Copy JSON"))).toEqual(llm.get(last));
  const markdown = await copied("Copy Markdown");
  expect(markdown).toContain(`# What the model sees at ${last}`);
  expect(markdown.match(/^## /gm)).toHaveLength(llm.get(last)!.messages.length);
  await page.getByRole("button", { name: "Agent messages" }).click();
  await expectPreviewOf(page, leaves[leaves.length - 1]!, "agent");

  // The inspector: the selected entry as it is in the file, with its line.
  await page.getByRole("tab", { name: "Entry" }).click();
  const inspector = page.getByRole("region", { name: "Entry inspector" });
  await expect(inspector).toHaveAttribute("data-entry-id", leaves[leaves.length - 1]!);
  await expect(inspector.locator(".inspector-header")).toContainText(
    `line ${index.nodes.get(leaves[leaves.length - 1]!)!.line}`,
  );
  await expect(inspector.locator(".raw-entry")).toContainText('"customType": "ci-status"');
  await screenshot(page, "inspector");
});

test("each filter mode draws exactly the entries Pi's /tree shows", async ({ page }) => {
  await openLogin(page);
  for (const mode of FILTER_MODES) {
    await filterSelect(page).selectOption(mode);
    const expected = expectedVisible(login.index, mode);
    await expect.poll(async () => (await graphStatus(page)).visible, { message: mode }).toBe(expected.length);

    // Folded: the drawn entries and the chains' entries add up to the visible ones.
    await fitAll(page);
    const drawn = await drawnIds(page);
    const entryNodes = drawn.filter((id) => !id.startsWith("chain:"));
    const chains = await chainNodes(page).evaluateAll((nodes) =>
      nodes.map((element) => ({
        id: element.getAttribute("data-id")!,
        size: Number(/(\d+) entries/.exec(element.textContent ?? "")?.[1]),
      })),
    );
    for (const id of entryNodes) expect(expected, `${mode}: ${id} is drawn`).toContain(id);
    for (const chain of chains) expect(expected).toContain(chain.id.slice("chain:".length));
    expect(entryNodes.length + chains.reduce((sum, chain) => sum + chain.size, 0), mode).toBe(
      expected.length,
    );

    // Expanded: one node per visible entry, in Pi's order.
    await expandAllChains(page);
    expect(await drawnIds(page), mode).toEqual(expected);
    if (mode === "user-only") {
      const kinds = await page
        .locator(".entry-node")
        .evaluateAll((nodes) => nodes.map((element) => element.getAttribute("data-kind")));
      expect(new Set(kinds)).toEqual(new Set(["user"]));
    }
  }
  await filterSelect(page).selectOption("all");
  await expandAllChains(page);
  await page.getByRole("button", { name: "Centre" }).click();
  await expect.poll(() => distanceFromCentre(page, leafOf(login))).toBeLessThan(20);
  await screenshot(page, "filter-all-expanded");
});

test("search, keyboard navigation and filter cycling work as in Pi's /tree", async ({ page }) => {
  await openLogin(page);
  await expandAllChains(page);
  const order = expectedVisible(login.index, "default");
  const cursorNode = page.locator('.entry-node[aria-current="true"]');
  const cursorEntry = async () =>
    cursorNode.evaluate((element) => element.closest(".react-flow__node")?.getAttribute("data-id"));

  // `/` focuses the search; typing highlights the matches.
  await page.keyboard.press("/");
  await expect(searchBox(page)).toBeFocused();
  await page.keyboard.type("csrf");
  const matches = page.locator(".entry-node.match");
  await expect(matches.first()).toBeVisible();
  // The full-text answer (session.search) may add matches: wait for it.
  await expect(page.locator(".match-info")).toHaveAttribute("aria-busy", "false");
  // Every match, by the app's count; those drawn are the expected ones (off-screen nodes are not drawn).
  const matchIds = expectedMatches(login.index, "csrf", order);
  await expect(page.locator(".match-info")).toHaveText(new RegExp(`^(–|\\d+)/${matchIds.length}$`));
  const drawnMatches = await matchedIds(page);
  expect(drawnMatches.length).toBeGreaterThan(0);
  expect(drawnMatches.filter((id) => !matchIds.includes(id))).toEqual([]);

  // Enter jumps to the next match in the visible order and centres it.
  const start = order.indexOf((await cursorEntry())!);
  const firstMatch =
    order.find((id, i) => i > start && matchIds.includes(id)) ?? order.find((id) => matchIds.includes(id));
  await page.keyboard.press("Enter");
  await expect(node(page, firstMatch!).locator(".entry-node")).toHaveAttribute("aria-current", "true");
  await expect(page.locator(".match-info")).toHaveText(
    `${matchIds.filter((id) => order.indexOf(id) <= order.indexOf(firstMatch!)).length}/${matchIds.length}`,
  );
  await expect.poll(() => distanceFromCentre(page, firstMatch!)).toBeLessThan(20);
  await screenshot(page, "search");

  // Esc in the box clears the search and leaves it.
  await page.keyboard.press("Escape");
  await expect(searchBox(page)).toHaveValue("");
  await expect(searchBox(page)).not.toBeFocused();
  await expect(matches).toHaveCount(0);

  // Up/Down follow the visible order (wrapping); the status line counts along.
  let at = order.indexOf(firstMatch!);
  for (const [key, step] of [
    ["ArrowDown", 1],
    ["ArrowDown", 1],
    ["ArrowDown", 1],
    ["ArrowUp", -1],
  ] as const) {
    await page.keyboard.press(key);
    at = (at + step + order.length) % order.length;
    await expect(node(page, order[at]!).locator(".entry-node")).toHaveAttribute("aria-current", "true");
    await expect(page.locator(".graph-status")).toHaveAttribute("data-cursor", String(at + 1));
    await expect(page.locator(".graph-status")).toHaveAttribute("data-visible", String(order.length));
  }
  // From the first entry, Up wraps to the last.
  for (let i = at; i > 0; i--) await page.keyboard.press("ArrowUp");
  await expect(node(page, order[0]!).locator(".entry-node")).toHaveAttribute("aria-current", "true");
  await page.keyboard.press("ArrowUp");
  await expect(node(page, order[order.length - 1]!).locator(".entry-node")).toHaveAttribute(
    "aria-current",
    "true",
  );
  for (let i = 0; i < 3; i++) await page.keyboard.press("ArrowDown");
  const chosen = order[2]!;
  await expect(node(page, chosen).locator(".entry-node")).toHaveAttribute("aria-current", "true");

  // Enter takes the cursor's entry as leaf.
  await expect(preview(page)).not.toHaveAttribute("data-leaf-id", chosen);
  await page.keyboard.press("Enter");
  await expectPreviewOf(page, chosen);
  await expect(node(page, chosen).locator(".entry-node")).toHaveAttribute("data-selected", "true");

  // Ctrl+O cycles the filter, Shift+Ctrl+O goes back; the drawn entries follow.
  const cycle: FilterMode[] = ["no-tools", "user-only", "labeled-only", "all", "default"];
  for (const mode of cycle) {
    await page.keyboard.press("Control+o");
    await expect(filterSelect(page)).toHaveValue(mode);
    await expect
      .poll(async () => (await graphStatus(page)).visible)
      .toBe(expectedVisible(login.index, mode).length);
  }
  await page.keyboard.press("Shift+Control+O");
  await expect(filterSelect(page)).toHaveValue("all");
  await page.keyboard.press("Control+o");
  await expect(filterSelect(page)).toHaveValue("default");

  // Esc outside the box clears a search too.
  await page.keyboard.press("/");
  await page.keyboard.type("root cause");
  await expect(page.locator(".match-info")).toHaveText(/\/1$/);
  await searchBox(page).evaluate((input) => input.blur());
  await page.keyboard.press("Escape");
  await expect(searchBox(page)).toHaveValue("");
  await expect(page.locator(".match-info")).toHaveText("");
});

test("chains expand on click and fold again; a branch folds and unfolds", async ({ page }) => {
  await openLogin(page);
  await fitAll(page);
  const expected = expectedVisible(login.index, "default");
  const chain = chainNodes(page).first();
  const chainId = (await chain.getAttribute("data-id"))!;
  const size = Number(/(\d+) entries/.exec((await chain.textContent()) ?? "")?.[1]);
  expect(size).toBeGreaterThanOrEqual(3);
  const first = chainId.slice("chain:".length);
  const members = expected.slice(expected.indexOf(first), expected.indexOf(first) + size);
  for (const id of members) await expect(node(page, id)).toHaveCount(0);
  const before = await graphStatus(page);

  await chain.click();
  await expect(node(page, chainId)).toHaveCount(0);
  await fitAll(page);
  for (const id of members) await expect(node(page, id)).toBeVisible();
  expect((await graphStatus(page)).nodes).toBe(before.nodes + size - 1);
  await screenshot(page, "chain-expanded");

  await page.getByRole("button", { name: "Fold chains" }).click();
  await expect(node(page, chainId)).toBeVisible();
  for (const id of members) await expect(node(page, id)).toHaveCount(0);
  expect((await graphStatus(page)).nodes).toBe(before.nodes);

  // Pi's fold: the first entry of a branch segment hides everything below it.
  await expandAllChains(page);
  const all = await graphStatus(page);
  const tree = visibleTreeOf(login.index, "default");
  // A branch's first entry, with entries below it.
  const segmentStart = tree.order.find((id) => {
    const parent = tree.parent.get(id);
    return parent && tree.children.get(parent)!.length > 1 && tree.children.get(id)!.length > 0;
  })!;
  const foldable = node(page, segmentStart);
  const below: string[] = [];
  for (const stack = [...tree.children.get(segmentStart)!]; stack.length > 0; ) {
    const id = stack.pop()!;
    below.push(id);
    stack.push(...tree.children.get(id)!);
  }
  expect(below.length).toBeGreaterThan(0);
  await foldable.getByRole("button", { name: "Fold" }).click();
  await expect(node(page, segmentStart).getByRole("button", { name: "Unfold" })).toBeVisible();
  await expect.poll(async () => (await graphStatus(page)).visible).toBe(all.visible - below.length);
  for (const id of below) await expect(node(page, id)).toHaveCount(0);
  await fitAll(page);
  await screenshot(page, "branch-folded");
  await node(page, segmentStart).getByRole("button", { name: "Unfold" }).click();
  await expect.poll(async () => (await graphStatus(page)).visible).toBe(all.visible);
  await fitAll(page);
  for (const id of below) await expect(node(page, id)).toBeVisible();
});

test("search finds a word anywhere in an entry: later lines, tool call arguments, as read from the file", async ({
  page,
}) => {
  await openLogin(page);
  await expandAllChains(page);
  const order = expectedVisible(login.index, "default");
  let cursor = leafOf(login);
  for (const word of ["repeat-each", "src/pages/login.tsx"]) {
    await searchBox(page).fill(word);
    await expect(page.locator(".match-info")).toHaveAttribute("aria-busy", "false");
    const expected = expectedMatches(login.index, word, order);
    expect(expected.length, word).toBeGreaterThan(0);
    // The cursor may already be on a match (the one Enter reached last, for the word before).
    await expect(page.locator(".match-info")).toHaveText(new RegExp(`^(–|\\d+)/${expected.length}$`));
    // Enter steps to each match in the visible order from the cursor on, drawn and marked.
    const at = order.indexOf(cursor);
    const after = (id: string) => order.indexOf(id) > at;
    for (const id of [...expected.filter(after), ...expected.filter((id) => !after(id))]) {
      await searchBox(page).press("Enter");
      const drawn = node(page, id).locator(".entry-node");
      await expect(drawn).toHaveAttribute("aria-current", "true");
      await expect(drawn).toHaveClass(/\bmatch\b/);
      cursor = id;
    }
    // Some match only by what a preview does not hold: the main process read the whole entries.
    expect(
      expected.some(
        (id) => !inMemoryEntryReader(login.index).facts(id)!.preview.toLowerCase().includes(word),
      ),
      word,
    ).toBe(true);
  }
  await screenshot(page, "search-full-text");
});

test("the damaged file opens with its problems and line numbers; the window keeps working", async ({
  page,
}) => {
  const problems = damaged.index.problems;
  expect(problems.map((problem) => problem.kind).sort()).toEqual([
    "malformed-json",
    "malformed-json",
    "orphan",
  ]);
  // The last line is half written: the reader says so.
  expect(problems.find((problem) => problem.line === damaged.index.lineCount)?.message).toContain(
    "may still be being written",
  );
  await openApp(page, serve.url);
  // The library says so before it is opened: two lines are not JSON (the half-written last one included).
  await expect(sessionRow(page, DAMAGED).locator(".damage-note")).toHaveText("2 unreadable lines");
  await openSession(page, DAMAGED, leafOf(damaged));
  const header = page.locator(".app-header");
  await expect(header.locator(".badge.warning")).toHaveText(`${problems.length} problems`);
  await header.locator(".badge.warning").click();
  const list = page.getByRole("list", { name: "Problems in the file" });
  for (const problem of problems) {
    await expect(list).toContainText(`line ${problem.line}: ${problem.severity}: ${problem.message}`);
  }
  await screenshot(page, "damaged-file");
  await header.locator(".badge.warning").click();
  await expect(list).toBeHidden();

  // The orphan is drawn as a root; its own problem shows with it in the inspector.
  const orphan = damaged.index.orphans[0]!;
  await fitAll(page);
  await node(page, orphan).click();
  await expectPreviewOf(page, orphan);
  await page.getByRole("tab", { name: "Entry" }).click();
  const orphanProblem = problems.find((problem) => problem.kind === "orphan")!;
  await expect(page.getByRole("list", { name: "Problems" })).toContainText(
    `line ${orphanProblem.line}: warning: ${orphanProblem.message}`,
  );
  await screenshot(page, "damaged-orphan-inspector");

  // And another session opens afterwards.
  await page.getByRole("tab", { name: "Context" }).click();
  await openSession(page, RELEASE, leafOf(release));
  await expect(header.locator(".session-title")).toHaveText(RELEASE);
  await expect(header.locator(".badge.warning")).toHaveCount(0);
});

test("a deep link opens that session with that entry selected", async ({ page }) => {
  await openApp(page, serve.url);
  const sessionId = (await sessionRow(page, LOGIN).getAttribute("data-session-id"))!;
  const index = login.index;
  const onLeafPath = new Set(pathTo(index, leafOf(login)));
  // An entry inside a chain on the abandoned branch: the link must reveal it.
  const target = entriesOfType(index, "message", "assistant").filter((id) => !onLeafPath.has(id))[0]!;
  const [expected] = cliContexts(login.file, [target]).values();

  await page.goto(serve.urlWith({ session: sessionId, leaf: target }));
  await expect(sessionRow(page, LOGIN)).toHaveAttribute("aria-current", "true");
  await expect(node(page, target).locator(".entry-node")).toHaveAttribute("data-selected", "true");
  await expect(node(page, target).locator(".entry-node")).toHaveAttribute("aria-current", "true");
  await expectPreviewMatches(page, login, target, expected!);
  await expect.poll(() => distanceFromCentre(page, target)).toBeLessThan(20);

  // Without the token in the URL (the page kept it from its first load) and with an unknown entry: the leaf, and a notice.
  await page.goto(`${serve.origin}/?session=${encodeURIComponent(sessionId)}&leaf=nosuchid`);
  await expectPreviewOf(page, leafOf(login));
  await expect(page.getByRole("alert")).toContainText("nosuchid");
});

test("the minimap draws every node on a canvas; a click on it moves the view, the wheel zooms it", async ({
  page,
}) => {
  await openLogin(page);
  const status = await graphStatus(page);
  const minimap = page.getByTestId("graph-minimap");
  await expect(minimap).toHaveAttribute("role", "img");
  await expect(minimap).toHaveAttribute("aria-label", `Minimap: ${status.nodes} nodes`);
  // React Flow's minimap place and size: the bottom-right panel, 200 x 150 (and a 1 px border).
  const box = (await minimap.boundingBox())!;
  const graph = (await page.getByTestId("graph").boundingBox())!;
  expect(box.width).toBe(202);
  expect(box.height).toBe(152);
  expect(graph.x + graph.width - (box.x + box.width)).toBeCloseTo(15, 0);
  expect(graph.y + graph.height - (box.y + box.height)).toBeCloseTo(15, 0);
  const nodes = minimap.locator("canvas").first();
  await expect(nodes).toHaveAttribute("data-drawn-nodes", String(status.nodes));
  const pixels = await canvasPixels(nodes, 1);
  expect(pixels.painted).toBeGreaterThan(0.01);
  // Users' and assistants' colours at least, and the path's.
  expect(pixels.colours).toBeGreaterThanOrEqual(3);
  await screenshot(page, "minimap-light");

  // A click near its corner centres the view there; the keys stay with the graph.
  const before = await viewportTransform(page);
  await page.mouse.click(box.x + 12, box.y + 12);
  await expect.poll(() => viewportTransform(page)).not.toBe(before);
  await expect(graphPanel(page)).toBeFocused();
  const scale = (transform: string) => Number(/scale\(([-\d.e]+)\)/.exec(transform)?.[1]);
  const moved = await viewportTransform(page);
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.wheel(0, -200);
  await expect.poll(async () => scale(await viewportTransform(page))).toBeGreaterThan(scale(moved));

  // The dark theme: the nodes are drawn again in its colours.
  const frames = Number(await nodes.getAttribute("data-frames"));
  await page.emulateMedia({ colorScheme: "dark" });
  await expect.poll(async () => Number(await nodes.getAttribute("data-frames"))).toBeGreaterThan(frames);
  expect((await canvasPixels(nodes, 1)).painted).toBeGreaterThan(0.01);
  await screenshot(page, "minimap-dark");
  await page.emulateMedia({ colorScheme: "light" });
});

test("each tab keeps its own session, and a reload opens it again", async ({ page }) => {
  await openApp(page, serve.url);
  await openSession(page, LOGIN, leafOf(login));
  const other = await page.context().newPage();
  await openApp(other, serve.url);
  // A new tab starts on nothing of the other's.
  await expect(sessionRow(other, LOGIN)).not.toHaveAttribute("aria-current", "true");
  await openSession(other, DAMAGED, leafOf(damaged));
  await page.waitForTimeout(300);
  await expect(sessionRow(page, LOGIN)).toHaveAttribute("aria-current", "true");
  await expectPreviewOf(page, leafOf(login));
  // The address names the open session: a reload opens it again.
  const damagedId = await sessionRow(other, DAMAGED).getAttribute("data-session-id");
  await expect.poll(() => new URL(other.url()).searchParams.get("session")).toBe(damagedId);
  expect(new URL(other.url()).searchParams.get("leaf")).toBeNull();
  await other.reload();
  await expect(sessionRow(other, DAMAGED)).toHaveAttribute("aria-current", "true");
  await expectPreviewOf(other, leafOf(damaged));
  // And the entry selected in it, when that is not the leaf: the reload selects it again.
  await other.bringToFront();
  await graphPanel(other).focus();
  await other.keyboard.press("ArrowUp");
  await other.keyboard.press("Enter");
  // Another entry than the leaf, once the preview names one (it has none while it loads).
  let picked: string | null = null;
  await expect
    .poll(async () => {
      picked = await preview(other).getAttribute("data-leaf-id");
      return picked !== null && picked !== leafOf(damaged);
    })
    .toBe(true);
  await expectPreviewOf(other, picked!);
  await expect.poll(() => new URL(other.url()).searchParams.get("leaf")).toBe(picked);
  await other.reload();
  await expect(sessionRow(other, DAMAGED)).toHaveAttribute("aria-current", "true");
  await expectPreviewOf(other, picked!);
  await other.close();
});

test("the dark theme follows the system's colour scheme", async ({ page }) => {
  await page.emulateMedia({ colorScheme: "dark" });
  await openLogin(page);
  const background = await page
    .locator("body")
    .evaluate((body) => (globalThis as unknown as PageGlobals).getComputedStyle(body).backgroundColor);
  expect(background).not.toBe("rgb(255, 255, 255)");
  await expect(graphPanel(page).locator(".react-flow")).toHaveClass(/dark/);
  await screenshot(page, "dark-theme");
});
test("the theme switch: dark on a light system, kept across a reload, followed by another tab", async ({
  page,
}) => {
  await page.emulateMedia({ colorScheme: "light" });
  await openLogin(page);
  const background = () =>
    page
      .locator("body")
      .evaluate((body) => (globalThis as unknown as PageGlobals).getComputedStyle(body).backgroundColor);
  const light = await background();
  const other = await page.context().newPage();
  await other.emulateMedia({ colorScheme: "light" });
  await openApp(other, serve.url);
  const theme = page.getByRole("combobox", { name: "Theme" });
  await expect(theme).toHaveValue("system");
  await theme.selectOption("dark");
  await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
  expect(await background()).not.toBe(light);
  await expect(graphPanel(page).locator(".react-flow")).toHaveClass(/dark/);
  // The other tab follows without a reload; a reload (the next launch too) keeps it.
  await expect(other.locator("html")).toHaveAttribute("data-theme", "dark");
  await expect(other.getByRole("combobox", { name: "Theme" })).toHaveValue("dark");
  await page.reload();
  await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
  await expect(page.getByRole("combobox", { name: "Theme" })).toHaveValue("dark");
  await screenshot(page, "theme-switch-dark");
  // Back to the system's for the tests after this one (the choice is kept in the server's data folder).
  await page.getByRole("combobox", { name: "Theme" }).selectOption("system");
  await expect(page.locator("html")).toHaveAttribute("data-theme", "light");
  await other.close();
});
