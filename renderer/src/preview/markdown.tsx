/**
 * Assistant text as Markdown, safely: react-markdown builds React elements
 * from the syntax tree and never injects raw HTML (a `<script>` or
 * `<img onerror>` in the text shows as text); link URLs pass its default
 * sanitiser (no `javascript:`), and only web and mail links stay links: one
 * the sanitiser emptied, or a relative one, would open the app itself in a
 * new tab. Images are not fetched, only named. Direction controls in the
 * text are shown as markers, never applied (shared/text/bidi.ts).
 */

import { memo } from "react";
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

export const MarkdownText = memo(function MarkdownText({ text }: { text: string }) {
  return (
    <div className="markdown">
      <Markdown remarkPlugins={plugins} components={components}>
        {showBidiControls(text)}
      </Markdown>
    </div>
  );
});
