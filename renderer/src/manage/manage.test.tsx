// @vitest-environment happy-dom
import "../testing/setup.ts";
import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { ExportResult, RequestName } from "../../../shared/ipc/contract.ts";
import { FAKE_LIVE_MESSAGE } from "../testing/fake-manage.ts";
import { type Explorer, renderExplorer } from "../testing/render-explorer.tsx";
import { assistant, conversation, sessionText, user } from "../testing/sessions.ts";

function callsOf(explorer: Explorer, name: RequestName): unknown[] {
  return explorer.client.calls.filter((call) => call.name === name).map((call) => call.params);
}

/** A three-turn conversation, every entry its own node (no chains). */
async function openConversation(options: Parameters<typeof renderExplorer>[1] = {}): Promise<Explorer> {
  const explorer = await renderExplorer([{ sessionId: "c", text: sessionText(conversation(3)) }], {
    open: "c",
    ...options,
  });
  for (let round = 0; round < 5; round++) {
    const graph = explorer.controller.model()!.graph;
    const chains = explorer.drawnIds().filter((id) => graph.byId.get(id)?.kind === "chain");
    if (chains.length === 0) break;
    for (const id of chains) act(() => explorer.controller.expandChain(id));
  }
  await waitFor(() => expect(explorer.node("a1")).not.toBeNull());
  return explorer;
}

function rightClick(explorer: Explorer, id: string) {
  const node = explorer.node(id);
  if (!node) throw new Error(`${id} is not drawn`);
  fireEvent.contextMenu(node.querySelector(".entry-node") ?? node, { clientX: 40, clientY: 40 });
}

const toast = () => screen.findByTestId("action-toast");

describe("the entry menu and its writes", () => {
  it("a right-click on a node opens its menu; Archive hides the branch, the toast's Undo sends session.undo", async () => {
    const explorer = await openConversation();
    rightClick(explorer, "a1");
    const menu = await screen.findByRole("menu");
    expect(document.activeElement).toBe(within(menu).getByRole("menuitem", { name: "Label… Shift+L" }));
    fireEvent.click(within(menu).getByRole("menuitem", { name: "Archive branch" }));
    expect(screen.queryByRole("menu")).toBeNull();
    await waitFor(() => expect(explorer.node("a1")).toBeNull());
    expect(explorer.node("u2")).toBeNull();
    expect(callsOf(explorer, "session.archive")).toEqual([{ entryId: "a1" }]);
    const shown = await toast();
    expect(shown.textContent).toContain("Branch archived (hidden: Show archived shows it).");
    const marker = explorer.client.index("c").leafId!;
    fireEvent.click(within(shown).getByRole("button", { name: "Undo" }));
    await waitFor(() => expect(explorer.node("a1")).not.toBeNull());
    expect(callsOf(explorer, "session.undo")).toEqual([{ entryId: marker }]);
    explorer.unmount();
  });

  it("the Entry tab shows the selected entry's label with its time, and follows a label set or removed from a menu", async () => {
    const explorer = await openConversation();
    act(() => explorer.controller.select("a1"));
    fireEvent.click(screen.getByRole("tab", { name: "Entry" }));
    await waitFor(() => expect(screen.getByTestId("entry-actions")).toBeTruthy());
    expect(screen.queryByTestId("label-time")).toBeNull();
    rightClick(explorer, "a1");
    fireEvent.click(await screen.findByRole("menuitem", { name: "Label… Shift+L" }));
    fireEvent.change(await screen.findByRole("textbox", { name: "Label" }), { target: { value: "kept" } });
    fireEvent.click(screen.getByRole("button", { name: "Save label" }));
    // The selection stays on a1 (a label is not followed): its detail is asked for again.
    const time = await screen.findByTestId("label-time");
    expect(time.textContent).toMatch(/^labelled \w+/);
    expect(explorer.controller.stores.session.getState().selectedId).toBe("a1");
    rightClick(explorer, "a1");
    fireEvent.click(await screen.findByRole("menuitem", { name: "Remove label" }));
    await waitFor(() => expect(screen.queryByTestId("label-time")).toBeNull());
    // An append that leaves a1's node as it was does not ask for its detail again.
    const asked = callsOf(explorer, "session.entry").length;
    await act(() => explorer.controller.manage.setLabel("u2", "elsewhere"));
    await waitFor(() => expect(explorer.controller.model()?.nodesById.get("u2")?.label).toBe("elsewhere"));
    expect(callsOf(explorer, "session.entry")).toHaveLength(asked);
    explorer.unmount();
  });

  it("Show archived (the toolbar's box, or Shift+A) draws archived entries dimmed; the filter hides them again", async () => {
    const explorer = await openConversation();
    await act(() => explorer.controller.manage.setArchived("u2", true));
    await waitFor(() => expect(explorer.node("u2")).toBeNull());
    fireEvent.keyDown(document.body, { key: "A", shiftKey: true });
    await waitFor(() => expect(explorer.node("u2")?.querySelector(".entry-node.archived")).not.toBeNull());
    expect(explorer.node("a2")?.querySelector(".entry-node.archived")).not.toBeNull();
    expect(explorer.node("a1")?.querySelector(".entry-node.archived")).toBeNull();
    const box = screen.getByRole("checkbox", { name: "Show archived" });
    expect((box as HTMLInputElement).checked).toBe(true);
    fireEvent.click(box);
    await waitFor(() => expect(explorer.node("u2")).toBeNull());
    explorer.unmount();
  });

  it("Ctrl+Z undoes this window's last change, not in a text field", async () => {
    const explorer = await openConversation();
    await act(() => explorer.controller.manage.setLabel("a1", "first"));
    const label = explorer.client.index("c").leafId!;
    const search = screen.getByRole("searchbox", { name: "Search entries" });
    fireEvent.keyDown(search, { key: "z", ctrlKey: true });
    expect(callsOf(explorer, "session.undo")).toEqual([]);
    fireEvent.keyDown(document.body, { key: "z", ctrlKey: true });
    await waitFor(() => expect(callsOf(explorer, "session.undo")).toEqual([{ entryId: label }]));
    expect((await toast()).textContent).toContain("Label change undone.");
    explorer.unmount();
  });

  it("a write the main process refuses as live asks first: Cancel writes nothing, Write anyway resends confirmed", async () => {
    const explorer = await openConversation();
    explorer.client.live.add("c");
    const writing = explorer.controller.manage.setLabel("a1", "busy");
    const dialog = await screen.findByRole("dialog", { name: "Write into a session Pi is writing?" });
    expect(dialog.textContent).toContain(FAKE_LIVE_MESSAGE);
    fireEvent.click(within(dialog).getByRole("button", { name: "Cancel" }));
    await act(() => writing);
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(callsOf(explorer, "session.setLabel")).toEqual([{ targetId: "a1", label: "busy" }]);

    const resent = explorer.controller.manage.setLabel("a1", "busy");
    const again = await screen.findByRole("dialog", { name: "Write into a session Pi is writing?" });
    fireEvent.click(within(again).getByRole("button", { name: "Write anyway" }));
    await act(() => resent);
    await waitFor(() => expect(explorer.node("a1")?.textContent).toContain("busy"));
    expect(callsOf(explorer, "session.setLabel")).toEqual([
      { targetId: "a1", label: "busy" },
      { targetId: "a1", label: "busy" },
      { targetId: "a1", label: "busy", confirmLive: true },
    ]);
    explorer.unmount();
  });

  it("any other refusal is one sentence in a dialog, the main process's own", async () => {
    const explorer = await openConversation();
    const { ArborError } = await import("../../../shared/ipc/contract.ts");
    explorer.client.failing.set(
      "session.archive",
      new ArborError("refused", "The last line is half-written."),
    );
    await act(() => explorer.controller.manage.setArchived("a1", true));
    const dialog = await screen.findByRole("dialog", { name: "The branch was not archived" });
    expect(dialog.textContent).toContain("The last line is half-written.");
    explorer.unmount();
  });

  it("Continue asks for an optional summary, appends, then offers Open in Pi (its command when no terminal starts)", async () => {
    const explorer = await openConversation();
    rightClick(explorer, "a1");
    fireEvent.click(await screen.findByRole("menuitem", { name: "Continue in Pi from here…" }));
    const dialog = await screen.findByRole("dialog", { name: "Continue in Pi from a1" });
    fireEvent.click(within(dialog).getByRole("button", { name: "Continue" }));
    const after = await screen.findByRole("dialog", { name: "Pi will continue from here" });
    expect(callsOf(explorer, "session.continueFrom")).toEqual([{ entryId: "a1" }]);
    fireEvent.click(within(after).getByRole("button", { name: "Open in Pi" }));
    const command = await screen.findByRole("dialog", { name: "Run Pi yourself" });
    expect((within(command).getByRole("textbox", { name: "Command" }) as HTMLTextAreaElement).value).toBe(
      "pi --session /fake/session.jsonl",
    );
    fireEvent.click(within(command).getByRole("button", { name: "Copy" }));
    await waitFor(() => expect(explorer.clipboard).toEqual(["pi --session /fake/session.jsonl"]));
    explorer.unmount();
  });

  it("a note and a context edit: the edit shows Pi 0.73 ignores it and the context before and after", async () => {
    const explorer = await openConversation();
    act(() => explorer.controller.manage.beginNote("a2"));
    const note = await screen.findByRole("dialog", { name: "Add a note to the context" });
    // At the file's leaf: Pi resumes where it did, so nothing is said about it.
    expect(note.textContent).not.toContain("Pi resumes from there");
    fireEvent.change(within(note).getByRole("textbox", { name: "Note" }), { target: { value: "Use pnpm." } });
    fireEvent.click(within(note).getByRole("button", { name: "Add" }));
    await waitFor(() => expect(callsOf(explorer, "session.addNote")).toEqual([{ text: "Use pnpm." }]));

    rightClick(explorer, "u1");
    fireEvent.click(await screen.findByRole("menuitem", { name: "Edit in context… (Pi 1.x only)" }));
    const edit = await screen.findByRole("dialog", { name: "Edit u1 in the context" });
    expect(edit.textContent).toContain("Pi 0.73 ignores them");
    // u1 is on the file's branch: the edit goes after the leaf, where Pi resumes.
    expect(edit.textContent).not.toContain("Pi resumes from there");
    const text = await within(edit).findByRole<HTMLTextAreaElement>("textbox", { name: "Replacement text" });
    expect(text.value).toBe("Question number 1");
    fireEvent.change(text, { target: { value: "a shorter question" } });
    const effect = within(edit).getByTestId("context-effect");
    expect(effect.textContent).toMatch(/Before7 messages; message 3 \(user\):Question number 1/);
    expect(effect.textContent).toContain("After7 messages; message 3 reads:a shorter question");
    fireEvent.click(within(edit).getByRole("button", { name: "Save edit" }));
    await waitFor(() =>
      expect(callsOf(explorer, "session.editContext")).toEqual([
        { targetId: "u1", replacement: { content: "a shorter question" } },
      ]),
    );

    rightClick(explorer, "u1");
    fireEvent.click(await screen.findByRole("menuitem", { name: "Drop from context… (Pi 1.x only)" }));
    const drop = await screen.findByRole("dialog", { name: "Drop u1 from the context" });
    await waitFor(() =>
      expect(within(drop).getByTestId("context-effect").textContent).toContain("is left out"),
    );
    act(() => explorer.controller.manage.closeDialog());

    // Away from the file's leaf, the dialog says Pi will resume there.
    act(() => explorer.controller.manage.beginNote("u1"));
    const elsewhere = await screen.findByRole("dialog", { name: "Add a note to the context" });
    expect(elsewhere.textContent).toContain(
      "It is written after u1, not after the file's last entry, so Pi resumes from there the next time it opens the session.",
    );
    explorer.unmount();
  });
});

describe("new files, trash, export and import", () => {
  it("Fork before a prompt opens the new session and offers the prompt's text to edit and copy", async () => {
    const explorer = await openConversation();
    rightClick(explorer, "u1");
    fireEvent.click(await screen.findByRole("menuitem", { name: "Fork before this prompt" }));
    const dialog = await screen.findByRole("dialog", { name: "Forked before the prompt" });
    expect((within(dialog).getByRole("textbox", { name: "Prompt text" }) as HTMLTextAreaElement).value).toBe(
      "Question number 1",
    );
    expect(explorer.controller.stores.session.getState().view?.sessionId).toMatch(/^fake-fork-/);
    expect(callsOf(explorer, "session.fork")).toEqual([{ entryId: "u1", position: "before" }]);
    explorer.unmount();
  });

  it("the library row's menu (Shift+F10 on the row): Move to trash… confirms, and the toast restores it", async () => {
    const explorer = await openConversation();
    const row = document.querySelector<HTMLElement>('[data-session-id="c"]')!;
    row.focus();
    fireEvent.keyDown(row, { key: "F10", shiftKey: true });
    const menu = await screen.findByRole("menu", { name: "Session" });
    fireEvent.keyDown(menu, { key: "m" });
    expect(document.activeElement?.textContent).toBe("Move to trash…");
    fireEvent.keyDown(menu, { key: "Enter" });
    const dialog = await screen.findByRole("dialog", { name: "Move the session to the trash?" });
    expect(dialog.textContent).toContain("It is open in this window: it is closed first.");
    fireEvent.click(within(dialog).getByRole("button", { name: "Move to trash" }));
    const shown = await toast();
    expect(shown.textContent).toContain("Moved to the trash.");
    await waitFor(() => expect(explorer.controller.stores.session.getState().view).toBeNull());
    fireEvent.click(within(shown).getByRole("button", { name: "Undo" }));
    await waitFor(() => expect(callsOf(explorer, "session.restore")).toEqual([{ trashId: "trash-c" }]));
    explorer.unmount();
  });

  it("a right-click on the graph's background opens the open session's menu: New session in this project", async () => {
    const explorer = await openConversation();
    const pane = document.querySelector(".react-flow__pane");
    expect(pane).not.toBeNull();
    fireEvent.contextMenu(pane!, { clientX: 300, clientY: 300 });
    const menu = await screen.findByRole("menu", { name: "Session" });
    for (const name of ["Rename…", "Open in Pi", "Clone", "New session in this project", "Move to trash…"])
      expect(within(menu).getByRole("menuitem", { name })).toBeTruthy();
    fireEvent.click(within(menu).getByRole("menuitem", { name: "New session in this project" }));
    await waitFor(() => expect(callsOf(explorer, "session.new")).toHaveLength(1));
    explorer.unmount();
  });

  it("exports the branch of an entry through saveFile, and the Session menu's commands run the same actions", async () => {
    const saved: ExportResult[] = [];
    const explorer = await openConversation({ saveFile: (file) => saved.push(file) });
    rightClick(explorer, "a1");
    fireEvent.click(await screen.findByRole("menuitem", { name: "Export branch as HTML" }));
    await waitFor(() => expect(saved.map((file) => file.fileName)).toEqual(["session.html"]));
    expect(callsOf(explorer, "session.export")).toEqual([{ leafId: "a1", format: "html" }]);

    act(() => explorer.client.emit("app.menuCommand", { command: "rename" }));
    const rename = await screen.findByRole("dialog", { name: "Rename the session" });
    fireEvent.change(within(rename).getByRole("textbox", { name: "Session name" }), {
      target: { value: "Tidy" },
    });
    fireEvent.click(within(rename).getByRole("button", { name: "Rename" }));
    await waitFor(() => expect(callsOf(explorer, "session.rename")).toEqual([{ name: "Tidy" }]));
    // Not one of the menu's commands: ignored.
    act(() => explorer.controller.manage.runMenuCommand("format-disk"));
    act(() => explorer.client.emit("app.menuCommand", { command: "export" }));
    const format = await screen.findByRole("dialog", { name: "Export the branch" });
    fireEvent.click(within(format).getByRole("radio", { name: /JSONL/ }));
    fireEvent.click(within(format).getByRole("button", { name: "Export" }));
    await waitFor(() =>
      expect(saved.map((file) => file.fileName)).toEqual(["session.html", "session.jsonl"]),
    );
    explorer.unmount();
  });

  it("the desktop app's Entry menu runs the entry menu's actions on the selected entry", async () => {
    const explorer = await openConversation();
    const command = (name: string) =>
      act(() => explorer.client.emit("app.menuCommand", { command: name } as never));
    // Nothing selected: one sentence, nothing sent.
    act(() => explorer.controller.stores.session.setState({ selectedId: null }));
    command("archive");
    const none = await screen.findByRole("dialog", { name: "Not done" });
    expect(none.textContent).toContain("Select an entry first: this acts on the selected entry.");
    fireEvent.click(within(none).getByRole("button", { name: "OK" }));

    act(() => explorer.controller.select("a1"));
    command("label");
    fireEvent.change(await screen.findByRole("textbox", { name: "Label" }), {
      target: { value: "from the menu" },
    });
    fireEvent.click(screen.getByRole("button", { name: "Save label" }));
    await waitFor(() =>
      expect(callsOf(explorer, "session.setLabel")).toEqual([{ targetId: "a1", label: "from the menu" }]),
    );
    command("removeLabel");
    await waitFor(() => expect(callsOf(explorer, "session.setLabel")).toHaveLength(2));
    expect(callsOf(explorer, "session.setLabel")[1]).toEqual({ targetId: "a1", label: null });

    // Archive, then the same item on the (now archived, shown) entry unarchives it at its marker's entry.
    command("archive");
    await waitFor(() => expect(callsOf(explorer, "session.archive")).toEqual([{ entryId: "a1" }]));
    act(() => explorer.controller.setShowArchived(true));
    await waitFor(() => expect(explorer.controller.model()?.nodesById.get("u2")?.archived).toBe(true));
    act(() => explorer.controller.select("u2"));
    command("archive");
    await waitFor(() => expect(callsOf(explorer, "session.unarchive")).toEqual([{ entryId: "a1" }]));

    command("undo");
    await waitFor(() => expect(callsOf(explorer, "session.undo")).toHaveLength(1));
    // Following the leaf, the window selected the undo's entry.
    act(() => explorer.controller.select("u2"));
    command("fork");
    await waitFor(() =>
      expect(callsOf(explorer, "session.fork")).toEqual([{ entryId: "u2", position: "at" }]),
    );
    // The fork is open now: its own entries.
    act(() => explorer.controller.select("u2"));
    command("forkBefore");
    await waitFor(() => expect(callsOf(explorer, "session.fork")).toHaveLength(2));
    expect(callsOf(explorer, "session.fork")[1]).toEqual({ entryId: "u2", position: "before" });
    await screen.findByRole("dialog", { name: "Forked before the prompt" });
    act(() => explorer.controller.manage.closeDialog());

    act(() => explorer.controller.select("u1"));
    command("continue");
    await screen.findByRole("dialog", { name: "Continue in Pi from u1" });
    act(() => explorer.controller.manage.closeDialog());
    command("note");
    await screen.findByRole("dialog", { name: "Add a note to the context" });
    act(() => explorer.controller.manage.closeDialog());
    command("editContext");
    await screen.findByRole("dialog", { name: "Edit u1 in the context" });
    act(() => explorer.controller.manage.closeDialog());
    command("dropContext");
    await screen.findByRole("dialog", { name: "Drop u1 from the context" });
    explorer.unmount();
  });

  it("imports a file by its content into the project, and shows the check's report", async () => {
    const explorer = await openConversation();
    const text = sessionText([user("x1", "imported"), assistant("x2", "fine")]);
    const file = new File([text], "colleague.jsonl");
    await act(() => explorer.controller.manage.importFile(file));
    const report = await screen.findByRole("dialog", { name: "Imported colleague.jsonl" });
    expect(report.textContent).toContain("The check found no problems.");
    const [params] = callsOf(explorer, "session.import") as { projectId: string; content: string }[];
    expect(params).toMatchObject({ content: text, fileName: "colleague.jsonl" });
    expect(params!.projectId).toBe(
      explorer.controller.stores.library.getState().listing!.projects[0]!.projectId,
    );
    explorer.unmount();
  });
});
