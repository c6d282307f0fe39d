// @vitest-environment happy-dom
import "../testing/setup.ts";
import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { EntryDetail, RequestParams } from "../../../shared/ipc/contract.ts";
import { TEXT_PAGE_MAX_CHARS } from "../../../shared/ipc/text-pages.ts";
import { EntryCuts, type FetchTextPage, TextPagesContext } from "./cut-texts.tsx";

const WHOLE = "abcdefghij".repeat(250_000); // 2.5M characters: three pages after the shown part
const SHOWN = 1000;

function detail(): EntryDetail {
  return {
    entry: {
      type: "message",
      id: "e1",
      parentId: null,
      timestamp: "2026-01-01T00:00:00.000Z",
      message: { role: "user", content: [{ type: "text", text: WHOLE.slice(0, SHOWN) }], timestamp: 1 },
    } as unknown as EntryDetail["entry"],
    line: 2,
    problems: [],
    label: null,
    archived: false,
    cuts: [{ path: ["message", "content", 0, "text"], length: WHOLE.length, shown: SHOWN }],
  };
}

describe("texts cut short", () => {
  it("lists each cut text and fetches the rest in pages on 'Show all'", async () => {
    const asked: RequestParams<"session.text">[] = [];
    const fetchPage: FetchTextPage = async (params) => {
      asked.push(params);
      expect(params.path).toEqual(["message", "content", 0, "text"]);
      return { text: WHOLE.slice(params.offset, params.offset + params.length), length: WHOLE.length };
    };
    const { container } = render(
      <TextPagesContext.Provider value={fetchPage}>
        <EntryCuts detail={detail()} />
      </TextPagesContext.Provider>,
    );
    expect(screen.getByRole("list", { name: "Texts cut short" }).textContent).toContain(
      "message.content.0.text: 1000 B of 2.4 MB shown",
    );
    fireEvent.click(screen.getByRole("button", { name: "Show all (2.4 MB)" }));
    await waitFor(() =>
      expect(container.querySelector("pre.cut-text-whole")?.getAttribute("data-length")).toBe(
        String(WHOLE.length),
      ),
    );
    expect(container.querySelector("pre.cut-text-whole")!.textContent).toBe(WHOLE);
    expect(container.querySelector("progress")).toBeNull();
    expect(asked.map((params) => params.offset)).toEqual([
      SHOWN,
      SHOWN + TEXT_PAGE_MAX_CHARS,
      SHOWN + 2 * TEXT_PAGE_MAX_CHARS,
    ]);
    expect(asked.every((params) => "entryId" in params.of && params.of.entryId === "e1")).toBe(true);
  });

  it("without a way to fetch, lists the cut without the button", () => {
    render(<EntryCuts detail={detail()} />);
    expect(screen.queryByRole("button")).toBeNull();
  });
});
