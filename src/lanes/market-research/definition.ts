import Type from 'typebox';
import { defineTaskType } from '../../task-types/define-task-type.js';
import { laneResult, payloadSchema, text } from '../../task-types/schema-kit.js';

/** The market-research task type: its catalog facts, payload and result contracts and the skills its lane uses. */
export const marketResearchType = defineTaskType({
  type: 'market-research',
  label: 'Market research',
  purpose: 'Reads explicit URLs or a source plan from allowlisted domains and extracts titles, headings, prices and dates.',
  agentId: 'market-research-agent',
  executor: 'worker',
  toolGatePreflight: true,
  retryable: true,
  dependencyClass: 'external',
  operationalStatus: 'externally-dependent',
  dependencyRequirements: ['outbound network access to allowlisted domains'],
  caveats: [
    'Private and loopback addresses and domains outside the allowlist are refused before any request (config marketResearch).',
    'Without network access the run fails as externally dependent; a plan from query or scope fetches nothing.',
  ],
  payloadSchema: payloadSchema('Research explicit URLs, or derive a source plan from query/scope hints.', {
    urls: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 2048 }), { maxItems: 20, description: 'Explicit source URLs.' }),
    ),
    query: Type.Optional(text('Research question or keywords.', { maxLength: 500 })),
    scope: Type.Optional(text('Market or domain hint for the source plan.', { maxLength: 500 })),
  }, { query: 'hosted task queue pricing' }),
  resultSchema: laneResult('Market research result.', {}),
  skills: ['http-fetch-allowlisted', 'html-extract'],
});
