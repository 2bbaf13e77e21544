import type { LanePayload } from '../../src/worker-sdk/lane-definition.js';
import { refuseLane, specialistContract, type LaneRefusal, type LaneResult } from '../../src/worker-sdk/lane-result.js';
import { composeSections } from './compose.js';
import { readContentInput, type ContentType, type Length, type Style } from './input.js';
import { factsOf } from './material.js';
import { titleFor } from './plans.js';
import { countWords, renderMarkdown, sectionBody } from './render.js';

export type ContentSuccess = LaneResult<{
  success: true;
  type: ContentType;
  style: Style;
  length: Length;
  title: string;
  content: string;
  wordCount: number;
  sections: Array<{ heading: string; text: string; wordCount: number }>;
  /** What the text was written from: only the payload's source, nothing else. */
  material: {
    source: string;
    descriptionSentences: number;
    sentencesUsed: number;
    /** Topics the description says nothing about; the text states that instead of filling them in. */
    silentOn: string[];
  };
}>;

export type ContentOutcome = ContentSuccess | LaneRefusal;

const IDENTITY = { role: 'content-agent', workflowStage: 'draft', deliverable: 'text written from the named source' };

/**
 * The content-generate lane on its deterministic path: writes the requested kind of text from
 * `payload.source`, naming the source and using the sentences and phrases of its description.
 * No clock, no randomness and no I/O, so the same payload always gives the same text.
 */
export function generateContent(payload: LanePayload<'content-generate'>): ContentOutcome {
  const input = readContentInput(payload);
  if ('problem' in input) {
    return refuseLane(IDENTITY, input.problem, [
      'Resend the task with source {name, description} (a description of at least a sentence), and optionally type, style and length.',
    ]);
  }
  const facts = factsOf(input.description, input.name);
  const { sections: composed, factsWritten } = composeSections(input, facts);
  const title = titleFor(input.type, input.name);
  const content = renderMarkdown(title, composed);
  const sections = composed.map((s) => {
    const text = sectionBody(s);
    return { heading: s.heading, text, wordCount: countWords(text) };
  });
  const wordCount = countWords(content);
  const silentOn = [...new Set(composed.flatMap((s) => (s.silentOn && s.silentOn !== 'details' ? [s.silentOn] : [])))];

  const actions = ['Review the text before publishing it: this lane writes the text only and sends it nowhere.'];
  if (silentOn.length > 0) {
    actions.push(`The description says nothing about ${silentOn.join(', ')}; add that to source.description and generate again if the text should cover it.`);
  }
  if (input.length !== 'long') actions.push('Ask for length "long" for every sentence of the description and a reference to it.');

  return {
    success: true,
    type: input.type,
    style: input.style,
    length: input.length,
    title,
    content,
    wordCount,
    sections,
    material: { source: 'payload.source.description', descriptionSentences: facts.length, sentencesUsed: factsWritten, silentOn },
    operatorSummary: `Wrote a ${input.length} ${input.style} ${input.type} about ${input.name}: ${wordCount} words in ${sections.length} sections (${sections.map((s) => s.heading).join(', ')}), from ${facts.length} sentence${facts.length === 1 ? '' : 's'} of its description.`,
    recommendedNextActions: actions,
    specialistContract: specialistContract({ ...IDENTITY, status: 'completed' }),
  };
}
