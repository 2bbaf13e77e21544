import DOMPurify from 'dompurify';
import { marked } from 'marked';
import { useMemo } from 'react';

// Code blocks scroll sideways (runs.css): make each focusable, so a keyboard can scroll it, and name it.
DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.nodeName !== 'PRE') return;
  node.setAttribute('tabindex', '0');
  node.setAttribute('role', 'region');
  node.setAttribute('aria-label', 'Code block');
});

/**
 * Generated text rendered as Markdown. The HTML is sanitized (no scripts, handlers or style
 * attributes: the console's CSP forbids inline styles) before it reaches the page. Loaded
 * lazily, so runs without text do not pay for the parser.
 */
export default function MarkdownText({ markdown }: { markdown: string }) {
  const html = useMemo(() => {
    const raw = marked.parse(markdown, { async: false, gfm: true });
    return DOMPurify.sanitize(raw, { FORBID_ATTR: ['style'], FORBID_TAGS: ['style', 'img'] });
  }, [markdown]);
  return <div className="markdown" dangerouslySetInnerHTML={{ __html: html }} />;
}
