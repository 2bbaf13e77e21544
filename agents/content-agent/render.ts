import type { ComposedSection } from './compose.js';

/** A section's body in Markdown: prose, then a bullet list, then a quotation. */
export function sectionBody(section: ComposedSection): string {
  const blocks: string[] = [];
  if (section.paragraphs.length > 0) blocks.push(section.paragraphs.join(' '));
  if (section.bullets.length > 0) blocks.push(section.bullets.map((b) => `- ${b}`).join('\n'));
  if (section.quote.length > 0) blocks.push(section.quote.map((line) => (line.trim() === '' ? '>' : `> ${line}`)).join('\n'));
  return blocks.join('\n\n');
}

/** The whole text in Markdown: the title, then each section under its heading. */
export function renderMarkdown(title: string, sections: readonly ComposedSection[]): string {
  return [`# ${title}`, ...sections.map((s) => `## ${s.heading}\n\n${sectionBody(s)}`)].join('\n\n') + '\n';
}

/** Words a reader sees: runs of letters or digits, Markdown markers not counted. */
export function countWords(text: string): number {
  return text.match(/[\p{L}\p{N}]+(?:['’.-][\p{L}\p{N}]+)*/gu)?.length ?? 0;
}
