/**
 * Assistant text as Markdown, safely: react-markdown builds React elements
 * from the syntax tree and never injects raw HTML (a `<script>` or
 * `<img onerror>` in the text shows as text); link URLs pass its default
 * sanitiser (no `javascript:`); images are not fetched, only named.
 */

import { memo } from "react";
import Markdown, { type Components } from "react-markdown";
import remarkGfm from "remark-gfm";

const plugins = [remarkGfm];

const components: Components = {
  a: ({ href, children }) => (
    <a href={href} target="_blank" rel="noreferrer noopener">
      {children}
    </a>
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
        {text}
      </Markdown>
    </div>
  );
});
