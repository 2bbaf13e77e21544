import type { ContentInput } from './input.js';
import type { Fact } from './material.js';
import { FACTS_PER_SECTION, LENGTH_RANK, PHRASES_PER_LIST, PLANS, type Fill } from './plans.js';
import { inPerson, opening, provenance, silence, type Topic } from './voice.js';

export interface ComposedSection {
  heading: string;
  paragraphs: string[];
  bullets: string[];
  quote: string[];
  /** The topic the description was silent on, when the section says so instead of stating facts. */
  silentOn: Topic | null;
}

interface Draft {
  input: ContentInput;
  facts: Fact[];
  /** Indexes of facts already written, so no fact is said twice. */
  used: Set<number>;
}

function take(draft: Draft, kinds: readonly string[] | null, limit: number): Fact[] {
  const picked = draft.facts.filter((f) => !draft.used.has(f.index) && (kinds === null || kinds.includes(f.kind))).slice(0, limit);
  picked.forEach((f) => draft.used.add(f.index));
  return picked;
}

function voiced(draft: Draft, facts: Fact[]): string[] {
  return facts.map((f) => inPerson(f.text, draft.input.style));
}

function bulletOf(sentence: string): string {
  return sentence.replace(/[.!?]+["'”)]?$/, '');
}

function fill(draft: Draft, how: Fill): Omit<ComposedSection, 'heading'> {
  const { input } = draft;
  const budget = FACTS_PER_SECTION[input.length];
  const empty = { paragraphs: [], bullets: [], quote: [], silentOn: null };
  switch (how.from) {
    case 'lead': {
      const lead = draft.facts[0];
      if (lead) draft.used.add(lead.index);
      const more = take(draft, how.kinds, budget - 1);
      return { ...empty, paragraphs: [opening(input.type, input.style, input.name), ...voiced(draft, lead ? [lead] : []), ...voiced(draft, more)] };
    }
    case 'facts': {
      const facts = take(draft, how.kinds, budget);
      if (facts.length === 0) return { ...empty, paragraphs: [silence(how.silence, input.style, input.name)], silentOn: how.silence };
      const sentences = voiced(draft, facts);
      return how.bullets ? { ...empty, bullets: sentences.map(bulletOf) } : { ...empty, paragraphs: sentences };
    }
    case 'phrases': {
      const phrases = [...new Set(draft.facts.flatMap((f) => f.clauses))].slice(0, PHRASES_PER_LIST[input.length]);
      return { ...empty, bullets: phrases.map((p) => bulletOf(inPerson(p, input.style))) };
    }
    case 'remaining': {
      const facts = take(draft, null, budget);
      return facts.length === 0
        ? { ...empty, paragraphs: [silence('details', input.style, input.name)], silentOn: 'details' }
        : { ...empty, paragraphs: voiced(draft, facts) };
    }
    case 'reference':
      return { ...empty, paragraphs: [provenance(input.style, input.name)], quote: input.description.split(/\r?\n/) };
  }
}

/**
 * Writes the sections of the requested type and length from the facts, in plan order. Every
 * fact is written at most once; a section whose topic the description never mentions says so.
 */
export function composeSections(input: ContentInput, facts: Fact[]): { sections: ComposedSection[]; factsWritten: number } {
  const draft: Draft = { input, facts, used: new Set() };
  const sections = PLANS[input.type]
    .filter((plan) => LENGTH_RANK[plan.minLength] <= LENGTH_RANK[input.length])
    .map((plan) => ({ heading: plan.heading(input.name, input.style), ...fill(draft, plan.fill) }));
  return { sections, factsWritten: draft.used.size };
}
