/**
 * One context message, drawn by role. Message bodies come from files and
 * are not trusted to match their types: every field is checked before use.
 */

import { dequal } from "dequal";
import {
  createContext,
  memo,
  type MouseEvent,
  type ReactNode,
  useContext,
  useId,
  useLayoutEffect,
  useRef,
  useState,
} from "react";
import { assertNever, isKnownRole, isRecord } from "../../../shared/session/index.ts";
import { lineDiff } from "./diff.ts";
import { MarkdownText } from "./markdown.tsx";
import { base64Bytes, formatBytes } from "./format.ts";
import { UserText } from "../text/user-text.tsx";
import { showBidiControls } from "../../../shared/text/bidi.ts";
import { localFigure } from "../text/figures.ts";

/** A role as words: Pi's camelCase roles ("compactionSummary") would read as one word once upper-cased. */
function roleWords(role: string): string {
  return role.replace(/([a-z0-9])([A-Z])/g, "$1 $2");
}

/** Tool results and bash output longer than this many lines start collapsed. */
export const COLLAPSE_LINES = 8;

type Json = Record<string, unknown>;

/** A string field of a message, as the page shows it: direction controls as markers, never applied. */
function str(value: unknown): string {
  return typeof value === "string" ? showBidiControls(value) : "";
}

/** A value as indented JSON for the page (direction controls as markers). */
function json(value: unknown, indent?: number): string {
  return showBidiControls(JSON.stringify(value, null, indent) ?? "");
}

export function ImageBlock({ block }: { block: Json }) {
  const data = str(block.data);
  const mimeType = str(block.mimeType) || "image/png";
  const bytes = base64Bytes(data);
  const safeType = /^image\/[a-z0-9.+-]+$/i.test(mimeType) ? mimeType : "application/octet-stream";
  return (
    <figure className="image-block">
      {data && safeType.startsWith("image/") ? (
        <img src={`data:${safeType};base64,${data}`} alt={`Attached ${mimeType}`} loading="lazy" />
      ) : null}
      <figcaption>
        {mimeType}, {formatBytes(bytes)}
      </figcaption>
    </figure>
  );
}

/**
 * Which long texts the reader chose to see whole, by key (the entry, its
 * message's role, the text's place in the message): the preview's rows
 * unmount as they scroll away, and a context read again (another leaf, an
 * append) holds new message objects, but what was open stays open. The
 * context preview provides it from its store; without it, each text keeps
 * its own state.
 */
export interface ShownWhole {
  has(key: string): boolean;
  set(key: string, shown: boolean): void;
}
export const ShownWholeContext = createContext<ShownWhole | null>(null);
/** The entry (and role) whose message the texts inside belong to; null outside one. */
const TextScope = createContext<string | null>(null);

/**
 * Plain text, collapsed past a few lines. The first lines are ordinary text
 * (selecting them toggles nothing); a button shows the rest and then hides it
 * again. The rest stays in the page while hidden, as find-in-page and copying
 * the whole message expect. `place` names which text of its message it is.
 */
export function CollapsibleText({
  text,
  className,
  place,
}: {
  text: string;
  className?: string;
  place: string;
}) {
  const shownWhole = useContext(ShownWholeContext);
  const scope = useContext(TextScope);
  const key = shownWhole !== null && scope !== null ? `${scope}\u0000${place}` : null;
  const [shownHere, setShownHere] = useState(false);
  const expanded = key === null ? shownHere : shownWhole!.has(key);
  const setExpanded = (show: boolean) => {
    if (key === null) setShownHere(show);
    else shownWhole!.set(key, show);
  };
  const textId = useId();
  const toggle = useRef<HTMLButtonElement>(null);
  const collapsing = useRef(false);
  // Hiding a long output from its end would leave the reader far down the list: bring the button back.
  useLayoutEffect(() => {
    if (expanded || !collapsing.current) return;
    collapsing.current = false;
    toggle.current?.scrollIntoView({ block: "nearest" });
  }, [expanded]);
  const lines = text.split("\n");
  if (lines.length <= COLLAPSE_LINES)
    return (
      <pre className={className}>
        <UserText text={text} />
      </pre>
    );
  return (
    <div className="collapsible">
      <pre className={className} id={textId}>
        <UserText text={lines.slice(0, COLLAPSE_LINES).join("\n")} />
        <span hidden={!expanded}>
          <UserText text={`\n${lines.slice(COLLAPSE_LINES).join("\n")}`} />
        </span>
      </pre>
      <button
        ref={toggle}
        type="button"
        className="more"
        aria-expanded={expanded}
        aria-controls={textId}
        onClick={() => {
          collapsing.current = expanded;
          setExpanded(!expanded);
        }}
      >
        {expanded ? "Show fewer lines" : `Show all ${localFigure(lines.length)} lines`}
      </button>
    </div>
  );
}

/** String or text/image block content (user, tool result, custom messages). */
export function ContentView({ content, collapse = false }: { content: unknown; collapse?: boolean }) {
  if (typeof content === "string") {
    return collapse ? (
      <CollapsibleText text={content} place="content" />
    ) : (
      <div className="plain-text">
        <UserText text={content} />
      </div>
    );
  }
  if (!Array.isArray(content)) return <div className="muted">(no content)</div>;
  if (content.length === 0) return <div className="muted">(empty)</div>;
  return (
    <>
      {content.map((block, i) => {
        const key = `${i}`;
        if (!isRecord(block)) return <pre key={key}>{json(block)}</pre>;
        if (block.type === "text")
          return collapse ? (
            <CollapsibleText key={key} text={str(block.text)} place={`content/${i}`} />
          ) : (
            <div key={key} className="plain-text">
              {str(block.text)}
            </div>
          );
        if (block.type === "image") return <ImageBlock key={key} block={block} />;
        return <pre key={key}>{json(block, 2)}</pre>;
      })}
    </>
  );
}

function EditDiff({ path, oldText, newText }: { path: string; oldText: string; newText: string }) {
  const lines = lineDiff(oldText, newText);
  return (
    <fieldset className="edit-diff" aria-label={`Edit of ${path}`}>
      <div className="edit-path">{path}</div>
      <pre>
        {lines.map((line, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a diff's lines never reorder
          <div key={i} className={`diff-${line.kind}`}>
            {line.kind === "removed" ? "- " : line.kind === "added" ? "+ " : "  "}
            {line.text}
          </div>
        ))}
      </pre>
    </fieldset>
  );
}

function ToolCallView({ block, place }: { block: Json; place: string }) {
  const name = str(block.name) || "?";
  const args = isRecord(block.arguments) ? block.arguments : {};
  const path = str(args.path) || str(args.file_path);
  const edits: { oldText: string; newText: string }[] = [];
  if (name === "edit") {
    if (typeof args.oldText === "string" && typeof args.newText === "string") {
      edits.push({ oldText: args.oldText, newText: args.newText });
    } else if (Array.isArray(args.edits)) {
      for (const edit of args.edits)
        if (isRecord(edit) && typeof edit.oldText === "string" && typeof edit.newText === "string")
          edits.push({ oldText: edit.oldText, newText: edit.newText });
    }
  }
  return (
    <div className="tool-call">
      <div className="tool-call-name">
        <span className="badge tool">{name}</span>
        {typeof block.id === "string" ? <span className="muted"> {block.id}</span> : null}
      </div>
      {edits.length > 0 ? (
        edits.map((edit, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a tool call's edits never reorder
          <EditDiff key={i} path={path} oldText={edit.oldText} newText={edit.newText} />
        ))
      ) : (
        <CollapsibleText className="json" text={json(args, 2)} place={place} />
      )}
    </div>
  );
}

function AssistantView({ message }: { message: Json }) {
  const content = Array.isArray(message.content) ? message.content : [];
  const stopReason = str(message.stopReason);
  return (
    <>
      {content.map((block, i) => {
        const key = `${i}`;
        if (!isRecord(block)) return <pre key={key}>{json(block)}</pre>;
        switch (block.type) {
          case "text":
            return <MarkdownText key={key} text={str(block.text)} />;
          case "thinking": {
            const thinking = str(block.thinking);
            return (
              <details key={key} className="thinking">
                <summary>Thinking ({localFigure(thinking.length)} characters)</summary>
                <div className="plain-text">{thinking}</div>
              </details>
            );
          }
          case "toolCall":
            return <ToolCallView key={key} block={block} place={`content/${i}`} />;
          default:
            return <pre key={key}>{json(block, 2)}</pre>;
        }
      })}
      {content.length === 0 ? <div className="muted">(no content)</div> : null}
      {stopReason === "error" || stopReason === "aborted" || message.errorMessage ? (
        <div className="error-text">
          {stopReason === "aborted" ? "Aborted" : "Error"}
          {message.errorMessage ? `: ${str(message.errorMessage)}` : ""}
        </div>
      ) : null}
    </>
  );
}

function BashView({ message }: { message: Json }) {
  const exitCode = message.exitCode;
  return (
    <div className="bash">
      <pre className="bash-command">$ {str(message.command)}</pre>
      {str(message.output) ? (
        <CollapsibleText text={str(message.output)} place="output" />
      ) : (
        <div className="muted">(no output)</div>
      )}
      <div className="bash-status">
        {message.cancelled === true ? <span className="badge error">cancelled</span> : null}
        {typeof exitCode === "number" ? (
          <span className={`badge ${exitCode === 0 ? "ok" : "error"}`}>exit {exitCode}</span>
        ) : (
          <span className="badge">no exit code</span>
        )}
        {message.truncated === true ? (
          <span className="badge">
            truncated{message.fullOutputPath ? `: ${str(message.fullOutputPath)}` : ""}
          </span>
        ) : null}
        {message.excludeFromContext === true ? <span className="badge">not sent to the model</span> : null}
      </div>
    </div>
  );
}

/** A short description of the message for its header. */
function headerDetails(message: Json): ReactNode {
  const role = message.role;
  if (!isKnownRole(role)) return null;
  switch (role) {
    case "assistant":
      return [str(message.provider), str(message.model)].filter(Boolean).join("/");
    case "toolResult":
      return (
        <>
          <span className="badge tool">{str(message.toolName) || "tool"}</span>
          {message.isError === true ? <span className="badge error">error</span> : null}
        </>
      );
    case "custom":
      return (
        <>
          <span className="badge">{str(message.customType)}</span>
          {message.display === false ? <span className="badge">hidden</span> : null}
        </>
      );
    case "compactionSummary":
      return typeof message.tokensBefore === "number"
        ? `${localFigure(message.tokensBefore)} tokens before`
        : null;
    case "user":
    case "bashExecution":
    case "branchSummary":
    case "system":
      return null;
    default:
      return assertNever(role, "message role");
  }
}

function MessageBody({ message }: { message: Json }) {
  const role = message.role;
  // A role this version does not know: shown as it is.
  if (!isKnownRole(role)) return <pre className="json">{json(message, 2)}</pre>;
  switch (role) {
    case "user":
      return <ContentView content={message.content} />;
    case "assistant":
      return <AssistantView message={message} />;
    case "toolResult":
      return <ContentView content={message.content} collapse />;
    case "bashExecution":
      return <BashView message={message} />;
    case "custom":
      return <ContentView content={message.content} collapse />;
    case "branchSummary":
    case "compactionSummary":
      return <MarkdownText text={str(message.summary)} />;
    case "system":
      return (
        <details className="system">
          <summary>System prompt ({localFigure(str(message.content).length)} characters)</summary>
          <div className="plain-text">{str(message.content)}</div>
        </details>
      );
    default:
      return assertNever(role, "message role");
  }
}

export interface MessageViewProps {
  message: unknown;
  entryId: string | null;
  index: number;
  tokenEstimate: number | null;
  onReveal: (entryId: string) => void;
}

/** What a click inside a message means for itself: following a link, pressing a button, opening a summary. */
const INTERACTIVE =
  "a, button, input, textarea, select, label, summary, [role='button'], [contenteditable]:not([contenteditable='false'])";

/** Whether a click on a message is meant for the message: not for a control inside it, not the end of a text selection. */
function clickMeansMessage(event: MouseEvent<HTMLElement>): boolean {
  if (event.defaultPrevented || !(event.target instanceof Element)) return false;
  const control = event.target.closest(INTERACTIVE);
  if (control && event.currentTarget.contains(control)) return false;
  const selection = window.getSelection();
  return selection === null || selection.isCollapsed;
}

/**
 * A row's props as drawn: a message of a newer answer with the same content
 * (each followed leaf brings the context's last messages again, decoded
 * afresh) keeps the row as it is, instead of drawing it again.
 */
export function sameMessageProps(a: MessageViewProps, b: MessageViewProps): boolean {
  return (
    a.entryId === b.entryId &&
    a.index === b.index &&
    a.tokenEstimate === b.tokenEstimate &&
    a.onReveal === b.onReveal &&
    dequal(a.message, b.message)
  );
}

export const MessageView = memo(function MessageView({
  message,
  entryId,
  index,
  tokenEstimate,
  onReveal,
}: MessageViewProps) {
  const body: Json = isRecord(message) ? message : { role: "unknown", value: message };
  const role = str(body.role) || "unknown";
  return (
    // A click anywhere on the message is the mouse's shortcut; the message is no tab stop.
    // biome-ignore lint/a11y/useKeyWithClickEvents: the id link in the header is the keyboard path to the same action
    <article
      className={`message role-${role}`}
      data-entry-id={entryId ?? ""}
      data-role={role}
      data-index={index}
      onClick={
        entryId
          ? (event) => {
              if (clickMeansMessage(event)) onReveal(entryId);
            }
          : undefined
      }
    >
      <header className="message-header">
        <span className={`role-name role-${role}`}>{roleWords(role)}</span>
        <span className="message-details">{headerDetails(body)}</span>
        {tokenEstimate !== null ? <span className="muted">~{localFigure(tokenEstimate)} tok</span> : null}
        {entryId ? (
          <button
            type="button"
            className="link-button"
            title="Show this entry in the graph"
            onClick={() => onReveal(entryId)}
          >
            {entryId}
          </button>
        ) : null}
      </header>
      <div className="message-body">
        <TextScope.Provider value={entryId === null ? null : `${entryId}\u0000${role}`}>
          <MessageBody message={body} />
        </TextScope.Provider>
      </div>
    </article>
  );
}, sameMessageProps);
