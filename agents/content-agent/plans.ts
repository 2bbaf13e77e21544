import type { ContentType, Length, Style } from './input.js';
import type { FactKind } from './material.js';
import type { Topic } from './voice.js';

/** How a section gets its text. */
export type Fill =
  /** The opening sentence, the description's first sentence, then facts of the given kinds. */
  | { from: 'lead'; kinds: FactKind[] }
  /** The facts of the given kinds, as prose or a bullet list; the silence when there are none. */
  | { from: 'facts'; kinds: FactKind[]; silence: Topic; bullets?: boolean }
  /** The description's clauses as a bullet list of key phrases. */
  | { from: 'phrases' }
  /** Whatever facts no earlier section used. */
  | { from: 'remaining' }
  /** Where the text came from: the description itself, quoted. */
  | { from: 'reference' };

export interface SectionPlan {
  heading: (name: string, style: Style) => string;
  /** The shortest length that includes the section; longer texts keep every shorter text's sections. */
  minLength: Length;
  fill: Fill;
}

const fixed = (heading: string) => () => heading;

/**
 * The sections of each type, in order. A short text has the core sections, a medium one adds
 * detail, a long one adds everything and the reference, so word counts always rise with length.
 */
export const PLANS: Readonly<Record<ContentType, readonly SectionPlan[]>> = {
  'operator-notice': [
    { heading: fixed('What'), minLength: 'short', fill: { from: 'lead', kinds: ['change', 'general'] } },
    { heading: fixed('Impact'), minLength: 'short', fill: { from: 'facts', kinds: ['impact'], silence: 'impact' } },
    { heading: fixed('Action'), minLength: 'short', fill: { from: 'facts', kinds: ['action'], silence: 'action' } },
    { heading: fixed('Details'), minLength: 'medium', fill: { from: 'remaining' } },
    { heading: fixed('Reference'), minLength: 'long', fill: { from: 'reference' } },
  ],
  readme: [
    { heading: fixed('Overview'), minLength: 'short', fill: { from: 'lead', kinds: ['general'] } },
    { heading: fixed('Features'), minLength: 'medium', fill: { from: 'phrases' } },
    { heading: fixed('Usage'), minLength: 'short', fill: { from: 'facts', kinds: ['usage', 'action'], silence: 'usage' } },
    { heading: fixed('Status'), minLength: 'short', fill: { from: 'facts', kinds: ['status', 'change', 'impact'], silence: 'status' } },
    { heading: fixed('Details'), minLength: 'medium', fill: { from: 'remaining' } },
    { heading: fixed('Reference'), minLength: 'long', fill: { from: 'reference' } },
  ],
  'release-note': [
    { heading: fixed('Summary'), minLength: 'short', fill: { from: 'lead', kinds: ['general'] } },
    { heading: fixed('Changes'), minLength: 'short', fill: { from: 'facts', kinds: ['change', 'usage', 'status'], silence: 'details', bullets: true } },
    { heading: fixed('Impact'), minLength: 'medium', fill: { from: 'facts', kinds: ['impact'], silence: 'impact' } },
    { heading: fixed('Upgrade notes'), minLength: 'medium', fill: { from: 'facts', kinds: ['action'], silence: 'action' } },
    { heading: fixed('Details'), minLength: 'long', fill: { from: 'remaining' } },
    { heading: fixed('Reference'), minLength: 'long', fill: { from: 'reference' } },
  ],
  'status-update': [
    { heading: fixed('Summary'), minLength: 'short', fill: { from: 'lead', kinds: ['general'] } },
    { heading: fixed('Progress'), minLength: 'short', fill: { from: 'facts', kinds: ['status', 'change'], silence: 'progress' } },
    { heading: fixed('Next steps'), minLength: 'short', fill: { from: 'facts', kinds: ['action'], silence: 'action' } },
    { heading: fixed('Risks'), minLength: 'medium', fill: { from: 'facts', kinds: ['impact'], silence: 'impact' } },
    { heading: fixed('Details'), minLength: 'medium', fill: { from: 'remaining' } },
    { heading: fixed('Reference'), minLength: 'long', fill: { from: 'reference' } },
  ],
  faq: [
    { heading: (n) => `What is ${n}?`, minLength: 'short', fill: { from: 'lead', kinds: [] } },
    { heading: (n) => `What does ${n} do?`, minLength: 'short', fill: { from: 'facts', kinds: ['usage', 'change', 'general', 'status'], silence: 'purpose' } },
    {
      heading: (n, style) => (style === 'internal' ? `Who is affected by ${n}?` : style === 'technical' ? `What is the impact of ${n}?` : `How does ${n} affect me?`),
      minLength: 'medium',
      fill: { from: 'facts', kinds: ['impact'], silence: 'impact' },
    },
    {
      heading: (_n, style) => (style === 'internal' ? 'What do we need to do?' : style === 'technical' ? 'What action is required?' : 'Do I need to do anything?'),
      minLength: 'medium',
      fill: { from: 'facts', kinds: ['action'], silence: 'action' },
    },
    { heading: fixed('Is there anything else?'), minLength: 'long', fill: { from: 'remaining' } },
    { heading: fixed('Where do these answers come from?'), minLength: 'long', fill: { from: 'reference' } },
  ],
};

export const LENGTH_RANK: Readonly<Record<Length, number>> = { short: 0, medium: 1, long: 2 };

/** Facts a section may hold at each length; a long text holds them all. */
export const FACTS_PER_SECTION: Readonly<Record<Length, number>> = { short: 1, medium: 2, long: Number.POSITIVE_INFINITY };
/** Key phrases a phrase list may hold at each length. */
export const PHRASES_PER_LIST: Readonly<Record<Length, number>> = { short: 2, medium: 4, long: Number.POSITIVE_INFINITY };

const TITLES: Readonly<Record<ContentType, (name: string) => string>> = {
  'operator-notice': (n) => `Notice: ${n}`,
  readme: (n) => n,
  'release-note': (n) => `${n} release notes`,
  'status-update': (n) => `${n} status update`,
  faq: (n) => `${n}: frequently asked questions`,
};

export function titleFor(type: ContentType, name: string): string {
  return TITLES[type](name);
}
