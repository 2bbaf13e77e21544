import Type from 'typebox';
import { defineTaskType } from '../../task-types/define-task-type.js';
import { laneResult, payloadSchema, text } from '../../task-types/schema-kit.js';

/** The content-generate task type: its catalog facts, payload and result contracts and the skills its lane uses. */
export const contentGenerateType = defineTaskType({
  type: 'content-generate',
  label: 'Content generation',
  purpose: 'Writes operator notices, readmes and similar text from a named source.',
  agentId: 'content-agent',
  executor: 'worker',
  toolGatePreflight: true,
  retryable: true,
  plannerSafe: true,
  payloadSchema: payloadSchema('Generate text from a named source.', {
    type: Type.Optional(text('Kind of content, e.g. operator-notice or readme.', { maxLength: 100 })),
    source: Type.Object(
      {
        name: Type.String({ minLength: 1, maxLength: 200, description: 'Name of the subject.' }),
        description: Type.String({
          maxLength: 5000,
          description: 'What the subject is, in at least three words: the text is written from it and nothing is made up.',
        }),
      },
      { additionalProperties: true, description: 'The subject of the content: the only material the text is written from.' },
    ),
    style: Type.Optional(text('Voice, e.g. client-facing or technical.', { maxLength: 100 })),
    length: Type.Optional(text('Target length, e.g. short, medium or long.', { maxLength: 50 })),
  }, {
    type: 'operator-notice',
    source: { name: 'Nightly export', description: 'The nightly billing export now starts at 02:00 UTC and writes one CSV file per account.' },
    style: 'internal',
    length: 'short',
  }),
  resultSchema: laneResult('Content generation result: the generated text.', {
    title: Type.Optional(Type.String()),
    content: Type.Optional(Type.String({ description: 'The generated Markdown.' })),
  }),
  resultView: {
    text: {
      markdown: '/content',
      title: '/title',
      facts: [
        { label: 'type', value: '/type' },
        { label: 'style', value: '/style' },
        { label: 'length', value: '/length' },
        { label: 'words', value: '/wordCount' },
      ],
    },
  },
  // The deterministic path composes text from the payload's source and touches no tool. The
  // provider's draft goes through the service's model gateway (metered, allowed per lane) and is
  // optional: without a model the lane answers the deterministic text, so no skill is required.
  skills: [],
});
