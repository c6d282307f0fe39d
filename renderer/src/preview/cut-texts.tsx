/**
 * Texts an answer cut short (shared/ipc/text-pages.ts): each is listed under
 * the context or the entry with how much of it is shown, and "Show all" fetches
 * the rest with `session.text`, a page at a time, appended to the shown text
 * as it comes, with a progress bar while it does.
 */

import { createContext, useContext, useEffect, useRef, useState } from "react";
import type {
  ContextPage,
  ContextView,
  EntryDetail,
  RequestParams,
  RequestResult,
  TextCut,
} from "../../../shared/ipc/contract.ts";
import { llmIndexOf, messageOfRow } from "../../../shared/ipc/context-pages.ts";
import { pageAt, pageOfView } from "../../../shared/ipc/context-reading.ts";
import { stringAt, TEXT_PAGE_MAX_CHARS } from "../../../shared/ipc/text-pages.ts";
import { showBidiControls } from "../../../shared/text/bidi.ts";
import { formatBytes } from "./format.ts";

export type FetchTextPage = (params: RequestParams<"session.text">) => Promise<RequestResult<"session.text">>;

/** How pages are fetched (the client's `session.text`); without it, cut texts are listed but not fetched. */
export const TextPagesContext = createContext<FetchTextPage | null>(null);

type Source = RequestParams<"session.text">["of"];

/**
 * The context's cut texts, in the mode shown (the agent's messages or the
 * model's): those of the view and of every page of it held. Their paths are
 * the whole context's (`["messages", index in all of them, ...]`).
 */
export function ContextCuts({
  view,
  pages,
  mode,
}: {
  view: ContextView;
  pages: readonly ContextPage[];
  mode: "agent" | "llm";
}) {
  const root = mode === "llm" && view.llm ? "llm" : "messages";
  const held = pages.length > 0 ? pages : [pageOfView(view)];
  const cuts = held.flatMap((page) => (page.cuts ?? []).filter((cut) => cut.path[0] === root));
  if (cuts.length === 0) return null;
  const source: Source = { leafId: view.leafId, llm: mode === "llm" };
  const shownOf = (cut: TextCut) => {
    const index = Number(cut.path[1]);
    const message = messageOfRow(view, root === "llm", index);
    const page = pageAt(held, message);
    if (!page) return "";
    const at = root === "llm" ? index - llmIndexOf(view.llmSkipped ?? [], page.from) : index - page.from;
    return stringAt(root === "llm" ? page.llm?.[at] : page.messages[at], cut.path.slice(2)) ?? "";
  };
  return (
    <CutTextList
      cuts={cuts}
      source={source}
      shownOf={shownOf}
      labelOf={(cut) => `Message ${Number(cut.path[1]) + 1}, ${cut.path.slice(2).join(".")}`}
    />
  );
}

/** The entry's cut texts. */
export function EntryCuts({ detail }: { detail: EntryDetail }) {
  const cuts = detail.cuts ?? [];
  if (cuts.length === 0) return null;
  return (
    <CutTextList
      cuts={cuts}
      source={{ entryId: detail.entry.id }}
      shownOf={(cut) => stringAt(detail.entry, cut.path) ?? ""}
      labelOf={(cut) => cut.path.join(".")}
    />
  );
}

function CutTextList({
  cuts,
  source,
  shownOf,
  labelOf,
}: {
  cuts: TextCut[];
  source: Source;
  shownOf: (cut: TextCut) => string;
  labelOf: (cut: TextCut) => string;
}) {
  return (
    <ul className="cut-texts" aria-label="Texts cut short">
      {cuts.map((cut) => (
        <CutText
          key={cut.path.join("\0")}
          cut={cut}
          source={source}
          shown={shownOf(cut)}
          label={labelOf(cut)}
        />
      ))}
    </ul>
  );
}

interface Fetched {
  text: string;
  done: boolean;
  error: string | null;
}

function CutText({
  cut,
  source,
  shown,
  label,
}: {
  cut: TextCut;
  source: Source;
  shown: string;
  label: string;
}) {
  const fetchPage = useContext(TextPagesContext);
  const [fetched, setFetched] = useState<Fetched | null>(null);
  const alive = useRef(true);
  useEffect(
    () => () => {
      alive.current = false;
    },
    [],
  );

  const showAll = async () => {
    if (!fetchPage) return;
    let text = shown;
    setFetched({ text, done: false, error: null });
    try {
      while (text.length < cut.length) {
        const page = await fetchPage({
          of: source,
          path: cut.path,
          offset: text.length,
          length: TEXT_PAGE_MAX_CHARS,
        });
        if (!alive.current) return;
        if (page.text.length === 0) break;
        text += page.text;
        setFetched({ text, done: false, error: null });
      }
      setFetched({ text, done: true, error: null });
    } catch (error) {
      if (alive.current)
        setFetched({ text, done: true, error: error instanceof Error ? error.message : String(error) });
    }
  };

  return (
    <li className="cut-text">
      <span>
        {label}: {formatBytes(cut.shown)} of {formatBytes(cut.length)} shown
      </span>{" "}
      {fetchPage && fetched === null ? (
        <button type="button" onClick={() => void showAll()}>
          Show all ({formatBytes(cut.length)})
        </button>
      ) : null}
      {fetched ? (
        <>
          {fetched.done ? null : (
            <progress value={fetched.text.length} max={cut.length} aria-label={`Fetching ${label}`} />
          )}
          {fetched.error ? (
            <span role="alert" className="error-text">
              {fetched.error}
            </span>
          ) : null}
          <pre className="cut-text-whole" data-length={fetched.text.length}>
            {showBidiControls(fetched.text)}
          </pre>
        </>
      ) : null}
    </li>
  );
}
