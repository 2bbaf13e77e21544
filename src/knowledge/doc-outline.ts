import { basename } from 'node:path';

export interface DocOutline {
  title: string;
  headings: string[];
  wordCount: number;
}

const MAX_HEADINGS = 50;

/**
 * Title, headings and word count of one markdown or text doc. Lines inside fenced code blocks
 * are not headings (a `# comment` in a shell sample is not a section).
 */
export function outlineDoc(path: string, content: string): DocOutline {
  const headings: string[] = [];
  let firstH1: string | null = null;
  let firstLine: string | null = null;
  let inFence = false;
  for (const raw of content.split(/\r?\n/)) {
    const line = raw.trimEnd();
    if (/^\s*(```|~~~)/.test(line)) {
      inFence = !inFence;
      continue;
    }
    if (inFence) continue;
    if (firstLine === null && line.trim() !== '') firstLine = line.trim();
    const heading = /^(#{1,6})\s+(.+?)(?:\s+#+)?\s*$/.exec(line);
    if (!heading?.[1] || !heading[2]) continue;
    if (heading[1] === '#' && firstH1 === null) firstH1 = heading[2];
    if (headings.length < MAX_HEADINGS) headings.push(heading[2]);
  }
  const title = firstH1 ?? headings[0] ?? firstLine?.slice(0, 200) ?? basename(path);
  const words = content.trim() === '' ? 0 : content.trim().split(/\s+/).length;
  return { title, headings, wordCount: words };
}
