// @vitest-environment happy-dom
import "../testing/setup.ts";
import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { LibraryListing, SessionListItem } from "../../../shared/ipc/contract.ts";
import { ArborError } from "../../../shared/ipc/contract.ts";
import { renderExplorer } from "../testing/render-explorer.tsx";
import { conversation, sessionText, user } from "../testing/sessions.ts";
import { displayName, libraryGroups } from "./library-view.ts";

function item(sessionId: string, fields: Partial<SessionListItem> = {}): SessionListItem {
  return {
    sessionId,
    headerId: sessionId,
    path: `/s/${sessionId}.jsonl`,
    projectId: "p1",
    cwd: "/home/dev/one",
    name: null,
    firstMessage: `first message of ${sessionId}`,
    messageCount: 1,
    archivedMessageCount: 0,
    created: "2026-01-01T00:00:00.000Z",
    modified: "2026-01-01T00:00:00.000Z",
    bytes: 100,
    parentSessionId: null,
    error: null,
    damagedLines: 0,
    open: false,
    ...fields,
  };
}

const listing: LibraryListing = {
  scanning: false,
  demo: false,
  skipped: [],
  projects: [
    {
      projectId: "p1",
      cwd: "/home/dev/one",
      sessions: [
        item("a", { name: "Parser work", modified: "2026-03-01T00:00:00.000Z", bytes: 10, messageCount: 9 }),
        item("b", { modified: "2026-03-05T00:00:00.000Z", bytes: 500, messageCount: 2 }),
        item("fork", { parentSessionId: "a", name: "Parser fork", modified: "2026-03-02T00:00:00.000Z" }),
        item("forkfork", { parentSessionId: "fork", modified: "2026-03-03T00:00:00.000Z" }),
      ],
    },
    {
      projectId: "p2",
      cwd: "/home/dev/two",
      sessions: [item("c", { projectId: "p2", cwd: "/home/dev/two", modified: "2026-02-01T00:00:00.000Z" })],
    },
  ],
};

const query = { sort: "recent" as const, namedOnly: false, searchText: "", searchHits: null };

describe("displayName", () => {
  it("names a session by its name, else its first message; a broken file by its file name", () => {
    expect(displayName(item("a", { name: "Parser work" }))).toBe("Parser work");
    expect(displayName(item("b"))).toBe("first message of b");
    expect(displayName(item("c", { firstMessage: "" }))).toBe("(no messages)");
    const broken = { error: "The file holds no session header.", firstMessage: "(no messages)" };
    expect(displayName(item("d", { ...broken, path: "/s/--x--/notes.jsonl" }))).toBe("notes.jsonl");
    expect(displayName(item("e", { ...broken, path: "C:\\pi\\bad.jsonl" }))).toBe("bad.jsonl");
  });
});

describe("libraryGroups", () => {
  it("groups by project, most recent first, with forks nested under their parent", () => {
    const groups = libraryGroups(listing, query);
    expect(groups.map((g) => g.projectId)).toEqual(["p1", "p2"]);
    expect(groups[0]!.rows.map((r) => [r.item.sessionId, r.depth])).toEqual([
      ["b", 0],
      ["a", 0],
      ["fork", 1],
      ["forkfork", 2],
    ]);
  });

  it("sorts by name, size and message count", () => {
    const ids = (sort: "name" | "size" | "messages") =>
      libraryGroups(listing, { ...query, sort })[0]!
        .rows.filter((r) => r.depth === 0)
        .map((r) => r.item.sessionId);
    expect(ids("name")).toEqual(["b", "a"]);
    expect(ids("size")).toEqual(["b", "a"]);
    expect(ids("messages")).toEqual(["a", "b"]);
  });

  it("keeps named sessions only, and matches every search word in names and first messages", () => {
    const named = libraryGroups(listing, { ...query, namedOnly: true });
    expect(named.flatMap((g) => g.rows.map((r) => r.item.sessionId))).toEqual(["a", "fork"]);
    const searched = libraryGroups(listing, { ...query, searchText: "parser FORK" });
    expect(searched.flatMap((g) => g.rows.map((r) => r.item.sessionId))).toEqual(["fork"]);
    const hits = libraryGroups(listing, {
      ...query,
      searchText: "zebra",
      searchHits: [
        { sessionId: "c", entryId: "e1", field: "text", snippet: "a zebra", highlights: [[2, 7]] },
      ],
    });
    expect(hits.flatMap((g) => g.rows.map((r) => [r.item.sessionId, r.hit?.snippet]))).toEqual([
      ["c", "a zebra"],
    ]);
  });
});

describe("the library sidebar", () => {
  const sessions = [
    { sessionId: "one", text: sessionText(conversation(2)) },
    {
      sessionId: "two",
      text: sessionText([user("u0", "Where is the zebra crossing?")], { cwd: "/home/dev/zoo" }),
    },
  ];

  it("lists sessions by project and opens one with session.open", async () => {
    const explorer = await renderExplorer(sessions);
    const nav = screen.getByRole("navigation", { name: "Library" });
    expect(within(nav).getByText("/home/dev/zoo")).toBeTruthy();
    expect(within(nav).getByText("/home/dev/hand-made")).toBeTruthy();
    fireEvent.click(within(nav).getByText("Where is the zebra crossing?"));
    await explorer.waitForContext("u0");
    expect(explorer.client.calls.some((c) => c.name === "session.open")).toBe(true);
    const row = nav.querySelector<HTMLElement>('[data-session-id="two"]')!;
    expect(row.getAttribute("aria-current")).toBe("true");
    explorer.unmount();
  });

  it("searches names and first messages at once, and the full text through library.search", async () => {
    const explorer = await renderExplorer(sessions);
    const nav = screen.getByRole("navigation", { name: "Library" });
    fireEvent.change(within(nav).getByRole("searchbox", { name: "Search sessions" }), {
      target: { value: "zebra" },
    });
    expect(nav.querySelector('[data-session-id="one"]')).toBeNull();
    expect(nav.querySelector('[data-session-id="two"]')).not.toBeNull();
    fireEvent.change(within(nav).getByRole("searchbox", { name: "Search sessions" }), {
      target: { value: "answer number" },
    });
    // Only the full-text search finds "Answer number" (an assistant message, not the first message).
    await waitFor(() => expect(nav.querySelector('[data-session-id="one"]')).not.toBeNull());
    expect(nav.querySelector(".search-snippet")?.textContent?.toLowerCase()).toContain("answer number");
    // The matched word is marked, not the whole snippet.
    expect(nav.querySelector(".search-snippet mark")?.textContent?.toLowerCase()).toBe("answer");
    expect(explorer.client.calls.filter((c) => c.name === "library.search").length).toBeGreaterThan(0);
    // A hit opens its session at the entry that matched, not at the file's leaf.
    const hit = (await explorer.client.request("library.search", { query: "answer number" })).find(
      (found) => found.sessionId === "one",
    )!;
    fireEvent.click(nav.querySelector<HTMLElement>('[data-session-id="one"]')!);
    await explorer.waitForContext(hit.entryId!);
    expect(explorer.controller.stores.session.getState().view?.leafId).not.toBe(hit.entryId);
    expect(explorer.controller.stores.session.getState().selectedId).toBe(hit.entryId);
    explorer.unmount();
  });

  it("shows a progress bar while scanning, and the listing as it changes", async () => {
    const explorer = await renderExplorer(sessions, { client: { scanning: true } });
    const nav = screen.getByRole("navigation", { name: "Library" });
    act(() => explorer.client.emit("library.progress", { loaded: 3, total: 10 }));
    const bar = within(nav).getByRole("progressbar", { name: "Scanning sessions" }) as HTMLProgressElement;
    expect(bar.value).toBeCloseTo(0.3);
    expect(nav.textContent).toContain("3 of 10 files");
    const done = await explorer.client.request("library.list", {});
    act(() => explorer.client.emit("library.changed", { ...done, scanning: false }));
    await waitFor(() => expect(within(nav).queryByRole("progressbar")).toBeNull());
    explorer.unmount();
  });

  it("updates one row in place when the main process says it changed (the open session grew)", async () => {
    const explorer = await renderExplorer(sessions);
    const nav = screen.getByRole("navigation", { name: "Library" });
    fireEvent.click(within(nav).getByText("Where is the zebra crossing?"));
    await explorer.waitForContext("u0");
    const listed = (await explorer.client.request("library.list", {})).projects
      .flatMap((project) => project.sessions)
      .find((item) => item.sessionId === "two")!;
    act(() =>
      explorer.client.emit("library.sessionChanged", {
        ...listed,
        name: "Zebra crossings, named",
        messageCount: 99,
        open: false,
      }),
    );
    const row = nav.querySelector<HTMLElement>('[data-session-id="two"]')!;
    expect(row.textContent).toContain("Zebra crossings, named");
    expect(row.textContent).toContain("99 msgs");
    // Still this window's open session; the other rows are as they were.
    expect(row.getAttribute("aria-current")).toBe("true");
    expect(nav.querySelector('[data-session-id="one"]')!.textContent).not.toContain("99 msgs");
    explorer.unmount();
  });

  it("marks a session whose file has lines that are not JSON", async () => {
    const damaged = `${sessionText(conversation(1))}not json\n{"half":\n`;
    const explorer = await renderExplorer([...sessions, { sessionId: "bad", text: damaged }]);
    const nav = screen.getByRole("navigation", { name: "Library" });
    expect(nav.querySelector('[data-session-id="bad"] .damage-note')?.textContent).toBe("2 unreadable lines");
    expect(nav.querySelector('[data-session-id="one"] .damage-note')).toBeNull();
    explorer.unmount();
  });

  it("says which files the scan passed over, and why", async () => {
    const skipped = [
      { path: "/s/--p--/pipe.jsonl", reason: "Not a regular file (a FIFO): a session is a file of lines." },
      {
        path: "/s/--p--/passwd.jsonl",
        reason: "A symbolic link to /etc/passwd, outside the session folders.",
      },
    ];
    const explorer = await renderExplorer(sessions, { client: { skipped } });
    const nav = screen.getByRole("navigation", { name: "Library" });
    expect(nav.querySelector(".skipped-files summary")?.textContent).toBe("2 files skipped");
    const listed = within(nav).getByRole("list", { name: "Files the scan skipped" });
    expect([...listed.querySelectorAll("li")].map((item) => item.textContent)).toEqual(
      skipped.map(({ path, reason }) => `${path}${reason}`),
    );
    explorer.unmount();
  });

  it("has an empty view, and an error view with a retry", async () => {
    const empty = await renderExplorer([]);
    expect(screen.getByText("No Pi sessions were found.")).toBeTruthy();
    empty.unmount();

    const explorer = await renderExplorer(sessions, {
      prepare: (client) =>
        client.failing.set("library.list", new ArborError("io", "The session folder is unreadable.")),
    });
    const nav = screen.getByRole("navigation", { name: "Library" });
    expect(within(nav).getByRole("alert").textContent).toContain("The session folder is unreadable.");
    explorer.client.failing.clear();
    fireEvent.click(within(nav).getByRole("button", { name: "Try again" }));
    await waitFor(() => expect(nav.querySelector('[data-session-id="one"]')).not.toBeNull());
    explorer.unmount();
  });
});

describe("error views", () => {
  it("says why a session could not be opened and offers to try again", async () => {
    const explorer = await renderExplorer([{ sessionId: "one", text: sessionText(conversation(1)) }]);
    explorer.client.failing.set("session.open", new ArborError("io", "The file cannot be read."));
    await act(() => explorer.controller.openSession("one"));
    expect(screen.getByRole("alert").textContent).toContain("The file cannot be read.");
    explorer.client.failing.clear();
    fireEvent.click(screen.getByRole("button", { name: "Try again" }));
    await explorer.waitForContext("a0");
    explorer.unmount();
  });

  it("tells a file with no readable entries from an empty session, by its problems' lines", async () => {
    const explorer = await renderExplorer([
      { sessionId: "broken", text: "not json at all\n{also not\n" },
      { sessionId: "fresh", text: sessionText([]) },
      { sessionId: "bom", text: `\uFEFF${sessionText([])}` },
    ]);
    await act(() => explorer.controller.openSession("broken"));
    const graph = screen.getByRole("region", { name: "Session graph" });
    expect(graph.textContent).toContain("No entries could be read from this file.");
    expect(graph.textContent).toMatch(/Line 1: The line is not valid JSON/);
    expect(graph.textContent).toMatch(/Line 2: The line is not valid JSON/);
    expect(screen.getByRole("region", { name: "Context preview" }).textContent).toContain(
      "No entries: from here Pi would send nothing.",
    );
    await act(() => explorer.controller.openSession("fresh"));
    expect(screen.getByRole("region", { name: "Session graph" }).textContent).toContain(
      "This session has no entries yet.",
    );
    // A notice about the header (a byte-order mark) is no reason to say entries are missing.
    await act(() => explorer.controller.openSession("bom"));
    expect(explorer.controller.stores.session.getState().view?.problems.length).toBeGreaterThan(0);
    expect(screen.getByRole("region", { name: "Session graph" }).textContent).toContain(
      "This session has no entries yet.",
    );
    explorer.unmount();
  });

  it("lists a damaged file's first problems in the header, counts the rest, and Esc closes the list", async () => {
    const damage = Array.from({ length: 600 }, (_, i) => `not json ${i}`).join("\n");
    const text = `${sessionText(conversation(1))}${damage}\n`;
    const explorer = await renderExplorer([{ sessionId: "damaged", text }]);
    await act(() => explorer.controller.openSession("damaged"));
    const menu = document.querySelector<HTMLDetailsElement>("details.problems-menu")!;
    expect(menu.querySelector("summary")!.textContent).toBe("600 problems");
    menu.open = true;
    const items = [...menu.querySelectorAll("li")];
    expect(items).toHaveLength(501);
    expect(items[0]!.textContent).toMatch(/^line \d+: /);
    expect(items[500]!.textContent).toContain("and 100 more");
    fireEvent.keyDown(menu.querySelector("summary")!, { key: "Escape" });
    expect(menu.open).toBe(false);
    expect(document.activeElement).toBe(menu.querySelector("summary"));
    explorer.unmount();
  });

  it("keeps the open session whole on view when another cannot be opened, and says why", async () => {
    const explorer = await renderExplorer([
      { sessionId: "one", text: sessionText(conversation(1)) },
      { sessionId: "two", text: sessionText(conversation(2)) },
    ]);
    await act(() => explorer.controller.openSession("one"));
    await explorer.waitForContext("a0");
    explorer.client.failing.set("session.open", new ArborError("io", "The file cannot be read."));
    await act(() => explorer.controller.openSession("two"));
    const state = explorer.controller.stores.session.getState();
    expect(state.status).toBe("ready");
    expect(state.view?.sessionId).toBe("one");
    expect(document.querySelector(".graph-panel .error-view")).toBeNull();
    expect(explorer.controller.stores.live.getState().notice).toMatchObject({
      kind: "error",
      text: "The session could not be opened: The file cannot be read.",
    });
    expect(document.querySelector('.react-flow__node[data-id="a0"]')).not.toBeNull();
    explorer.unmount();
  });
});
