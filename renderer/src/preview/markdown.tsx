/**
 * Assistant text as Markdown, safely: react-markdown builds React elements
 * from the syntax tree and never injects raw HTML (a `<script>` or
 * `<img onerror>` in the text shows as text); link URLs pass its default
 * sanitiser (no `javascript:`), and only web and mail links stay links: one
 * the sanitiser emptied, or a relative one, would open the app itself in a
 * new tab. Images are not fetched, only named. Direction controls in the
 * text are shown as markers, never applied (shared/text/bidi.ts).
 */

import { memo, type ReactElement } from "react";
import Markdown, { type Components } from "react-markdown";
import remarkGfm from "remark-gfm";
import { showBidiControls } from "../../../shared/text/bidi.ts";

const plugins = [remarkGfm];

const WEB_OR_MAIL = /^(?:https?:|mailto:)/i;

const components: Components = {
  a: ({ href, children }) =>
    typeof href === "string" && WEB_OR_MAIL.test(href) ? (
      <a href={href} target="_blank" rel="noreferrer noopener">
        {children}
      </a>
    ) : (
      <span className="markdown-dead-link" title="Not a web address: not opened">
        {children}
      </span>
    ),
  img: ({ alt, src }) => (
    <span className="markdown-image" title={typeof src === "string" ? src : undefined}>
      [image: {alt || (typeof src === "string" ? src : "")}]
    </span>
  ),
};

/**
 * Texts rendered lately, newest last, up to RENDERED_MAX_CHARS of text: a row
 * the context list mounts again (scrolled out and back, or read again as a
 * live session grows) is not parsed again. An element may be shown in many
 * places at once: React elements are immutable descriptions.
 */
const rendered = new Map<string, ReactElement>();
let renderedChars = 0;
const RENDERED_MAX_CHARS = 2 * 1024 * 1024;
const RENDERED_TEXT_MAX_CHARS = 64 * 1024;

/** `text` as React elements (react-markdown's `Markdown` is a plain function of its options, without hooks). */
export function renderMarkdown(text: string): ReactElement {
  const hit = rendered.get(text);
  if (hit) {
    rendered.delete(text);
    rendered.set(text, hit);
    return hit;
  }
  const element = Markdown({ children: showBidiControls(text), remarkPlugins: plugins, components });
  if (text.length <= RENDERED_TEXT_MAX_CHARS) {
    rendered.set(text, element);
    renderedChars += text.length;
    for (const oldest of rendered.keys()) {
      if (renderedChars <= RENDERED_MAX_CHARS) break;
      rendered.delete(oldest);
      renderedChars -= oldest.length;
    }
  }
  return element;
}

export const MarkdownText = memo(function MarkdownText({ text }: { text: string }) {
  return <div className="markdown">{renderMarkdown(text)}</div>;
});
