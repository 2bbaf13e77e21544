import type { Brief } from './control-plane-brief.js';

/** The brief feeds a companion overview: it must stay small whatever the state holds. */
export const MAX_BRIEF_BYTES = 8192;
const MAX_FACT_CHARS = 240;
const MAX_HEADLINE_CHARS = 400;
/** Items per section before any size pressure: a brief names the first few, not all. */
const MAX_ITEMS = 10;
const MAX_FACTS = 12;

const bytesOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');
const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/**
 * Fits the brief under MAX_BRIEF_BYTES: clips long texts, keeps the first items and facts of
 * each section, then halves the longest item list until it fits. Every cut is recorded in
 * `truncation` with what was dropped, so the brief never silently looks complete.
 */
export function fitToSize(input: Brief): { brief: Brief; bytes: number } {
  const brief: Brief = structuredClone(input);
  brief.headline = clip(brief.headline, MAX_HEADLINE_CHARS);
  for (const [name, section] of Object.entries(brief.sections)) {
    section.facts = section.facts.map((f) => clip(f, MAX_FACT_CHARS));
    if (section.facts.length > MAX_FACTS) {
      brief.truncation.push(`${name}: ${section.facts.length - MAX_FACTS} of ${section.facts.length} facts left out`);
      section.facts = section.facts.slice(0, MAX_FACTS);
    }
    if (section.items.length > MAX_ITEMS) {
      brief.truncation.push(`${name}: ${section.items.length - MAX_ITEMS} of ${section.items.length} items left out`);
      section.items = section.items.slice(0, MAX_ITEMS);
    }
  }
  while (bytesOf(brief) > MAX_BRIEF_BYTES) {
    const longest = Object.entries(brief.sections)
      .map(([name, section]) => ({ name, section, size: bytesOf(section.items) }))
      .sort((a, b) => b.size - a.size)[0];
    if (longest && longest.section.items.length > 0) {
      const keep = Math.floor(longest.section.items.length / 2);
      brief.truncation.push(`${longest.name}: ${longest.section.items.length - keep} more items left out to fit ${MAX_BRIEF_BYTES} bytes`);
      longest.section.items = longest.section.items.slice(0, keep);
      continue;
    }
    // No items left to cut: drop the last fact of the section with the most facts.
    const wordy = Object.entries(brief.sections).sort((a, b) => b[1].facts.length - a[1].facts.length)[0];
    if (!wordy || wordy[1].facts.length <= 1) break;
    wordy[1].facts.pop();
    brief.truncation.push(`${wordy[0]}: a fact left out to fit ${MAX_BRIEF_BYTES} bytes`);
  }
  return { brief, bytes: bytesOf(brief) };
}
